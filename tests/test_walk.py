"""The walk's declared extractions: numbers, existence checks, JSON-in-string carriers,
links as pseudonyms, and the gate on keys and values."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from survey.census.walk import Walker, walk_file
from survey.corpus.privacy import Gate, file_key, pseudonym
from survey.runtimes import get

SALT = b"test-salt"


def walker(**changes) -> Walker:
    p = dataclasses.replace(get("cursor"), **changes)
    gate = Gate(keys=frozenset({"role", "message", "content", "type", "text", "usage", "out", "path",
                                "args", "a", "b", "c", "d", "id"}),
                values={"$.role": frozenset({"user"})})
    return Walker(p, gate, SALT)


def walk(w: Walker, tmp_path: Path, records: list[dict]) -> object:
    f = tmp_path / "x.jsonl"
    f.write_text("".join(json.dumps(r) + "\n" for r in records))
    return walk_file(w, str(f), "f-1", "jsonl", f.stat().st_size)


def test_numbers_are_recorded_per_frame(tmp_path: Path) -> None:
    w = walker(numbers={"out": "$.usage.out"})
    r = walk(w, tmp_path, [{"usage": {"out": 5}}, {"role": "user"}, {"usage": {"out": 7.5}}])
    assert r.numbers == [(0, "out", 5.0), (2, "out", 7.5)]


def test_exists_checks_record_presence_only(tmp_path: Path) -> None:
    (tmp_path / "here.txt").write_text("x")
    w = walker(exists_checks={"persisted": "$.path"})
    r = walk(w, tmp_path, [{"path": str(tmp_path / "here.txt")}, {"path": str(tmp_path / "gone.txt")},
                           {"path": "here.txt"}])
    assert r.markers == [(0, "persisted:present", 1), (1, "persisted:missing", 1), (2, "persisted:present", 1)]
    assert all(str(tmp_path) not in str(v) for v in (r.frames, r.nodes, r.values, r.markers))


def test_json_in_string_is_walked_only_at_declared_carriers_with_a_depth_limit(tmp_path: Path) -> None:
    deep = {"a": {"b": {"c": {"d": 1}}}}
    w = walker(json_carriers=frozenset({"$.args"}), carrier_depth=3)
    r = walk(w, tmp_path, [{"args": json.dumps(deep)}, {"args": "not json"}, {"text": json.dumps(deep)}])
    paths = {k[1]: k for k in r.nodes}
    assert "$.args.<json>" in paths and "$.args.<json>.a.b" in paths
    assert paths["$.args.<json>.a.b.c"][2] == "<truncated>"  # cut at 3 levels inside the carrier
    assert r.truncations == 1
    assert any(k[1] == "$.args.<json>" and k[2] == "<not-json>" for k in r.nodes)
    assert not any(k[1].startswith("$.text.") for k in r.nodes)  # not a carrier: never decoded


def test_links_are_salted_pseudonyms_never_ids(tmp_path: Path) -> None:
    w = walker(links={"id": "$.id"})
    r = walk(w, tmp_path, [{"id": "secret-uuid-1"}, {"id": "secret-uuid-1"}, {"id": "other"}])
    refs = [x[2] for x in r.links]
    assert refs[0] == refs[1] != refs[2]
    # each kept as its pseudonym's 64 bits: the HMAC of the id, never the id
    assert refs == [file_key(pseudonym(SALT, v, "i")) for v in ("secret-uuid-1", "secret-uuid-1", "other")]
    assert all(isinstance(ref, int) and 0 <= ref < 2**64 for ref in refs)


@pytest.mark.parametrize("tables", ["native", "lists"])
def test_a_batch_part_keeps_a_link_as_its_pseudonyms_64_bits(tables: str, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """links.parquet holds ``ref`` as a UBIGINT (the census joins millions of them): the
    pseudonym's 64 bits, lossless, a null id a null, from the C core's tables and the lists."""
    import polars as pl

    from survey.census import collect as C
    from survey.census import walk as W

    if tables == "lists":
        monkeypatch.setattr(W, "NATIVE", None)
    w = walker(links={"id": "$.id"})
    f = tmp_path / "x.jsonl"
    f.write_text("".join(json.dumps(r) + "\n" for r in [{"id": "secret-uuid-1"}, {"id": None}, {"id": "b"}]))
    (tmp_path / "out").mkdir()
    C.walk_batch(w, [(str(f), "f-1", "jsonl", f.stat().st_size, [])], str(tmp_path / "out"), 0,
                 list(w.p.frame_fields))
    links = pl.read_parquet(tmp_path / "out" / "links" / "part-000000.parquet")
    assert links["ref"].dtype == pl.UInt64
    assert links.sort("line_no")["ref"].to_list() == [file_key(pseudonym(SALT, "secret-uuid-1", "i")),
                                                      file_key(pseudonym(SALT, "b", "i"))]


def test_ref_numbers_are_a_pseudonyms_64_bits() -> None:
    """``ref_numbers`` (the greps' file keys, from file ids): a pseudonym's 64 bits,
    lossless, null kept; anything but a pseudonym is refused."""
    import polars as pl

    from survey.corpus.crawl import ref_numbers

    refs = [pseudonym(SALT, v, "i") for v in ("a", "b", "secret-uuid-1")]
    got = ref_numbers(pl.Series("ref", [*refs, "i-00000000000000ff", "i-ffffffffffffffff", None]))
    assert got.dtype == pl.UInt64
    assert got.to_list() == [*(file_key(r) for r in refs), 255, 2**64 - 1, None]
    assert got.n_unique() == 6
    with pytest.raises(pl.exceptions.ComputeError):
        ref_numbers(pl.Series("ref", ["i-secret"]))


def test_gate_masks_unreviewed_and_dynamic_keys_and_withholds_values(tmp_path: Path) -> None:
    w = walker()
    r = walk(w, tmp_path, [{"role": "assistant", "zzPrivateKey": 1, "/home/me/file.py": 2}])
    frame = r.frames[0]
    assert frame[5] == "<dynamic-key>,<unreviewed-key>,role"
    assert next(k[:2] for k in r.values) == ("$.role", "<withheld>")


def test_huge_objects_are_maps_at_the_top_level_too(tmp_path: Path) -> None:
    w = walker()
    r = walk(w, tmp_path, [{f"k{i}": i for i in range(100)}])
    assert r.frames[0][5] == "<map>"
    assert any(k[3] == "<map>" and v[1] == 100 for k, v in r.nodes.items())


def test_a_batch_runs_without_the_cycle_collector_and_gives_it_back(tmp_path: Path, monkeypatch) -> None:
    """The collector is paused for a batch (its rows are acyclic, freed by reference counts)
    and restored after, also when a file's walk raises; a caller that had it off keeps it off."""
    import gc

    from survey.census import collect
    from survey.census import walk as W

    f = tmp_path / "x.jsonl"
    f.write_text('{"role": "user"}\n')
    task = (str(f), "f-00000000000000ff", "jsonl", f.stat().st_size, [])  # as _batch_tasks makes it
    seen: list[bool] = []
    real = W.walk_file

    def spy(*a, **k):
        seen.append(gc.isenabled())
        return real(*a, **k)

    monkeypatch.setattr(W, "walk_file", spy)
    fields = list(get("cursor").frame_fields)
    assert gc.isenabled()
    out = collect.walk_batch(walker(), [task], str(tmp_path), 0, fields)
    assert seen == [False] and gc.isenabled()
    assert [r[0] for r in out.files] == ["f-00000000000000ff"]

    def boom(*a, **k):
        raise RuntimeError("walk failed")

    monkeypatch.setattr(W, "walk_file", boom)
    with pytest.raises(RuntimeError):
        collect.walk_batch(walker(), [task], str(tmp_path), 1, fields)
    assert gc.isenabled()
    gc.disable()
    try:
        monkeypatch.setattr(W, "walk_file", spy)
        collect.walk_batch(walker(), [task], str(tmp_path), 2, fields)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_aggregated_rows_spread_back_the_keys_numbered_once_per_batch() -> None:
    """A batch numbers each distinct key of a dict-shaped table once; the written frame
    equals the rows written out one by one, in file order, None keys included."""
    import polars as pl

    from survey.census.collect import _Aggregated, _schemas

    schema = _schemas([])["nodes"]
    files = {
        "f-01": {("r", "$.a", "string", ""): [2, 5], ("r", "$", "object", "a,b"): [1, 2]},
        "f-02": {("r", "$", "object", "a,b"): [3, 2], ("q", "$.b", "null", ""): [1, 0]},
        "f-03": {},
    }
    agg = _Aggregated(schema, 4)
    for fid, rows in files.items():
        agg.add(fid, rows)
    expected = pl.DataFrame([(fid, *k, *v) for fid, rows in files.items() for k, v in rows.items()],
                            schema=schema, orient="row")
    assert len(agg.keys) == 3  # the shared key is numbered once
    assert agg.frame().equals(expected)
    # as the parts are written (``collect.written``): every str column Categorical, the file id too
    assert dict(agg.frame().schema) == {**expected.schema, **dict.fromkeys(
        ("file_id", "rclass", "path", "jtype", "keyset"), pl.Categorical)}

    vschema = _schemas([])["values"]
    vals = _Aggregated(vschema, 3)
    vals.add("f-01", {("$.role", "user", None): 4, ("$.id", "<withheld>", "i-1"): 1})
    vals.add("f-02", {("$.role", "user", None): 2})
    assert vals.frame().rows() == [("f-01", "$.role", "user", None, 4),
                                          ("f-01", "$.id", "<withheld>", "i-1", 1),
                                          ("f-02", "$.role", "user", None, 2)]


@pytest.mark.parametrize("memo", [(4096, 256), (2, 18)])
def test_text_headings_and_lines_at_any_chunking(memo: tuple[int, int], monkeypatch: pytest.MonkeyPatch) -> None:
    """``walk_text`` finds headings by searching each chunk for LF + "[": the same lines and the
    same headings as splitting every line, wherever the reads cut the text (mid-line, at an
    LF, inside a heading), with CRs, blank lines, lines too long to hold and no final LF.
    Each heading line's keys come from a memo of the walker's (``HEADING_MEMO``): the same
    counts when it holds every line, and when it starts afresh every two lines and takes
    none longer than 18 bytes."""
    import os
    import random
    import tempfile

    from hypothesis import given, settings
    from hypothesis import strategies as st

    from survey.census import walk as W
    from survey.corpus.privacy import WITHHELD

    monkeypatch.setattr(W, "HEADING_MEMO", memo[0])
    monkeypatch.setattr(W, "HEADING_MEMO_LINE", memo[1])
    w = W.make_walker("cursor", "reviewed", False, b"salt", max_line=64)
    (name, rx), = w.headings
    pieces = ["[Tool call] Read", "[Tool call] Shell\r", "[Tool call]  x", "[Tool result] ok", " [Tool call] Grep",
              "[Tool call] " + "Z" * 80, "", "plain text", "[", "[Tool call] Edit"]

    def reference(data: bytes) -> tuple[int, dict]:
        lines, heads = 0, {}
        for i, ln in enumerate(data.split(b"\n")):
            if i == data.count(b"\n") and not ln:
                break  # after the final LF
            lines += 1
            m = rx.match(ln.decode("utf-8", "replace"))
            if m:
                g = w.gate.value(f"heading:{name}", m.group(1))
                key = (name, g if g is not None else WITHHELD)
                heads[key] = heads.get(key, 0) + 1
        return lines, heads

    @settings(max_examples=150, deadline=None)
    @given(st.lists(st.sampled_from(pieces), min_size=1, max_size=30), st.booleans(), st.integers(0, 2**32))
    def check(lines: list[str], final_lf: bool, seed: int) -> None:
        data = "\n".join(lines).encode() + (b"\n" if final_lf else b"")
        rnd = random.Random(seed)

        class Chunked(W.HashingReader):
            def read(self, n: int = -1) -> bytes:
                return super().read(rnd.randint(1, 40))

        with open(tmp, "wb") as fh:
            fh.write(data)
        fd = os.open(tmp, os.O_RDONLY)
        try:
            res = W.FileResult(file_id="t")
            w.walk_text(res, Chunked(fd, len(data)))
        finally:
            os.close(fd)
        want_lines, want_heads = reference(data)
        assert res.lines == want_lines
        # a line longer than max_line that a read cut is dropped whole or in part, in both
        # walks alike; the comparison holds exactly where no line is that long
        if all(len(x) <= w.max_line for x in data.split(b"\n")):
            assert res.headings == want_heads

    with tempfile.TemporaryDirectory() as d:
        tmp = os.path.join(d, "t.txt")
        check()


def test_a_file_the_crawl_sized_is_read_to_its_end_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A read asks for the crawl's size plus one byte: given just the size, the file ends
    there, and the walk asks the kernel no more (most files are one read, not two). A file
    that grew since the crawl gives that byte, and is read on to its new end, so the walk
    counts it changed; one that shrank gives fewer bytes, likewise."""
    import os

    from survey.census import walk as W

    calls: list[int] = []
    real = os.read

    def counted(fd: int, n: int) -> bytes:
        calls.append(n)
        return real(fd, n)

    monkeypatch.setattr(W.os, "read", counted)
    w = walker()
    f = tmp_path / "x.jsonl"
    data = b"".join(json.dumps({"role": "user", "n": i}).encode() + b"\n" for i in range(50))
    f.write_bytes(data)
    r = walk_file(w, str(f), "f-1", "jsonl", len(data))
    assert (r.status, r.nbytes, r.lines, calls) == ("ok", len(data), 50, [len(data) + 1])
    h = W.content_hash()
    h.update(data)
    assert r.hash == h.hexdigest()
    for size, status in ((len(data) - 10, "changed_during_read"), (len(data) + 10, "changed_during_read")):
        calls.clear()
        r = walk_file(w, str(f), "f-1", "jsonl", size)  # as if the crawl had seen another size
        assert (r.status, r.nbytes) == (status, len(data)) and len(calls) >= 2
    empty = tmp_path / "e.jsonl"
    empty.write_bytes(b"")
    calls.clear()
    r = walk_file(w, str(empty), "f-2", "jsonl", 0)
    assert (r.status, r.nbytes, calls) == ("ok", 0, [1])


def test_needles_are_found_in_the_bytes_as_read_at_any_chunking(tmp_path: Path) -> None:
    """A parent transcript is searched for its children's ids in the chunks the walk reads
    (no second read of the file): the ids found are exactly those a search of the whole
    file finds, wherever the reads cut it (inside an id, one byte at a time, ids of
    different lengths, one id inside another)."""
    import os
    import random

    from hypothesis import given, settings
    from hypothesis import strategies as st

    from survey.census import walk as W

    ids = [b"agent-a1", b"a1", b"0f3c9e2a-77aa-4c1e-9d0b-5b6a1e2f3a4b", b"zz", b"agent-a1b"]
    tmp = tmp_path / "parent.jsonl"

    @settings(max_examples=200, deadline=None)
    @given(st.lists(st.sampled_from([b'{"a":1}\n', b"x", b"agent-", b"a1", b"b", b"\n",
                                     b"0f3c9e2a-77aa-4c1e-", b"9d0b-5b6a1e2f3a4b", b"z"]), max_size=40),
           st.integers(0, 2**32))
    def check(parts: list[bytes], seed: int) -> None:
        data = b"".join(parts)
        tmp.write_bytes(data)
        rnd = random.Random(seed)

        class Chunked(W.HashingReader):
            def read(self, n: int = -1) -> bytes:
                return super().read(rnd.randint(1, 12))

        fd = os.open(tmp, os.O_RDONLY)
        try:
            reader = Chunked(fd, len(data))
            reader.watch([(f"n{i}", nb) for i, nb in enumerate(ids)])
            while reader.read():
                pass
        finally:
            os.close(fd)
        assert reader.found == {f"n{i}" for i, nb in enumerate(ids) if nb in data}
        assert reader.n == len(data)

    check()
    # every fixed read size, each id once at a different offset
    data = b'{"x":"' + b'","'.join(ids[::-1]) + b'"}\n'
    tmp.write_bytes(data)
    for size in range(1, 48):
        fd = os.open(tmp, os.O_RDONLY)
        try:
            reader = W.HashingReader(fd, len(data))
            reader.watch([(f"n{i}", nb) for i, nb in enumerate(ids)])
            while reader.read(size):
                pass
        finally:
            os.close(fd)
        assert reader.found == {f"n{i}" for i in range(len(ids))}, size


def test_a_target_from_another_machine_is_found_by_its_suffix_under_the_root(tmp_path: Path) -> None:
    """A path written elsewhere is present when a suffix of at least two of its names is a
    file under the survey root; the run's memo of the root's first names gives the same
    answers as looking every suffix up."""
    from survey.census.walk import target_exists

    root = tmp_path / "root"
    (root / "p" / "s" / "tool-results").mkdir(parents=True)
    (root / "p" / "s" / "tool-results" / "a.txt").write_text("x")
    (root / "b.txt").write_text("x")
    cur = str(root / "p" / "s.jsonl")
    targets = {"/home/u/.claude/projects/p/s/tool-results/a.txt": True,
               "/home/u/.claude/projects/p/s/tool-results/gone.txt": False,
               "/home/u/p/s": False,  # a folder, not a file
               "/x/b.txt": False,  # one name under the root: too short a suffix to count
               "/x/p/s/tool-results/a.txt": True,
               "/p/./s/../tool-results/a.txt": True,  # "." and ".." are dropped, not resolved
               "tool-results/a.txt": False}  # beside the transcript: not there
    memo: dict = {}
    for t, want in targets.items():
        assert target_exists(t, cur, str(root)) is want, t
        assert target_exists(t, cur, str(root), memo) is want, t
    assert memo[str(root), "home"] is False and memo[str(root), "p"] is True


@pytest.mark.parametrize("codec,mark", [("utf-16-le", b"\xff\xfe"), ("utf-16-be", b"\xfe\xff"),
                                        ("utf-32-le", b"\xff\xfe\x00\x00"), ("utf-32-be", b"\x00\x00\xfe\xff")])
@pytest.mark.parametrize("chunk", [1, 3, 1 << 20])
def test_a_utf16_or_utf32_file_walks_as_its_utf8_would(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        codec: str, mark: bytes, chunk: int) -> None:
    """Decoded a chunk at a time (a character cut by a chunk's end waits for the next), a
    file with a byte-order mark gives the frames its UTF-8 gives, and names its encoding;
    a lone surrogate is a frame that is not UTF-8, not an exception."""
    from survey.census import walk as W
    from survey.corpus import frames as F

    text = '{"role":"user","message":{"content":[{"type":"text","text":"h\U0001f600 \u00e9"}]}}\n{"role":"assistant"}\n'
    utf8 = tmp_path / "a.jsonl"
    utf8.write_bytes(text.encode())
    other = tmp_path / "b.jsonl"
    other.write_bytes(mark + text.encode(codec))
    monkeypatch.setattr(W, "CHUNK", chunk)
    monkeypatch.setattr(F, "CHUNK", chunk)
    for native in (True, False):
        w = W.make_walker("cursor", "reviewed", False, b"s")
        if not native:
            w = W.Walker(w.p, w.gate, b"s", w.max_line, native=False)
        a = W.walk_file(w, str(utf8), "x", "jsonl", utf8.stat().st_size)
        b = W.walk_file(w, str(other), "x", "jsonl", other.stat().st_size)
        assert (a.status, b.status) == ("ok", codec[:3] + codec[4:6])
        assert (b.frames, b.blocks, b.nodes, b.lines) == (a.frames, a.blocks, a.nodes, a.lines)
        assert b.nbytes == other.stat().st_size
    if codec.startswith("utf-16"):
        lone = tmp_path / "c.jsonl"
        lone.write_bytes(mark + '{"a":"x'.encode(codec) + b"\x00\xd8"[:: 1 if codec.endswith("le") else -1]
                         + '"}\n{"b":1}\n'.encode(codec))
        r = W.walk_file(w, str(lone), "x", "jsonl", lone.stat().st_size)
        assert [f[1] for f in r.frames] == ["invalid_utf8", "ok"]


# -- raw key sets and value formats -----------------------------------------------------------

# The format classes, written independently as regular expressions over the whole string
# (``re.ASCII``: a digit or letter is an ASCII one), tried in order; anything else is text.
FORMAT_RX = [
    ("empty", r""),
    ("uuid", r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"),
    ("hex32", r"[0-9a-fA-F]{32}"), ("hex40", r"[0-9a-fA-F]{40}"), ("hex64", r"[0-9a-fA-F]{64}"),
    ("timestamp", r"(?=[\s\S]{16,35}\Z)[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ][0-9]{2}:[0-9]{2}[0-9:.+\-Zz]*"),
    ("url", r"[A-Za-z][A-Za-z0-9+.\-]{0,15}://[^ \t\n\r]*"),
    ("path", r"(?:/|~/|\./|\.\./|[A-Za-z]:[\\/])[^\n]*"),
]


def format_by_rx(s: str) -> str:
    import re

    for name, rx in FORMAT_RX:
        if re.fullmatch(rx, s, re.ASCII):
            return name
    return "text"


def number_by_range(v: float) -> str:
    if 946_684_800 <= v < 4_102_444_800:  # 2000-01-01 .. 2100-01-01, seconds
        return "epoch_s"
    if 946_684_800_000 <= v < 4_102_444_800_000:
        return "epoch_ms"
    return "number"


FORMAT_EXAMPLES = {
    "": "empty", "0d7a3c2e-1b4f-4e6a-9c1d-2f3e4a5b6c7d": "uuid", "0D7A3C2E-1B4F-4E6A-9C1D-2F3E4A5B6C7D": "uuid",
    "0d7a3c2e-1b4f-4e6a-9c1d-2f3e4a5b6c7g": "text", "9e107d9d372bb6826bd81d3542a419d6": "hex32",
    "2fd4e1c67a2d28fced849ee1bb76e7391b93eb12": "hex40", "a" * 64: "hex64", "a" * 63: "text",
    "2026-08-17T18:55:41.627Z": "timestamp", "2026-08-17 18:55": "timestamp", "2026-08-17T18:55:41+02:00": "timestamp",
    "2026-08-17": "text", "2026-08-17T18:55:41.627Z and more": "text", "https://x.example/a?b=c": "url",
    "file:///home/a": "url", "https://x.example/a b": "text", "/home/a b": "path", "~/x": "path", "./x": "path",
    "../x": "path", "C:\\Users\\a": "path", "c:/x": "path", "/a\nb": "text", "~x": "text", ".x": "text",
    "hello": "text", "é/x": "text", "/é": "path", "ab1+.-://x": "url", "a" * 17 + "://x": "text", "C://x y": "path",
}


@pytest.mark.parametrize("s,want", list(FORMAT_EXAMPLES.items()))
def test_string_formats_of_known_strings(s: str, want: str) -> None:
    from survey.census.walk import string_format

    assert format_by_rx(s) == want  # the expressions say the same, so each example checks both
    assert string_format(s) == want


@pytest.mark.parametrize("v", [0, 946_684_799, 946_684_800, 1_754_000_000, 1_754_000_000.5, 4_102_444_799,
                               4_102_444_800, 99_999_999_999, 1_754_000_000_000, 1.7e12, 4_102_444_800_000,
                               -1_754_000_000, float("nan"), float("inf"), 10**30])
def test_number_formats_by_range(v: float) -> None:
    from survey.census.walk import number_format

    assert number_format(v) == number_by_range(v)


def test_formats_and_raw_key_sets_are_counted_per_class_and_path(tmp_path: Path) -> None:
    """Values planted at known rates: per (class, path) the walk's format counts equal the
    expressions' over the same values; objects whose keys differ only in unreviewed keys are
    one masked key set but two raw ones, and no raw key leaves."""
    w = walker()
    recs = []
    for i in range(40):
        recs.append({"role": "user", "id": "0d7a3c2e-1b4f-4e6a-9c1d-2f3e4a5b6c7d" if i % 4 else "not-a-uuid",
                     "args": {"path": "/home/x" if i % 5 else "x", "a": 1_754_000_000_000 + i if i % 3 else i,
                              ("zzSecretA" if i % 2 else "zzSecretB"): "2026-08-17T18:55:41Z"}})
    r = walk(w, tmp_path, recs)
    want: dict[tuple[str, str, str], int] = {}
    for rec in recs:
        for path, v in (("$.id", rec["id"]), ("$.role", rec["role"]), ("$.args.path", rec["args"]["path"]),
                        ("$.args.a", rec["args"]["a"])):
            k = ("user", path, format_by_rx(v) if isinstance(v, str) else number_by_range(v))
            want[k] = want.get(k, 0) + 1
    got = {k: n for k, n in r.formats.items() if not k[1].startswith("$.args.<")}
    assert got == want
    assert want[("user", "$.id", "uuid")] == 30 and want[("user", "$.args.a", "epoch_ms")] == 26
    masked = {ks for (rc, p, jt, ks) in r.nodes if p == "$.args" and jt == "object"}
    raw = {x for (rc, p, x) in r.rawsets if p == "$.args"}
    assert len(masked) == 1 and len(raw) == 2  # the two secret keys: one set masked, two before
    assert sum(n for (rc, p, x), n in r.rawsets.items() if p == "$.args") == 40
    assert "zzSecret" not in repr((r.rawsets, r.formats, r.nodes))
    assert all(x.startswith("k-") and len(x) == 18 for (_rc, _p, x) in r.rawsets)


def _hex_like() -> list[str]:
    """UUIDs and hex digests, upper and lower case, and each with one character at each place
    swapped for one just outside the hex digits' ranges (or a dash, or not ASCII)."""
    uuid = "0d7a3c2e-1b4f-4e6a-9c1d-2f3e4a5b6c7d"
    base = [uuid, uuid.upper(), "9e107d9d372bb6826bd81d3542a419d6", "2fd4e1c67a2d28fced849ee1bb76e7391b93eb12",
            "0123456789abcdefABCDEF" * 2 + "0123456789abcdefABCD"]
    out = list(base)
    for s in base:
        for i in range(len(s)):
            for ch in "/:@G`g-\u00e9":
                out.append(s[:i] + ch + s[i + 1:])
    return out


@pytest.mark.parametrize("native", [True, False])
def test_hex_like_strings_are_classed_as_the_expressions_class_them(tmp_path: Path, native: bool) -> None:
    """Every string is one record's value, counted by format class per path: the C core (its
    text scan and its parsed values) and the Python walk each give the expressions' counts."""
    w = walker()
    if not native:
        w = Walker(w.p, w.gate, SALT, w.max_line, native=False)
    elif w._core is None:
        pytest.skip("the C core is not built")
    values = _hex_like()
    recs = [{"role": "user", "id": v, "args": {"a": v}} for v in values]
    r = walk(w, tmp_path, recs)
    want: dict[tuple[str, str, str], int] = {}
    for v in values:
        for path in ("$.id", "$.args.a"):
            k = ("user", path, format_by_rx(v))
            want[k] = want.get(k, 0) + 1
    got = {k: n for k, n in r.formats.items() if k[1] in ("$.id", "$.args.a")}
    assert got == want
    assert want[("user", "$.id", "uuid")] == 2 + 2 * 4  # (a dash swapped for a dash: the same UUID)
