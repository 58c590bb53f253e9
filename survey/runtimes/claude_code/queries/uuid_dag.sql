-- Question: Do uuid/parentUuid form a DAG per file: duplicate uuids, dangling parents (and whether those resolve in another file)?
-- Used by: claude_code page: Identity: the uuid DAG
-- Inputs: inventory, walk/links.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/claude_code'" -c ".read survey/runtimes/claude_code/queries/uuid_dag.sql"
WITH t AS (
    SELECT file_id, surface FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) WHERE surface IN ('parent', 'subagent', 'workflow_agent') AND sampled
), l AS (
    SELECT l.* FROM read_parquet(getvariable('snap') || '/walk/links.parquet') AS l SEMI JOIN t USING (file_id)
), u AS (
    SELECT file_id, ref FROM l WHERE kind = 'uuid'
), p AS (
    SELECT file_id, ref FROM l WHERE kind = 'parent_uuid'
), dup AS (
    SELECT file_id, count(*) - count(DISTINCT ref) AS d FROM u GROUP BY file_id
), dangling AS (
    SELECT p.file_id, p.ref FROM p ANTI JOIN u ON p.file_id = u.file_id AND p.ref = u.ref
), per_file AS (
    SELECT
        t.file_id, t.surface,
        (SELECT count(*) FROM u WHERE u.file_id = t.file_id)                     AS uuids,
        coalesce((SELECT d FROM dup WHERE dup.file_id = t.file_id), 0)          AS duplicates,
        (SELECT count(*) FROM p WHERE p.file_id = t.file_id)                     AS parent_refs,
        (SELECT count(*) FROM dangling d WHERE d.file_id = t.file_id)            AS dangling,
        (SELECT count(*) FROM dangling d WHERE d.file_id = t.file_id
            AND d.ref IN (SELECT ref FROM u WHERE u.file_id <> t.file_id))       AS dangling_found_elsewhere
    FROM t
)
SELECT
    surface,
    count(*)                                    AS files,
    sum(uuids)                                  AS uuids,
    sum(duplicates)                             AS duplicate_uuids,
    count(*) FILTER (WHERE duplicates > 0)      AS files_with_duplicates,
    sum(parent_refs)                            AS parent_refs,
    sum(dangling)                               AS dangling_parents,
    count(*) FILTER (WHERE dangling > 0)        AS files_with_dangling,
    sum(dangling_found_elsewhere)               AS dangling_found_in_another_file
FROM per_file
GROUP BY surface
ORDER BY surface;
