-- Question: Per capabilityType value (and for bubbles without one), how many bubbles carry toolFormerData, and how many a thinking object?
-- Used by: cursor_desktop page: Bubbles (what a capabilityType goes with)
-- Inputs: walk/frames.parquet, walk/numbers.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_desktop'" -c ".read survey/runtimes/cursor_desktop/queries/capability_keys.sql"
WITH b AS (   -- per (key set) first: the key set's string work runs once per distinct set
    SELECT file_key, line_no, keyset FROM read_parquet(getvariable('snap') || '/walk/frames.parquet')   -- file_key: the file's id as a number
    WHERE rclass = 'bubbleId' AND frame_status = 'ok'
), c AS (
    SELECT file_key, line_no, CAST(CAST(max(value) AS BIGINT) AS VARCHAR) AS capability_type
    FROM read_parquet(getvariable('snap') || '/walk/numbers.parquet')
    WHERE name = 'capability'
    GROUP BY ALL
), g AS (
    SELECT coalesce(c.capability_type, 'absent') AS capability_type, b.keyset, count(*) AS n
    FROM b LEFT JOIN c USING (file_key, line_no)
    GROUP BY ALL
)
SELECT
    capability_type,
    sum(n)                                                                                        AS bubbles,
    coalesce(sum(n) FILTER (WHERE list_contains(string_split(keyset, ','), 'toolFormerData')), 0) AS with_tool_former,
    coalesce(sum(n) FILTER (WHERE list_contains(string_split(keyset, ','), 'thinking')), 0)       AS with_thinking
FROM g
GROUP BY capability_type
ORDER BY bubbles DESC, capability_type;
