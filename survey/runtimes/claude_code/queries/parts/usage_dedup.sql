-- Question: usage_dedup.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: a record's usage numbers and its message and session ids are on one line of one file,
--   so each part keeps its groups per (name, session, message): the largest value, the records
--   and their sum. A message may repeat across files (a resumed session copies its history), so
--   the merge groups those again across parts before deduplicating, as the reference does: only
--   the messages found in more than one part (2.9M partial rows at 5 GB grouped again took 0.9 s
--   and ran out of memory beside another query; telling those few apart, 0.3 s). A line's message and
--   session ids come from one grouping of its links, as the reference's two joins give them where a line
--   has at most one of each (at 5 GB, the makes 2.2 -> 1.6 s).
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/claude_code'" -c ".read survey/runtimes/claude_code/queries/parts/usage_dedup.sql"
CREATE OR REPLACE TEMP TABLE partials AS
WITH t AS (
    SELECT file_id FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) WHERE surface IN ('parent', 'subagent', 'workflow_agent') AND sampled
), n AS (
    SELECT n.file_index AS part, n.file_key, n.line_no, n.name, n.value FROM read_parquet(coalesce(getvariable('numbers_parts'), [getvariable('snap') || '/walk/numbers.parquet'])) AS n SEMI JOIN t USING (file_id) WHERE n.value IS NOT NULL
), ms AS (   -- per line that has a message id: it and its session id, one grouping of the links instead of two joins
    -- (both paths, $.message.id and $.sessionId, have no array step: the walk records at most one link of each a line)
    SELECT file_key, line_no, any_value(ref) FILTER (WHERE kind = 'message') AS msg, any_value(ref) FILTER (WHERE kind = 'session') AS sess
    FROM read_parquet(coalesce(getvariable('links_parts'), [getvariable('snap') || '/walk/links.parquet'])) WHERE kind IN ('message', 'session')
    GROUP BY file_key, line_no
    HAVING count(*) FILTER (WHERE kind = 'message') > 0
)
SELECT n.part, n.name, ms.sess, ms.msg, max(n.value) AS v, count(*) AS recs, sum(n.value) AS total
FROM n JOIN ms USING (file_key, line_no)   -- the part from n: a file's rows are in one part
GROUP BY ALL;

WITH keys AS (   -- per message: its rows, and its usage fields told apart by a bit each
    SELECT sess, msg, count(*) AS n, bit_count(bit_or(1::UBIGINT << CAST(hash(name) % 64 AS INTEGER))) AS fields
    FROM partials GROUP BY sess, msg
), again AS (   -- a field twice: the message is in more than one part (two fields on one bit only send it here too)
    SELECT sess, msg FROM keys WHERE n > fields
), per_msg AS (   -- usage may grow while a message streams, never shrink: keep the largest
    SELECT p.name, p.v, p.recs, p.total FROM partials AS p   -- a message in one part: its row is its message's
    ANTI JOIN again AS a ON p.sess IS NOT DISTINCT FROM a.sess AND p.msg IS NOT DISTINCT FROM a.msg
    UNION ALL
    SELECT p.name, max(p.v), CAST(sum(p.recs) AS BIGINT), sum(p.total) FROM partials AS p
    SEMI JOIN again AS a ON p.sess IS NOT DISTINCT FROM a.sess AND p.msg IS NOT DISTINCT FROM a.msg
    GROUP BY p.name, p.sess, p.msg
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
