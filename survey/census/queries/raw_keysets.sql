-- Question: At each object path, per record class, how many distinct key sets occur after masking unreviewed keys,
--           and how many distinct key sets before masking?
-- Used by: every page: each key-set count ("N after masking unreviewed keys; M distinct before masking")
-- Inputs: walk/node_counts.parquet (the key sets as the gate lets them out, rolled up), walk/rawsets.parquet (one
--         row per file and (class, path, raw key set): the raw set is a salted pseudonym of the object's sorted
--         keys, HMAC-SHA256 under the run's salt, so distinct sets are counted and none is read)
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/<runtime>'" -c ".read survey/census/queries/raw_keysets.sql"
-- A row whose rclass is NULL counts the path's key sets over every record class together (a set met in two classes
-- is one set there).
WITH masked AS (
    SELECT rclass, path, count(DISTINCT keyset) AS keysets_masked, sum(occurrences) AS objects
    FROM read_parquet(getvariable('snap') || '/walk/node_counts.parquet')
    WHERE jtype = 'object' AND keyset NOT IN ('<map>', '<opaque>')
    GROUP BY GROUPING SETS ((rclass, path), (path))
), raw AS (
    SELECT rclass, path, count(DISTINCT rawset) AS keysets_raw
    FROM read_parquet(getvariable('snap') || '/walk/rawsets.parquet')
    GROUP BY GROUPING SETS ((rclass, path), (path))
)
SELECT
    m.rclass,
    m.path,
    m.keysets_masked,
    coalesce(r.keysets_raw, 0)   AS keysets_raw,
    m.objects
FROM masked m LEFT JOIN raw r ON r.rclass IS NOT DISTINCT FROM m.rclass AND r.path = m.path
ORDER BY m.rclass NULLS FIRST, m.path;
