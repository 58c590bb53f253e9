-- Question: Per client version (a file's first recorded version) in a merged snapshot, on how many machines and in
--           how many files was it seen, and how many key sets (record class, path, key set of an object) occur
--           under it but not under every recorded version? (Files recording none are counted, their key sets not
--           compared.)
-- Used by: merged pages: drift by version across machines
-- Inputs: inventory/*/*.parquet (each file's pseudonymous machine), walk/frames.parquet (its version column:
--         `version` or `cli_version`), walk/nodes.parquet
-- Made in part from survey/render/queries/fragments/file_version.sql (its CTE fv: python -m survey.census.fragments writes it; a test holds it equal)
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/<runtime>-merged'" -c ".read survey/merge/queries/versions.sql"
WITH fv AS (
    SELECT file_id, arg_min(v, line_no) AS version
    FROM (SELECT file_id, line_no, COLUMNS('^(cli_)?version$') AS v
          FROM read_parquet(getvariable('snap') || '/walk/frames.parquet'))
    WHERE v IS NOT NULL
    GROUP BY file_id
),
fm AS (
    SELECT DISTINCT file_id, machine
    FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet')
),
kv AS (
    SELECT DISTINCT coalesce(fv.version, '(none)') AS version, n.rclass, n.path, n.keyset, n.file_id, fm.machine
    FROM read_parquet(getvariable('snap') || '/walk/nodes.parquet') AS n
    JOIN fm USING (file_id)
    LEFT JOIN fv USING (file_id)
    WHERE coalesce(n.keyset, '') <> ''
),
ks AS (
    SELECT rclass, path, keyset, count(DISTINCT version) FILTER (WHERE version <> '(none)') AS versions
    FROM kv GROUP BY ALL
)
SELECT
    kv.version,
    count(DISTINCT kv.machine)                                             AS machines,
    count(DISTINCT kv.file_id)                                             AS files,
    count(DISTINCT (kv.rclass, kv.path, kv.keyset))                        AS keysets,
    count(DISTINCT (kv.rclass, kv.path, kv.keyset))
        FILTER (WHERE kv.version <> '(none)'
                AND ks.versions < (SELECT count(DISTINCT version) FROM kv WHERE version <> '(none)'))
                                                                           AS keysets_not_under_every_version
FROM kv JOIN ks USING (rclass, path, keyset)
GROUP BY kv.version
ORDER BY kv.version;
