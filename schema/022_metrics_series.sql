-- 022_metrics_series: GET /metrics without work per scrape that grows with the fleet's history (issue 16).
-- 012's metrics_text found each platform and problem's last figure with a DISTINCT ON over every baseline and
-- formatted every label set and line at each scrape (201 ms p95 with 28,000 baselines). Here each
-- (platform, suite, kernel, model, precision, size) has one row in metric_series holding its two exposition
-- lines already rendered (the last verified, unflagged figure, and the median it was judged against),
-- written by the judging round that judged it (judge_round, 023: one more upsert in its statement) and rebuilt from
-- the baselines when a platform's labels change (its name or host) or a writer other than judging filled the
-- baselines (metric_series_rebuild). A scrape reads the newest metrics_max_series rows by an index, in that
-- order, and concatenates them.
CREATE TABLE metric_series (
    platform_id    text NOT NULL REFERENCES platforms (id) ON DELETE CASCADE,
    suite          text NOT NULL,
    kernel         text NOT NULL,
    model          text NOT NULL,
    precision      text NOT NULL,
    size           bigint NOT NULL,
    updated_at     timestamptz NOT NULL,
    fom_line       text NOT NULL,   -- 'ppbench_result_bytes_per_second{...} <bytes/s>' and a newline
    baseline_line  text,            -- 'ppbench_baseline_bytes_per_second{...} <bytes/s>' and a newline, or NULL
    PRIMARY KEY (platform_id, suite, kernel, model, precision, size)
);
CREATE INDEX metric_series_recent ON metric_series (updated_at DESC);

-- @after-functions: what follows runs once the current functions exist (schema/functions/)
SELECT metric_series_rebuild(NULL);
