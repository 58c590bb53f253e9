-- Question: At each object path (the record's own too), per record class, which keys occur, in how many of the objects at that path (presence), and over how many distinct key sets?
-- Used by: every page: declared nested key sets (a profile names the paths: ``nested_keysets``)
-- Inputs: walk/node_counts.parquet (key sets after the gate: keys outside the reviewed vocabulary are masked)
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/<runtime>'" -c ".read survey/census/queries/nested_keysets.sql"
WITH objs AS (
    SELECT rclass, path, keyset, sum(occurrences) AS n
    FROM read_parquet(getvariable('snap') || '/walk/node_counts.parquet')
    WHERE jtype = 'object' AND keyset IS NOT NULL AND keyset <> ''
      AND NOT (keyset LIKE '<%' AND keyset NOT LIKE '%,%')  -- <map> / <opaque>: counted, never described
    GROUP BY ALL
), totals AS (
    SELECT rclass, path, sum(n) AS objects, count(*) AS keysets FROM objs GROUP BY ALL
), keys AS (
    SELECT rclass, path, n, unnest(string_split(keyset, ',')) AS key FROM objs
)
SELECT
    k.rclass,
    k.path,
    k.key,
    sum(k.n)      AS objects_with_key,
    t.objects     AS objects,
    t.keysets     AS keysets
FROM keys AS k JOIN totals AS t USING (rclass, path)
GROUP BY k.rclass, k.path, k.key, t.objects, t.keysets
ORDER BY k.rclass, k.path, objects_with_key DESC, k.key;
