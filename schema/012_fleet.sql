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

-- The jobs of one firing of a schedule: one per platform that matches the selector, runs the model and has a
-- live worker. Tagged schedule:<id>. Returns their ids.
CREATE FUNCTION schedule_fire(p_id bigint) RETURNS bigint[] LANGUAGE sql AS $$
    WITH ins AS (
        INSERT INTO jobs (suite, kernels, model, platform_id, params, priority, timeout_s, max_attempts, tags)
        SELECT s.job->>'suite', ARRAY(SELECT jsonb_array_elements_text(s.job->'kernels')), s.job->>'model', p.id,
               s.job->'params', (s.job->>'priority')::int, (s.job->>'timeout_s')::int,
               (s.job->>'max_attempts')::int, ARRAY['schedule:' || s.id]
        FROM schedules s
        JOIN platforms p ON s.job->>'model' = ANY (p.models)
        JOIN hosts h ON h.id = p.host_id
        WHERE s.id = p_id AND (s.selector->>'kind' IS NULL OR p.kind = s.selector->>'kind')
          AND (s.host_like IS NULL OR h.name LIKE s.host_like)
          AND EXISTS (SELECT 1 FROM workers w WHERE w.platform_id = p.id AND w.state <> 'gone')
        ORDER BY p.id
        RETURNING id)
    SELECT coalesce(array_agg(id ORDER BY id), '{}') FROM ins
$$;

CREATE FUNCTION schedule_doc(s schedules) RETURNS jsonb LANGUAGE sql STABLE AS $$
    SELECT jsonb_build_object(
        'id', s.id, 'name', s.name, 'spec', s.spec, 'paused', s.paused, 'selector', s.selector,
        'suite', s.job->'suite', 'model', s.job->'model', 'kernels', s.job->'kernels', 'params', s.job->'params',
        'priority', s.job->'priority', 'timeout_s', s.job->'timeout_s', 'max_attempts', s.job->'max_attempts',
        'tag', 'schedule:' || s.id, 'due_at', s.due_at, 'created_at', s.created_at, 'fired', s.fired,
        'last', CASE WHEN s.last_fired_at IS NULL THEN NULL ELSE jsonb_build_object(
            'fired_at', s.last_fired_at, 'jobs', to_jsonb(s.last_job_ids),
            'states', (SELECT coalesce(jsonb_object_agg(st, n), '{}')
                       FROM (SELECT j.state AS st, count(*) AS n FROM jobs j WHERE j.id = ANY (s.last_job_ids)
                             GROUP BY j.state) c),
            'outcome', CASE WHEN cardinality(s.last_job_ids) = 0 THEN 'no matching platform'
                ELSE (SELECT CASE WHEN bool_or(j.state IN ('queued', 'running')) THEN 'running'
                             WHEN bool_and(j.state = 'succeeded') THEN 'succeeded'
                             ELSE 'failed' END
                 FROM jobs j WHERE j.id = ANY (s.last_job_ids)) END) END)
$$;

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

CREATE FUNCTION health_alert(p_kind text, p_platform text, p_state text, p_reason text, p_result bigint,
                             p_problem text) RETURNS void LANGUAGE sql AS $$
    INSERT INTO alerts (kind, platform_id, state, reason, doc)
    SELECT p_kind, p_platform, p_state, p_reason, jsonb_build_object(
        'event', p_kind, 'platform', p_platform, 'state', p_state, 'reason', p_reason, 'problem', p_problem,
        'result_id', p_result, 'host', h.name, 'device', p.name, 'at', now(),
        'evidence', '/#/platform?id=' || p_platform)
    FROM platforms p LEFT JOIN hosts h ON h.id = p.host_id WHERE p.id = p_platform
$$;

-- The platform needs attention (a confirmed regression or outlier, a failed verification). An attention
-- already raised stays as it is (one event until it recovers).
CREATE FUNCTION health_raise(p_platform text, p_state text, p_reason text, p_result bigint, p_problem text)
    RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    v_old text;
BEGIN
    SELECT state INTO v_old FROM platform_health WHERE platform_id = p_platform FOR UPDATE;
    IF v_old IS NOT NULL AND v_old <> 'ok' THEN
        UPDATE platform_health SET last_result_id = p_result, last_result_at = now() WHERE platform_id = p_platform;
        RETURN;
    END IF;
    INSERT INTO platform_health AS h (platform_id, state, reason, result_id, problem, since, last_result_id)
        VALUES (p_platform, p_state, p_reason, p_result, p_problem, now(), p_result)
        ON CONFLICT (platform_id) DO UPDATE SET state = EXCLUDED.state, reason = EXCLUDED.reason,
            result_id = EXCLUDED.result_id, problem = EXCLUDED.problem, since = now(),
            last_result_id = EXCLUDED.last_result_id, last_result_at = now();
    PERFORM health_alert('raised', p_platform, p_state, p_reason, p_result, p_problem);
END
$$;

-- A passing run (verified, in its band): the platform recovers when its attention came from this problem.
CREATE FUNCTION health_pass(p_platform text, p_problem text, p_result bigint) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    v_h platform_health;
BEGIN
    SELECT * INTO v_h FROM platform_health WHERE platform_id = p_platform FOR UPDATE;
    IF NOT FOUND THEN
        INSERT INTO platform_health (platform_id, state, last_result_id) VALUES (p_platform, 'ok', p_result)
            ON CONFLICT (platform_id) DO UPDATE SET last_result_id = p_result, last_result_at = now();
        RETURN;
    END IF;
    IF v_h.state <> 'ok' AND v_h.problem = p_problem THEN
        UPDATE platform_health SET state = 'ok', reason = NULL, result_id = p_result, problem = NULL, since = now(),
            last_result_id = p_result, last_result_at = now() WHERE platform_id = p_platform;
        PERFORM health_alert('recovered', p_platform, 'ok',
                             format('%s passes again (result %s) after: %s', p_problem, p_result, v_h.reason),
                             p_result, p_problem);
    ELSE
        UPDATE platform_health SET last_result_id = p_result, last_result_at = now() WHERE platform_id = p_platform;
    END IF;
END
$$;

-- An admin clears a platform's attention. Returns false when it needed none.
CREATE FUNCTION health_clear(p_platform text, p_by text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
    v_h platform_health;
BEGIN
    SELECT * INTO v_h FROM platform_health WHERE platform_id = p_platform FOR UPDATE;
    IF NOT FOUND OR v_h.state = 'ok' THEN
        RETURN false;
    END IF;
    UPDATE platform_health SET state = 'ok', reason = NULL, result_id = NULL, problem = NULL, since = now()
        WHERE platform_id = p_platform;
    PERFORM health_alert('cleared', p_platform, 'ok', format('cleared by %s after: %s', p_by, v_h.reason),
                         v_h.result_id, v_h.problem);
    RETURN true;
END
$$;

-- The automatic repeat of a suspect result's job, on the platform it ran on, tagged repeat:<job>; one per
-- job, and a repeat is not repeated (its result confirms or clears).
CREATE FUNCTION judge_repeat(p_job bigint) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    v_id bigint;
BEGIN
    INSERT INTO jobs (suite, kernels, model, platform_id, params, priority, timeout_s, max_attempts, tags)
    SELECT j.suite, j.kernels, j.model, coalesce(j.ran_on, j.platform_id), j.params, least(j.priority + 1, 1000),
           j.timeout_s, j.max_attempts, ARRAY['repeat:' || j.id]
    FROM jobs j
    WHERE j.id = p_job AND coalesce(j.ran_on, j.platform_id) IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM unnest(j.tags) t WHERE t LIKE 'repeat:%')
      AND NOT EXISTS (SELECT 1 FROM jobs r WHERE r.tags @> ARRAY['repeat:' || p_job]
                      AND r.state IN ('queued', 'running'))
    RETURNING id INTO v_id;
    RETURN v_id;
END
$$;

-- Judging one new result (after insert, any path: a worker's report, an import, SQL). Cost: one index range
-- of at most K rows of its own history, one look at its peers' baselines (index), a few single-row writes.
CREATE FUNCTION results_verdict() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    s judge_settings;
    b baselines;
    v_problem text := format('%s.%s %s %s size %s', NEW.suite, NEW.kernel, NEW.model, NEW.precision, NEW.size)
                      || CASE WHEN NEW.variant <> '' THEN ' variant ' || NEW.variant ELSE '' END;
    v_driver text := coalesce(NEW.provenance->>'cuda.driver_version', NEW.provenance->>'opencl.driver_version',
                              NEW.provenance->>'driver', '');
    v_compiler text := coalesce(NEW.provenance->>'compiler', '');
    v_version text := coalesce(NEW.provenance->>'ppbench.version', '');
    v_device text;
    x double precision := NEW.bandwidth;
    v_n integer;
    v_med double precision;
    v_mad double precision;
    v_z double precision;
    v_floor double precision;
    v_pn integer;
    v_pmed double precision;
    v_pmad double precision;
    v_verdict text := 'ok';
    v_reason text;
    v_repeat bigint;
BEGIN
    IF NOT NEW.verified THEN
        v_reason := format('verification failed on %s: %s', v_problem, coalesce(NEW.error, 'no reason given'));
        INSERT INTO result_verdicts (result_id, platform_id, verdict, confirmed, reason)
            VALUES (NEW.id, NEW.platform_id, 'verification_failed', true, v_reason);
        PERFORM health_raise(NEW.platform_id, 'verification_failed', v_reason, NEW.id, v_problem);
        RETURN NULL;
    END IF;
    IF NEW.flags <> '{}' THEN
        -- noisy or above the ceiling: no figure to judge; the platform was measured all the same
        INSERT INTO platform_health (platform_id, state, last_result_id) VALUES (NEW.platform_id, 'ok', NEW.id)
            ON CONFLICT (platform_id) DO UPDATE SET last_result_id = NEW.id, last_result_at = now();
        RETURN NULL;
    END IF;
    SELECT * INTO s FROM judge_settings;
    SELECT name INTO v_device FROM platforms WHERE id = NEW.platform_id;

    SELECT * INTO b FROM baselines
        WHERE (platform_id, suite, kernel, model, variant, precision, size)
            = (NEW.platform_id, NEW.suite, NEW.kernel, NEW.model, NEW.variant, NEW.precision, NEW.size) FOR UPDATE;
    IF NOT FOUND OR (b.driver, b.compiler, b.version) IS DISTINCT FROM (v_driver, v_compiler, v_version) THEN
        INSERT INTO baselines AS o (platform_id, suite, kernel, model, variant, precision, size, device, driver,
                                    compiler, version, segment_from)
            VALUES (NEW.platform_id, NEW.suite, NEW.kernel, NEW.model, NEW.variant, NEW.precision, NEW.size,
                    coalesce(v_device, ''), v_driver, v_compiler, v_version, NEW.id)
            ON CONFLICT (platform_id, suite, kernel, model, variant, precision, size) DO UPDATE SET
                device = EXCLUDED.device, driver = EXCLUDED.driver, compiler = EXCLUDED.compiler, version = EXCLUDED.version,
                segment_from = EXCLUDED.segment_from, segment_started = now(), n = 0, median = NULL, mad = NULL,
                suspect_result_id = NULL
            RETURNING * INTO b;
    END IF;

    -- the window: the last K results of the segment before this one, suspects and confirmed ones left out
    WITH w AS (
        SELECT r.bandwidth AS f FROM results r
        WHERE r.suite = NEW.suite AND r.kernel = NEW.kernel AND r.platform_id = NEW.platform_id
          AND r.model = NEW.model AND r.precision = NEW.precision AND r.size = NEW.size
          AND r.variant = NEW.variant AND r.id >= b.segment_from AND r.id < NEW.id AND r.verified
          AND r.flags = '{}'
          AND NOT EXISTS (SELECT 1 FROM result_verdicts v WHERE v.result_id = r.id
                          AND v.verdict IN ('regressed', 'outlier'))
        ORDER BY r.id DESC LIMIT s.window_k),
    m AS (SELECT count(*) AS n, percentile_cont(0.5) WITHIN GROUP (ORDER BY f) AS med FROM w)
    SELECT m.n, m.med, (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY abs(w.f - m.med)) FROM w)
        INTO v_n, v_med, v_mad FROM m;
    IF v_n >= s.min_results AND v_med > 0 THEN
        v_z := (x - v_med) / greatest(1.4826 * v_mad, s.min_band * v_med, 1e-300);
    END IF;

    SELECT f.floor INTO v_floor FROM baseline_floors f
        WHERE f.device = v_device AND f.suite = NEW.suite AND f.kernel = NEW.kernel AND f.precision = NEW.precision;

    -- peers: the same problem on the same device model and driver elsewhere in the fleet
    WITH p AS (
        SELECT coalesce(pb.median, pb.last_fom) AS f FROM baselines pb
        WHERE pb.suite = NEW.suite AND pb.kernel = NEW.kernel AND pb.model = NEW.model
          AND pb.precision = NEW.precision AND pb.size = NEW.size AND pb.device = coalesce(v_device, '')
          AND pb.driver = v_driver AND pb.variant = NEW.variant AND pb.platform_id <> NEW.platform_id
          AND coalesce(pb.median, pb.last_fom) IS NOT NULL),
    m AS (SELECT count(*) AS n, percentile_cont(0.5) WITHIN GROUP (ORDER BY f) AS med FROM p)
    SELECT m.n, m.med, (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY abs(p.f - m.med)) FROM p)
        INTO v_pn, v_pmed, v_pmad FROM m;

    IF v_floor IS NOT NULL AND x < v_floor THEN
        v_verdict := 'regressed';
        v_reason := format('%s: %s GB/s, below the floor of %s GB/s set for %s', v_problem, round((x / 1e9)::numeric, 2),
                           round((v_floor / 1e9)::numeric, 2), v_device);
    ELSIF v_z < -s.z_limit THEN
        v_verdict := 'regressed';
        v_reason := format('%s: %s GB/s, %s%% below its baseline %s GB/s (z = %s; median of %s results since %s)',
                           v_problem, round((x / 1e9)::numeric, 2), round((100 * (1 - x / v_med))::numeric, 1),
                           round((v_med / 1e9)::numeric, 2), round(v_z::numeric, 1), v_n,
                           to_char(b.segment_started AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'));
    ELSIF v_pn >= s.outlier_min_peers AND v_pmed > 0
          AND x < v_pmed - s.outlier_mads * greatest(v_pmad, s.min_band * v_pmed) THEN
        v_verdict := 'outlier';
        v_reason := format('%s: %s GB/s, %s%% below the median %s GB/s of %s peers (%s, driver %s)', v_problem,
                           round((x / 1e9)::numeric, 2), round((100 * (1 - x / v_pmed))::numeric, 1),
                           round((v_pmed / 1e9)::numeric, 2), v_pn, v_device, coalesce(nullif(v_driver, ''), 'unknown'));
    ELSIF v_z > s.z_limit THEN
        v_verdict := 'improved';
        v_reason := format('%s: %s GB/s, %s%% above its baseline %s GB/s (z = %s)', v_problem,
                           round((x / 1e9)::numeric, 2), round((100 * (x / v_med - 1))::numeric, 1),
                           round((v_med / 1e9)::numeric, 2), round(v_z::numeric, 1));
    END IF;

    IF v_verdict IN ('regressed', 'outlier') THEN
        IF b.suspect_result_id IS NOT NULL THEN
            v_reason := v_reason || format(' (confirmed by a repeat: results %s and %s)', b.suspect_result_id, NEW.id);
            PERFORM health_raise(NEW.platform_id, v_verdict, v_reason, NEW.id, v_problem);
            b.suspect_result_id := NULL;
        ELSE
            b.suspect_result_id := NEW.id;
            IF NEW.job_id IS NOT NULL THEN
                v_repeat := judge_repeat(NEW.job_id);
            END IF;
        END IF;
        INSERT INTO result_verdicts (result_id, platform_id, verdict, confirmed, z, baseline_median, baseline_mad,
                                     baseline_n, peers_median, peers_n, reason, repeat_job_id)
            VALUES (NEW.id, NEW.platform_id, v_verdict, b.suspect_result_id IS NULL, v_z, v_med, v_mad, v_n, v_pmed,
                    v_pn, v_reason, v_repeat);
    ELSE
        b.suspect_result_id := NULL;
        IF v_verdict = 'improved' THEN
            INSERT INTO result_verdicts (result_id, platform_id, verdict, confirmed, z, baseline_median,
                                         baseline_mad, baseline_n, reason)
                VALUES (NEW.id, NEW.platform_id, v_verdict, true, v_z, v_med, v_mad, v_n, v_reason);
        END IF;
        PERFORM health_pass(NEW.platform_id, v_problem, NEW.id);
    END IF;

    UPDATE baselines SET n = v_n, median = v_med, mad = v_mad, last_result_id = NEW.id, last_fom = x, last_z = v_z,
        last_verdict = v_verdict, suspect_result_id = b.suspect_result_id, updated_at = now()
    WHERE (platform_id, suite, kernel, model, variant, precision, size)
        = (NEW.platform_id, NEW.suite, NEW.kernel, NEW.model, NEW.variant, NEW.precision, NEW.size);
    RETURN NULL;
END
$$;
CREATE TRIGGER results_verdict AFTER INSERT ON results FOR EACH ROW EXECUTE FUNCTION results_verdict();

-- The Health page's document: every platform with its state (a stale or gone worker, never measured, or the
-- judged state), reason and evidence, the counts by state, and the schedules.
CREATE FUNCTION health_doc(p_stale_s double precision) RETURNS jsonb LANGUAGE sql STABLE AS $$
    WITH pl AS (
        SELECT p.id, p.name, p.kind, h.name AS host, ph.state AS judged, ph.reason, ph.result_id, ph.problem,
               ph.since, ph.last_result_at, w.state AS wstate, w.last_heartbeat,
               CASE WHEN ph.state IS NOT NULL AND ph.state <> 'ok' THEN ph.state
                    WHEN p.host_id IS NOT NULL AND (w.id IS NULL OR w.state = 'gone'
                         OR w.last_heartbeat < now() - make_interval(secs => p_stale_s)) THEN 'stale_worker'
                    WHEN ph.platform_id IS NULL THEN 'never_measured'
                    ELSE 'ok' END AS state
        FROM platforms p
        LEFT JOIN hosts h ON h.id = p.host_id
        LEFT JOIN platform_health ph ON ph.platform_id = p.id
        LEFT JOIN LATERAL (SELECT * FROM workers w WHERE w.platform_id = p.id ORDER BY (w.state <> 'gone') DESC, w.id DESC
                           LIMIT 1) w ON true)
    SELECT jsonb_build_object(
        'platforms', coalesce((SELECT jsonb_agg(jsonb_build_object(
            'id', pl.id, 'name', pl.name, 'kind', pl.kind, 'host', pl.host, 'state', pl.state,
            'reason', CASE pl.state
                WHEN 'stale_worker' THEN CASE WHEN pl.wstate IS NULL THEN 'no worker has served it'
                    WHEN pl.wstate = 'gone' THEN 'its worker is gone'
                    ELSE format('no heartbeat since %s', to_char(pl.last_heartbeat AT TIME ZONE 'UTC',
                                                                 'YYYY-MM-DD"T"HH24:MI:SS"Z"')) END
                WHEN 'never_measured' THEN 'no result yet'
                ELSE pl.reason END,
            'problem', pl.problem, 'result_id', pl.result_id, 'since', pl.since,
            'last_result_at', pl.last_result_at,
            'evidence', CASE WHEN pl.result_id IS NOT NULL THEN '#/platform?id=' || pl.id END)
            ORDER BY pl.id) FROM pl), '[]'),
        'counts', (SELECT jsonb_object_agg(s, (SELECT count(*) FROM pl WHERE pl.state = s))
                   FROM unnest(ARRAY['ok', 'regressed', 'outlier', 'verification_failed', 'stale_worker',
                                     'never_measured']) s))
$$;

-- A Prometheus label value: backslash, double quote and newline escaped.
CREATE FUNCTION prom_label(v text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT replace(replace(replace(coalesce(v, ''), '\', '\\'), '"', '\"'), chr(10), '\n')
$$;

-- The database's part of GET /metrics (server/metrics.c adds the process's counters): jobs and workers by
-- state, platforms by health, and per platform and problem the last verified figure, its baseline and the
-- platform's health. Cardinality is bounded: the per-platform families keep at most p_limit series each (the
-- most recently updated), and ppbench_metrics_series_dropped says how many were left out; states are fixed
-- sets; no id of a job or result is a label.
CREATE FUNCTION metrics_text(p_stale_s double precision, p_limit integer) RETURNS text LANGUAGE sql STABLE
    SET jit = off AS $$
    WITH js AS (SELECT s, (SELECT count(*) FROM jobs j WHERE j.state = s) AS n
                FROM unnest(ARRAY['queued', 'running', 'succeeded', 'failed', 'cancelled']) s),
    ws AS (SELECT s, (SELECT count(*) FROM workers w WHERE CASE WHEN w.state <> 'gone'
                          AND w.last_heartbeat < now() - make_interval(secs => p_stale_s) THEN 'stale'
                          ELSE w.state END = s) AS n
           FROM unnest(ARRAY['idle', 'busy', 'stale', 'gone']) s),
    pl AS (
        SELECT p.id, p.name, h.name AS host,
               CASE WHEN ph.state IS NOT NULL AND ph.state <> 'ok' THEN ph.state
                    WHEN p.host_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM workers w WHERE w.platform_id = p.id
                         AND w.state <> 'gone' AND w.last_heartbeat >= now() - make_interval(secs => p_stale_s))
                    THEN 'stale_worker'
                    WHEN ph.platform_id IS NULL THEN 'never_measured' ELSE 'ok' END AS state,
               coalesce(ph.last_result_at, p.last_seen) AS at
        FROM platforms p LEFT JOIN hosts h ON h.id = p.host_id LEFT JOIN platform_health ph ON ph.platform_id = p.id),
    ps AS (SELECT s, (SELECT count(*) FROM pl WHERE pl.state = s) AS n
           FROM unnest(ARRAY['ok', 'regressed', 'outlier', 'verification_failed', 'stale_worker',
                             'never_measured']) s),
    pk AS (SELECT * FROM pl ORDER BY at DESC, id LIMIT p_limit),
    bl AS (
        SELECT DISTINCT ON (b.platform_id, b.suite, b.kernel, b.model, b.precision, b.size) b.*, p.name, h.name AS host
        FROM baselines b JOIN platforms p ON p.id = b.platform_id LEFT JOIN hosts h ON h.id = p.host_id
        WHERE b.last_fom IS NOT NULL
        ORDER BY b.platform_id, b.suite, b.kernel, b.model, b.precision, b.size, b.updated_at DESC),
    bk AS (SELECT *, format('host="%s",platform="%s",device="%s",suite="%s",kernel="%s",model="%s",precision="%s",size="%s"',
                            prom_label(host), prom_label(platform_id), prom_label(name), prom_label(suite),
                            prom_label(kernel), prom_label(model), precision, size) AS labels
           FROM bl ORDER BY updated_at DESC LIMIT p_limit)
    SELECT concat(
        E'# HELP ppbench_queue_depth Jobs waiting for a worker.\n# TYPE ppbench_queue_depth gauge\n',
        'ppbench_queue_depth ', (SELECT n FROM js WHERE s = 'queued'), E'\n',
        E'# HELP ppbench_jobs Jobs in the database by state.\n# TYPE ppbench_jobs gauge\n',
        (SELECT string_agg(format(E'ppbench_jobs{state="%s"} %s\n', s, n), '' ORDER BY s) FROM js),
        E'# HELP ppbench_workers Workers by state (stale: no heartbeat within the lease).\n# TYPE ppbench_workers gauge\n',
        (SELECT string_agg(format(E'ppbench_workers{state="%s"} %s\n', s, n), '' ORDER BY s) FROM ws),
        E'# HELP ppbench_platforms Platforms by health state.\n# TYPE ppbench_platforms gauge\n',
        (SELECT string_agg(format(E'ppbench_platforms{state="%s"} %s\n', s, n), '' ORDER BY s) FROM ps),
        E'# HELP ppbench_alerts_pending Health alerts the webhook has not taken yet.\n# TYPE ppbench_alerts_pending gauge\n',
        'ppbench_alerts_pending ', (SELECT count(*) FROM alerts WHERE pending), E'\n',
        E'# HELP ppbench_platform_health The platform''s health state (1 for its current state).\n# TYPE ppbench_platform_health gauge\n',
        (SELECT string_agg(format(E'ppbench_platform_health{host="%s",platform="%s",device="%s",state="%s"} 1\n',
                                  prom_label(host), prom_label(id), prom_label(name), state), '' ORDER BY id) FROM pk),
        E'# HELP ppbench_result_bytes_per_second The last verified, unflagged figure of merit per platform and problem.\n# TYPE ppbench_result_bytes_per_second gauge\n',
        (SELECT string_agg(format(E'ppbench_result_bytes_per_second{%s} %s\n', labels, last_fom), ''
                           ORDER BY platform_id, suite, kernel, model, precision, size) FROM bk),
        E'# HELP ppbench_baseline_bytes_per_second The baseline (median of the window) of that figure.\n# TYPE ppbench_baseline_bytes_per_second gauge\n',
        (SELECT string_agg(format(E'ppbench_baseline_bytes_per_second{%s} %s\n', labels, median), ''
                           ORDER BY platform_id, suite, kernel, model, precision, size) FROM bk WHERE median IS NOT NULL),
        E'# HELP ppbench_metrics_series_dropped Per-platform series left out by the metrics_max_series bound.\n# TYPE ppbench_metrics_series_dropped gauge\n',
        'ppbench_metrics_series_dropped ',
        greatest((SELECT count(*) FROM pl) - p_limit, 0) + greatest((SELECT count(*) FROM bl) - p_limit, 0), E'\n')
$$;
