-- Question: input_type_by_tool.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: calls counted per part, summed.
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor'" -c ".read survey/runtimes/cursor/queries/parts/input_type_by_tool.sql"
CREATE OR REPLACE TEMP TABLE partials AS
SELECT
    file_index                                     AS part,
    name,
    count(*) FILTER (WHERE input_type = 'object')  AS object,
    count(*) FILTER (WHERE input_type = 'string')  AS string,
    count(*) FILTER (WHERE input_type NOT IN ('object', 'string') OR input_type IS NULL) AS other,
    count(*)                                       AS calls
FROM read_parquet(coalesce(getvariable('blocks_parts'), [getvariable('snap') || '/walk/blocks.parquet']))
WHERE btype = 'tool_use'
GROUP BY ALL;

SELECT name, sum(object) AS object, sum(string) AS string, sum(other) AS other, sum(calls) AS calls
FROM partials
GROUP BY name
ORDER BY calls DESC, name;
