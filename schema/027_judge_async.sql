-- 027_judge_async: judging leaves the INSERT (issue 16). The statement trigger of 015 judged a statement's
-- rows inside it: a worker's report of 4-6 results paid about 1.5 ms of judging before its commit, and ingest one
-- report at a time stayed at 2,758 results/s on the 2-core development machine (13,748 with judging off),
-- while judging in batches costs about a tenth per result. Now the trigger only queues the new rows' ids
-- (judge_queue) and says so on the channel ppbench_judge; ppbenchd's notifier thread, woken by that, takes the
-- queue in id order in batches (judge_pending) and judges each batch exactly as 015 judged one statement's rows:
-- the same rounds, the same health updates. A result is judged within milliseconds of its commit when the
-- server runs, and the queue waits, lossless, while it does not. One judge at a time (an advisory lock), so
-- a caller that drains the queue itself (a test, a script) waits for the server's batch and then finds it done.
-- Reports of one platform come from its one worker, in order, so its results are queued in the order of its
-- history; a deleted result still queued is skipped, an updated one judged as it is then.

CREATE TABLE judge_queue (result_id bigint PRIMARY KEY);

-- What 015's trigger did, over the results p_ids instead of one statement's new rows.
CREATE FUNCTION judge_rows(p_ids bigint[]) RETURNS void LANGUAGE plpgsql SET jit = off AS $$
DECLARE
    v_ids bigint[];
    v_events judge_event[];
    v_done text[];
    ev judge_event;
BEGIN
    -- failed verifications: the verdict at once
    INSERT INTO result_verdicts (result_id, platform_id, verdict, confirmed, reason)
        SELECT n.id, n.platform_id, 'verification_failed', true,
               format('verification failed on %s: %s',
                      judge_problem(n.suite, n.kernel, n.model, n.precision, n.size, n.variant),
                      coalesce(n.error, 'no reason given'))
        FROM results n WHERE n.id = ANY (p_ids) AND NOT n.verified;
    -- the figures, in rounds (noisy or above the ceiling: no figure to judge)
    FOR v_ids IN
        SELECT array_agg(k.id ORDER BY k.id)
        FROM (SELECT n.id, row_number() OVER (PARTITION BY n.platform_id, n.suite, n.kernel, n.model, n.variant,
                                                            n.precision, n.size ORDER BY n.id) AS rank
              FROM results n WHERE n.id = ANY (p_ids) AND n.verified AND n.flags = '{}') k
        GROUP BY k.rank ORDER BY k.rank
    LOOP
        PERFORM judge_round(v_ids);
    END LOOP;

    -- health, in id order per platform. What each result says: a failed verification or a confirmed verdict
    -- raises; a suspect says nothing yet; anything else passes its problem (a flagged one only touches).
    SELECT array_agg((x.id, x.platform_id, x.kind, x.state, x.reason, x.problem)::judge_event ORDER BY x.id)
        INTO v_events
    FROM (SELECT n.id, n.platform_id,
                 CASE WHEN NOT n.verified OR v.confirmed AND v.verdict IN ('regressed', 'outlier') THEN 'raise'
                      WHEN v.verdict IN ('regressed', 'outlier') THEN NULL
                      WHEN n.flags <> '{}' THEN 'touch' ELSE 'pass' END,
                 v.verdict, v.reason, judge_problem(n.suite, n.kernel, n.model, n.precision, n.size, n.variant)
          FROM results n LEFT JOIN result_verdicts v ON v.result_id = n.id
          WHERE n.id = ANY (p_ids)) x (id, platform_id, kind, state, reason, problem)
    WHERE x.kind IS NOT NULL;
    -- a platform that is ok and gets no raise: only its last result moves (what health_pass and health_touch
    -- do for an ok platform), in one upsert that leaves any other platform alone
    WITH up AS (
        INSERT INTO platform_health AS h (platform_id, state, last_result_id)
            SELECT e.platform_id, 'ok', max(e.id) FROM unnest(v_events) e
            GROUP BY e.platform_id HAVING NOT bool_or(e.kind = 'raise')
            ORDER BY e.platform_id
            ON CONFLICT (platform_id) DO UPDATE SET last_result_id = EXCLUDED.last_result_id, last_result_at = now()
            WHERE h.state = 'ok'
            RETURNING h.platform_id)
    SELECT array_agg(platform_id) INTO v_done FROM up;
    -- any other platform: result by result
    FOR ev IN SELECT x.* FROM unnest(v_events) x WHERE x.platform_id NOT IN (SELECT unnest(v_done)) ORDER BY x.id
    LOOP
        IF ev.kind = 'raise' THEN
            PERFORM health_raise(ev.platform_id, ev.state, ev.reason, ev.id, ev.problem);
        ELSIF ev.kind = 'pass' THEN
            PERFORM health_pass(ev.platform_id, ev.problem, ev.id);
        ELSE
            PERFORM health_touch(ev.platform_id, ev.id);
        END IF;
    END LOOP;
END
$$;

-- Judges the oldest p_limit queued results (NULL: the whole queue); returns how many it took. The batch is
-- taken as a range of ids and planned at each call: ppbenchd's notifier calls this every second, mostly on an
-- empty queue, and with a first form (DELETE ... WHERE id IN (the first p_limit ids)) planned once for its
-- connection a batch of 2,000 took 1-7 s in the server's connection against 0.2 s from a fresh one
-- (bench/scale.sh 112000: a night of 28,000 results stored in statements of 980 was judged 15-20 s after it
-- was stored; with this form 1.7 s, and a night of reports 4.5 s after its first instead of 10-11 s).
CREATE FUNCTION judge_pending(p_limit integer DEFAULT NULL) RETURNS integer LANGUAGE plpgsql
    SET jit = off SET plan_cache_mode = force_custom_plan AS $$
DECLARE
    v_last bigint;
    v_ids bigint[];
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('ppbench judge'));
    SELECT max(result_id) INTO v_last
    FROM (SELECT result_id FROM judge_queue ORDER BY result_id LIMIT p_limit) q;
    IF v_last IS NULL THEN
        RETURN 0;
    END IF;
    WITH taken AS (DELETE FROM judge_queue q WHERE q.result_id <= v_last RETURNING q.result_id)
    SELECT array_agg(result_id ORDER BY result_id) INTO v_ids FROM taken;
    IF v_ids IS NULL THEN
        RETURN 0;
    END IF;
    PERFORM judge_rows(v_ids);
    RETURN cardinality(v_ids);
END
$$;

-- Any path that stores results (a worker's report, an import, SQL, COPY) queues them.
CREATE OR REPLACE FUNCTION results_judge_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO judge_queue (result_id) SELECT n.id FROM new_rows n;
    PERFORM pg_notify('ppbench_judge', '');
    RETURN NULL;
END
$$;

