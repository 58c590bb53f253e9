-- Question: In how many files of a scope does each literal occur, and how often?
--           (negative greps: "0 of N files contain X"; positive probes alike)
-- Used by: every page: "Not observed" table, absence claims; cross-checked by ripgrep
-- Inputs: variables root (corpus root), globs (list of globs relative to root),
--         literals (list of literals, JSON-encoded: '"tool_result"' with its quotes)
-- Reads raw corpus files (read_blob). Files that are not valid UTF-8 are searched through
-- DuckDB's blob-to-text cast, with its three escaped printable bytes (" ' \) put back;
-- their other non-ASCII bytes stay escaped, so probe literals are ASCII by rule.
-- Counts: the literals, escaped, as alternatives of a regular expression: leftmost match
-- first, non-overlapping, exactly as one `rg -o -e L1 -e L2 ...` pass counts them; the
-- matches are then counted per literal. Two things make that fast:
-- * One alternation per first byte, not one for all: RE2 skips ahead to a pattern's one
--   first byte (4x faster on JSON than twelve alternatives with three first bytes). The
--   counts are those of one alternation whenever no two literals of different first bytes
--   can overlap in a text (neither inside the other, no end of one the start of the
--   other): then every match of a group is a match of the whole, and the groups' matches
--   never touch. If two can, all literals form one group. Past four first bytes, the rest
--   share the fourth alternation (still exact: only the skipping is lost).
-- * The alternations are computed first, into the variable patterns, and used as
--   getvariable('patterns')[k]: a constant, so RE2 compiles each once per query. (A
--   pattern from a column or a lambda is compiled again for every file, 25 us a time:
--   on 1 GB of Cursor transcripts that took longer than the scans themselves.)
-- per_file holds each file's counts; the pipeline runs the query down to per_file, keeps
-- the counts per file (to re-read only new and changed files on a re-run) and adds them
-- up exactly as the final SELECT does. It reads the files itself and hands them over as
-- blobs (only the files CTE differs), large ones in pieces cut where no literal can match;
-- survey/evidence/grep.py says why the counts are this query's.
-- Run: duckdb -c "SET VARIABLE root = '$ROOT'" -c "SET VARIABLE globs = ['**/*.jsonl']" \
--             -c "SET VARIABLE literals = ['\"tool_result\"']" -c ".read survey/evidence/queries/grep_literals.sql"
SET VARIABLE patterns = (
    WITH literals AS (
        SELECT unnest(getvariable('literals')) AS lit, generate_subscripts(getvariable('literals'), 1) AS i
    ), entangled AS (
        -- can an occurrence of one literal overlap one of a literal with another first byte?
        SELECT count(*) > 0 AS yes
        FROM literals AS a, literals AS b
        WHERE a.lit[1] <> b.lit[1]
          AND (contains(a.lit, b.lit)
               OR list_bool_or(list_transform(range(1, least(length(a.lit), length(b.lit))),
                                              lambda k: right(a.lit, k) = left(b.lit, k))))
    ), slots AS (
        -- first bytes in order of their first literal; the fourth and later share slot 4
        SELECT b, least(row_number() OVER (ORDER BY first), 4) AS slot
        FROM (SELECT lit[1] AS b, min(i) AS first FROM literals GROUP BY b)
    )
    SELECT list(pattern ORDER BY slot)
    FROM (
        SELECT CASE WHEN yes THEN 1 ELSE slot END AS slot,
               string_agg(regexp_escape(lit), '|' ORDER BY i) AS pattern
        FROM literals JOIN slots ON lit[1] = b, entangled
        GROUP BY ALL
    )
);
WITH files AS (
    SELECT filename, size, try(decode(content)) AS utf8, content
    FROM read_blob(list_transform(getvariable('globs'), lambda g: getvariable('root') || '/' || g))
), docs AS (
    SELECT
        filename,
        size,
        utf8 IS NULL AS not_utf8,
        coalesce(utf8, replace(replace(replace(content::VARCHAR, '\x22', '"'), '\x27', ''''), '\x5C', '\')) AS text
    FROM files
), per_file AS (
    SELECT
        filename, size, not_utf8,
        list_transform(getvariable('literals'), lambda l: len(list_filter(hits, lambda h: h = l))) AS occurrences
    FROM (
        SELECT *, flatten([regexp_extract_all(text, getvariable('patterns')[1]),  -- NULL: no such slot
                           regexp_extract_all(text, getvariable('patterns')[2]),
                           regexp_extract_all(text, getvariable('patterns')[3]),
                           regexp_extract_all(text, getvariable('patterns')[4])]) AS hits
        FROM docs
    )
)
-- end of per_file
SELECT
    literal,
    count(*)                                        AS files_scanned,
    sum(size)                                       AS bytes_scanned,
    count(*) FILTER (WHERE not_utf8)                AS files_not_utf8,
    count(*) FILTER (WHERE occurrences > 0)         AS files_matched,
    coalesce(sum(occurrences), 0)                   AS occurrences
FROM (
    SELECT unnest(getvariable('literals')) AS literal, unnest(occurrences) AS occurrences, size, not_utf8
    FROM per_file
)
GROUP BY literal
ORDER BY literal;
