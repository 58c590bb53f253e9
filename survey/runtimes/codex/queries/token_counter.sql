-- Question: Does the cumulative token counter (token_count.info.total_token_usage.total_tokens) only rise, except at compaction?
-- Used by: codex page: Usage
-- Inputs: walk/numbers.parquet, walk/frames.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/codex'" -c ".read survey/runtimes/codex/queries/token_counter.sql"
WITH tc AS (
    SELECT file_id, line_no, value FROM read_parquet(getvariable('snap') || '/walk/numbers.parquet') WHERE name = 'total_tokens' AND value IS NOT NULL
), seq AS (
    SELECT *, lag(value) OVER w AS prev, lag(line_no) OVER w AS prev_line
    FROM tc WINDOW w AS (PARTITION BY file_id ORDER BY line_no)
), drops AS (
    SELECT * FROM seq WHERE value < prev
), comp AS (
    SELECT file_id, line_no FROM read_parquet(getvariable('snap') || '/walk/frames.parquet') WHERE rclass = 'compacted'
)
SELECT
    (SELECT count(*) FROM tc)                                                        AS token_counts,
    (SELECT count(DISTINCT file_id) FROM tc)                                         AS files,
    (SELECT count(*) FROM seq WHERE value = prev)                                    AS repeats,
    count(*)                                                                         AS drops,
    count(*) FILTER (WHERE EXISTS (SELECT 1 FROM comp AS c WHERE c.file_id = d.file_id
                                     AND c.line_no BETWEEN d.prev_line AND d.line_no))  AS drops_at_compaction,
    count(DISTINCT file_id)                                                          AS files_with_drops
FROM drops AS d;
