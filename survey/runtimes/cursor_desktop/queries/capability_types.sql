-- Question: Which capabilityType values do bubbles carry, and how many bubbles carry none?
-- Used by: cursor_desktop page: Bubbles
-- Inputs: walk/values.parquet, walk/frames.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_desktop'" -c ".read survey/runtimes/cursor_desktop/queries/capability_types.sql"
WITH v AS (
    SELECT value, sum(count) AS bubbles
    FROM read_parquet(getvariable('snap') || '/walk/values.parquet')
    WHERE path = '$.capabilityType'
    GROUP BY value
), b AS (
    SELECT count(*) AS bubbles
    FROM read_parquet(getvariable('snap') || '/walk/frames.parquet')
    WHERE rclass = 'bubbleId' AND frame_status = 'ok'
)
SELECT value AS capability_type, bubbles FROM v
UNION ALL
SELECT 'absent', (SELECT bubbles FROM b) - coalesce((SELECT sum(bubbles) FROM v), 0)
ORDER BY bubbles DESC, capability_type;
