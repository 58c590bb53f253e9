-- Question: How many bubbles have a tokenCount whose input and output counts are both zero (the serializer default)?
-- Used by: cursor_desktop page: Bubbles (token counts)
-- Inputs: walk/numbers.parquet, walk/frames.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_desktop'" -c ".read survey/runtimes/cursor_desktop/queries/token_counts.sql"
WITH b AS (
    SELECT file_key, line_no FROM read_parquet(getvariable('snap') || '/walk/frames.parquet')   -- file_key: the file's id as a number (a join on it hashes no string)
    WHERE rclass = 'bubbleId' AND frame_status = 'ok'
), t AS (
    SELECT file_key, line_no,
           max(value) FILTER (WHERE name = 'input_tokens')   AS input_tokens,
           max(value) FILTER (WHERE name = 'output_tokens')  AS output_tokens
    FROM read_parquet(getvariable('snap') || '/walk/numbers.parquet')
    WHERE name IN ('input_tokens', 'output_tokens')
    GROUP BY ALL
)
SELECT
    count(*)                                                                        AS bubbles,
    count(t.file_key)                                                               AS with_token_count,
    count(*) FILTER (WHERE t.input_tokens = 0 AND t.output_tokens = 0)              AS all_zero,
    count(*) FILTER (WHERE coalesce(t.input_tokens, 0) > 0 OR coalesce(t.output_tokens, 0) > 0) AS non_zero
FROM b LEFT JOIN t USING (file_key, line_no);
