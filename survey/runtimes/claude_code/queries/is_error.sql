-- Question: Is tool_result.is_error true, false or absent, per client version (absent means unknown, not success)?
-- Used by: claude_code page: Tool calls and results (failure flag)
-- Inputs: inventory, walk/blocks.parquet, walk/values.parquet, walk/frames.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/claude_code'" -c ".read survey/runtimes/claude_code/queries/is_error.sql"
WITH t AS (
    SELECT file_id FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) WHERE surface IN ('parent', 'subagent', 'workflow_agent') AND sampled
), fv AS (
    SELECT file_id, coalesce(arg_min(version, line_no) FILTER (WHERE version IS NOT NULL), '(none)') AS version
    FROM read_parquet(getvariable('snap') || '/walk/frames.parquet') SEMI JOIN t USING (file_id) GROUP BY file_id
), results AS (
    SELECT file_id, count(*) AS n FROM read_parquet(getvariable('snap') || '/walk/blocks.parquet') SEMI JOIN t USING (file_id)
    WHERE btype = 'tool_result' GROUP BY file_id
), flags AS (
    SELECT file_id,
           sum(count) FILTER (WHERE value = 'true')  AS t,
           sum(count) FILTER (WHERE value = 'false') AS f,
           sum(count) FILTER (WHERE value NOT IN ('true', 'false')) AS other
    FROM read_parquet(getvariable('snap') || '/walk/values.parquet') SEMI JOIN t USING (file_id)
    WHERE path = '$.message.content[type=tool_result].is_error'
    GROUP BY file_id
)
SELECT
    fv.version,
    sum(r.n)                                                               AS results,
    coalesce(sum(x.t), 0)                                                  AS is_error_true,
    coalesce(sum(x.f), 0)                                                  AS is_error_false,
    coalesce(sum(x.other), 0)                                              AS is_error_other,
    sum(r.n) - coalesce(sum(x.t), 0) - coalesce(sum(x.f), 0) - coalesce(sum(x.other), 0) AS is_error_absent,
    count(DISTINCT r.file_id)                                              AS files
FROM results AS r JOIN fv USING (file_id) LEFT JOIN flags AS x USING (file_id)
GROUP BY fv.version
ORDER BY list_transform(string_split(any_value(fv.version), '.'), lambda p: try_cast(p AS INTEGER)), fv.version;
