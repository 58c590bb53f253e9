-- Question: How do adjacent assistant frames relate (by block types and payload lengths only)?
-- Used by: cursor page: Grow-in-place revision
-- Inputs: walk/frames.parquet, walk/blocks.parquet
-- Method: a frame's signature is its list of (block type, payload length) in idx order. Most adjacent
--   pairs already differ in their first block (so are unrelated), or one has no blocks: only the
--   remaining pairs get whole lists built and compared. Each frame's first block is joined
--   once; the previous frame's comes with it by lag() (a second join took 3 s of 8 at 5 GB).
--   The first block is the row with idx = 0, not an arg_min per frame: the walk numbers a
--   record's blocks 0, 1, 2... (that grouping was half of this query's time at 1 GB). Files
--   are told apart by file_key, the file's id as a number (joins and windows on it took 3.1 s
--   at 5 GB, on the file_id string 4.7 s). The window carries the first block as one number,
--   hash(type, length), and the role as a flag: different hashes mean different first blocks,
--   and equal ones (a rare collision included) go on to the exact comparison below. Its rows
--   are half as wide as with the strings, and spill less (5 GB: 3.8 s -> 2.7 s).
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor'" -c ".read survey/runtimes/cursor/queries/assistant_pairs.sql"
WITH head AS (   -- per frame that has blocks: its first block, as one number (see Method)
    SELECT file_key, line_no, hash(btype, coalesce(payload_len, -1)) AS h
    FROM read_parquet(getvariable('snap') || '/walk/blocks.parquet')
    WHERE idx = 0
), seq AS (     -- ok frames in order, each with its head and the previous ok frame's (one join)
    SELECT f.file_key, f.line_no, f.role = 'assistant' AS asst, h.h,
           lag(f.line_no) OVER w                AS prev_line,
           lag(f.role = 'assistant') OVER w     AS prev_asst,
           lag(h.h) OVER w                      AS prev_h
    FROM read_parquet(getvariable('snap') || '/walk/frames.parquet') AS f
    LEFT JOIN head AS h ON h.file_key = f.file_key AND h.line_no = f.line_no
    WHERE f.frame_status = 'ok'
    WINDOW w AS (PARTITION BY f.file_key ORDER BY f.line_no)
), pairs AS (   -- adjacent assistant frames; settled here unless both have blocks and the same first block
    SELECT file_key, line_no, prev_line,
           CASE WHEN h IS NULL AND prev_h IS NULL THEN 'duplicate'          -- [] and []
                WHEN prev_h IS NULL                THEN 'prefix_extension'   -- [] then [..]
                WHEN h IS NULL                     THEN 'reverse_prefix'     -- [..] then []
                WHEN h <> prev_h                   THEN 'unrelated'
           END AS kind
    FROM seq
    WHERE asst AND prev_asst
), open AS (
    SELECT file_key, line_no, prev_line FROM pairs WHERE kind IS NULL
), sig AS (   -- the whole block lists, only for the frames of open pairs
    SELECT file_key, line_no, list(struct_pack(t := btype, n := coalesce(payload_len, -1)) ORDER BY idx) AS s
    FROM read_parquet(getvariable('snap') || '/walk/blocks.parquet')
    WHERE (file_key, line_no) IN (SELECT (file_key, line_no) FROM open UNION SELECT (file_key, prev_line) FROM open)
    GROUP BY file_key, line_no
), settled AS (
    SELECT kind FROM pairs WHERE kind IS NOT NULL
    UNION ALL
    SELECT CASE WHEN c.s = p.s                                              THEN 'duplicate'
                WHEN len(c.s) > len(p.s) AND c.s[1:len(p.s)] = p.s         THEN 'prefix_extension'
                WHEN len(p.s) > len(c.s) AND p.s[1:len(c.s)] = c.s         THEN 'reverse_prefix'
                ELSE 'unrelated' END
    FROM open AS o   -- both frames of an open pair have blocks, so both joins always match
    LEFT JOIN sig AS c ON c.file_key = o.file_key AND c.line_no = o.line_no
    LEFT JOIN sig AS p ON p.file_key = o.file_key AND p.line_no = o.prev_line
)
SELECT
    count(*)                                          AS pairs,
    count(*) FILTER (WHERE kind = 'duplicate')        AS duplicate,
    count(*) FILTER (WHERE kind = 'prefix_extension') AS prefix_extension,
    count(*) FILTER (WHERE kind = 'reverse_prefix')   AS reverse_prefix,
    count(*) FILTER (WHERE kind = 'unrelated')        AS unrelated
FROM settled;
