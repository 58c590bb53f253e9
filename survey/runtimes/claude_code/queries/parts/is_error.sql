-- Question: is_error.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: a file's frames, blocks and values are in parts of one label, so its version, results and flags are known there, and they add up per version.
-- Chunk: 128 MB (first censuses of 5 GB of Claude Code: 0.47-0.53 -> 0.31-0.32 s against runs of 8 MB; census/partials.py)
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/claude_code'" -c ".read survey/runtimes/claude_code/queries/parts/is_error.sql"
CREATE OR REPLACE TEMP TABLE partials AS
WITH t AS (
    SELECT file_id FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) WHERE surface IN ('parent', 'subagent', 'workflow_agent') AND sampled
), fv AS (
    SELECT file_id, coalesce(arg_min(version, line_no) FILTER (WHERE version IS NOT NULL), '(none)') AS version
    FROM read_parquet(coalesce(getvariable('frames_parts'), [getvariable('snap') || '/walk/frames.parquet'])) SEMI JOIN t USING (file_id) GROUP BY file_id
), results AS (
    SELECT file_index AS part, file_id, count(*) AS n FROM read_parquet(coalesce(getvariable('blocks_parts'), [getvariable('snap') || '/walk/blocks.parquet'])) SEMI JOIN t USING (file_id)
    WHERE btype = 'tool_result' GROUP BY ALL
), flags AS (
    SELECT file_id,
           sum(count) FILTER (WHERE value = 'true')  AS t,
           sum(count) FILTER (WHERE value = 'false') AS f,
           sum(count) FILTER (WHERE value NOT IN ('true', 'false')) AS other
    FROM read_parquet(coalesce(getvariable('values_parts'), [getvariable('snap') || '/walk/values.parquet'])) SEMI JOIN t USING (file_id)
    WHERE path = '$.message.content[type=tool_result].is_error'
    GROUP BY file_id
)
SELECT
    r.part,
    fv.version,
    sum(r.n)                   AS results,
    sum(x.t)                   AS t,
    sum(x.f)                   AS f,
    sum(x.other)               AS other,
    count(DISTINCT r.file_id)  AS files
FROM results AS r JOIN fv USING (file_id) LEFT JOIN flags AS x USING (file_id)
GROUP BY r.part, fv.version;

SELECT
    version,
    sum(results)                                                           AS results,
    coalesce(sum(t), 0)                                                    AS is_error_true,
    coalesce(sum(f), 0)                                                    AS is_error_false,
    coalesce(sum(other), 0)                                                AS is_error_other,
    sum(results) - coalesce(sum(t), 0) - coalesce(sum(f), 0) - coalesce(sum(other), 0) AS is_error_absent,
    sum(files)                                                             AS files
FROM partials
GROUP BY version
ORDER BY list_transform(string_split(any_value(version), '.'), lambda p: try_cast(p AS INTEGER)), version;
