-- 005_lattice: results of the lattice QCD suites (wilson, staggered) beside STREAM's. A result's size is the
-- problem's array_size for stream and its number of lattice sites (both parities) for the lattice suites
-- (server/api_worker.c); PP and the P3 export key problems on (suite, kernel, precision, size) whatever the
-- suite, and the figure of merit stays the bandwidth from the byte model (docs/METHODOLOGY.md says why that
-- ranks like GFLOP/s). The worker's whole problem document (lattice, precision, timing rule, flop and byte
-- model per site, ...) is kept in provenance.problem; the result document now serves it as "problem", so a
-- client reads a lattice without digging, and gflops sits beside the bandwidth for every suite. An imported
-- BabelStream row has no problem document: it gets the array size and precision it was imported with.
--
-- The number of timed samples was taken as the times minus one (STREAM and Wilson time the warm-up with the
-- rest); the staggered suite's paper rule keeps its warm-up out of the times, so each row now stores the count
-- its report gives (stats_s.count), and rows from before keep the old rule.
ALTER TABLE results ADD COLUMN stats_count integer CHECK (stats_count >= 0);

CREATE OR REPLACE FUNCTION result_doc(r results) RETURNS jsonb LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN jsonb_build_object(
        'id', r.id, 'job_id', r.job_id, 'platform', r.platform_id, 'suite', r.suite, 'kernel', r.kernel,
        'model', r.model, 'variant', r.variant, 'precision', r.precision, 'size', r.size,
        'problem', coalesce(r.provenance->'problem',
                            jsonb_build_object('array_size', r.size, 'precision', r.precision)),
        'bytes', r.bytes, 'flops', r.flops, 'times_s', to_jsonb(r.times_s),
        'stats_s', jsonb_build_object('min', r.min_s, 'max', r.max_s, 'mean', r.mean_s, 'median', r.median_s,
                                      'stddev', r.stddev_s, 'count',
                                      coalesce(r.stats_count,
                                               CASE WHEN r.times_s IS NULL THEN (r.provenance->>'num_times')::int - 1
                                               ELSE cardinality(r.times_s) - 1 END)),
        'bandwidth_bytes_per_s', r.bandwidth, 'gflops', r.gflops, 'verified', r.verified, 'error', r.error,
        'origin', r.origin, 'provenance', r.provenance, 'created_at', r.created_at);
END
$$;
