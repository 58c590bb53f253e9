-- Question: uuid_dag.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: a file's links are all in one part, so its uuids, duplicates, parent refs and
--   dangling parents are its part's (a row per file). The one question across files, whether a
--   dangling parent is a uuid in another file, is asked at the merge: each dangling ref is kept
--   (a row each: few), and looked up among the uuids of every part (one scan of their links).
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/claude_code'" -c ".read survey/runtimes/claude_code/queries/parts/uuid_dag.sql"
CREATE OR REPLACE TEMP TABLE partials AS
WITH t AS (
    SELECT file_id FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) WHERE surface IN ('parent', 'subagent', 'workflow_agent') AND sampled
), g AS (   -- per id value in a file: how many records carry it as uuid, and as parentUuid
    SELECT l.file_index AS part, l.file_id, l.ref,
           count(*) FILTER (WHERE l.kind = 'uuid')         AS as_uuid,
           count(*) FILTER (WHERE l.kind = 'parent_uuid')  AS as_parent
    FROM read_parquet(coalesce(getvariable('links_parts'), [getvariable('snap') || '/walk/links.parquet'])) AS l SEMI JOIN t USING (file_id)
    WHERE l.kind IN ('uuid', 'parent_uuid')
    GROUP BY ALL
), x AS (   -- a parent ref resolves in its file when a uuid there equals it (NULL equals nothing)
    SELECT *, as_uuid > 0 AND ref IS NOT NULL AS resolves FROM g
)
SELECT
    part, file_id,
    NULL::UBIGINT                                            AS dangling_ref,
    sum(as_uuid)                                             AS uuids,
    sum(as_uuid) - count(*) FILTER (WHERE resolves)          AS duplicates,
    sum(as_parent)                                           AS parent_refs,
    sum(as_parent) FILTER (WHERE NOT resolves)               AS dangling
FROM x
GROUP BY part, file_id
UNION ALL BY NAME
SELECT part, file_id, ref AS dangling_ref, as_parent AS dangling   -- a dangling parent that may resolve elsewhere
FROM x
WHERE NOT resolves AND ref IS NOT NULL AND as_parent > 0;

WITH t AS (
    SELECT file_id, surface FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) WHERE surface IN ('parent', 'subagent', 'workflow_agent') AND sampled
), per_id_file AS (
    SELECT file_id, sum(uuids) AS uuids, sum(duplicates) AS duplicates, sum(parent_refs) AS parent_refs,
           sum(dangling) AS dangling
    FROM partials
    WHERE dangling_ref IS NULL
    GROUP BY file_id
), found AS (   -- a dangling ref is absent from its own file, so a uuid equal to it is in another file
    SELECT file_id, sum(dangling) AS dangling_found_elsewhere
    FROM partials
    WHERE dangling_ref IN (   -- the uuids equal to a dangling ref: the few refs hashed, every uuid read past them
        SELECT l.ref FROM read_parquet(getvariable('snap') || '/walk/links.parquet') AS l SEMI JOIN t USING (file_id)
        WHERE l.kind = 'uuid' AND l.ref IN (SELECT dangling_ref FROM partials WHERE dangling_ref IS NOT NULL))
    GROUP BY file_id
), per_file AS (
    SELECT
        t.file_id, t.surface,
        coalesce(p.uuids, 0)                      AS uuids,
        coalesce(p.duplicates, 0)                 AS duplicates,
        coalesce(p.parent_refs, 0)                AS parent_refs,
        coalesce(p.dangling, 0)                   AS dangling,
        coalesce(f.dangling_found_elsewhere, 0)   AS dangling_found_elsewhere
    FROM t LEFT JOIN per_id_file AS p USING (file_id) LEFT JOIN found AS f USING (file_id)
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
