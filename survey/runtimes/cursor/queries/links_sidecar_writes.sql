-- Question: Are agent-tools sidecars ever written by Write or ApplyPatch: of the records whose tool input names an agent-tools path, how many hold only Write/ApplyPatch calls, a write call beside others, or no write call?
-- Used by: cursor page: Links between records and files (sidecars)
-- Inputs: walk/markers.parquet, walk/blocks.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor'" -c ".read survey/runtimes/cursor/queries/links_sidecar_writes.sql"
WITH m AS (   -- records whose tool input (path, command, or ApplyPatch's raw string) names /agent-tools/
    SELECT file_key, line_no, sum(count) AS refs
    FROM read_parquet(getvariable('snap') || '/walk/markers.parquet')
    WHERE name IN ('agent_tools_path', 'agent_tools_command', 'agent_tools_patch')
    GROUP BY file_key, line_no
), b AS (
    SELECT file_key, line_no, count(*) AS calls, count(*) FILTER (WHERE name IN ('Write', 'ApplyPatch')) AS writes
    FROM read_parquet(getvariable('snap') || '/walk/blocks.parquet')
    WHERE btype = 'tool_use'
    GROUP BY file_key, line_no
)
SELECT
    count(*)                                                          AS records_naming_sidecars,
    coalesce(sum(m.refs), 0)::BIGINT                                  AS sidecar_refs,
    count(*) FILTER (WHERE b.writes > 0 AND b.writes = b.calls)       AS only_write_calls,
    count(*) FILTER (WHERE b.writes > 0 AND b.writes < b.calls)       AS write_beside_other_calls,
    count(*) FILTER (WHERE coalesce(b.writes, 0) = 0)                 AS no_write_call
FROM m LEFT JOIN b USING (file_key, line_no);
