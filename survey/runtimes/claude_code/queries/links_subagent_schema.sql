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
shapes AS MATERIALIZED (   -- each shape of each child or top-level file (the walk's gated paths and key sets)
    SELECT DISTINCT file_id, rclass, path, jtype, coalesce(keyset, '') AS keyset
    FROM read_parquet(getvariable('snap') || '/walk/nodes.parquet')
    SEMI JOIN (SELECT file_id FROM kids UNION SELECT file_id FROM tops) USING (file_id)
), top AS (
    SELECT DISTINCT rclass, path, jtype, keyset FROM shapes SEMI JOIN tops USING (file_id)
), top_paths AS (
    SELECT DISTINCT rclass, path, jtype FROM top
), child_shapes AS (
    SELECT pr.child, pr.parent, s.rclass, s.path, s.jtype, s.keyset FROM pairs AS pr JOIN shapes AS s ON s.file_id = pr.child
), not_in_parent AS (
    SELECT c.child, c.parent, count(*) AS n
    FROM child_shapes AS c
    ANTI JOIN shapes AS p ON p.file_id = c.parent AND p.rclass = c.rclass AND p.path = c.path AND p.jtype = c.jtype AND p.keyset = c.keyset
    GROUP BY c.child, c.parent
), paths_not_in_parent AS (   -- the same, by record class, path and JSON type (key sets aside)
    SELECT c.child, c.parent, count(*) AS n
    FROM (SELECT DISTINCT child, parent, rclass, path, jtype FROM child_shapes) AS c
    ANTI JOIN shapes AS p ON p.file_id = c.parent AND p.rclass = c.rclass AND p.path = c.path AND p.jtype = c.jtype
    GROUP BY c.child, c.parent
), subs AS (
    SELECT s.* FROM shapes AS s SEMI JOIN kids USING (file_id)
), not_in_top AS (
    SELECT file_id, count(*) AS n FROM subs ANTI JOIN top USING (rclass, path, jtype, keyset) GROUP BY file_id
), paths_not_in_top AS (
    SELECT DISTINCT rclass, path, jtype, file_id FROM subs ANTI JOIN top_paths USING (rclass, path, jtype)
)
SELECT
    (SELECT count(DISTINCT file_id) FROM subs)                                     AS subagent_files,
    (SELECT count(*) FROM pairs)                                                   AS pairs,
    (SELECT count(*) FROM pairs) - (SELECT count(*) FROM not_in_parent)            AS pairs_all_shapes_in_parent,
    (SELECT coalesce(sum(n), 0) FROM not_in_parent)::BIGINT                        AS child_shapes_not_in_parent,
    (SELECT count(DISTINCT file_id) FROM subs) - (SELECT count(*) FROM not_in_top) AS subagents_all_shapes_in_transcripts,
    (SELECT coalesce(sum(n), 0) FROM not_in_top)::BIGINT                           AS subagent_shapes_in_no_transcript,
    (SELECT count(*) FROM pairs) - (SELECT count(*) FROM paths_not_in_parent)      AS pairs_all_paths_in_parent,
    (SELECT coalesce(sum(n), 0) FROM paths_not_in_parent)::BIGINT                  AS child_paths_not_in_parent,
    (SELECT count(DISTINCT file_id) FROM subs)
      - (SELECT count(DISTINCT file_id) FROM paths_not_in_top)                     AS subagents_all_paths_in_transcripts,
    (SELECT coalesce(list(DISTINCT path ORDER BY path), [])
       FROM paths_not_in_top)                                                      AS paths_in_no_transcript;
