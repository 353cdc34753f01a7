-- peers: each peer group (problem, device model, driver) is one row of peer_groups holding its members'
-- figures sorted (a baseline's median, else its last figure) with their platforms, plus the changes since
-- (peer_changes), folded in by ppbenchd's notifier once a second (peer_groups_compact). A judging round reads
-- each of its groups once, merged with its pending changes (peer_merge).

-- A group's members (ids, figs sorted by fig) with members p_new_ids set to p_new_figs (NULL: taken out), in
-- that order (a later change of one member wins). A few changes one after the other: each leaves its place
-- (array_position) and enters at its figure's (width_bucket, a binary search in the sorted figures); more in one
-- pass (the members not changed and each changed member's last figure, sorted). Equal figures in any order.
CREATE FUNCTION peer_merge(p_ids text[], p_figs double precision[], p_new_ids text[], p_new_figs double precision[],
                           OUT ids text[], OUT figs double precision[]) LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    k integer;
BEGIN
    ids := coalesce(p_ids, '{}');
    figs := coalesce(p_figs, '{}');
    IF cardinality(p_new_ids) > 4 THEN
        SELECT coalesce(array_agg(u.id ORDER BY u.f), '{}'), coalesce(array_agg(u.f ORDER BY u.f), '{}') INTO ids, figs
        FROM (SELECT x.id, x.f FROM unnest(ids, figs) x (id, f) WHERE x.id <> ALL (p_new_ids)
              UNION ALL
              SELECT y.id, y.f FROM (SELECT DISTINCT ON (c.id) c.id, c.f FROM unnest(p_new_ids, p_new_figs)
                                     WITH ORDINALITY c (id, f, o) ORDER BY c.id, c.o DESC) y
              WHERE y.f IS NOT NULL) u;
        RETURN;
    END IF;
    FOR i IN 1 .. coalesce(cardinality(p_new_ids), 0) LOOP
        k := array_position(ids, p_new_ids[i]);
        IF k IS NOT NULL THEN
            ids := ids[:k - 1] || ids[k + 1:];
            figs := figs[:k - 1] || figs[k + 1:];
        END IF;
        IF p_new_figs[i] IS NOT NULL THEN
            k := width_bucket(p_new_figs[i], figs);
            ids := ids[:k] || p_new_ids[i] || ids[k + 1:];
            figs := figs[:k] || p_new_figs[i] || figs[k + 1:];
        END IF;
    END LOOP;
END
$$;

-- Every group again from the baselines (the migration, and writers of baselines other than judging: bench/).
CREATE FUNCTION peer_groups_rebuild() RETURNS void LANGUAGE sql AS $$
    SELECT pg_advisory_xact_lock(727073); -- not while the changes are folded (peer_groups_compact)
    DELETE FROM peer_changes;
    DELETE FROM peer_groups;
    INSERT INTO peer_groups (suite, kernel, model, precision, size, variant, device, driver, ids, figs)
    SELECT suite, kernel, model, precision, size, variant, device, driver,
           array_agg(platform_id ORDER BY coalesce(median, last_fom), platform_id),
           array_agg(coalesce(median, last_fom) ORDER BY coalesce(median, last_fom), platform_id)
    FROM baselines WHERE coalesce(median, last_fom) IS NOT NULL
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8;
$$;

-- Every group as judging sees it: its members as folded, with the changes pending since (for checks).
CREATE FUNCTION peer_groups_now() RETURNS TABLE (suite text, kernel text, model text, "precision" text, size bigint,
    variant text, device text, driver text, ids text[], figs double precision[]) LANGUAGE sql STABLE AS $$
    SELECT k.*, m.ids, m.figs
    FROM (SELECT g.suite, g.kernel, g.model, g.precision, g.size, g.variant, g.device, g.driver FROM peer_groups g
          UNION SELECT c.suite, c.kernel, c.model, c.precision, c.size, c.variant, c.device, c.driver FROM peer_changes c) k
    LEFT JOIN peer_groups pg ON (pg.suite, pg.kernel, pg.model, pg.precision, pg.size, pg.variant, pg.device, pg.driver)
                              = (k.suite, k.kernel, k.model, k.precision, k.size, k.variant, k.device, k.driver)
    CROSS JOIN LATERAL (
        SELECT array_agg(c.platform_id ORDER BY c.id) AS ids, array_agg(c.fig ORDER BY c.id) AS figs FROM peer_changes c
        WHERE (c.suite, c.kernel, c.model, c.precision, c.size, c.variant, c.device, c.driver)
            = (k.suite, k.kernel, k.model, k.precision, k.size, k.variant, k.device, k.driver)) pc
    CROSS JOIN LATERAL peer_merge(pg.ids, pg.figs, pc.ids, pc.figs) m
$$;

-- The pending changes folded into their groups (ppbenchd's notifier, once a second): exactly the changes this
-- statement deletes; one folder at a time (an advisory lock: two would apply one platform's changes out of
-- order). A reader sees the groups before with every change, or after with the later ones. Returns the number
-- of changes folded, -1 when another folder holds the lock.
CREATE FUNCTION peer_groups_compact() RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    v_n integer;
BEGIN
    IF NOT pg_try_advisory_xact_lock(727073) THEN
        RETURN -1;
    END IF;
    WITH c0 AS (DELETE FROM peer_changes RETURNING *),
    c AS (SELECT suite, kernel, model, precision, size, variant, device, driver,
                 array_agg(platform_id ORDER BY id) AS ids, array_agg(fig ORDER BY id) AS figs
          FROM c0 GROUP BY 1, 2, 3, 4, 5, 6, 7, 8),
    u AS (UPDATE peer_groups g SET (ids, figs) = (SELECT m.ids, m.figs FROM peer_merge(g.ids, g.figs, c.ids, c.figs) m)
          FROM c WHERE (g.suite, g.kernel, g.model, g.precision, g.size, g.variant, g.device, g.driver)
                     = (c.suite, c.kernel, c.model, c.precision, c.size, c.variant, c.device, c.driver)),
    i AS (INSERT INTO peer_groups (suite, kernel, model, precision, size, variant, device, driver, ids, figs)
          SELECT c.suite, c.kernel, c.model, c.precision, c.size, c.variant, c.device, c.driver, m.ids, m.figs
          FROM c CROSS JOIN LATERAL peer_merge(NULL, NULL, c.ids, c.figs) m
          WHERE NOT EXISTS (SELECT 1 FROM peer_groups g
                            WHERE (g.suite, g.kernel, g.model, g.precision, g.size, g.variant, g.device, g.driver)
                                = (c.suite, c.kernel, c.model, c.precision, c.size, c.variant, c.device, c.driver)))
    SELECT count(*) INTO v_n FROM c0;
    RETURN v_n;
END
$$;

-- Baselines deleted (a platform removed with its baselines): they leave their groups.
CREATE FUNCTION baselines_leave_peers() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO peer_changes (suite, kernel, model, precision, size, variant, device, driver, platform_id, fig)
        SELECT suite, kernel, model, precision, size, variant, device, driver, platform_id, NULL FROM old_rows
        WHERE coalesce(median, last_fom) IS NOT NULL ORDER BY platform_id;
    RETURN NULL;
END
$$;

CREATE TRIGGER baselines_leave_peers AFTER DELETE ON baselines REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION baselines_leave_peers();
