-- Question: Per record class and JSON path, which types and key sets occur, in how many records and files, first and last in which mtime stratum, under which client versions; and does every file show an object's whole key set?
-- Used by: survey schema (x-observed, required, closed objects), survey audit
-- Inputs: walk/nodes.parquet (one row per file and (class, path, JSON type, key set)), inventory (stratum per file),
--         walk/frames.parquet (a client version per record, where the profile records one as a frame field
--         named version or cli_version; elsewhere the list is empty)
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/<runtime>'" -c ".read survey/census/queries/schema_nodes.sql"
WITH n AS (
    SELECT file_id::VARCHAR AS file_id, rclass, path, jtype, keyset, count
    FROM read_parquet(getvariable('snap') || '/walk/nodes.parquet')
), inv AS (
    SELECT file_id, stratum
    FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true)
), ver AS (   -- a file's client versions (none where no frame field records one)
    SELECT file_id, list(DISTINCT v ORDER BY v) AS versions
    FROM (SELECT f.file_id::VARCHAR AS file_id,
                 unnest(list_filter([COLUMNS(lambda c: c IN ('version', 'cli_version', 'no_version_'))], lambda x: x IS NOT NULL)) AS v
          FROM read_parquet(getvariable('snap') || '/walk/frames.parquet') AS f, (SELECT NULL::VARCHAR AS no_version_)
          WHERE f.frame_status = 'ok')
    GROUP BY file_id
), nf AS (
    SELECT n.*, inv.stratum, coalesce(ver.versions, []) AS versions
    FROM n LEFT JOIN inv USING (file_id) LEFT JOIN ver USING (file_id)
), keys_per_file AS (   -- an object's keys per file (a data-keyed map or an opaque object has none named)
    SELECT rclass, path, file_id,
           list_distinct(flatten(list(string_split(keyset, ',')))) AS keys
    FROM nf
    WHERE jtype = 'object' AND keyset NOT IN ('', '<map>', '<opaque>')
    GROUP BY ALL
), closed AS (
    SELECT rclass, path, count(*) AS object_files,
           count(*) FILTER (WHERE len(keys) = len(all_keys)) AS files_with_every_key
    FROM (SELECT k.*, list_distinct(flatten(list(keys) OVER (PARTITION BY rclass, path))) AS all_keys FROM keys_per_file AS k)
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
    g.versions,
    c.object_files,
    c.files_with_every_key
FROM (
    SELECT
        rclass,
        path,
        coalesce(jtype, '*')                                  AS jtype,
        coalesce(keyset, '*')                                 AS keyset,
        sum(count)                                            AS occurrences,
        count(DISTINCT file_id)                               AS files,
        min(stratum)                                          AS first_stratum,
        max(stratum)                                          AS last_stratum,
        list_sort(list_distinct(flatten(list(versions))))     AS versions
    FROM nf
    GROUP BY GROUPING SETS ((rclass, path, jtype, keyset), (rclass, path))
) AS g
LEFT JOIN closed AS c ON c.rclass = g.rclass AND c.path = g.path AND g.jtype = '*'
ORDER BY g.rclass, g.path, g.jtype, g.keyset;
