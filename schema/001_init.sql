-- 001_init: hosts, platforms, workers, jobs and their events, results, API tokens.
-- Applied once by ppbenchd at start, inside one transaction, recorded in schema_migrations.
-- Constraints keep bad data out: states are CHECKed, figures are non-negative, a job has a finish time exactly
-- when it is in a terminal state, and a running job always has a holder and a lease.
CREATE TABLE hosts (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name        text NOT NULL UNIQUE CHECK (name ~ '^[A-Za-z0-9._-]{1,128}$'),
    info        jsonb NOT NULL DEFAULT '{}',
    first_seen  timestamptz NOT NULL DEFAULT now(),
    last_seen   timestamptz NOT NULL DEFAULT now()
);

-- A platform is one physical device. Its fleet-wide id is "<host>/<local id>" (e.g. node7/gpu0) for a device a
-- worker registered, or a name an import chose (host_id NULL).
CREATE TABLE platforms (
    id              text PRIMARY KEY CHECK (id ~ '^[A-Za-z0-9._/:-]{1,160}$'),
    host_id         bigint REFERENCES hosts (id) ON DELETE CASCADE,
    local_id        text,
    kind            text NOT NULL CHECK (kind IN ('cpu', 'gpu', 'accel')),
    name            text NOT NULL,
    vendor          text NOT NULL DEFAULT '',
    uuid            text NOT NULL DEFAULT '',
    pci_bus_id      text NOT NULL DEFAULT '',
    memory_bytes    bigint NOT NULL DEFAULT 0 CHECK (memory_bytes >= 0),
    compute_units   integer NOT NULL DEFAULT 0 CHECK (compute_units >= 0),
    peak_bandwidth  double precision CHECK (peak_bandwidth > 0),          -- bytes/s; NULL when unknown
    peak_source     text NOT NULL DEFAULT '',
    models          text[] NOT NULL DEFAULT '{}',
    first_seen      timestamptz NOT NULL DEFAULT now(),
    last_seen       timestamptz NOT NULL DEFAULT now(),
    UNIQUE (host_id, local_id)
);

CREATE TABLE api_tokens (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    role        text NOT NULL CHECK (role IN ('read', 'submit', 'worker', 'admin')),
    name        text NOT NULL DEFAULT '',
    hash        text NOT NULL UNIQUE CHECK (hash ~ '^[0-9a-f]{64}$'),       -- sha256 of the token, hex
    created_at  timestamptz NOT NULL DEFAULT now(),
    revoked_at  timestamptz
);

CREATE TABLE workers (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    host_id         bigint NOT NULL REFERENCES hosts (id) ON DELETE CASCADE,
    platform_id     text NOT NULL REFERENCES platforms (id) ON DELETE CASCADE,
    pid             integer NOT NULL CHECK (pid > 0),
    version         text NOT NULL DEFAULT '',
    state           text NOT NULL DEFAULT 'idle' CHECK (state IN ('idle', 'busy', 'gone')),
    started_at      timestamptz NOT NULL DEFAULT now(),
    last_heartbeat  timestamptz NOT NULL DEFAULT now(),
    gone_at         timestamptz,
    CHECK ((state = 'gone') = (gone_at IS NOT NULL))
);
-- Exactly one live worker serves a platform.
CREATE UNIQUE INDEX workers_one_per_platform ON workers (platform_id) WHERE state <> 'gone';

CREATE TABLE jobs (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    state           text NOT NULL DEFAULT 'queued'
                    CHECK (state IN ('queued', 'running', 'succeeded', 'failed', 'cancelled')),
    suite           text NOT NULL CHECK (suite ~ '^[a-z][a-z0-9_]{0,31}$'),
    kernels         text[] NOT NULL CHECK (cardinality(kernels) > 0),
    model           text NOT NULL CHECK (model ~ '^[a-z][a-z0-9_-]{0,31}$'),
    platform_id     text REFERENCES platforms (id) ON DELETE SET NULL,  -- NULL: any platform the selector allows
    selector        jsonb NOT NULL DEFAULT '{}',
    params          jsonb NOT NULL DEFAULT '{}',
    priority        integer NOT NULL DEFAULT 0 CHECK (priority BETWEEN -1000 AND 1000),
    timeout_s       integer NOT NULL DEFAULT 600 CHECK (timeout_s BETWEEN 1 AND 86400),
    tags            text[] NOT NULL DEFAULT '{}',
    attempts        integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    max_attempts    integer NOT NULL DEFAULT 3 CHECK (max_attempts BETWEEN 1 AND 100),
    epoch           bigint NOT NULL DEFAULT 0 CHECK (epoch >= 0),           -- fencing token of the current claim
    worker_id       bigint REFERENCES workers (id) ON DELETE SET NULL,
    ran_on          text REFERENCES platforms (id) ON DELETE SET NULL,
    lease_expires   timestamptz,
    progress        double precision NOT NULL DEFAULT 0 CHECK (progress BETWEEN 0 AND 1),
    error           text,
    submitted_by    bigint REFERENCES api_tokens (id) ON DELETE SET NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    started_at      timestamptz,                                          -- first claim
    claimed_at      timestamptz,                                          -- current attempt's claim
    finished_at     timestamptz,
    CHECK ((state IN ('succeeded', 'failed', 'cancelled')) = (finished_at IS NOT NULL)),
    CHECK (state <> 'running' OR (worker_id IS NOT NULL AND lease_expires IS NOT NULL)),
    CHECK (state <> 'failed' OR error IS NOT NULL),
    CHECK (finished_at IS NULL OR finished_at >= created_at)
);
CREATE INDEX jobs_queue ON jobs (priority DESC, id) WHERE state = 'queued';
CREATE INDEX jobs_running_lease ON jobs (lease_expires) WHERE state = 'running';
CREATE INDEX jobs_state_id ON jobs (state, id);

-- State changes and progress, in order, for Server-Sent Events (a client that reconnects resumes by id).
CREATE TABLE job_events (
    id      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    job_id  bigint NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    at      timestamptz NOT NULL DEFAULT now(),
    kind    text NOT NULL CHECK (kind IN ('state', 'progress')),
    data    jsonb NOT NULL
);
CREATE INDEX job_events_job ON job_events (job_id, id);

-- One row per kernel of a run. A failed verification is stored (verified = false, error set) and never counts.
CREATE TABLE results (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    job_id          bigint REFERENCES jobs (id) ON DELETE CASCADE,
    platform_id     text NOT NULL REFERENCES platforms (id) ON DELETE CASCADE,
    suite           text NOT NULL,
    kernel          text NOT NULL,
    model           text NOT NULL,
    variant         text NOT NULL DEFAULT '',
    precision       text NOT NULL CHECK (precision IN ('fp32', 'fp64')),
    size            bigint NOT NULL CHECK (size > 0),
    bytes           double precision NOT NULL CHECK (bytes >= 0),           -- byte model per application
    flops           double precision NOT NULL CHECK (flops >= 0),           -- flop model per application
    times_s         double precision[] NOT NULL,
    min_s           double precision NOT NULL CHECK (min_s >= 0),
    max_s           double precision NOT NULL CHECK (max_s >= min_s),
    mean_s          double precision NOT NULL CHECK (mean_s >= 0),
    median_s        double precision NOT NULL CHECK (median_s >= 0),
    stddev_s        double precision NOT NULL CHECK (stddev_s >= 0),
    bandwidth       double precision NOT NULL CHECK (bandwidth >= 0),       -- bytes/s from min_s
    gflops          double precision NOT NULL CHECK (gflops >= 0),
    verified        boolean NOT NULL,
    error           text,
    provenance      jsonb NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    CHECK (verified OR error IS NOT NULL)
);
CREATE INDEX results_lookup ON results (suite, kernel, platform_id, model, created_at);
CREATE INDEX results_job ON results (job_id);
