-- 010_policies: variant policies (paper 003 Sec. 6, issue 13 items 5-6). An application is a set of (model,
-- variant) members: on each platform it runs its best verified member. GET /api/v1/pp/policies asks
-- pp_policies for every policy of a problem: per model, the best variant per platform and each variant
-- alone ("one variant everywhere"), plus the subsets the user names; ppbenchd adds each policy's code
-- divergence from the line sets it embeds (server/linesets.c). docs/METHODOLOGY.md, "Variant policies".
--
-- A variant a platform cannot run is a job that failed with "unsupported: ..." (the worker's exit 3): the
-- job stays failed, and this trigger keeps the fact in pp_unsupported, one row per platform, suite, kernel,
-- model, variant and precision (the latest job's reason). A verified result of the same key outranks it.
-- Only jobs that named their variant are recorded: a default variant is the device's choice.
CREATE TABLE pp_unsupported (
    platform_id text NOT NULL REFERENCES platforms (id) ON DELETE CASCADE,
    suite       text NOT NULL,
    kernel      text NOT NULL,
    model       text NOT NULL,
    variant     text NOT NULL,
    precision   text NOT NULL,
    job_id      bigint REFERENCES jobs (id) ON DELETE SET NULL,
    reason      text NOT NULL,
    at          timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (platform_id, suite, kernel, precision, model, variant)
);
