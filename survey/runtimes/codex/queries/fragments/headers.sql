-- Fragment: each rollout's session_meta headers in order (k), their payload.id and session_id, and the first header.
-- Written into extra_headers.sql, file_identity.sql and subagents.sql by python -m survey.census.fragments; a test holds them equal.
meta AS (
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
