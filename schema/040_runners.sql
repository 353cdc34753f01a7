-- 040_runners: external runners (issue 27). A worker registers the runners its host defines for its platform
-- (worker/runners.h) beside the models its devices run: platforms.runners keeps what each is ([{name, suite,
-- kernels, output, program}]) and platforms.models lists their names with the models, so a job names a runner
-- as its model and the claim and the submission's platform check need nothing new. A runner's result is
-- stored with origin 'runner': ppbench's byte and flop models, the program's minimum, maximum and mean time
-- (a program such as BabelStream prints no samples, so no median or deviation) and the program's own
-- verification (result_doc's verified_by).
ALTER TABLE platforms ADD COLUMN runners jsonb NOT NULL DEFAULT '[]';
ALTER TABLE results DROP CONSTRAINT results_origin_check;
ALTER TABLE results ADD CONSTRAINT results_origin_check CHECK (origin IN ('worker', 'import', 'runner'));
ALTER TABLE results DROP CONSTRAINT results_worker_rows_complete;
ALTER TABLE results ADD CONSTRAINT results_worker_rows_complete
    CHECK (origin <> 'worker' OR (times_s IS NOT NULL AND median_s IS NOT NULL AND stddev_s IS NOT NULL));
