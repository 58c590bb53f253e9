-- Question: Per key kind, how many records and distinct top-level key sets, how many keys every record has, and which keys only some records have (with counts)?
-- Used by: cursor_desktop page: Key kinds (key sets)
-- Inputs: walk/frames.parquet, inventory
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_desktop'" -c ".read survey/runtimes/cursor_desktop/queries/kind_keyset_summary.sql"
WITH f AS (
    SELECT f.rclass AS kind, f.keyset
    FROM read_parquet(getvariable('snap') || '/walk/frames.parquet') AS f
    JOIN read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) AS i USING (file_id)
    WHERE i.surface = 'state' AND f.frame_status = 'ok'
), t AS (
    SELECT kind, count(*) AS records, count(DISTINCT keyset) AS keysets FROM f GROUP BY kind
), k AS (
    SELECT kind, key, count(*) AS n
    FROM (SELECT kind, unnest(string_split(keyset, ',')) AS key FROM f)
    GROUP BY ALL
)
SELECT
    t.kind,
    t.records,
    t.keysets,
    count(*) FILTER (WHERE k.n = t.records)                                          AS keys_always,
    count(*) FILTER (WHERE k.n < t.records)                                          AS keys_sometimes,
    coalesce(string_agg(k.key || ' ' || k.n, ', ' ORDER BY k.n DESC, k.key) FILTER (WHERE k.n < t.records), '') AS sometimes
FROM t JOIN k USING (kind)
GROUP BY t.kind, t.records, t.keysets
ORDER BY t.records DESC, t.kind;
