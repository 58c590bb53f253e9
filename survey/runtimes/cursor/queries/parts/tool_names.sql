-- Question: tool_names.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: a file's blocks are all in one part, so its files per part add up.
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor'" -c ".read survey/runtimes/cursor/queries/parts/tool_names.sql"
CREATE OR REPLACE TEMP TABLE partials AS
SELECT file_index AS part, name, count(*) AS calls, count(DISTINCT file_id) AS files
FROM read_parquet(coalesce(getvariable('blocks_parts'), [getvariable('snap') || '/walk/blocks.parquet']))
WHERE btype = 'tool_use'
GROUP BY ALL;

SELECT name, sum(calls) AS calls, sum(files) AS files
FROM partials
GROUP BY name
ORDER BY calls DESC, name;
