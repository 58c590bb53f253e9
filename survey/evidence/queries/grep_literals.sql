-- Question: In how many files of a scope does each literal occur, and how often?
--           (negative greps: "0 of N files contain X"; positive probes alike)
-- Used by: every page: "Not observed" table, absence claims; cross-checked by ripgrep
-- Inputs: variables root (corpus root), globs (list of globs relative to root),
--         literals (list of literals, JSON-encoded: '"tool_result"' with its quotes)
-- Reads raw corpus files (read_blob). Files that are not valid UTF-8 are searched through
-- DuckDB's blob-to-text cast, with its three escaped printable bytes (" ' \) put back;
-- their other non-ASCII bytes stay escaped, so probe literals are ASCII by rule.
-- Counts: one regular-expression pass over the text finds every literal at once (the
-- literals, escaped, as alternatives: leftmost match first, non-overlapping, exactly as one
-- `rg -o -e L1 -e L2 ...` pass counts them); the matches are then counted per literal.
-- per_file holds each file's counts; the pipeline runs the query down to per_file, keeps
-- the counts per file (to re-read only new and changed files on a re-run) and adds them
-- up exactly as the final SELECT does.
-- Run: duckdb -c "SET VARIABLE root = '$ROOT'" -c "SET VARIABLE globs = ['**/*.jsonl']" \
--             -c "SET VARIABLE literals = ['\"tool_result\"']" -c ".read survey/evidence/queries/grep_literals.sql"
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
        SELECT *, regexp_extract_all(text, list_aggregate(
                      list_transform(getvariable('literals'), lambda l: regexp_escape(l)), 'string_agg', '|')) AS hits
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
