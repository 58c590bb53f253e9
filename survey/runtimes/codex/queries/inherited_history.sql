-- Question: In child rollouts, how many records sit below subagent_history_start_ordinal (inherited context) vs at or above it, and do their turn ids overlap?
-- Used by: codex page: Subagents (inherited history)
-- Inputs: walk/numbers.parquet, walk/links.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/codex'" -c ".read survey/runtimes/codex/queries/inherited_history.sql"
WITH n AS (SELECT * FROM read_parquet(getvariable('snap') || '/walk/numbers.parquet')),
starts AS (
    SELECT file_id, min(value) AS start FROM n WHERE name = 'history_start' GROUP BY file_id
), ords AS (
    SELECT o.file_id, o.line_no, o.value < s.start AS inherited
    FROM n AS o JOIN starts AS s USING (file_id)
    WHERE o.name = 'ordinal'
), turns AS (
    SELECT o.file_id, l.ref, bool_or(o.inherited) AS in_inherited, bool_or(NOT o.inherited) AS in_own
    FROM ords AS o JOIN read_parquet(getvariable('snap') || '/walk/links.parquet') AS l ON l.file_id = o.file_id AND l.line_no = o.line_no AND l.kind = 'turn_id'
    GROUP BY ALL
)
SELECT
    (SELECT count(*) FROM starts)                                        AS child_files,
    (SELECT count(*) FROM ords WHERE inherited)                          AS inherited_records,
    (SELECT count(*) FROM ords WHERE NOT inherited)                      AS own_records,
    (SELECT count(*) FROM turns WHERE in_inherited AND NOT in_own)       AS inherited_turn_ids,
    (SELECT count(*) FROM turns WHERE in_own AND NOT in_inherited)       AS own_turn_ids,
    (SELECT count(*) FROM turns WHERE in_own AND in_inherited)           AS shared_turn_ids;
