-- Question: tool_call_variants.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: node_counts is already rolled up per part; its rows for $.tool_call are kept per part and summed.
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_stream'" -c ".read survey/runtimes/cursor_stream/queries/parts/tool_call_variants.sql"
CREATE OR REPLACE TEMP TABLE partials AS
SELECT file_index AS part, rclass, keyset, sum(occurrences) AS events, sum(files) AS captures
FROM read_parquet(coalesce(getvariable('node_counts_parts'), [getvariable('snap') || '/walk/node_counts.parquet']))
WHERE path = '$.tool_call' AND jtype = 'object'
GROUP BY ALL;

SELECT rclass AS family, keyset AS variant, sum(events) AS events, sum(captures) AS captures
FROM partials
GROUP BY ALL
ORDER BY family, events DESC, variant;
