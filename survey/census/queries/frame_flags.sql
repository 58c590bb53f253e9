-- Question: How many frames carry a BOM, end in CR (CRLF files) or hold a NUL byte?
-- Used by: every JSONL page: Problems
-- Inputs: walk/frame_counts.parquet (the frames counted per file and (status, class, key set), with how many
--         carry each flag; files counted by file_key, the file's id as a number)
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/<runtime>'" -c ".read survey/census/queries/frame_flags.sql"
SELECT
    coalesce(sum(bom), 0)                             AS bom_frames,
    coalesce(sum(crlf), 0)                            AS crlf_frames,
    coalesce(sum(nul), 0)                             AS nul_frames,
    count(DISTINCT file_key) FILTER (WHERE crlf > 0)  AS crlf_files
FROM read_parquet(getvariable('snap') || '/walk/frame_counts.parquet');
