-- Question: Do uuid/parentUuid form a DAG per file: duplicate uuids, dangling parents (and whether those resolve in another file)?
-- Used by: claude_code page: Identity: the uuid DAG
-- Inputs: inventory, walk/links.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/claude_code'" -c ".read survey/runtimes/claude_code/queries/uuid_dag.sql"
WITH t AS (
    SELECT file_id, surface FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) WHERE surface IN ('parent', 'subagent', 'workflow_agent') AND sampled
), g AS (   -- per id value in a file: how many records carry it as uuid, and as parentUuid
    SELECT l.file_id, l.ref,
           count(*) FILTER (WHERE l.kind = 'uuid')         AS as_uuid,
           count(*) FILTER (WHERE l.kind = 'parent_uuid')  AS as_parent
    FROM read_parquet(getvariable('snap') || '/walk/links.parquet') AS l SEMI JOIN t USING (file_id)
    WHERE l.kind IN ('uuid', 'parent_uuid')
    GROUP BY l.file_id, l.ref
), x AS (   -- a parent ref resolves in its file when a uuid there equals it (NULL equals nothing)
    SELECT *, as_uuid > 0 AND ref IS NOT NULL AS resolves FROM g
), per_id_file AS (
    SELECT
        file_id,
        sum(as_uuid)                                                         AS uuids,
        sum(as_uuid) - count(*) FILTER (WHERE resolves)                      AS duplicates,
        sum(as_parent)                                                       AS parent_refs,
        sum(as_parent) FILTER (WHERE NOT resolves)                           AS dangling,
        -- a dangling ref is absent from its own file, so a uuid equal to it is in another file
        sum(as_parent) FILTER (WHERE NOT resolves AND ref IN (SELECT ref FROM g WHERE as_uuid > 0)) AS dangling_found_elsewhere
    FROM x
    GROUP BY file_id
), per_file AS (
    SELECT
        t.file_id, t.surface,
        coalesce(p.uuids, 0)                      AS uuids,
        coalesce(p.duplicates, 0)                 AS duplicates,
        coalesce(p.parent_refs, 0)                AS parent_refs,
        coalesce(p.dangling, 0)                   AS dangling,
        coalesce(p.dangling_found_elsewhere, 0)   AS dangling_found_elsewhere
    FROM t LEFT JOIN per_id_file AS p USING (file_id)
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
