-- Question: How many composers (composerData cells) have bubbleId rows of their id in the same store, how many have none, and how many of each are marked isDraft (ids compared by the store reader as in-process hashes, never kept)?
-- Used by: cursor_desktop page: Links between records and files (drafts and empty composers)
-- Inputs: walk/stores.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_desktop'" -c ".read survey/runtimes/cursor_desktop/queries/composer_bubbles.sql"
SELECT
    coalesce(sum(composers_with_bubbles), 0)              AS with_bubbles,
    coalesce(sum(composers_without_bubbles), 0)           AS without_bubbles,
    coalesce(sum(composers_drafts), 0)                    AS drafts,
    coalesce(sum(composers_drafts_without_bubbles), 0)    AS drafts_without_bubbles
FROM read_parquet(getvariable('snap') || '/walk/stores.parquet')
WHERE status = 'ok';
