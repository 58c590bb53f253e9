-- Question: How often does message.id repeat across assistant records, and how much does a naive usage sum over-count (vs one per sessionId + message.id)?
-- Used by: claude_code page: Usage
-- Inputs: inventory, walk/numbers.parquet, walk/links.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/claude_code'" -c ".read survey/runtimes/claude_code/queries/usage_dedup.sql"
WITH t AS (
    SELECT file_id FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) WHERE surface IN ('parent', 'subagent', 'workflow_agent') AND sampled
), n AS (
    SELECT n.* FROM read_parquet(getvariable('snap') || '/walk/numbers.parquet') AS n SEMI JOIN t USING (file_id) WHERE n.value IS NOT NULL
), l AS (   -- links read once for both kinds, as the split does (two reads: 13-15 % slower at 1 GB)
    SELECT file_key, line_no, kind, ref FROM read_parquet(getvariable('snap') || '/walk/links.parquet') WHERE kind IN ('message', 'session')
), m AS (
    SELECT file_key, line_no, ref AS msg FROM l WHERE kind = 'message'
), s AS (
    SELECT file_key, line_no, ref AS sess FROM l WHERE kind = 'session'
), j AS (
    SELECT n.name, n.value, m.msg, s.sess
    FROM n JOIN m USING (file_key, line_no) LEFT JOIN s USING (file_key, line_no)   -- file_key: the file's id as a number
), per_msg AS (   -- usage may grow while a message streams, never shrink: keep the largest
    SELECT name, sess, msg, max(value) AS v, count(*) AS recs, sum(value) AS total FROM j GROUP BY ALL
), per_name AS (   -- every record summed through its message's group, and one per message: per_msg read once
    SELECT name, sum(total) AS naive_sum, sum(recs) AS records, sum(v) AS dedup_sum, count(*) AS messages,
           count(*) FILTER (WHERE recs > 1) AS messages_repeated, max(recs) AS max_records_per_message
    FROM per_msg GROUP BY name
)
SELECT
    name,
    records,
    messages,
    messages_repeated,
    max_records_per_message,
    CAST(naive_sum AS BIGINT)                                   AS naive_sum,
    CAST(dedup_sum AS BIGINT)                                   AS dedup_sum,
    CASE WHEN dedup_sum > 0 THEN round(naive_sum / dedup_sum, 3) END AS factor
FROM per_name
ORDER BY name;
