-- Question: Does the parent transcript name its subagent child, and does the directory id equal the file id?
-- Used by: cursor page: Subagents, File layout and identity
-- Inputs: walk/needles.parquet, inventory
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor'" -c ".read survey/runtimes/cursor/queries/lineage.sql"
WITH inv AS (SELECT * FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true)),
pairs AS (
    SELECT c.file_id AS child, p.file_id AS parent
    FROM inv AS c JOIN inv AS p
      ON c.parent_id = p.session_id AND p.parent_id IS NULL AND p.kind = 'jsonl'
    WHERE c.surface = 'subagent'
), found AS (
    SELECT needle_file AS child, bool_or(found) AS found
    FROM read_parquet(getvariable('snap') || '/walk/needles.parquet')
    GROUP BY needle_file
)
SELECT
    (SELECT count(*) FROM inv WHERE surface = 'subagent')                        AS subagent_files,
    (SELECT count(*) FROM pairs)                                                 AS pairs,
    (SELECT count(*) FROM pairs JOIN found USING (child) WHERE found.found)      AS child_id_in_parent,
    (SELECT count(*) FROM inv WHERE surface = 'transcript')                      AS nested_transcripts,
    (SELECT count(*) FROM inv WHERE surface = 'transcript' AND ids_agree)        AS dir_id_equals_file_id;
