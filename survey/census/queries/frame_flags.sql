-- Question: How many frames carry a BOM, end in CR (CRLF files) or hold a NUL byte; how many records
--           were kept with a key named twice, a number out of range or a NaN/Infinity?
-- Used by: every JSONL page: Problems
-- Inputs: walk/frame_counts.parquet (the frames counted per file and (status, class, key set), with how many
--         carry each flag; files counted by file_key, the file's id as a number)
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/<runtime>'" -c ".read survey/census/queries/frame_flags.sql"
SELECT
    coalesce(sum(bom), 0)                             AS bom_frames,
    coalesce(sum(crlf), 0)                            AS crlf_frames,
    coalesce(sum(nul), 0)                             AS nul_frames,
    coalesce(sum(duplicate_key), 0)                   AS duplicate_key_frames,
    coalesce(sum(out_of_range), 0)                    AS out_of_range_frames,
    coalesce(sum(nonstandard_number), 0)              AS nonstandard_number_frames,
    count(DISTINCT file_key) FILTER (WHERE crlf > 0)  AS crlf_files
FROM read_parquet(getvariable('snap') || '/walk/frame_counts.parquet');
