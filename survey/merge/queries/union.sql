-- One table of a fleet: every machine's rows of it, as the view `tbl` reads them (the
-- machines' snapshots staged hive-partitioned by `machine`, a pseudonymous machine id), each
-- file id made distinct across machines: 'f-' and 16 hex digits of md5(machine ':' file id).
-- The same text runs on DuckDB and on Spark SQL (md5, substr and || mean the same in both);
-- The list of columns below is the table's own, in order, file_id among them as that expression.
SELECT {columns}, machine
FROM tbl
