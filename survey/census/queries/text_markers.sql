-- Question: How many records and files hold each declared text marker (``<user_query>`` …) at its declared path?
-- Used by: every page: text markers (a profile declares each as a ``markers`` entry named ``text:<label>`` or, for a second path, ``text:<label>@<where>``)
-- Inputs: walk/markers.parquet (per record: the marker's name and how often it matched; never the text)
-- Run: duckdb -c "SET VARIABLE snap = 'snapshots/<date>/<runtime>'" -c ".read survey/census/queries/text_markers.sql"
SELECT
    split_part(name, '@', 1)             AS name,
    count(DISTINCT (file_id, line_no))   AS records,
    count(DISTINCT file_id)              AS files
FROM read_parquet(getvariable('snap') || '/walk/markers.parquet')
WHERE name LIKE 'text:%'
GROUP BY ALL
ORDER BY name;
