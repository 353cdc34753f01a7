-- 035_variant_names: a result's variant is the name of the code that ran (issue 25 item 6): the values of its
-- suite's parameters marked VARIANT in kernels/suites.c, joined by '/' ("soa", "3lp-1/k", "native"), or
-- "default" for a model with one code for the suite; ppbenchd derives it from each report
-- (suite_variant_name). Before, a result stored the worker's whole variant document as JSON text, with launch
-- shapes and figures derived from the size (cg's dot_chain 524290 or 2097154, work-group sizes, threads): one
-- code was as many variants as sizes and devices in PP's policies, the filters and the legends, and no line
-- set could be found for it. The document stays whole in each result's provenance ("variant").
-- Stored rows get the names the table gives today, from the document they stored; an import's variant (the
-- importer's word, not JSON) is kept. The baselines of one name merge (the most recently judged one stays),
-- and their windows and the peer groups are rebuilt after the functions.
-- The names of the stored documents, once: suite's parameters (a; b, staggered's order, where it has one).
CREATE TEMP TABLE variant_names ON COMMIT DROP AS
    SELECT v.suite, v.variant AS old,
           coalesce(nullif(concat_ws('/', v.variant::jsonb ->> k.a, nullif(v.variant::jsonb ->> k.b, 'none')), ''),
                    'default') AS name
    FROM (SELECT DISTINCT suite, variant FROM results WHERE left(variant, 1) = '{'
          UNION SELECT suite, variant FROM baselines WHERE left(variant, 1) = '{') v
    LEFT JOIN (VALUES ('stream', 'stores', NULL), ('wilson', 'layout', NULL), ('staggered', 'strategy', 'order'),
                      ('cg', 'spmv_variant', NULL), ('hacc', 'variant', NULL)) k (suite, a, b) ON k.suite = v.suite;

UPDATE results r SET variant = n.name FROM variant_names n WHERE (r.suite, r.variant) = (n.suite, n.old);

DELETE FROM baselines b USING baselines o, variant_names nb, variant_names no
WHERE (b.platform_id, b.suite, b.kernel, b.model, b.precision, b.size)
      = (o.platform_id, o.suite, o.kernel, o.model, o.precision, o.size)
  AND (nb.suite, nb.old) = (b.suite, b.variant) AND (no.suite, no.old) = (o.suite, o.variant) AND nb.name = no.name
  AND (b.updated_at, b.variant) < (o.updated_at, o.variant);
UPDATE baselines b SET variant = n.name FROM variant_names n WHERE (b.suite, b.variant) = (n.suite, n.old);

-- @after-functions: what follows runs once the current functions exist (schema/functions/)
SELECT judge_rewindow(NULL);
SELECT peer_groups_rebuild();
