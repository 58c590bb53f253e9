-- Question: key_files.sql for several probes at once (one read of nodes.parquet): per probe,
--           in how many walked files does the census see its key as a key (optionally only
--           at its paths)? The pipeline runs this; each probe's page entry shows key_files.sql
--           with that probe's key and paths, which gives the same two figures.
-- Used by: the evidence stage (structural figures of every probe that names a key)
-- Inputs: variables snap (snapshot folder), probes (list of {key, paths}; paths [] = any)
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/<runtime>'" \
--             -c "SET VARIABLE probes = [{'key': 'tool_use_id', 'paths': []::VARCHAR[]}]" \
--             -c ".read survey/evidence/queries/key_files_all.sql"
WITH probes AS (
    SELECT
        generate_subscripts(getvariable('probes'), 1) AS probe,
        unnest(getvariable('probes')).key             AS key,
        unnest(getvariable('probes')).paths           AS paths
), objects AS (
    SELECT file_id, count, path, string_split(keyset, ',') AS keys
    FROM read_parquet(getvariable('snap') || '/walk/nodes.parquet')
    WHERE jtype = 'object'
)
SELECT
    probe,
    count(DISTINCT file_id)  AS files_with_key,
    coalesce(sum(count), 0)  AS objects_with_key
FROM probes
LEFT JOIN objects
    ON list_contains(objects.keys, probes.key)
   AND (len(probes.paths) = 0 OR list_contains(probes.paths, objects.path))
GROUP BY probe
ORDER BY probe;
