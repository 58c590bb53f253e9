-- Question: How many tool calls name a path containing SKILL.md in their input.path (inferred skill-load evidence)?
-- Used by: cursor page: Tool calls (skill evidence)
-- Inputs: walk/markers.parquet (marker skill_md_path: a count per line, never the path)
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor'" -c ".read survey/runtimes/cursor/queries/skill_reads.sql"
SELECT coalesce(sum(count), 0) AS calls, count(DISTINCT file_id) AS files
FROM read_parquet(getvariable('snap') || '/walk/markers.parquet')
WHERE name = 'skill_md_path';
