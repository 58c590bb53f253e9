-- Question: How do adjacent assistant frames relate (by block types and payload lengths only)?
-- Used by: cursor page: Grow-in-place revision
-- Inputs: walk/frames.parquet, walk/blocks.parquet
-- Method: a frame's signature is its list of (block type, payload length) in idx order. Most adjacent
--   pairs already differ in their first block (so are unrelated), or one has no blocks: only the
--   remaining pairs get whole lists built and compared.
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor'" -c ".read survey/runtimes/cursor/queries/assistant_pairs.sql"
WITH head AS (   -- per frame that has blocks: its first block
    SELECT file_id, line_no, arg_min(btype, idx) AS t, arg_min(coalesce(payload_len, -1), idx) AS n
    FROM read_parquet(getvariable('snap') || '/walk/blocks.parquet')
    GROUP BY file_id, line_no
), seq AS (
    SELECT file_id, line_no, role,
           lag(line_no) OVER w AS prev_line,
           lag(role) OVER w    AS prev_role
    FROM read_parquet(getvariable('snap') || '/walk/frames.parquet')
    WHERE frame_status = 'ok'
    WINDOW w AS (PARTITION BY file_id ORDER BY line_no)
), pairs AS (   -- adjacent assistant frames; settled here unless both have blocks and the same first block
    SELECT s.file_id, s.line_no, s.prev_line,
           CASE WHEN c.line_no IS NULL AND p.line_no IS NULL THEN 'duplicate'          -- [] and []
                WHEN p.line_no IS NULL                       THEN 'prefix_extension'   -- [] then [..]
                WHEN c.line_no IS NULL                       THEN 'reverse_prefix'     -- [..] then []
                WHEN c.t <> p.t OR c.n <> p.n                THEN 'unrelated'
           END AS kind
    FROM seq AS s
    LEFT JOIN head AS c ON c.file_id = s.file_id AND c.line_no = s.line_no
    LEFT JOIN head AS p ON p.file_id = s.file_id AND p.line_no = s.prev_line
    WHERE s.role = 'assistant' AND s.prev_role = 'assistant'
), open AS (
    SELECT file_id, line_no, prev_line FROM pairs WHERE kind IS NULL
), sig AS (   -- the whole block lists, only for the frames of open pairs
    SELECT file_id, line_no, list(struct_pack(t := btype, n := coalesce(payload_len, -1)) ORDER BY idx) AS s
    FROM read_parquet(getvariable('snap') || '/walk/blocks.parquet')
    WHERE (file_id, line_no) IN (SELECT (file_id, line_no) FROM open UNION SELECT (file_id, prev_line) FROM open)
    GROUP BY file_id, line_no
), settled AS (
    SELECT kind FROM pairs WHERE kind IS NOT NULL
    UNION ALL
    SELECT CASE WHEN c.s = p.s                                              THEN 'duplicate'
                WHEN len(c.s) > len(p.s) AND c.s[1:len(p.s)] = p.s         THEN 'prefix_extension'
                WHEN len(p.s) > len(c.s) AND p.s[1:len(c.s)] = c.s         THEN 'reverse_prefix'
                ELSE 'unrelated' END
    FROM open AS o   -- both frames of an open pair have blocks, so both joins always match
    LEFT JOIN sig AS c ON c.file_id = o.file_id AND c.line_no = o.line_no
    LEFT JOIN sig AS p ON p.file_id = o.file_id AND p.line_no = o.prev_line
)
SELECT
    count(*)                                          AS pairs,
    count(*) FILTER (WHERE kind = 'duplicate')        AS duplicate,
    count(*) FILTER (WHERE kind = 'prefix_extension') AS prefix_extension,
    count(*) FILTER (WHERE kind = 'reverse_prefix')   AS reverse_prefix,
    count(*) FILTER (WHERE kind = 'unrelated')        AS unrelated
FROM settled;
