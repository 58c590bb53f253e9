-- Question: frame_flags.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: a file's frame counts are all in one part, so its files per part add up to the query's.
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/<runtime>'" -c ".read survey/census/queries/parts/frame_flags.sql"
CREATE OR REPLACE TEMP TABLE partials AS
SELECT
    file_index                                        AS part,
    sum(bom)                                          AS bom_frames,
    sum(crlf)                                         AS crlf_frames,
    sum(nul)                                          AS nul_frames,
    sum(duplicate_key)                                AS duplicate_key_frames,
    sum(out_of_range)                                 AS out_of_range_frames,
    sum(nonstandard_number)                           AS nonstandard_number_frames,
    count(DISTINCT file_key) FILTER (WHERE crlf > 0)  AS crlf_files
FROM read_parquet(coalesce(getvariable('frame_counts_parts'), [getvariable('snap') || '/walk/frame_counts.parquet']))
GROUP BY ALL;

SELECT
    coalesce(sum(bom_frames), 0)    AS bom_frames,
    coalesce(sum(crlf_frames), 0)   AS crlf_frames,
    coalesce(sum(nul_frames), 0)    AS nul_frames,
    coalesce(sum(duplicate_key_frames), 0)      AS duplicate_key_frames,
    coalesce(sum(out_of_range_frames), 0)       AS out_of_range_frames,
    coalesce(sum(nonstandard_number_frames), 0) AS nonstandard_number_frames,
    coalesce(sum(crlf_files), 0)    AS crlf_files
FROM partials;
