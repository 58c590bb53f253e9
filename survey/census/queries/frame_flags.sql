-- Question: How many frames carry a BOM, end in CR (CRLF files) or hold a NUL byte?
-- Used by: every JSONL page: Problems
-- Inputs: walk/frames.parquet (files counted by file_key, the file's id as a number: a distinct pass hashes it faster than the id string)
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/<runtime>'" -c ".read survey/census/queries/frame_flags.sql"
SELECT
    count(*) FILTER (WHERE flags & 1 = 1)  AS bom_frames,
    count(*) FILTER (WHERE flags & 2 = 2)  AS crlf_frames,
    count(*) FILTER (WHERE flags & 4 = 4)  AS nul_frames,
    count(DISTINCT file_key) FILTER (WHERE flags & 2 = 2) AS crlf_files
FROM read_parquet(getvariable('snap') || '/walk/frames.parquet');
