"""The census's fast query forms answer exactly what their plain forms answer.

Some census ``.sql`` files were rewritten for speed: a per-file pre-aggregation before a join,
a cheap first-block test before whole block lists are built, one join instead of correlated
look-ups. Each is run here beside its plain form (the SQL as it was, below) over random walk
tables built to collide — few files, few values, gaps in line numbers, NULLs, repeated and
dangling ids, headers with and without ids — and must return the same rows in the same order.

Also checked: the invariants the fast forms rest on (``nodes`` holds one row per file and
(class, path, JSON type, key set), so a group's rows are its files; a record's blocks are
numbered from 0 without gaps), and that running the queries side by side on several cursors
gives what running them one by one gives.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import duckdb
import polars as pl
import pytest

from survey.census import partials, sql
from survey.census.collect import KEYED, frame_counts, node_counts
from survey.corpus.crawl import ref_numbers
from survey.corpus.privacy import file_key
from survey.runtimes import get

SURVEY = Path(sql.__file__).parents[1]
SEEDS = range(40)

# the codex header preamble the plain forms share: headers, their ids (correlated look-ups), the first header
CODEX_FIRST = r"""WITH inv AS (
    SELECT * FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) WHERE surface IN ('rollout', 'archived_rollout', 'rollout_unnamed') AND sampled
), meta AS (
    SELECT f.file_id, f.line_no, f.cli_version,
           row_number() OVER (PARTITION BY f.file_id ORDER BY f.line_no) AS k
    FROM read_parquet(getvariable('snap') || '/walk/frames.parquet') AS f SEMI JOIN inv USING (file_id)
    WHERE f.frame_status = 'ok' AND f.rclass = 'session_meta'
), meta_ids AS (
    SELECT m.*,
           (SELECT any_value(ref) FROM read_parquet(getvariable('snap') || '/walk/links.parquet') AS l
             WHERE l.file_id = m.file_id AND l.line_no = m.line_no AND l.kind = 'payload_id')  AS id,
           (SELECT any_value(ref) FROM read_parquet(getvariable('snap') || '/walk/links.parquet') AS l
             WHERE l.file_id = m.file_id AND l.line_no = m.line_no AND l.kind = 'session_id')  AS sid
    FROM meta AS m
), first AS (
    SELECT file_id, id AS first_id, sid AS first_sid, cli_version AS version FROM meta_ids WHERE k = 1
"""


def _header_ids_one_by_one(name: str) -> str:
    """The plain form of a codex query whose only rewrite is its headers' ids (one scan of the
    links, joined): ``CODEX_FIRST``'s correlated look-ups, then the file's own query after its
    ``first`` header."""
    text = (SURVEY / "runtimes" / "codex" / "queries" / name).read_text()
    last = CODEX_FIRST.splitlines(keepends=True)[-1]  # the ``first`` CTE's body, the same in both
    assert text.count(last) == 1, f"{name} no longer picks its first header as the plain form does"
    return CODEX_FIRST + text.split(last, 1)[1]


# the last SELECT of the plain classes-by-version queries (over their ``x``)
BY_VERSION_SELECT = r"""SELECT
    rclass,
    arg_min(v, vk)             AS first_version,
    arg_max(v, vk)             AS last_version,
    count(DISTINCT v)          AS versions,
    count(*)                   AS records,
    count(DISTINCT file_id)    AS files
FROM x
GROUP BY rclass
ORDER BY records DESC, rclass;
"""

# The plain form of each rewritten query: the SQL as it was before it was made fast.
PLAIN = {
    "census/queries/key_gate.sql": r"""SELECT 'unreviewed keys (paths)' AS item, count(DISTINCT path) AS n
FROM read_parquet(getvariable('snap') || '/walk/nodes.parquet') WHERE path LIKE '%<unreviewed-key>%'
UNION ALL
SELECT 'dynamic keys (paths)', count(DISTINCT path)
FROM read_parquet(getvariable('snap') || '/walk/nodes.parquet') WHERE path LIKE '%<dynamic-key>%'
UNION ALL
SELECT 'rare keys collapsed (paths)', count(DISTINCT path)
FROM read_parquet(getvariable('snap') || '/walk/nodes.parquet') WHERE path LIKE '%<rare-key>%'
UNION ALL
SELECT 'data-keyed maps (paths)', count(DISTINCT path)
FROM read_parquet(getvariable('snap') || '/walk/nodes.parquet') WHERE keyset = '<map>'
UNION ALL
SELECT 'opaque values (paths)', count(DISTINCT path)
FROM read_parquet(getvariable('snap') || '/walk/nodes.parquet') WHERE keyset = '<opaque>'
UNION ALL
SELECT 'withheld values (distinct)', count(DISTINCT withheld_id)
FROM read_parquet(getvariable('snap') || '/walk/values.parquet') WHERE value = '<withheld>';
""",
    "census/queries/keyset_census.sql": r"""SELECT
    rclass,
    path,
    jtype,
    keyset,
    sum(count)               AS occurrences,
    count(DISTINCT file_id)  AS files,
    max(max_len)             AS max_len
FROM read_parquet(getvariable('snap') || '/walk/nodes.parquet')
GROUP BY ALL
ORDER BY rclass, path, occurrences DESC, jtype, keyset;
""",
    "census/queries/constant_fields.sql": r"""SELECT
    path,
    any_value(value)         AS value,
    sum(count)               AS occurrences,
    count(DISTINCT file_id)  AS files
FROM read_parquet(getvariable('snap') || '/walk/values.parquet')
GROUP BY path
HAVING count(DISTINCT coalesce(withheld_id, value)) = 1
   AND count(DISTINCT file_id) >= 2
   AND any_value(value) <> '<withheld>'
ORDER BY files DESC, path;
""",
    "census/queries/frame_flags.sql": r"""SELECT
    count(*) FILTER (WHERE flags & 1 = 1)  AS bom_frames,
    count(*) FILTER (WHERE flags & 2 = 2)  AS crlf_frames,
    count(*) FILTER (WHERE flags & 4 = 4)  AS nul_frames,
    count(*) FILTER (WHERE flags & 8 = 8)  AS duplicate_key_frames,
    count(*) FILTER (WHERE flags & 16 = 16)  AS out_of_range_frames,
    count(*) FILTER (WHERE flags & 32 = 32)  AS nonstandard_number_frames,
    count(DISTINCT file_id) FILTER (WHERE flags & 2 = 2) AS crlf_files
FROM read_parquet(getvariable('snap') || '/walk/frames.parquet');
""",
    "census/queries/frame_status.sql": r"""SELECT
    frame_status,
    count(*)                 AS frames,
    count(DISTINCT file_id)  AS files,
    sum(nbytes)              AS bytes
FROM read_parquet(getvariable('snap') || '/walk/frames.parquet')
GROUP BY frame_status
ORDER BY frames DESC, frame_status;
""",
    "census/queries/record_classes.sql": r"""SELECT
    rclass,
    keyset,
    count(*)                 AS records,
    count(DISTINCT file_id)  AS files
FROM read_parquet(getvariable('snap') || '/walk/frames.parquet')
WHERE frame_status = 'ok'
GROUP BY ALL
ORDER BY records DESC, rclass, keyset;
""",
    "census/queries/value_maps.sql": r"""SELECT
    path,
    value,
    sum(count)                   AS occurrences,
    count(DISTINCT file_id)      AS files,
    count(DISTINCT withheld_id)  AS distinct_withheld
FROM read_parquet(getvariable('snap') || '/walk/values.parquet')
GROUP BY path, value
ORDER BY path, occurrences DESC, value;
""",
    "runtimes/cursor_stream/queries/call_id_newlines.sql": r"""WITH f AS (
    SELECT file_id, line_no, rclass, keyset FROM read_parquet(getvariable('snap') || '/walk/frames.parquet')
    WHERE frame_status = 'ok' AND rclass LIKE 'tool_call%'
), m AS (
    SELECT file_id, line_no, sum(count) AS n FROM read_parquet(getvariable('snap') || '/walk/markers.parquet')
    WHERE name = 'call_id_newline' GROUP BY ALL
)
SELECT
    f.rclass                                                                   AS family,
    count(*)                                                                   AS events,
    count(*) FILTER (WHERE list_contains(string_split(f.keyset, ','), 'call_id')) AS with_call_id,
    count(m.n)                                                                 AS call_id_with_newline
FROM f LEFT JOIN m USING (file_id, line_no)
GROUP BY f.rclass
ORDER BY family;
""",
    "runtimes/cursor_stream/queries/capture_endings.sql": r"""WITH caps AS (
    SELECT file_id FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true)
    WHERE surface = 'capture' AND sampled
), per AS (
    SELECT
        c.file_id,
        arg_max(f.rclass, f.line_no) FILTER (WHERE f.frame_status = 'ok')   AS last_event,
        count(f.line_no) FILTER (WHERE f.frame_status = 'ok')               AS events,
        bool_or(f.frame_status = 'partial')                                 AS cut_off
    FROM caps AS c LEFT JOIN read_parquet(getvariable('snap') || '/walk/frames.parquet') AS f USING (file_id)
    GROUP BY c.file_id
)
SELECT
    coalesce(last_event, '<no JSON event>')   AS last_event,
    coalesce(cut_off, false)                  AS cut_off,
    count(*)                                  AS captures
FROM per
GROUP BY ALL
ORDER BY captures DESC, last_event;
""",
    "runtimes/cursor_stream/queries/families.sql": r"""SELECT rclass AS family, count(*) AS events, count(DISTINCT file_id) AS captures
FROM read_parquet(getvariable('snap') || '/walk/frames.parquet')
WHERE frame_status = 'ok'
GROUP BY rclass
ORDER BY events DESC, family;
""",
    "runtimes/cursor_stream/queries/family_keysets.sql": r"""SELECT rclass AS family, keyset, count(*) AS events, count(DISTINCT file_id) AS captures
FROM read_parquet(getvariable('snap') || '/walk/frames.parquet')
WHERE frame_status = 'ok'
GROUP BY ALL
ORDER BY family, events DESC, keyset;
""",
    "runtimes/cursor_stream/queries/tool_call_variants.sql": r"""SELECT
    rclass                                   AS family,
    keyset                                   AS variant,
    sum(count)                               AS events,
    count(DISTINCT file_id)                  AS captures
FROM read_parquet(getvariable('snap') || '/walk/nodes.parquet')
WHERE path = '$.tool_call' AND jtype = 'object'
GROUP BY ALL
ORDER BY family, events DESC, variant;
""",
    "census/queries/silent_caps.sql": r"""WITH per_file AS (
    SELECT path, file_id, max(max_len) AS file_max
    FROM read_parquet(getvariable('snap') || '/walk/nodes.parquet')
    WHERE jtype = 'string'
    GROUP BY path, file_id
), top AS (
    SELECT path, max(file_max) AS max_len FROM per_file GROUP BY path
)
SELECT t.path, t.max_len, count(*) AS files_at_max
FROM top AS t JOIN per_file AS p ON p.path = t.path AND p.file_max = t.max_len
WHERE t.max_len >= 1000
GROUP BY t.path, t.max_len
HAVING count(*) >= 2
ORDER BY files_at_max DESC, t.path;
""",
    "runtimes/cursor/queries/assistant_pairs.sql": r"""WITH sig AS (
    SELECT file_id, line_no,
           list(struct_pack(t := btype, n := coalesce(payload_len, -1)) ORDER BY idx) AS s
    FROM read_parquet(getvariable('snap') || '/walk/blocks.parquet')
    GROUP BY file_id, line_no
), seq AS (
    SELECT
        f.file_id, f.role,
        coalesce(sig.s, [])                                                     AS s,
        lag(f.role) OVER (PARTITION BY f.file_id ORDER BY f.line_no)            AS prev_role,
        lag(coalesce(sig.s, [])) OVER (PARTITION BY f.file_id ORDER BY f.line_no) AS prev_s
    FROM read_parquet(getvariable('snap') || '/walk/frames.parquet') AS f LEFT JOIN sig USING (file_id, line_no)
    WHERE f.frame_status = 'ok'
)
SELECT
    count(*)                                                                          AS pairs,
    count(*) FILTER (WHERE s = prev_s)                                                AS duplicate,
    count(*) FILTER (WHERE len(s) > len(prev_s) AND s[1:len(prev_s)] = prev_s)        AS prefix_extension,
    count(*) FILTER (WHERE len(prev_s) > len(s) AND prev_s[1:len(s)] = s)             AS reverse_prefix,
    count(*) FILTER (WHERE s <> prev_s
                       AND NOT (len(s) > len(prev_s) AND s[1:len(prev_s)] = prev_s)
                       AND NOT (len(prev_s) > len(s) AND prev_s[1:len(s)] = s))       AS unrelated
FROM seq
WHERE role = 'assistant' AND prev_role = 'assistant';
""",
    "runtimes/cursor_desktop/queries/kind_keyset_summary.sql": r"""WITH f AS (
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
ORDER BY t.records DESC, t.kind;""",
    "runtimes/cursor_stream/queries/result_outcomes.sql": r"""SELECT
    split_part(path, '.', 3)                                                                 AS variant,
    array_to_string(list_filter(string_split(keyset, ','), lambda k: k <> 'isBackground'), ',')   AS outcome,
    list_contains(string_split(keyset, ','), 'isBackground')                                 AS has_is_background,
    sum(count)                                                                               AS events
FROM read_parquet(getvariable('snap') || '/walk/nodes.parquet')
WHERE rclass = 'tool_call/completed' AND jtype = 'object'
  AND regexp_full_match(path, '\$\.tool_call\.[^.]+\.result')
GROUP BY ALL
ORDER BY variant, events DESC, outcome, has_is_background;
""",
    "runtimes/claude_code/queries/class_versions.sql": r"""WITH f AS (
    SELECT f.*, i.surface
    FROM read_parquet(getvariable('snap') || '/walk/frames.parquet') AS f
    JOIN read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) AS i USING (file_id)
    WHERE f.frame_status = 'ok' AND i.kind = 'jsonl'
), fv AS (
    SELECT file_id, arg_min(version, line_no) AS file_version
    FROM f WHERE version IS NOT NULL GROUP BY file_id
), x AS (
    SELECT f.rclass, coalesce(fv.file_version, '(none)') AS v, f.file_id,
           list_transform(string_split(fv.file_version, '.'), lambda p: try_cast(p AS INTEGER)) AS vk
    FROM f LEFT JOIN fv USING (file_id)
)
""" + BY_VERSION_SELECT,
    "runtimes/claude_code/queries/classes_by_version.sql": r"""WITH f AS (
    SELECT f.*
    FROM read_parquet(getvariable('snap') || '/walk/frames.parquet') AS f
    JOIN read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) AS i USING (file_id)
    WHERE f.frame_status = 'ok' AND i.kind = 'jsonl'
), fv AS (
    SELECT file_id, arg_min(version, line_no) AS file_version
    FROM f WHERE version IS NOT NULL GROUP BY file_id
)
SELECT version, rclass, records, files
FROM (
    SELECT
        coalesce(fv.file_version, '(none)')  AS version,
        f.rclass,
        count(*)                             AS records,
        count(DISTINCT f.file_id)            AS files
    FROM f LEFT JOIN fv USING (file_id)
    GROUP BY ALL
)
ORDER BY list_transform(string_split(version, '.'), lambda p: try_cast(p AS INTEGER)), version, records DESC, rclass;
""",
    "runtimes/claude_code/queries/tool_pairs.sql": r"""WITH t AS (
    SELECT file_id, surface FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) WHERE surface IN ('parent', 'subagent', 'workflow_agent') AND sampled
), l AS (
    SELECT l.*, t.surface FROM read_parquet(getvariable('snap') || '/walk/links.parquet') AS l JOIN t USING (file_id)
), c AS (
    SELECT DISTINCT surface, file_id, ref FROM l WHERE kind = 'tool_use'
), r AS (
    SELECT surface, file_id, ref FROM l WHERE kind = 'tool_result'
), rd AS (
    SELECT DISTINCT file_id, ref FROM r
), paired AS (
    SELECT surface, count(*) AS n FROM r SEMI JOIN c USING (file_id, ref) GROUP BY surface
), orphan AS (
    SELECT surface, count(*) AS n FROM r ANTI JOIN c USING (file_id, ref) GROUP BY surface
), orphan_elsewhere AS (
    SELECT r.surface, count(*) AS n FROM r ANTI JOIN c USING (file_id, ref)
    WHERE r.ref IN (SELECT ref FROM c) GROUP BY r.surface
), unpaired AS (
    SELECT surface, count(*) AS n FROM c ANTI JOIN rd USING (file_id, ref) GROUP BY surface
), answered_twice AS (
    SELECT surface, count(*) AS n FROM (SELECT surface, file_id, ref FROM r GROUP BY ALL HAVING count(*) > 1) GROUP BY surface
)
SELECT
    s.surface,
    (SELECT count(*) FROM c WHERE c.surface = s.surface)                AS calls,
    (SELECT count(*) FROM r WHERE r.surface = s.surface)                AS results,
    coalesce((SELECT n FROM paired WHERE surface = s.surface), 0)        AS paired,
    coalesce((SELECT n FROM unpaired WHERE surface = s.surface), 0)      AS unpaired_calls,
    coalesce((SELECT n FROM orphan WHERE surface = s.surface), 0)        AS orphan_results,
    coalesce((SELECT n FROM orphan_elsewhere WHERE surface = s.surface), 0) AS orphans_paired_in_another_file,
    coalesce((SELECT n FROM answered_twice WHERE surface = s.surface), 0) AS calls_answered_twice
FROM (SELECT DISTINCT surface FROM t) AS s
ORDER BY s.surface;
""",
    "runtimes/claude_code/queries/uuid_dag.sql": r"""WITH t AS (
    SELECT file_id, surface FROM read_parquet(getvariable('snap') || '/inventory/*/*.parquet', hive_partitioning = true) WHERE surface IN ('parent', 'subagent', 'workflow_agent') AND sampled
), l AS (
    SELECT l.* FROM read_parquet(getvariable('snap') || '/walk/links.parquet') AS l SEMI JOIN t USING (file_id)
), u AS (
    SELECT file_id, ref FROM l WHERE kind = 'uuid'
), p AS (
    SELECT file_id, ref FROM l WHERE kind = 'parent_uuid'
), dup AS (
    SELECT file_id, count(*) - count(DISTINCT ref) AS d FROM u GROUP BY file_id
), dangling AS (
    SELECT p.file_id, p.ref FROM p ANTI JOIN u ON p.file_id = u.file_id AND p.ref = u.ref
), per_file AS (
    SELECT
        t.file_id, t.surface,
        (SELECT count(*) FROM u WHERE u.file_id = t.file_id)                     AS uuids,
        coalesce((SELECT d FROM dup WHERE dup.file_id = t.file_id), 0)          AS duplicates,
        (SELECT count(*) FROM p WHERE p.file_id = t.file_id)                     AS parent_refs,
        (SELECT count(*) FROM dangling d WHERE d.file_id = t.file_id)            AS dangling,
        (SELECT count(*) FROM dangling d WHERE d.file_id = t.file_id
            AND d.ref IN (SELECT ref FROM u WHERE u.file_id <> t.file_id))       AS dangling_found_elsewhere
    FROM t
)
SELECT
    surface,
    count(*)                                    AS files,
    sum(uuids)                                  AS uuids,
    sum(duplicates)                             AS duplicate_uuids,
    count(*) FILTER (WHERE duplicates > 0)      AS files_with_duplicates,
    sum(parent_refs)                            AS parent_refs,
    sum(dangling)                               AS dangling_parents,
    count(*) FILTER (WHERE dangling > 0)        AS files_with_dangling,
    sum(dangling_found_elsewhere)               AS dangling_found_in_another_file
FROM per_file
GROUP BY surface
ORDER BY surface;
""",
    "runtimes/codex/queries/class_versions.sql": CODEX_FIRST + r"""), x AS (
    SELECT f.rclass, f.file_id, coalesce(fi.version, '(none)') AS v,
           list_transform(string_split(fi.version, '.'), lambda p: try_cast(p AS INTEGER)) AS vk
    FROM read_parquet(getvariable('snap') || '/walk/frames.parquet') AS f SEMI JOIN inv USING (file_id)
    LEFT JOIN first AS fi USING (file_id)
    WHERE f.frame_status = 'ok'
)
""" + BY_VERSION_SELECT,
    "runtimes/codex/queries/classes_by_version.sql": CODEX_FIRST + r""")
SELECT version, rclass, records, files
FROM (
    SELECT coalesce(fi.version, '(none)') AS version, f.rclass,
           count(*) AS records, count(DISTINCT f.file_id) AS files
    FROM read_parquet(getvariable('snap') || '/walk/frames.parquet') AS f SEMI JOIN inv USING (file_id)
    LEFT JOIN first AS fi USING (file_id)
    WHERE f.frame_status = 'ok'
    GROUP BY ALL
)
ORDER BY list_transform(string_split(version, '.'), lambda p: try_cast(p AS INTEGER)), version, records DESC, rclass;
""",
    "runtimes/codex/queries/versions.sql": CODEX_FIRST + r""")
SELECT version, files, records
FROM (
    SELECT v.version, count(DISTINCT v.file_id) AS files, count(fr.line_no) AS records
    FROM (SELECT i.file_id, CASE WHEN fi.file_id IS NULL THEN '(no session_meta)'
                                 ELSE coalesce(fi.version, '(no cli_version)') END AS version
          FROM inv AS i LEFT JOIN first AS fi USING (file_id)) AS v
    LEFT JOIN read_parquet(getvariable('snap') || '/walk/frames.parquet') AS fr ON fr.file_id = v.file_id AND fr.frame_status = 'ok'
    GROUP BY v.version
)
ORDER BY list_transform(string_split(version, '.'), lambda p: try_cast(p AS INTEGER)), version;
""",
    "runtimes/codex/queries/extra_headers.sql": _header_ids_one_by_one("extra_headers.sql"),
    "runtimes/codex/queries/file_identity.sql": CODEX_FIRST + r""")
SELECT
    count(*)                                                              AS files,
    count(*) FILTER (WHERE i.session_id IS NOT NULL)                      AS files_with_uuid_name,
    count(fi.file_id)                                                     AS files_with_session_meta,
    count(*) FILTER (WHERE fi.first_id = ('0x' || substr(i.session_id, 3))::UBIGINT) AS first_id_equals_filename,
    count(*) FILTER (WHERE fi.first_id IS NOT NULL AND i.session_id IS NOT NULL
                       AND fi.first_id <> ('0x' || substr(i.session_id, 3))::UBIGINT) AS first_id_differs,
    count(*) FILTER (WHERE (SELECT min(line_no) FROM meta AS m WHERE m.file_id = i.file_id)
                       = (SELECT min(line_no) FROM read_parquet(getvariable('snap') || '/walk/frames.parquet') AS f WHERE f.file_id = i.file_id AND f.frame_status = 'ok'))
                                                                          AS session_meta_first_record
FROM inv AS i LEFT JOIN first AS fi USING (file_id);
""",
    "runtimes/codex/queries/session_meta_headers.sql": CODEX_FIRST + r"""), per_file AS (
    SELECT i.file_id, count(m.file_id) AS headers FROM inv AS i LEFT JOIN meta AS m USING (file_id) GROUP BY i.file_id
)
SELECT headers, count(*) AS files
FROM per_file
GROUP BY headers
ORDER BY headers;
""",
    "runtimes/codex/queries/subagents.sql": _header_ids_one_by_one("subagents.sql"),
}


# ---------------------------------------------------------------------------------------------
# random walk tables, small domains so that everything collides


REFS = [f"i-{i:016x}" for i in (0, 1, 2, 3, 4, 5, 2**63, 2**64 - 1)]  # pseudonyms, as the walk makes them
VERSIONS = [None, "1.0.2", "1.0.10", "2.0.0", "2.1.3"]
CLI_VERSIONS = [None, "0.9.1", "0.140.0", "0.140.2"]
RCLASSES = ["assistant", "user", "session_meta", "response_item/function_call", "tool_call/completed", "compacted"]
SURFACES = ["parent", "subagent", "workflow_agent", "rollout", "archived_rollout", "rollout_unnamed", "capture", "state",
            "other"]
PATHS = ["$", "$.message", "$.payload", "$.tool_call", "$.tool_call.editToolCall.result", "$.tool_call.shellToolCall.result",
         "$.tool_call.a.b.result", "$.message.content",
         # paths and key sets the privacy gate marks (key_gate.sql counts each kind)
         "$.<unreviewed-key>", "$.payload.<dynamic-key>", "$.<rare-key>.result"]
KEYSETS = ["", "a,b", "call_id,timestamp_ms", "success", "failure,isBackground", "isBackground,success", "isBackground", "<map>",
           "<opaque>"]
VALUES = ["a", "b", "<withheld>"]  # a withheld value carries a withheld id, a shown one none
WITHHELD = [f"w-{i:016x}" for i in range(4)]


def make_snapshot(base: Path, seed: int) -> Path:
    rnd = random.Random(seed)
    files = [f"f-{i:016x}" for i in range(rnd.randint(1, 12))]
    inv, frames, blocks, nodes, links, numbers, values, markers = [], [], [], [], [], [], [], []
    for fid in files:
        inv.append({"file_id": fid, "surface": rnd.choice(SURFACES), "kind": rnd.choice(["jsonl", "jsonl", "json"]),
                    "sampled": rnd.random() < 0.85, "size": rnd.randint(0, 99), "problem": None,
                    "session_id": rnd.choice([None, *REFS]), "parent_id": rnd.choice([None, *REFS]),
                    "ext": "jsonl", "ids_agree": rnd.random() < 0.5,
                    "stratum": rnd.choice(["2026-01", "2026-02"])})
        line = 0
        for _ in range(rnd.randint(0, 14)):
            line += rnd.choice([1, 1, 1, 2])  # gaps in line numbers too
            ok = rnd.random() < 0.85
            rclass = rnd.choice(RCLASSES)
            frames.append({"file_id": fid, "line_no": line, "frame_status": "ok" if ok else rnd.choice(["malformed", "blank", "partial"]),
                           "nbytes": rnd.randint(0, 9), "flags": rnd.choice([0, 0, 0, 1, 2, 6]), "rclass": rclass, "keyset": rnd.choice(KEYSETS),
                           "role": rnd.choice(["assistant", "assistant", "assistant", "user", None]),
                           "type": None, "status": None,
                           "version": rnd.choice(VERSIONS), "cli_version": rnd.choice(CLI_VERSIONS)})
            k = rnd.choice([0, 1, 1, 2, 2, 3, 4])
            for i in range(k):  # idx 0..k-1 in each record, as the walk writes them (see below)
                blocks.append({"file_id": fid, "line_no": line, "carrier": "$.message.content", "idx": i,
                               "btype": rnd.choice(["text", "tool_use"]), "payload_len": rnd.choice([None, 1, 2])})
            for kind in ("uuid", "parent_uuid", "payload_id", "session_id"):
                if rnd.random() < 0.6:  # at most one id of a kind per record: the walk writes one
                    links.append({"file_id": fid, "line_no": line, "kind": kind, "ref": rnd.choice(REFS)})
            for kind in ("uuid", "parent_uuid", "new_thread", "agent_thread", "tool_use", "tool_result", "tool_result"):
                if rnd.random() < 0.25:  # repeats, and now and then no id at all
                    links.append({"file_id": fid, "line_no": line, "kind": kind, "ref": rnd.choice([None, *REFS])})
            for _ in range(rnd.choice([0, 0, 0, 1, 2])):  # now and then two on one record
                markers.append({"file_id": fid, "line_no": line, "name": rnd.choice(["call_id_newline", "other"]),
                                "count": rnd.randint(1, 2)})
            if rclass == "session_meta" and rnd.random() < 0.5:
                numbers.append({"file_id": fid, "line_no": line, "name": "history_start", "value": float(rnd.randint(0, 5))})
        keys = {(rnd.choice(RCLASSES), rnd.choice(PATHS), rnd.choice(["object", "string", "array"]), rnd.choice(KEYSETS))
                for _ in range(rnd.randint(0, 12))}
        for rc, path, jt, ks in sorted(keys):  # one row per file and key, as the walk writes them
            nodes.append({"file_id": fid, "rclass": rc, "path": path, "jtype": jt, "keyset": ks,
                          "count": rnd.randint(1, 5), "max_len": rnd.choice([None, 0, 999, 1000, 1500, 1500])})
        vals = {(p, v, rnd.choice(WITHHELD) if v == "<withheld>" else None)
                for p, v in ((rnd.choice(PATHS[:4]), rnd.choice(VALUES)) for _ in range(rnd.randint(0, 8)))}
        for path, v, wid in sorted(vals, key=str):  # one row per file and (path, value, withheld id), as the walk writes them
            values.append({"file_id": fid, "path": path, "value": v, "withheld_id": wid, "count": rnd.randint(1, 3)})
    snap = base / f"snap-{seed}"
    (snap / "walk").mkdir(parents=True)
    schemas = {
        "frames": {"file_id": pl.String, "line_no": pl.Int64, "frame_status": pl.String, "nbytes": pl.Int64,
                   "flags": pl.Int64, "rclass": pl.String, "keyset": pl.String, "role": pl.String, "type": pl.String,
                   "status": pl.String, "version": pl.String, "cli_version": pl.String},
        "blocks": {"file_id": pl.String, "line_no": pl.Int64, "carrier": pl.String, "idx": pl.Int64,
                   "btype": pl.String, "payload_len": pl.Int64},
        "nodes": {"file_id": pl.String, "rclass": pl.String, "path": pl.String, "jtype": pl.String,
                  "keyset": pl.String, "count": pl.Int64, "max_len": pl.Int64},
        "links": {"file_id": pl.String, "line_no": pl.Int64, "kind": pl.String, "ref": pl.String},  # ref: below
        "numbers": {"file_id": pl.String, "line_no": pl.Int64, "name": pl.String, "value": pl.Float64},
        "values": {"file_id": pl.String, "path": pl.String, "value": pl.String, "withheld_id": pl.String,
                   "count": pl.Int64},
        "markers": {"file_id": pl.String, "line_no": pl.Int64, "name": pl.String, "count": pl.Int64},
    }
    rows = {"frames": frames, "blocks": blocks, "nodes": nodes, "links": links, "numbers": numbers, "values": values,
            "markers": markers}
    for name, schema in schemas.items():
        df = pl.DataFrame(rows[name], schema=schema)
        if name in KEYED:  # the file's id as a number, as the walk writes it
            df = df.insert_column(1, pl.Series("file_key", [file_key(f) for f in df["file_id"]], pl.UInt64))
        if "ref" in df.columns:  # ids as their 64 bits, as the walk writes them
            df = df.with_columns(ref_numbers(df["ref"]))
        df.write_parquet(snap / "walk" / f"{name}.parquet")
    # the frames' per-file counts, as the walk derives them from each part of frames
    frame_counts(pl.read_parquet(snap / "walk" / "frames.parquet")).write_parquet(snap / "walk" / "frame_counts.parquet")
    node_counts(pl.read_parquet(snap / "walk" / "nodes.parquet")).write_parquet(snap / "walk" / "node_counts.parquet")
    pl.DataFrame(inv).write_parquet(snap / "inventory", partition_by="stratum")
    return snap


def run(snap: Path, text: str) -> tuple[list[str], list[tuple]]:
    con = duckdb.connect()
    con.execute("SET VARIABLE snap = ?", [str(snap)])
    cur = con.execute(text)
    cols = [d[0] for d in cur.description or []]
    return cols, cur.fetchall()


@pytest.fixture(scope="module")
def snapshots(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    base = tmp_path_factory.mktemp("census-speed")
    return [make_snapshot(base, seed) for seed in SEEDS]


@pytest.mark.parametrize("query", sorted(PLAIN))
def test_fast_form_answers_like_the_plain_form(snapshots: list[Path], query: str) -> None:
    fast = (SURVEY / query).read_text()
    seen_rows = 0
    for snap in snapshots:
        want = run(snap, PLAIN[query])
        got = run(snap, fast)
        assert got == want, f"{query} differs from its plain form on {snap.name}"
        seen_rows += sum(1 for r in want[1] if any(v not in (None, 0) for v in r))
    assert seen_rows, f"the random tables never gave {query} anything to count"


def test_assistant_pairs_tables_reach_every_relation(snapshots: list[Path]) -> None:
    """The random tables exercise every branch of the fast form: duplicates, both prefixes, unrelated."""
    totals = [0, 0, 0, 0, 0]
    for snap in snapshots:
        _, rows = run(snap, PLAIN["runtimes/cursor/queries/assistant_pairs.sql"])
        totals = [a + (b or 0) for a, b in zip(totals, rows[0], strict=True)]
    assert all(totals), totals


def test_nodes_hold_one_row_per_file_and_key(cursor_survey) -> None:
    """What keyset_census.sql counts files with: no two nodes rows share a file and a key."""
    _, _, snap = cursor_survey
    n, distinct = duckdb.connect().execute(
        "SELECT count(*), count(DISTINCT (file_id, rclass, path, jtype, keyset)) FROM read_parquet(?)",
        [str(snap / "walk" / "nodes.parquet")]).fetchall()[0]
    assert n == distinct > 0


@pytest.mark.parametrize("mode", ["reviewed", "discover"])
def test_values_hold_one_row_per_file_and_value(tmp_path: Path, mode: str) -> None:
    """What value_maps.sql and constant_fields.sql count files with: no two values rows share a
    file, path, value and withheld id, and only a withheld value has an id; in discover mode
    too, where rare keys collapse paths together (they are summed again)."""
    from survey.pipeline import run_survey
    from survey.synth.claude_code import generate

    generate(tmp_path / "projects", seed=5, sessions=6)
    res = run_survey(get("claude_code"), tmp_path / "projects", snapshots=tmp_path / "s", reports=tmp_path / "r",
                     mode=mode)
    manifest = json.loads((Path(res.snapshot) / "manifest.json").read_text())
    assert (manifest["privacy"]["rare_keys_collapsed"] > 0) == (mode == "discover")
    n, distinct, odd, withheld = duckdb.connect().execute(
        "SELECT count(*), count(DISTINCT (file_id, path, value, withheld_id)),"
        " count(*) FILTER (WHERE (withheld_id IS NOT NULL) <> (value = '<withheld>')),"
        " count(*) FILTER (WHERE withheld_id IS NOT NULL) FROM read_parquet(?)",
        [str(Path(res.snapshot) / "walk" / "values.parquet")]).fetchall()[0]
    assert n == distinct > 0 and odd == 0
    assert withheld > 0  # the generator's unreviewed values were withheld


def test_frame_counts_are_the_frames_counted_per_file_and_key(cursor_survey, claude_snap: Path) -> None:
    """What record_classes.sql and the other frame counts read: the walk's frame_counts hold,
    per file and (status, class, key set), exactly what counting the frames gives, one row each."""
    for snap in (cursor_survey[2], claude_snap):
        con = duckdb.connect()
        con.execute("SET VARIABLE snap = ?", [str(snap)])
        want = con.execute(
            "SELECT file_id, file_key, frame_status, rclass, keyset, count(*), sum(nbytes),"
            " count(*) FILTER (WHERE flags & 1 = 1), count(*) FILTER (WHERE flags & 2 = 2),"
            " count(*) FILTER (WHERE flags & 4 = 4), count(*) FILTER (WHERE flags & 8 = 8),"
            " count(*) FILTER (WHERE flags & 16 = 16), count(*) FILTER (WHERE flags & 32 = 32)"
            " FROM read_parquet(getvariable('snap') || '/walk/frames.parquet') GROUP BY ALL ORDER BY ALL").fetchall()
        got = con.execute("SELECT * FROM read_parquet(getvariable('snap') || '/walk/frame_counts.parquet')"
                          " ORDER BY ALL").fetchall()
        assert got == want and len(want) > 1
        assert any(r[6] > 1 for r in got)  # files with several records of one class and key set


@pytest.mark.parametrize("mode", ["reviewed", "discover"])
def test_node_counts_are_the_nodes_rolled_up(cursor_survey, claude_snap: Path, tmp_path: Path, mode: str) -> None:
    """What keyset_census.sql and key_gate.sql read: the walk's node_counts, rolled up per part,
    sum to the nodes rolled up over every part; in discover mode too, where rare keys collapse
    paths (the rollup is made again from the collapsed nodes)."""
    from survey.pipeline import run_survey
    from survey.synth.claude_code import generate

    generate(tmp_path / "projects", seed=5, sessions=6)
    res = run_survey(get("claude_code"), tmp_path / "projects", snapshots=tmp_path / "s", reports=None, mode=mode)
    # discover mode's candidates go beside the snapshots when there are no reports, not into the CWD
    assert (tmp_path / "candidates-claude_code.json").exists() == (mode == "discover")
    for snap in (cursor_survey[2], claude_snap, Path(res.snapshot)):
        con = duckdb.connect()
        con.execute("SET VARIABLE snap = ?", [str(snap)])
        want = con.execute(
            "SELECT rclass, path, jtype, keyset, sum(count), count(DISTINCT file_id), max(max_len)"
            " FROM read_parquet(getvariable('snap') || '/walk/nodes.parquet') GROUP BY ALL ORDER BY ALL").fetchall()
        got = con.execute(
            "SELECT rclass, path, jtype, keyset, sum(occurrences), sum(files), max(max_len)"
            " FROM read_parquet(getvariable('snap') || '/walk/node_counts.parquet') GROUP BY ALL ORDER BY ALL").fetchall()
        assert got == want and len(want) > 1
        assert any(r[5] > 1 for r in got)  # groups that several files share


def test_rare_keys_collapsing_paths_together_keep_one_row_per_file_and_key() -> None:
    """Two paths (or key sets) of one file that differ only in rare keys become one: their rows
    are summed into one, in nodes, values and frame_counts, so counting rows still counts files."""
    from survey.census.rarekeys import collapse
    from survey.corpus.privacy import RARE_KEY

    nodes = pl.DataFrame({"file_id": ["f1", "f1", "f2", "f3", "f1", "f2", "f3"],
                          "rclass": ["r"] * 7, "path": ["$.a.x1", "$.a.x2", "$.a", "$.a", "$.a", "$.b", "$.b"],
                          "jtype": ["string"] * 7, "keyset": [""] * 7, "count": [1, 2, 1, 1, 1, 1, 1],
                          "max_len": [3, 5, 1, 1, 1, 1, 1]})
    values = pl.DataFrame({"file_id": ["f1", "f1", "f2"], "path": ["$.a.x1", "$.a.x2", "$.a.x1"],
                           "value": ["v", "v", "v"], "withheld_id": [None, None, None], "count": [1, 2, 4]},
                          schema={"file_id": pl.String, "path": pl.String, "value": pl.String,
                                  "withheld_id": pl.String, "count": pl.Int64})
    frames = pl.DataFrame({"keyset": ["a"]})
    blocks = pl.DataFrame({"file_id": ["f1"], "keyset": ["a"], "input_keyset": ["a"]})
    counts = pl.DataFrame({"file_id": ["f1", "f1"], "file_key": [1, 1], "frame_status": ["ok", "ok"],
                           "rclass": ["r", "r"], "keyset": ["a,x1", "a,x2"], "records": [2, 3], "bytes": [20, 30],
                           "bom": [0, 1], "crlf": [0, 0], "nul": [1, 0], "duplicate_key": [1, 1],
                           "out_of_range": [0, 0], "nonstandard_number": [0, 2]})
    out, rare = collapse({"nodes": nodes, "values": values, "frames": frames, "blocks": blocks,
                          "frame_counts": counts}, 3)
    assert rare == 3  # x1 and x2 (one file each), b (two files)
    got = out["values"].sort("file_id").rows()
    assert got == [("f1", f"$.a.{RARE_KEY}", "v", None, 3), ("f2", f"$.a.{RARE_KEY}", "v", None, 4)]
    assert out["frame_counts"].rows() == [("f1", 1, "ok", "r", f"{RARE_KEY},a", 5, 50, 1, 0, 1, 2, 0, 2)]  # sorted keys
    n = out["nodes"]
    assert n.height == n.select("file_id", "rclass", "path", "jtype", "keyset").n_unique()
    assert n.filter(pl.col("file_id") == "f1", pl.col("path") == f"$.a.{RARE_KEY}").rows() == [
        ("f1", "r", f"$.a.{RARE_KEY}", "string", "", 3, 5)]


def test_blocks_are_numbered_from_zero_in_each_record(cursor_survey) -> None:
    """What assistant_pairs.sql finds a record's first block by (``idx = 0``): the walk numbers
    each record's blocks 0, 1, 2... with no gaps, one carrier per Cursor record."""
    _, _, snap = cursor_survey
    bad, records, zeros = duckdb.connect().execute(
        "SELECT count(*) FILTER (WHERE n <> hi + 1 OR lo <> 0), count(*), sum(zeros) FROM ("
        "  SELECT count(*) AS n, min(idx) AS lo, max(idx) AS hi, count(*) FILTER (WHERE idx = 0) AS zeros"
        "  FROM read_parquet(?) GROUP BY file_id, line_no)",
        [str(snap / "walk" / "blocks.parquet")]).fetchall()[0]
    assert records > 0 and bad == 0 and zeros == records


@pytest.fixture(scope="module")
def claude_snap(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small generated Claude Code corpus, surveyed: its links, markers and numbers have rows."""
    from survey.pipeline import run_survey
    from survey.synth.claude_code import generate

    base = tmp_path_factory.mktemp("claude")
    generate(base / "projects", seed=5, sessions=6)
    res = run_survey(get("claude_code"), base / "projects", snapshots=base / "snapshots", reports=None)
    return Path(res.snapshot)


@pytest.mark.parametrize("table", KEYED)
def test_file_key_is_the_file_id_as_a_number(cursor_survey, claude_snap: Path, table: str) -> None:
    """What the fast forms join on instead of file_id: the same 64 bits, one key per file."""
    for snap in (cursor_survey[2], claude_snap):
        rows, wrong, ids, keys = duckdb.connect().execute(
            "SELECT count(*), count(*) FILTER (WHERE file_key IS DISTINCT FROM ('0x' || substr(file_id, 3))::UBIGINT),"
            " count(DISTINCT file_id), count(DISTINCT file_key) FROM read_parquet(?)",
            [str(snap / "walk" / f"{table}.parquet")]).fetchall()[0]
        assert wrong == 0 and ids == keys
        assert rows > 0 or (snap != claude_snap and table in ("links", "numbers"))


def test_side_by_side_cursors_answer_like_one_by_one(cursor_survey, monkeypatch: pytest.MonkeyPatch) -> None:
    _, _, snap = cursor_survey
    profile = get("cursor")
    together = sql.run_census(snap, profile, "snapshots/x/cursor")
    monkeypatch.setattr(sql, "PARALLEL", 1)
    alone = sql.run_census(snap, profile, "snapshots/x/cursor")
    assert list(together) == [f.stem for f in sql.query_files(profile)]
    assert together == alone


def test_a_query_out_of_memory_beside_the_others_runs_again_alone(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A query DuckDB cannot fit in memory while others run is run again alone, with more
    memory: the census is the same, never a crash."""
    from survey.census import sql as S
    from survey.pipeline import run_survey
    from survey.synth.cursor import generate

    generate(tmp_path / "c", seed=3, sessions=4)
    res = run_survey(get("cursor"), tmp_path / "c", snapshots=tmp_path / "s", reports=None, date="d")
    snap = Path(res.snapshot)
    want = S.run_census(snap, get("cursor"), "x")
    real = S.run_query
    seen: list[str] = []

    def flaky(con: duckdb.DuckDBPyConnection, f: Path) -> tuple[list[str], list[list]]:
        if f.stem in ("keyset_census", "frame_status") and f.stem not in seen:
            seen.append(f.stem)
            raise duckdb.OutOfMemoryException("Out of Memory Error: planted")
        return real(con, f)

    monkeypatch.setattr(S, "run_query", flaky)
    assert S.run_census(snap, get("cursor"), "x") == want
    assert sorted(seen) == ["frame_status", "keyset_census"]


def test_census_rows_come_in_the_same_order_whatever_the_threads(cursor_survey, claude_snap: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Every query's ORDER BY must be total: rows that tie come out in whatever order DuckDB's
    threads finish, and a page would then change between two runs of the same corpus."""
    real = sql.connect

    def census(snap: Path, rt: str, threads: int) -> dict:
        def connect(spill: str, _threads: int | None = None):
            return real(spill, threads)

        monkeypatch.setattr(sql, "connect", connect)
        monkeypatch.setattr(sql, "PARALLEL", threads)
        return {k: v["rows"] for k, v in sql.run_census(snap, get(rt), "x").items()}

    for snap, rt in ((cursor_survey[2], "cursor"), (claude_snap, "claude_code")):
        one, four = census(snap, rt, 1), census(snap, rt, 4)
        assert one == four, [k for k in one if one[k] != four[k]]


def test_side_by_side_queries_share_the_cores(cursor_survey, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each of the PARALLEL cursors gets its share of the cores as DuckDB threads, not every core."""
    _, _, snap = cursor_survey
    seen: set[int] = set()
    real = sql.run_query

    def spy(con: duckdb.DuckDBPyConnection, f: Path) -> tuple[list[str], list[list]]:
        seen.add(con.execute("SELECT current_setting('threads')").fetchall()[0][0])
        return real(con, f)

    monkeypatch.setattr(sql, "run_query", spy)
    monkeypatch.setattr(sql.os, "cpu_count", lambda: 8)
    for parallel, threads in ((2, 4), (4, 2), (8, 1), (16, 1)):
        monkeypatch.setattr(sql, "PARALLEL", parallel)
        seen.clear()
        sql.run_census(snap, get("cursor"), "x")
        assert seen == {threads}, (parallel, seen)


def test_the_longest_queries_of_the_last_census_start_first(cursor_survey, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Each query's time is kept beside the partial rows; the next census starts the longest
    first (the census ends with its last query) and hands the rows back in the queries'
    order. A damaged file of times is no times: the queries then start by the bytes of the
    walk tables they read (their splits' too), most first, ties in file order."""
    _, _, snap = cursor_survey
    profile = get("cursor")
    files = [f.stem for f in sql.query_files(profile)]
    store = tmp_path / "store"
    first = sql.run_census(snap, profile, "x", store=store)
    kept = json.loads((store / sql.SECONDS_FILE).read_text())
    assert set(kept) == set(files) and all(v >= 0 for v in kept.values())
    slowest = files[-3:]  # made the slowest: they must start first, slowest of all first
    (store / sql.SECONDS_FILE).write_text(json.dumps({slowest[0]: 9.0, slowest[1]: 8.0, slowest[2]: 7.0}))
    started: list[str] = []
    real = sql.run_query

    def spy(con: duckdb.DuckDBPyConnection, f: Path) -> tuple[list[str], list[list]]:
        started.append(f.stem)
        return real(con, f)

    monkeypatch.setattr(sql, "PARALLEL", 1)
    monkeypatch.setattr(sql, "run_query", spy)
    again = sql.run_census(snap, profile, "x", store=store)
    assert started[:3] == slowest and list(again) == files and again == first
    (store / sql.SECONDS_FILE).write_bytes(b"{not json")
    started.clear()
    assert sql.run_census(snap, profile, "x", store=store) == first

    def on_disk(table: str) -> int:
        p = snap / "walk" / f"{table}.parquet"
        return sum(q.stat().st_size for q in p.iterdir()) if p.is_dir() else p.stat().st_size if p.exists() else 0

    def read_bytes(f: Path) -> int:
        split = partials.split_of(f)
        text = f.read_text() + (split.read_text() if split else "")
        return sum(on_disk(t) for t in set(re.findall(r"/walk/(\w+)\.parquet", text)))

    size = {f.stem: read_bytes(f) for f in sql.query_files(profile)}
    assert len(set(size.values())) > 3, "the queries read tables of too few sizes to tell an order"
    assert started == sorted(files, key=lambda n: -size[n])
