-- Question: Does the filename uuid equal the first session_meta payload.id?
-- Used by: codex page: File layout and identity
-- Inputs: inventory, walk/frames.parquet, walk/links.parquet
-- Made in part from survey/runtimes/codex/queries/fragments/headers.sql (its CTEs meta to first: python -m survey.census.fragments writes them; a test holds them equal)
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/codex'" -c ".read survey/runtimes/codex/queries/file_identity.sql"
WITH inv AS (   -- the inventory keeps ids as pseudonyms (i- and 16 hex digits), the links their 64 bits
    SELECT *, ('0x' || substr(session_id, 3))::UBIGINT AS session_key FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) WHERE surface IN ('rollout', 'archived_rollout', 'rollout_unnamed') AND sampled
), meta AS (
    SELECT f.file_id, f.line_no, f.cli_version,
           row_number() OVER (PARTITION BY f.file_id ORDER BY f.line_no) AS k
    FROM read_parquet(getvariable('snap') || '/walk/frames.parquet') AS f SEMI JOIN inv USING (file_id)
    WHERE f.frame_status = 'ok' AND f.rclass = 'session_meta'
), meta_ids AS (   -- each header's payload.id and session_id (one scan of the links, joined to the headers)
    SELECT m.file_id, m.line_no, m.cli_version, m.k,
           any_value(l.ref) FILTER (WHERE l.kind = 'payload_id')  AS id,
           any_value(l.ref) FILTER (WHERE l.kind = 'session_id')  AS sid
    FROM meta AS m
    LEFT JOIN read_parquet(getvariable('snap') || '/walk/links.parquet') AS l
      ON l.file_id = m.file_id AND l.line_no = m.line_no AND l.kind IN ('payload_id', 'session_id')
    GROUP BY m.file_id, m.line_no, m.cli_version, m.k
), first AS (
    SELECT file_id, id AS first_id, sid AS first_sid, cli_version AS version FROM meta_ids WHERE k = 1
)
SELECT
    count(*)                                                              AS files,
    count(*) FILTER (WHERE i.session_id IS NOT NULL)                      AS files_with_uuid_name,
    count(fi.file_id)                                                     AS files_with_session_meta,
    count(*) FILTER (WHERE fi.first_id = i.session_key)                    AS first_id_equals_filename,
    count(*) FILTER (WHERE fi.first_id IS NOT NULL AND i.session_id IS NOT NULL
                       AND fi.first_id <> i.session_key)                   AS first_id_differs,
    count(*) FILTER (WHERE (SELECT min(line_no) FROM meta AS m WHERE m.file_id = i.file_id)
                       = (SELECT min(line_no) FROM read_parquet(getvariable('snap') || '/walk/frames.parquet') AS f WHERE f.file_id = i.file_id AND f.frame_status = 'ok'))
                                                                          AS session_meta_first_record
FROM inv AS i LEFT JOIN first AS fi USING (file_id);
