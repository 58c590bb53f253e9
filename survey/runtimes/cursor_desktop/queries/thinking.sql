-- Question: How many thinking blocks have text, a signature only, or neither (tallied by the store reader)?
-- Used by: cursor_desktop page: Bubbles (thinking)
-- Inputs: walk/stores.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_desktop'" -c ".read survey/runtimes/cursor_desktop/queries/thinking.sql"
SELECT
    coalesce(sum(thinking_with_text), 0)         AS with_text,
    coalesce(sum(thinking_signature_only), 0)    AS signature_only,
    coalesce(sum(thinking_blank), 0)             AS blank
FROM read_parquet(getvariable('snap') || '/walk/stores.parquet');
