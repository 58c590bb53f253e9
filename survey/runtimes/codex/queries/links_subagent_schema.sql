-- Question: Does a subagent file use its parent's schema: which of its shapes (record class, path, JSON type, key set) occur in its parent, which in no top-level transcript, and which paths (record class, path, JSON type) occur in subagent files alone?
-- Used by: codex page: Links between records and files (subagents)
-- Inputs: inventory, walk/nodes.parquet, walk/frames.parquet, walk/links.parquet
-- Made from survey/census/queries/subagents/template.sql and the profile's subagent pairs (python -m survey.evidence.subagents writes it; a test holds it equal)
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/codex'" -c ".read survey/runtimes/codex/queries/links_subagent_schema.sql"
WITH inv AS MATERIALIZED (
    SELECT file_id, surface, session_id, parent_id
    FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) WHERE sampled
),
heads AS (   -- each walked file's first session_meta record, with its own id and its parent's
    SELECT h.file_id,
           any_value(l.ref) FILTER (WHERE l.kind = 'payload_id') AS own,
           any_value(l.ref) FILTER (WHERE l.kind = 'session_id')  AS up
    FROM (SELECT f.file_id, min(f.line_no) AS line_no
          FROM read_parquet(getvariable('snap') || '/walk/frames.parquet') AS f
          SEMI JOIN (SELECT file_id FROM inv WHERE surface IN ('rollout', 'archived_rollout', 'rollout_unnamed')) AS i USING (file_id)
          WHERE f.frame_status = 'ok' AND f.rclass = 'session_meta' GROUP BY f.file_id) AS h
    LEFT JOIN read_parquet(getvariable('snap') || '/walk/links.parquet') AS l
      ON l.file_id = h.file_id AND l.line_no = h.line_no AND l.kind IN ('payload_id', 'session_id')
    GROUP BY h.file_id
), kids AS (   -- a child: its first header names a parent other than itself
    SELECT file_id, up FROM heads WHERE up IS NOT NULL AND own IS NOT NULL AND up <> own
), tops AS (
    SELECT file_id FROM inv WHERE surface IN ('rollout', 'archived_rollout', 'rollout_unnamed') AND file_id NOT IN (SELECT file_id FROM kids)
), pairs AS (   -- each walked child and the walked top-level file whose own id it names
    SELECT k.file_id AS child, h.file_id AS parent
    FROM kids AS k JOIN heads AS h ON h.own = k.up SEMI JOIN tops AS t ON t.file_id = h.file_id
),
shapes AS MATERIALIZED (   -- each shape of each child or top-level file (the walk's gated paths and key sets)
    SELECT DISTINCT file_id, rclass, path, jtype, coalesce(keyset, '') AS keyset
    FROM read_parquet(getvariable('snap') || '/walk/nodes.parquet')
    SEMI JOIN (SELECT file_id FROM kids UNION SELECT file_id FROM tops) USING (file_id)
), top AS (
    SELECT DISTINCT rclass, path, jtype, keyset FROM shapes SEMI JOIN tops USING (file_id)
), top_paths AS (
    SELECT DISTINCT rclass, path, jtype FROM top
), child_shapes AS (
    SELECT pr.child, pr.parent, s.rclass, s.path, s.jtype, s.keyset FROM pairs AS pr JOIN shapes AS s ON s.file_id = pr.child
), not_in_parent AS (
    SELECT c.child, c.parent, count(*) AS n
    FROM child_shapes AS c
    ANTI JOIN shapes AS p ON p.file_id = c.parent AND p.rclass = c.rclass AND p.path = c.path AND p.jtype = c.jtype AND p.keyset = c.keyset
    GROUP BY c.child, c.parent
), paths_not_in_parent AS (   -- the same, by record class, path and JSON type (key sets aside)
    SELECT c.child, c.parent, count(*) AS n
    FROM (SELECT DISTINCT child, parent, rclass, path, jtype FROM child_shapes) AS c
    ANTI JOIN shapes AS p ON p.file_id = c.parent AND p.rclass = c.rclass AND p.path = c.path AND p.jtype = c.jtype
    GROUP BY c.child, c.parent
), subs AS (
    SELECT s.* FROM shapes AS s SEMI JOIN kids USING (file_id)
), not_in_top AS (
    SELECT file_id, count(*) AS n FROM subs ANTI JOIN top USING (rclass, path, jtype, keyset) GROUP BY file_id
), paths_not_in_top AS (
    SELECT DISTINCT rclass, path, jtype, file_id FROM subs ANTI JOIN top_paths USING (rclass, path, jtype)
)
SELECT
    (SELECT count(DISTINCT file_id) FROM subs)                                     AS subagent_files,
    (SELECT count(*) FROM pairs)                                                   AS pairs,
    (SELECT count(*) FROM pairs) - (SELECT count(*) FROM not_in_parent)            AS pairs_all_shapes_in_parent,
    (SELECT coalesce(sum(n), 0) FROM not_in_parent)::BIGINT                        AS child_shapes_not_in_parent,
    (SELECT count(DISTINCT file_id) FROM subs) - (SELECT count(*) FROM not_in_top) AS subagents_all_shapes_in_transcripts,
    (SELECT coalesce(sum(n), 0) FROM not_in_top)::BIGINT                           AS subagent_shapes_in_no_transcript,
    (SELECT count(*) FROM pairs) - (SELECT count(*) FROM paths_not_in_parent)      AS pairs_all_paths_in_parent,
    (SELECT coalesce(sum(n), 0) FROM paths_not_in_parent)::BIGINT                  AS child_paths_not_in_parent,
    (SELECT count(DISTINCT file_id) FROM subs)
      - (SELECT count(DISTINCT file_id) FROM paths_not_in_top)                     AS subagents_all_paths_in_transcripts,
    (SELECT coalesce(list(DISTINCT path ORDER BY path), [])
       FROM paths_not_in_top)                                                      AS paths_in_no_transcript;
