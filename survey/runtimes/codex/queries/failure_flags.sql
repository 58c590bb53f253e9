-- Question: Which boolean outcome flags do records carry (patch_apply_end.success, an MCP result's isError), with which values?
-- Used by: codex page: Outcomes (failure flags)
-- Inputs: walk/values.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/codex'" -c ".read survey/runtimes/codex/queries/failure_flags.sql"
SELECT
    path,
    value,
    sum(count)                 AS records,
    count(DISTINCT file_id)    AS files
FROM read_parquet(getvariable('snap') || '/walk/values.parquet')
WHERE path IN ('$.payload.success', '$.payload.result.Ok.isError')
GROUP BY ALL
ORDER BY path, value;
