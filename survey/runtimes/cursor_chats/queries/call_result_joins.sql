-- Question: Does every tool-result's toolCallId name a tool-call in the same store, and does every call get a result (ids compared as salted pseudonyms)?
-- Used by: cursor_chats page: Tool calls and results (joins)
-- Inputs: walk/links.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_chats'" -c ".read survey/runtimes/cursor_chats/queries/call_result_joins.sql"
WITH l AS (SELECT file_id, kind, ref FROM read_parquet(getvariable('snap') || '/walk/links.parquet')),
calls AS (SELECT DISTINCT file_id, ref FROM l WHERE kind = 'call_id'),
results AS (SELECT file_id, ref FROM l WHERE kind = 'result_call_id')
SELECT
    (SELECT count(*) FROM l WHERE kind = 'call_id')                                           AS calls_with_id,
    (SELECT count(*) FROM results)                                                            AS results_with_id,
    (SELECT count(*) FROM results AS r WHERE EXISTS (
        SELECT 1 FROM calls AS c WHERE c.file_id = r.file_id AND c.ref = r.ref))              AS results_joined,
    (SELECT count(*) FROM results AS r WHERE NOT EXISTS (
        SELECT 1 FROM calls AS c WHERE c.file_id = r.file_id AND c.ref = r.ref))              AS results_without_call,
    (SELECT count(*) FROM calls AS c WHERE NOT EXISTS (
        SELECT 1 FROM results AS r WHERE r.file_id = c.file_id AND r.ref = c.ref))            AS calls_without_result;
