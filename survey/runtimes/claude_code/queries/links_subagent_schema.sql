-- Question: Does a subagent file use its parent's schema: which of its shapes (record class, path, JSON type, key set) occur in its parent, which in no top-level transcript, and which paths (record class, path, JSON type) occur in subagent files alone?
-- Used by: claude_code page: Links between records and files (subagents)
-- Inputs: inventory, walk/nodes.parquet
-- Made from survey/census/queries/subagents/template.sql and the profile's subagent pairs (python -m survey.evidence.subagents writes it; a test holds it equal)
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/claude_code'" -c ".read survey/runtimes/claude_code/queries/links_subagent_schema.sql"
WITH inv AS MATERIALIZED (
    SELECT file_id, surface, session_id, parent_id
    FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) WHERE sampled
),
kids AS (   -- each walked subagent file (by its surface) and its path's parent id
    SELECT file_id, parent_id FROM inv WHERE surface IN ('subagent', 'workflow_agent')
), tops AS (
    SELECT file_id, session_id FROM inv WHERE surface IN ('parent')
), pairs AS (   -- each walked child and its walked parent (lineage by directory: the path's ids)
    SELECT k.file_id AS child, t.file_id AS parent FROM kids AS k JOIN tops AS t ON k.parent_id = t.session_id
),
roles AS (   -- each compared file: a top-level one, a child, a parent
    SELECT file_id, bool_or(t) AS is_top, bool_or(k) AS is_kid, bool_or(p) AS is_parent
    FROM (SELECT file_id, true AS t, false AS k, false AS p FROM tops
          UNION ALL SELECT file_id, false, true, false FROM kids
          UNION ALL SELECT parent, false, false, true FROM pairs)
    GROUP BY file_id
),
shapes AS MATERIALIZED (   -- each shape of each compared file (the walk's gated paths and key sets: one row a
                           -- file and shape), compared as 64-bit hashes: sk of (record class, path, JSON type, key set),
                           -- pk of the first three; the path itself only where a child's (the one place it is read)
    SELECT n.file_id, hash(n.rclass, n.path, n.jtype, coalesce(n.keyset, '')) AS sk, hash(n.rclass, n.path, n.jtype) AS pk,
           CASE WHEN r.is_kid THEN n.path END AS path, r.is_top, r.is_kid, r.is_parent
    FROM read_parquet(getvariable('snap') || '/walk/nodes.parquet') AS n JOIN roles AS r USING (file_id)
), top AS MATERIALIZED (
    SELECT DISTINCT sk, pk FROM shapes WHERE is_top
), sub AS MATERIALIZED (   -- each child shape: is it a top-level transcript's (with its key set; by path and type)?
    SELECT file_id, sk, pk, path, sk IN (SELECT sk FROM top) AS in_top, pk IN (SELECT pk FROM top) AS path_in_top
    FROM shapes WHERE is_kid
), child_shapes AS MATERIALIZED (   -- each child shape, keyed with its parent: hash(parent, shape), one number
    SELECT pr.child, pr.parent, hash(pr.parent, c.sk) AS psk, hash(pr.parent, c.pk) AS ppk, c.pk
    FROM pairs AS pr JOIN sub AS c ON c.file_id = pr.child
), par AS MATERIALIZED (   -- each shape of each file that is a parent, keyed the same way
    SELECT hash(file_id, sk) AS psk, hash(file_id, pk) AS ppk FROM shapes WHERE is_parent
), marked AS MATERIALIZED (   -- each child shape: is it its parent's (with its key set; by path and type)?
    SELECT child, parent, pk, psk IN (SELECT psk FROM par) AS in_parent, ppk IN (SELECT ppk FROM par) AS path_in_parent
    FROM child_shapes
), not_in_parent AS (
    SELECT child, count(*) AS n FROM marked WHERE NOT in_parent GROUP BY child, parent
), paths_not_in_parent AS (   -- the same, by record class, path and JSON type (key sets aside)
    SELECT child, count(DISTINCT pk) AS n FROM marked WHERE NOT path_in_parent GROUP BY child, parent
), per_child AS (
    SELECT file_id, count(*) FILTER (WHERE NOT in_top) AS shapes_alone, bool_or(NOT path_in_top) AS path_alone
    FROM sub GROUP BY file_id
)
SELECT
    (SELECT count(*) FROM per_child)                                               AS subagent_files,
    (SELECT count(*) FROM pairs)                                                   AS pairs,
    (SELECT count(*) FROM pairs) - (SELECT count(*) FROM not_in_parent)            AS pairs_all_shapes_in_parent,
    (SELECT coalesce(sum(n), 0) FROM not_in_parent)::BIGINT                        AS child_shapes_not_in_parent,
    (SELECT count(*) FILTER (WHERE shapes_alone = 0) FROM per_child)               AS subagents_all_shapes_in_transcripts,
    (SELECT coalesce(sum(shapes_alone), 0) FROM per_child)::BIGINT                 AS subagent_shapes_in_no_transcript,
    (SELECT count(*) FROM pairs) - (SELECT count(*) FROM paths_not_in_parent)      AS pairs_all_paths_in_parent,
    (SELECT coalesce(sum(n), 0) FROM paths_not_in_parent)::BIGINT                  AS child_paths_not_in_parent,
    (SELECT count(*) FILTER (WHERE NOT path_alone) FROM per_child)                 AS subagents_all_paths_in_transcripts,
    (SELECT coalesce(list(DISTINCT path ORDER BY path), []) FROM sub WHERE NOT path_in_top) AS paths_in_no_transcript;
