-- Question: Per record class and JSON path, which types and key sets occur, in how many records and files, first and last in which mtime stratum, under which client versions; and does every file show an object's whole key set?
-- Used by: survey schema (x-observed, required, closed objects), survey audit: run over a snapshot when asked,
--          not in every run's census (at 150 MB of Claude Code, 350k node rows, it takes 2-6 s: more than the
--          whole census)
-- Inputs: walk/nodes.parquet (one row per file and (class, path, JSON type, key set)), inventory (stratum per file),
--         walk/frames.parquet (a client version per record, where the profile records one as a frame field
--         named version or cli_version; elsewhere the list is empty)
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/<runtime>'" -c ".read survey/export/queries/schema_nodes.sql"
WITH n AS (
    SELECT file_id::VARCHAR AS file_id, rclass, path, jtype, keyset, count
    FROM read_parquet(getvariable('snap') || '/walk/nodes.parquet')
), inv AS (
    SELECT file_id, stratum
    FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true)
), ver AS (   -- a file's client versions (none where no frame field records one)
    SELECT DISTINCT file_id, v AS version
    FROM (SELECT f.file_id::VARCHAR AS file_id,
                 unnest(list_filter([COLUMNS(lambda c: c IN ('version', 'cli_version', 'no_version_'))], lambda x: x IS NOT NULL)) AS v
          FROM read_parquet(getvariable('snap') || '/walk/frames.parquet') AS f, (SELECT NULL::VARCHAR AS no_version_)
          WHERE f.frame_status = 'ok')
), nf AS (
    SELECT n.*, inv.stratum FROM n LEFT JOIN inv USING (file_id)
), g AS (
    SELECT
        rclass,
        path,
        coalesce(jtype, '*')                                  AS jtype,
        coalesce(keyset, '*')                                 AS keyset,
        sum(count)                                            AS occurrences,
        count(DISTINCT file_id)                               AS files,
        min(stratum)                                          AS first_stratum,
        max(stratum)                                          AS last_stratum
    FROM nf
    GROUP BY GROUPING SETS ((rclass, path, jtype, keyset), (rclass, path))
), vers AS (   -- per (class, path, type, key set) and per (class, path): the versions of its files
    SELECT rclass, path, coalesce(jtype, '*') AS jtype, coalesce(keyset, '*') AS keyset,
           list(DISTINCT version ORDER BY version) AS versions
    FROM (SELECT DISTINCT n.rclass, n.path, n.jtype, n.keyset, ver.version FROM n JOIN ver USING (file_id))
    GROUP BY GROUPING SETS ((rclass, path, jtype, keyset), (rclass, path))
), file_keys AS (   -- an object's keys per file (a data-keyed map or an opaque object has none named)
    SELECT DISTINCT rclass, path, file_id, unnest(string_split(keyset, ',')) AS k
    FROM n
    WHERE jtype = 'object' AND keyset NOT IN ('', '<map>', '<opaque>')
), per_file AS (
    SELECT rclass, path, file_id, count(*) AS n FROM file_keys GROUP BY ALL
), per_path AS (
    SELECT rclass, path, count(DISTINCT k) AS n_all FROM file_keys GROUP BY ALL
), closed AS (
    SELECT rclass, path, count(*) AS object_files, count(*) FILTER (WHERE pf.n = pp.n_all) AS files_with_every_key
    FROM per_file AS pf JOIN per_path AS pp USING (rclass, path)
    GROUP BY ALL
)
SELECT
    g.rclass,
    g.path,
    g.jtype,
    g.keyset,
    g.occurrences,
    g.files,
    g.first_stratum,
    g.last_stratum,
    coalesce(v.versions, [])                                  AS versions,
    c.object_files,
    c.files_with_every_key
FROM g
LEFT JOIN vers AS v ON v.rclass = g.rclass AND v.path = g.path AND v.jtype = g.jtype AND v.keyset = g.keyset
LEFT JOIN closed AS c ON c.rclass = g.rclass AND c.path = g.path AND g.jtype = '*'
ORDER BY g.rclass, g.path, g.jtype, g.keyset;
