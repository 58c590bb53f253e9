-- Question: Does a subagent file use its parent's schema: which of its shapes (record class, path, JSON type, key set) occur in its parent, and which in no top-level transcript?
-- Used by: cursor page: Links between records and files (subagents)
-- Inputs: inventory, walk/nodes.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor'" -c ".read survey/runtimes/cursor/queries/links_subagent_schema.sql"
WITH inv AS (SELECT * FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) WHERE sampled),
pairs AS (   -- each walked child and its walked parent (lineage by directory: the path's ids)
    SELECT c.file_id AS child, p.file_id AS parent
    FROM inv AS c JOIN inv AS p ON c.parent_id = p.session_id AND p.parent_id IS NULL AND p.kind = 'jsonl'
    WHERE c.surface = 'subagent'
), shapes AS (
    SELECT DISTINCT file_id, rclass, path, jtype, coalesce(keyset, '') AS keyset
    FROM read_parquet(getvariable('snap') || '/walk/nodes.parquet')
), top AS (
    SELECT DISTINCT rclass, path, jtype, keyset FROM shapes SEMI JOIN (SELECT file_id FROM inv WHERE surface IN ('transcript', 'transcript_flat')) USING (file_id)
), not_in_parent AS (
    SELECT c.child, count(*) AS n
    FROM (SELECT pr.child, pr.parent, s.rclass, s.path, s.jtype, s.keyset FROM pairs AS pr JOIN shapes AS s ON s.file_id = pr.child) AS c
    ANTI JOIN shapes AS p ON p.file_id = c.parent AND p.rclass = c.rclass AND p.path = c.path AND p.jtype = c.jtype AND p.keyset = c.keyset
    GROUP BY c.child
), subs AS (
    SELECT s.* FROM shapes AS s SEMI JOIN (SELECT file_id FROM inv WHERE surface = 'subagent') USING (file_id)
), not_in_top AS (
    SELECT file_id, count(*) AS n FROM subs ANTI JOIN top USING (rclass, path, jtype, keyset) GROUP BY file_id
)
SELECT
    (SELECT count(DISTINCT file_id) FROM subs)                                     AS subagent_files,
    (SELECT count(*) FROM pairs)                                                   AS pairs,
    (SELECT count(*) FROM pairs) - (SELECT count(*) FROM not_in_parent)            AS pairs_all_shapes_in_parent,
    (SELECT coalesce(sum(n), 0) FROM not_in_parent)::BIGINT                        AS child_shapes_not_in_parent,
    (SELECT count(DISTINCT file_id) FROM subs) - (SELECT count(*) FROM not_in_top) AS subagents_all_shapes_in_transcripts,
    (SELECT coalesce(sum(n), 0) FROM not_in_top)::BIGINT                           AS subagent_shapes_in_no_transcript;
