-- Question: How do adjacent assistant frames relate (by block types and payload lengths only)?
-- Used by: cursor page: Grow-in-place revision
-- Inputs: walk/frames.parquet, walk/blocks.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor'" -c ".read survey/runtimes/cursor/queries/assistant_pairs.sql"
WITH sig AS (
    SELECT file_id, line_no,
           list(struct_pack(t := btype, n := coalesce(payload_len, -1)) ORDER BY idx) AS s
    FROM read_parquet(getvariable('snap') || '/walk/blocks.parquet')
    GROUP BY file_id, line_no
), seq AS (
    SELECT
        f.file_id, f.role,
        coalesce(sig.s, [])                                                     AS s,
        lag(f.role) OVER (PARTITION BY f.file_id ORDER BY f.line_no)            AS prev_role,
        lag(coalesce(sig.s, [])) OVER (PARTITION BY f.file_id ORDER BY f.line_no) AS prev_s
    FROM read_parquet(getvariable('snap') || '/walk/frames.parquet') AS f LEFT JOIN sig USING (file_id, line_no)
    WHERE f.frame_status = 'ok'
)
SELECT
    count(*)                                                                          AS pairs,
    count(*) FILTER (WHERE s = prev_s)                                                AS duplicate,
    count(*) FILTER (WHERE len(s) > len(prev_s) AND s[1:len(prev_s)] = prev_s)        AS prefix_extension,
    count(*) FILTER (WHERE len(prev_s) > len(s) AND prev_s[1:len(s)] = s)             AS reverse_prefix,
    count(*) FILTER (WHERE s <> prev_s
                       AND NOT (len(s) > len(prev_s) AND s[1:len(prev_s)] = prev_s)
                       AND NOT (len(prev_s) > len(s) AND prev_s[1:len(s)] = s))       AS unrelated
FROM seq
WHERE role = 'assistant' AND prev_role = 'assistant';
