-- 007_finite: no stored figure is NaN or infinite (issue 11, defect 2). PostgreSQL accepts 'NaN' and
-- 'Infinity' as double precision, and NaN passes ">= 0" (it sorts above every number), so such a figure used
-- to reach efficiencies and PP as NaN. ppbenchd now refuses such reports (server/report_check.c); these
-- constraints keep any other path out too. Rows stored before are kept but no longer count: a result with a
-- non-finite figure becomes unverified, a non-finite peak becomes unknown. "x < 'Infinity'" is false for
-- both infinity and NaN.
UPDATE platforms SET peak_bandwidth = NULL WHERE NOT (peak_bandwidth < 'Infinity');
UPDATE results SET verified = false, error = coalesce(error, 'a non-finite figure (no longer counted)')
WHERE verified AND NOT (bytes < 'Infinity' AND flops < 'Infinity' AND min_s < 'Infinity' AND max_s < 'Infinity'
    AND mean_s < 'Infinity' AND median_s < 'Infinity' AND stddev_s < 'Infinity' AND bandwidth < 'Infinity'
    AND gflops < 'Infinity' AND NOT coalesce('Infinity' <= ANY (times_s), false));
ALTER TABLE platforms ADD CONSTRAINT platforms_peak_finite CHECK (peak_bandwidth < 'Infinity') NOT VALID;
ALTER TABLE results ADD CONSTRAINT results_finite
    CHECK (bytes < 'Infinity' AND flops < 'Infinity' AND min_s < 'Infinity' AND max_s < 'Infinity'
        AND mean_s < 'Infinity' AND median_s < 'Infinity' AND stddev_s < 'Infinity' AND bandwidth < 'Infinity'
        AND gflops < 'Infinity' AND NOT coalesce('Infinity' <= ANY (times_s), false)) NOT VALID;
