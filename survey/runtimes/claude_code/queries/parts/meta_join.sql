-- Question: meta_join.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: a meta file and the call its toolUseId names are in two files, perhaps two parts, so the
--   join is the merge's: each part keeps its meta files' ids (a row each: few) and every call's id
--   and file (call_ref, and call_file, the file's id as a number: two numbers a row). The merge
--   takes the meta files from the inventory, as the reference does, looks their ids up among the
--   calls of every part, and the sessions of the parent transcripts among those in the inventory.
--   The reference reads every link for them: at 5 GB of sessions, 13M rows for 24k metas, 0.25 s
--   of a re-run's census, against 0.05 s from the kept ids.
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/claude_code'" -c ".read survey/runtimes/claude_code/queries/parts/meta_join.sql"
CREATE OR REPLACE TEMP TABLE partials AS
WITH l AS (
    SELECT l.file_index AS part, l.file_id, l.file_key, l.kind, l.ref
    FROM read_parquet(coalesce(getvariable('links_parts'), [getvariable('snap') || '/walk/links.parquet'])) AS l
    WHERE l.kind IN ('meta_tool_use', 'tool_use')
)
SELECT part, file_id, ref AS meta_ref   -- a meta file's toolUseId (NULL where it is not a string)
FROM l
WHERE kind = 'meta_tool_use'
UNION ALL BY NAME
SELECT part, file_key AS call_file, ref AS call_ref   -- a call (one with a NULL id names no call)
FROM l
WHERE kind = 'tool_use' AND ref IS NOT NULL;

WITH inv AS (
    SELECT * FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true)
), metas AS (
    SELECT i.file_id, i.surface, i.parent_id, p.meta_ref AS ref
    FROM inv AS i LEFT JOIN (SELECT file_id, meta_ref FROM partials WHERE file_id IS NOT NULL) AS p USING (file_id)
    WHERE i.surface IN ('subagent_meta', 'workflow_meta') AND i.sampled
), calls AS (   -- the calls whose id a meta file names
    SELECT call_file, call_ref AS ref FROM partials WHERE call_ref IN (SELECT ref FROM metas)
), parent_calls AS (
    SELECT i.session_id, c.ref
    FROM calls AS c
    JOIN (SELECT session_id, ('0x' || substr(file_id, 3))::UBIGINT AS file_key   -- the file's id as a number, as walk tables keep it
          FROM inv WHERE surface = 'parent') AS i ON i.file_key = c.call_file
), any_calls AS (
    SELECT DISTINCT ref FROM calls
)
SELECT
    m.surface,
    count(DISTINCT m.file_id)                                                          AS metas,
    count(DISTINCT m.file_id) FILTER (WHERE m.ref IS NOT NULL)                         AS with_tool_use_id,
    count(DISTINCT m.file_id) FILTER (WHERE EXISTS (
        SELECT 1 FROM parent_calls AS c WHERE c.session_id = m.parent_id AND c.ref = m.ref)) AS joined_parent_call,
    count(DISTINCT m.file_id) FILTER (WHERE m.ref IN (SELECT ref FROM any_calls))      AS joined_any_call
FROM metas AS m
GROUP BY m.surface
ORDER BY m.surface;
