-- 028_noise: noise judged on the statistic a figure is taken from, and repeated before it is flagged (issue
-- 22). Each result stores its noise (lib/stats.h's stats_noise, derived by ppbenchd from the samples:
-- best_tenth for best-of rules, mean_ci95 for mean-of rules, a fraction) with the rule and the limit it was
-- judged against; cv and max_min stay as stored facts. A job whose report is past a limit goes back to the queue
-- (repeats counts how often, up to the setting noise_repeats) and note says why; every attempt's results are
-- kept. Imported rows have no samples and no noise.
ALTER TABLE results ADD COLUMN noise double precision CHECK (noise >= 0),
    ADD COLUMN noise_rule text CHECK (noise_rule IN ('best_tenth', 'mean_ci95')),
    ADD COLUMN noise_limit double precision CHECK (noise_limit > 0);
ALTER TABLE jobs ADD COLUMN repeats integer NOT NULL DEFAULT 0 CHECK (repeats >= 0),
    ADD COLUMN note text CHECK (length(note) <= 4000);
