-- Question: versions.sql, split per Parquet part: the same rows, from each part's (census/partials.py).
-- Parts: a file's frames are all in one part, so whether it mixes versions is known there, and its files per part add up.
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/claude_code'" -c ".read survey/runtimes/claude_code/queries/parts/versions.sql"
CREATE OR REPLACE TEMP TABLE partials AS
WITH fv AS (   -- per file and version, its records: a file's versions are its rows here
    SELECT f.file_index AS part, f.file_id, f.version, count(*) AS records
    FROM read_parquet(coalesce(getvariable('frames_parts'), [getvariable('snap') || '/walk/frames.parquet'])) AS f
    JOIN read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) AS i USING (file_id)
    WHERE f.frame_status = 'ok' AND f.version IS NOT NULL
    GROUP BY ALL
), per_file AS (
    SELECT file_id, count(*) AS n FROM fv GROUP BY file_id
)
SELECT
    fv.part,
    fv.version,
    sum(fv.records)                             AS records,
    count(*)                                    AS files,
    count(*) FILTER (WHERE p.n > 1)             AS files_mixing_versions
FROM fv JOIN per_file AS p USING (file_id)
GROUP BY fv.part, fv.version;

SELECT version, sum(records) AS records, sum(files) AS files, sum(files_mixing_versions) AS files_mixing_versions
FROM partials
GROUP BY version
ORDER BY list_transform(string_split(any_value(version), '.'), lambda x: try_cast(x AS INTEGER)), version;
