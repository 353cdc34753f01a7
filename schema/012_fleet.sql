-- 012_fleet: fleet health (issue 16). Schedules that submit one job per matching platform when due; per
-- platform and problem a robust baseline (median and MAD of the last K verified, unflagged results of the
-- current segment: a change of driver, compiler or ppbench version starts a new one), or an operator's floor
-- per device model; every new result judged against its baseline and its peers (same device model and
-- driver); a suspect confirmed by the next result of the same problem (an automatic repeat job when the result
-- came from a job) before the platform needs attention; alerts queued for the webhook thread.
-- The judging settings live in judge_settings, written by ppbenchd from its configuration (server/health.c).
CREATE TABLE schedules (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name          text NOT NULL UNIQUE CHECK (name ~ '^[A-Za-z0-9._-]{1,64}$'),
    spec          text NOT NULL CHECK (length(spec) BETWEEN 1 AND 128),
    -- the job every matching platform gets: suite, model, kernels, params (checked and completed with the
    -- defaults when the schedule was stored), priority, timeout_s, max_attempts
    job           jsonb NOT NULL,
    selector      jsonb NOT NULL DEFAULT '{}',                      -- {"kind": "gpu", "host": "node*"}
    host_like     text,                                            -- selector.host as a LIKE pattern
    paused        boolean NOT NULL DEFAULT false,
    due_at        timestamptz NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    last_fired_at timestamptz,
    last_job_ids  bigint[] NOT NULL DEFAULT '{}',
    fired         bigint NOT NULL DEFAULT 0
);
CREATE INDEX schedules_due ON schedules (due_at) WHERE NOT paused;

CREATE TABLE judge_settings (
    one               boolean PRIMARY KEY DEFAULT true CHECK (one),
    window_k          integer NOT NULL DEFAULT 20 CHECK (window_k >= 2),
    min_results       integer NOT NULL DEFAULT 5 CHECK (min_results >= 2),
    z_limit           double precision NOT NULL DEFAULT 4 CHECK (z_limit > 0),
    min_band          double precision NOT NULL DEFAULT 0.02 CHECK (min_band >= 0),
    outlier_mads      double precision NOT NULL DEFAULT 3 CHECK (outlier_mads > 0),
    outlier_min_peers integer NOT NULL DEFAULT 4 CHECK (outlier_min_peers >= 1)
);
INSERT INTO judge_settings DEFAULT VALUES;

-- An operator's floor per device model (platforms.name) and problem, as DCGM's per-SKU minimum bandwidth: a
-- verified result below it is a regression whatever its history.
CREATE TABLE baseline_floors (
    device     text NOT NULL,
    suite      text NOT NULL,
    kernel     text NOT NULL,
    precision  text NOT NULL CHECK (precision IN ('fp32', 'fp64')),
    floor      double precision NOT NULL CHECK (floor > 0 AND floor < 'Infinity'),   -- bytes/s
    set_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (device, suite, kernel, precision)
);

-- One row per platform and problem (suite, kernel, model, variant, precision, size): the current segment and
-- the baseline the last result was judged against.
CREATE TABLE baselines (
    platform_id       text NOT NULL REFERENCES platforms (id) ON DELETE CASCADE,
    suite             text NOT NULL,
    kernel            text NOT NULL,
    model             text NOT NULL,
    variant           text NOT NULL,
    precision         text NOT NULL,
    size              bigint NOT NULL,
    device            text NOT NULL,                   -- the platform's name (device model), for its peers
    driver            text NOT NULL,
    compiler          text NOT NULL,
    version           text NOT NULL,
    segment_from      bigint NOT NULL,                 -- the first result id of the segment
    segment_started   timestamptz NOT NULL DEFAULT now(),
    n                 integer NOT NULL DEFAULT 0,      -- results in the window
    median            double precision,
    mad               double precision,
    last_result_id    bigint,
    last_fom          double precision,
    last_z            double precision,
    last_verdict      text,
    suspect_result_id bigint,                          -- a suspect waiting for its repeat
    updated_at        timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (platform_id, suite, kernel, model, variant, precision, size)
);
CREATE INDEX baselines_peers ON baselines (suite, kernel, model, precision, size, device, driver);

-- Results judged other than ok, with what they were judged against (the evidence). Suspects and confirmed
-- ones stay out of later baseline windows.
CREATE TABLE result_verdicts (
    result_id       bigint PRIMARY KEY REFERENCES results (id) ON DELETE CASCADE,
    platform_id     text NOT NULL,
    verdict         text NOT NULL CHECK (verdict IN ('regressed', 'outlier', 'improved', 'verification_failed')),
    confirmed       boolean NOT NULL,
    z               double precision,
    baseline_median double precision,
    baseline_mad    double precision,
    baseline_n      integer,
    peers_median    double precision,
    peers_n         integer,
    reason          text NOT NULL,
    repeat_job_id   bigint,
    at              timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX result_verdicts_platform ON result_verdicts (platform_id, result_id);

-- Per platform: needs attention (regressed, outlier, verification_failed) with the reason and the evidence,
-- until a passing run of that problem or an admin clears it; ok otherwise. No row: never measured.
CREATE TABLE platform_health (
    platform_id     text PRIMARY KEY REFERENCES platforms (id) ON DELETE CASCADE,
    state           text NOT NULL CHECK (state IN ('ok', 'regressed', 'outlier', 'verification_failed')),
    reason          text,
    result_id       bigint,
    problem         text,
    since           timestamptz NOT NULL DEFAULT now(),
    last_result_id  bigint NOT NULL,
    last_result_at  timestamptz NOT NULL DEFAULT now()
);

-- Confirmed events and recoveries, for the webhook and the drain hook (server/alerts.c): claimed by pushing
-- next_at forward with FOR UPDATE SKIP LOCKED, so several ppbenchd deliver each once.
CREATE TABLE alerts (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind         text NOT NULL CHECK (kind IN ('raised', 'recovered', 'cleared')),
    platform_id  text NOT NULL,
    state        text NOT NULL,
    reason       text NOT NULL,
    doc          jsonb NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    pending      boolean NOT NULL DEFAULT true,   -- the webhook has not taken it yet
    hook_done    boolean NOT NULL DEFAULT false,  -- the drain hook ran (raised events only)
    attempts     integer NOT NULL DEFAULT 0,
    next_at      timestamptz NOT NULL DEFAULT now(),
    delivered_at timestamptz,
    last_error   text
);
CREATE INDEX alerts_pending ON alerts (next_at) WHERE pending;
