-- Question: Which key sets does the decoded meta "0" agent record have?
-- Used by: cursor_chats page: Meta "0"
-- Inputs: walk/frames.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_chats'" -c ".read survey/runtimes/cursor_chats/queries/meta0_keysets.sql"
SELECT keyset, frame_status AS status, count(*) AS stores
FROM read_parquet(getvariable('snap') || '/walk/frames.parquet')
WHERE rclass = 'meta:0'
GROUP BY ALL
ORDER BY stores DESC, keyset;
