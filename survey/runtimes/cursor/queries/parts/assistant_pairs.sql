-- Question: assistant_pairs.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: a pair is two adjacent frames of one file, and a file's frames and blocks are in parts of one label, so pairs are counted per part and summed.
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor'" -c ".read survey/runtimes/cursor/queries/parts/assistant_pairs.sql"
CREATE OR REPLACE TEMP TABLE partials AS
WITH head AS (   -- the reference's Method: a frame's first block as one number
    SELECT file_key, line_no, hash(btype, coalesce(payload_len, -1)) AS h
    FROM read_parquet(coalesce(getvariable('blocks_parts'), [getvariable('snap') || '/walk/blocks.parquet']))
    WHERE idx = 0
), seq AS (
    SELECT f.file_index AS part, f.file_key, f.line_no, f.role = 'assistant' AS asst, h.h,
           lag(f.line_no) OVER w                AS prev_line,
           lag(f.role = 'assistant') OVER w     AS prev_asst,
           lag(h.h) OVER w                      AS prev_h
    FROM read_parquet(coalesce(getvariable('frames_parts'), [getvariable('snap') || '/walk/frames.parquet'])) AS f
    LEFT JOIN head AS h ON h.file_key = f.file_key AND h.line_no = f.line_no
    WHERE f.frame_status = 'ok'
    WINDOW w AS (PARTITION BY f.file_key ORDER BY f.line_no)
), pairs AS (
    SELECT part, file_key, line_no, prev_line,
           CASE WHEN h IS NULL AND prev_h IS NULL THEN 'duplicate'
                WHEN prev_h IS NULL                THEN 'prefix_extension'
                WHEN h IS NULL                     THEN 'reverse_prefix'
                WHEN h <> prev_h                   THEN 'unrelated'
           END AS kind
    FROM seq
    WHERE asst AND prev_asst
), open AS (
    SELECT part, file_key, line_no, prev_line FROM pairs WHERE kind IS NULL
), sig AS (
    SELECT file_key, line_no, list(struct_pack(t := btype, n := coalesce(payload_len, -1)) ORDER BY idx) AS s
    FROM read_parquet(coalesce(getvariable('blocks_parts'), [getvariable('snap') || '/walk/blocks.parquet']))
    WHERE (file_key, line_no) IN (SELECT (file_key, line_no) FROM open UNION SELECT (file_key, prev_line) FROM open)
    GROUP BY file_key, line_no
), settled AS (
    SELECT part, kind FROM pairs WHERE kind IS NOT NULL
    UNION ALL
    SELECT o.part,
           CASE WHEN c.s = p.s                                              THEN 'duplicate'
                WHEN len(c.s) > len(p.s) AND c.s[1:len(p.s)] = p.s         THEN 'prefix_extension'
                WHEN len(p.s) > len(c.s) AND p.s[1:len(c.s)] = c.s         THEN 'reverse_prefix'
                ELSE 'unrelated' END
    FROM open AS o
    LEFT JOIN sig AS c ON c.file_key = o.file_key AND c.line_no = o.line_no
    LEFT JOIN sig AS p ON p.file_key = o.file_key AND p.line_no = o.prev_line
)
SELECT
    part,
    count(*)                                          AS pairs,
    count(*) FILTER (WHERE kind = 'duplicate')        AS duplicate,
    count(*) FILTER (WHERE kind = 'prefix_extension') AS prefix_extension,
    count(*) FILTER (WHERE kind = 'reverse_prefix')   AS reverse_prefix,
    count(*) FILTER (WHERE kind = 'unrelated')        AS unrelated
FROM settled
GROUP BY part;

SELECT
    coalesce(sum(pairs), 0)::BIGINT             AS pairs,
    coalesce(sum(duplicate), 0)::BIGINT         AS duplicate,
    coalesce(sum(prefix_extension), 0)::BIGINT  AS prefix_extension,
    coalesce(sum(reverse_prefix), 0)::BIGINT    AS reverse_prefix,
    coalesce(sum(unrelated), 0)::BIGINT         AS unrelated
FROM partials;
