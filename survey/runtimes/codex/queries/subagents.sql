-- Question: Which rollouts are subagent children (first header id differs from its session_id), and is their parent rollout here / does the parent name them?
-- Used by: codex page: Subagents
-- Inputs: inventory, walk/frames.parquet, walk/links.parquet, walk/numbers.parquet
-- Made in part from survey/runtimes/codex/queries/fragments/headers.sql (its CTEs meta to first: python -m survey.census.fragments writes them; a test holds them equal)
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/codex'" -c ".read survey/runtimes/codex/queries/subagents.sql"
WITH inv AS (
    SELECT * FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) WHERE surface IN ('rollout', 'archived_rollout', 'rollout_unnamed') AND sampled
), meta AS (
    SELECT f.file_id, f.line_no, f.cli_version,
           row_number() OVER (PARTITION BY f.file_id ORDER BY f.line_no) AS k
    FROM read_parquet(getvariable('snap') || '/walk/frames.parquet') AS f SEMI JOIN inv USING (file_id)
    WHERE f.frame_status = 'ok' AND f.rclass = 'session_meta'
), meta_ids AS (   -- each header's payload.id and session_id (one scan of the links, joined to the headers)
    SELECT m.file_id, m.line_no, m.cli_version, m.k,
           any_value(l.ref) FILTER (WHERE l.kind = 'payload_id')  AS id,
           any_value(l.ref) FILTER (WHERE l.kind = 'session_id')  AS sid
    FROM meta AS m
    LEFT JOIN read_parquet(getvariable('snap') || '/walk/links.parquet') AS l
      ON l.file_id = m.file_id AND l.line_no = m.line_no AND l.kind IN ('payload_id', 'session_id')
    GROUP BY m.file_id, m.line_no, m.cli_version, m.k
), first AS (
    SELECT file_id, id AS first_id, sid AS first_sid, cli_version AS version FROM meta_ids WHERE k = 1
), kids AS (
    SELECT fi.* FROM first AS fi WHERE fi.first_sid IS NOT NULL AND fi.first_sid <> fi.first_id
), starts AS (
    SELECT n.file_id, n.value FROM read_parquet(getvariable('snap') || '/walk/numbers.parquet') AS n
    JOIN meta AS m ON m.file_id = n.file_id AND m.line_no = n.line_no AND m.k = 1
    WHERE n.name = 'history_start'
), named AS (   -- structured fields of another file that carry the child's id
    SELECT DISTINCT l.ref FROM read_parquet(getvariable('snap') || '/walk/links.parquet') AS l
    WHERE l.kind IN ('new_thread', 'agent_thread')
)
SELECT
    (SELECT count(*) FROM first)                                                   AS files_with_header,
    count(*)                                                                       AS subagent_files,
    count(*) FILTER (WHERE k.file_id IN (SELECT file_id FROM starts))              AS with_history_start_ordinal,
    count(*) FILTER (WHERE k.first_sid IN (SELECT first_id FROM first))            AS parent_rollout_present,
    count(*) FILTER (WHERE k.first_id IN (SELECT ref FROM named))                  AS named_by_a_structured_field
FROM kids AS k;
