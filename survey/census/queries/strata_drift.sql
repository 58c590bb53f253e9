-- Question: Per record class, which top-level key sets are present in one mtime stratum and absent from the previous stratum where the class occurs (and the other way round)?
-- Used by: every page: Shape drift across strata
-- Inputs: inventory, walk/frame_counts.parquet
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/<runtime>'" -c ".read survey/census/queries/strata_drift.sql"
WITH inv AS (
    SELECT file_id, coalesce(stratum, 'none') AS stratum
    FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) WHERE sampled
),
ks AS (   -- each (stratum, class, key set) and its records
    SELECT i.stratum, f.rclass, coalesce(f.keyset, '') AS keyset, sum(f.records) AS records
    FROM read_parquet(getvariable('snap') || '/walk/frame_counts.parquet') AS f JOIN inv AS i USING (file_id)
    WHERE f.frame_status = 'ok' AND f.rclass IS NOT NULL
    GROUP BY ALL
),
pairs AS (   -- each stratum of a class and the class's previous stratum
    SELECT rclass, earlier, later FROM (
        SELECT rclass, stratum AS later, lag(stratum) OVER (PARTITION BY rclass ORDER BY stratum) AS earlier
        FROM (SELECT DISTINCT rclass, stratum FROM ks)
    ) WHERE earlier IS NOT NULL
),
cmp AS (   -- each key set of either side of a pair, and its records on each side
    SELECT coalesce(l.rclass, e.rclass) AS rclass, coalesce(l.earlier, e.earlier) AS earlier,
           coalesce(l.later, e.later) AS later, l.records AS later_records, e.records AS earlier_records
    FROM (SELECT p.*, k.keyset, k.records FROM pairs AS p JOIN ks AS k ON k.rclass = p.rclass AND k.stratum = p.later) AS l
    FULL JOIN (SELECT p.*, k.keyset, k.records FROM pairs AS p JOIN ks AS k ON k.rclass = p.rclass AND k.stratum = p.earlier) AS e
      ON l.rclass = e.rclass AND l.later = e.later AND l.keyset = e.keyset
)
SELECT rclass, earlier, later,
       count(*) FILTER (WHERE earlier_records IS NULL)                              AS keysets_came,
       count(*) FILTER (WHERE later_records IS NULL)                                AS keysets_went,
       count(*) FILTER (WHERE later_records IS NOT NULL AND earlier_records IS NOT NULL) AS keysets_kept,
       coalesce(sum(later_records) FILTER (WHERE earlier_records IS NULL), 0)::BIGINT AS later_records_in_new_keysets,
       coalesce(sum(later_records), 0)::BIGINT                                      AS later_records
FROM cmp
GROUP BY rclass, earlier, later
ORDER BY keysets_came + keysets_went DESC, rclass, later;
