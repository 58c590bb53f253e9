-- Question: Which key sets (record class, path, key set of an object) of a merged snapshot occur under some client
--           versions (a file's first recorded version; files recording none left out) but not under every one,
--           under how many versions, on how many machines?
-- Used by: merged pages: drift by version across machines
-- Inputs: inventory/*/*.parquet (each file's pseudonymous machine), walk/frames.parquet (its version column:
--         `version` or `cli_version`), walk/nodes.parquet
-- Made in part from survey/render/queries/fragments/file_version.sql (its CTE fv: python -m survey.census.fragments writes it; a test holds it equal)
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/<runtime>-merged'" -c ".read survey/merge/queries/version_keysets.sql"
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
    SELECT DISTINCT fv.version, n.rclass, n.path, n.keyset, fm.machine
    FROM read_parquet(getvariable('snap') || '/walk/nodes.parquet') AS n
    JOIN fm USING (file_id)
    JOIN fv USING (file_id)
    WHERE coalesce(n.keyset, '') <> ''
)
SELECT
    rclass,
    path,
    keyset,
    count(DISTINCT version)                                 AS versions,
    string_agg(DISTINCT version, ', ' ORDER BY version)     AS under,
    count(DISTINCT machine)                                 AS machines
FROM kv
GROUP BY rclass, path, keyset
HAVING count(DISTINCT version) < (SELECT count(DISTINCT version) FROM kv)
ORDER BY versions, rclass, path, keyset;
