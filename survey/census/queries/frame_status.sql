-- Question: How many frames of each framing status (ok, blank, malformed, partial, oversized, …)?
-- Used by: every JSONL page: Observation basis, Frame taxonomy
-- Inputs: walk/frame_counts.parquet (the frames counted per file and (status, class, key set); files counted
--         by file_key, the file's id as a number: a distinct pass hashes it faster than the id string)
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/<runtime>'" -c ".read survey/census/queries/frame_status.sql"
SELECT
    frame_status,
    sum(records)             AS frames,
    count(DISTINCT file_key) AS files,
    sum(bytes)               AS bytes
FROM read_parquet(getvariable('snap') || '/walk/frame_counts.parquet')
GROUP BY frame_status
ORDER BY frames DESC, frame_status;
