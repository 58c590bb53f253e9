-- Question: Per key kind, how many records and distinct top-level key sets, how many keys every record has, and which keys only some records have (with counts)?
-- Used by: cursor_desktop page: Key kinds (key sets)
-- Inputs: walk/frames.parquet, inventory
-- Method: the frames are first counted per (kind, key set), of which there are few, so each key set
--   is split once, not once per record (at 1 GB of stores: 0.56 s -> 0.03 s).
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/cursor_desktop'" -c ".read survey/runtimes/cursor_desktop/queries/kind_keyset_summary.sql"
WITH ks AS (   -- one row per (kind, key set) with its record count: few, so the keys are split once each
    SELECT f.rclass AS kind, f.keyset, count(*) AS n
    FROM read_parquet(getvariable('snap') || '/walk/frames.parquet') AS f
    JOIN read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) AS i USING (file_id)
    WHERE i.surface = 'state' AND f.frame_status = 'ok'
    GROUP BY ALL
), t AS (
    SELECT kind, sum(n) AS records, count(DISTINCT keyset) AS keysets FROM ks GROUP BY kind
), k AS (
    SELECT kind, key, sum(n) AS n
    FROM (SELECT kind, unnest(string_split(keyset, ',')) AS key, n FROM ks)
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
