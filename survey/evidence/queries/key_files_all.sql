-- Question: key_files.sql for several probes at once (one read of nodes.parquet): per probe,
--           in how many walked files does the census see its key as a key (optionally only
--           at its paths)? The pipeline runs this; each probe's page entry shows key_files.sql
--           with that probe's key and paths, which gives the same two figures.
-- Used by: the evidence stage (structural figures of every probe that names a key)
-- Inputs: variables snap (snapshot folder), probes (list of {key, paths}; paths [] = any);
--         walk/node_counts.parquet for the (path, key set) groups that hold a key (each split
--         once: splitting every nodes row's key set took 1.1 s at 5 GB, this 0.1 s), then
--         walk/nodes.parquet for those groups' files and objects
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/<runtime>'" \
--             -c "SET VARIABLE probes = [{'key': 'tool_use_id', 'paths': []::VARCHAR[]}]" \
--             -c ".read survey/evidence/queries/key_files_all.sql"
WITH probes AS (
    SELECT
        generate_subscripts(getvariable('probes'), 1) AS probe,
        unnest(getvariable('probes')).key             AS key,
        unnest(getvariable('probes')).paths           AS paths
), objects AS (
    SELECT file_id, count, path, keyset
    FROM read_parquet(getvariable('snap') || '/walk/nodes.parquet')
    WHERE jtype = 'object'
), groups AS (   -- each (path, key set) of an object split once, not once per file
    SELECT DISTINCT path, keyset FROM read_parquet(getvariable('snap') || '/walk/node_counts.parquet')
    WHERE jtype = 'object'
), matched AS (  -- the groups that hold each probe's key (at its paths)
    SELECT probe, path, keyset
    FROM probes JOIN groups
        ON list_contains(string_split(groups.keyset, ','), probes.key)
       AND (len(probes.paths) = 0 OR list_contains(probes.paths, groups.path))
)
SELECT
    probe,
    count(DISTINCT file_id)  AS files_with_key,
    coalesce(sum(count), 0)  AS objects_with_key,
    coalesce(list(DISTINCT path ORDER BY path) FILTER (WHERE file_id IS NOT NULL), []) AS paths_seen
FROM probes
LEFT JOIN (matched JOIN objects USING (path, keyset)) USING (probe)
GROUP BY probe
ORDER BY probe;
