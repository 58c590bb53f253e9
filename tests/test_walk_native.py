"""The C walker (``census/_walkcore.c``) and the Python walker give identical results.

Every runtime's synthetic corpus, the hostile corpus, canary corpora and arbitrary bytes
(hypothesis, with chunk boundaries anywhere) are walked twice, once by each walker, and
every table of every file must be equal, row for row. The Python walker is the reference:
it is what a reader checks the C against, and what runs where no compiler is.
"""

from __future__ import annotations

import contextlib
import dataclasses
import shutil
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from survey.census import build
from survey.census import walk as W
from survey.census.collect import _batch_tasks, _needles, _todo
from survey.corpus import frames as F
from survey.corpus.crawl import crawl
from survey.runtimes import NAMES, get
from tests.test_fuzz import records

SALT = b"parity-salt"
needs_native = pytest.mark.skipif(W.NATIVE is None, reason=f"native walker unavailable: {W.ENGINE}")


def pair(runtime: str, mode: str = "reviewed", **changes: object) -> tuple[W.Walker, W.Walker]:
    c = W.make_walker(runtime, mode, False, SALT)
    p = W.make_walker(runtime, mode, False, SALT)
    if changes:
        c = W.Walker(dataclasses.replace(c.p, **changes), c.gate, SALT, c.max_line)  # type: ignore[arg-type]
        p = W.Walker(dataclasses.replace(p.p, **changes), p.gate, SALT, p.max_line, native=False)  # type: ignore[arg-type]
    else:
        p = W.Walker(p.p, p.gate, SALT, p.max_line, native=False)
    assert c._core is not None and p._core is None
    return c, p


def fields(r: W.FileResult) -> dict:
    return dataclasses.asdict(r)


def assert_same(native: W.FileResult, python: W.FileResult, what: str) -> None:
    a, b = fields(native), fields(python)
    for k in b:
        assert a[k] == b[k], f"{what}: table {k!r} differs between the C and the Python walker"


def corpus_tasks(runtime: str, root: Path) -> list[tuple]:
    inv = crawl(root, get(runtime), SALT)
    todo, children = _todo(inv, root, get(runtime))
    return _batch_tasks(todo, _needles(inv, children, todo))


@needs_native
@pytest.mark.parametrize("runtime", NAMES)
@pytest.mark.parametrize("mode", ["reviewed", "discover"])
def test_every_runtime_synthetic_corpus_walks_identically(runtime: str, mode: str, tmp_path: Path) -> None:
    import importlib

    prof = get(runtime)
    synth = importlib.import_module(prof.synth)
    synth.generate(tmp_path / "c", seed=11, sessions=6, canaries=True)
    c, p = pair(runtime, mode)
    tasks = corpus_tasks(runtime, tmp_path / "c")
    assert tasks
    walked = 0
    for t in tasks:
        a, b = W.walk_file(c, *t), W.walk_file(p, *t)
        assert_same(a, b, f"{runtime}/{mode} file {t[1]} ({t[2]})")
        walked += bool(b.frames)
    assert walked, "nothing was walked: the comparison proves nothing"


@needs_native
def test_hostile_corpus_walks_identically(tmp_path: Path) -> None:
    from survey.synth import hostile

    cap = 1 << 20
    hostile.generate(tmp_path / "h", seed=3, big_line_mb=2, max_line=cap)
    base = W.make_walker("cursor", "reviewed", False, SALT)
    c = W.Walker(base.p, base.gate, SALT, cap)
    p = W.Walker(base.p, base.gate, SALT, cap, native=False)
    statuses, reads, flags = set(), set(), 0
    for f in sorted((tmp_path / "h").rglob("*")):
        if f.is_symlink() or not f.is_file():
            continue
        for kind in ("jsonl", "json"):
            a = W.walk_file(c, str(f), "x", kind, f.stat().st_size)
            b = W.walk_file(p, str(f), "x", kind, f.stat().st_size)
            assert_same(a, b, f"hostile {f.name} as {kind}")
            statuses |= {row[1] for row in b.frames}
            reads.add(b.status)
            for row in b.frames:
                flags |= row[3]
    # the corpus really exercised the unusual paths
    assert {"oversized", "malformed", "invalid_utf8", "blank"} <= statuses
    assert {"ok", "utf16", "utf32", "binary"} <= reads
    assert flags & (F.FLAG_DUPLICATE_KEY | F.FLAG_OUT_OF_RANGE | F.FLAG_NONSTANDARD) == 56


_ATOMS = [b"\n", b"\r\n", b"\xef\xbb\xbf", b"\x00", b"{", b"}", b'"', b"\xff", b" ", b"x" * 9,
          b'{"role":"user","message":{"content":[{"type":"text","text":"hi"}]}}',
          b'{"role":"assistant","message":{"content":[{"type":"tool_use","name":"Read","input":{"path":"/a/agent-tools/b"}}]}}',
          b'[1,2]', b'{"a":{"b":{"c":{"d":{"e":{"f":{"g":{"h":{"i":{"j":{"k":{"l":{"m":1}}}}}}}}}}}}}',
          b'{"x":' + b"1" * 400 + b"}", b'"str"',
          # records kept with a flag: a key twice, a number past a double, NaN / Infinity
          b'{"role":"user","role":"assistant","message":{"content":[],"content":[{"type":"text"}]}}',
          b'{"role":"user","n":1e400,"m":[-1e999,18446744073709551616]}', b'{"a":NaN,"b":[Infinity,-Infinity]}',
          b'{"a":-NaN}', b'{"a":1e400.5}', b'NaN',
          # a UTF-16 / UTF-32 byte-order mark (at the start: the file is decoded), PNG's signature
          b"\xff\xfe", b"\xfe\xff", b"\xff\xfe\x00\x00", b"\x89PNG", '{"a":"\u00e9"}'.encode("utf-16-le")]


@needs_native
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(data=st.lists(st.sampled_from(_ATOMS), max_size=40).map(b"".join),
       chunk=st.sampled_from([1, 2, 3, 7, 64, 1 << 20]), cap=st.sampled_from([5, 40, 200, 1 << 20]))
def test_framing_is_identical_at_any_chunk_boundary_and_cap(data: bytes, chunk: int, cap: int,
                                                            tmp_path_factory: pytest.TempPathFactory,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    f = tmp_path_factory.mktemp("fr") / "x.jsonl"
    f.write_bytes(data)
    monkeypatch.setattr(W, "CHUNK", chunk)
    monkeypatch.setattr(F, "CHUNK", chunk)
    base = W.make_walker("cursor", "reviewed", False, SALT)
    c = W.Walker(base.p, base.gate, SALT, cap)
    p = W.Walker(base.p, base.gate, SALT, cap, native=False)
    a = W.walk_file(c, str(f), "x", "jsonl", len(data))
    b = W.walk_file(p, str(f), "x", "jsonl", len(data))
    assert_same(a, b, f"{len(data)} bytes, chunk {chunk}, cap {cap}")


_UTF8_ATOMS = [b"a", b"x" * 8, b"\x7f", b"\x80", b"\xc2\xa9", b"\xc0\xaf", b"\xe2\x82\xac", b"\xed\xa0\x80",
               b"\xef\xbf\xbf", b"\xf0\x9f\x98\x80", b"\xf4\x8f\xbf\xbf", b"\xf4\x90\x80\x80", b"\xf5",
               b"\xe0\x80\x80", b"\xe2\x82", b"\xff", b"\x00"]


@needs_native
@settings(max_examples=400, deadline=None)
@given(data=st.one_of(st.binary(max_size=64),
                      st.lists(st.sampled_from(_UTF8_ATOMS), max_size=30).map(b"".join),
                      st.text(max_size=40).map(lambda t: t.encode("utf-8", "surrogatepass"))),
       pad=st.integers(0, 9))
def test_the_c_utf8_check_is_pythons_strict_decoder(data: bytes, pad: int) -> None:
    """The grep hands a piece to DuckDB as it is when it is UTF-8 and blanks it otherwise;
    the C check must agree with Python's decoder byte for byte, at any alignment (it reads
    eight ASCII bytes at a time), truncated sequences, overlongs and surrogates included."""
    from survey.evidence.grep.reads import _utf8_valid_py

    for blob in (data, b"a" * pad + data, data + b"b" * pad, b"\xff" * (pad % 2) + data):
        assert W.NATIVE.utf8_valid(blob) == _utf8_valid_py(blob), blob
    assert W.NATIVE.utf8_valid(bytearray(data)) == _utf8_valid_py(data)
    big = b"y" * (1 << 16) + data  # the GIL let go
    assert W.NATIVE.utf8_valid(big) == _utf8_valid_py(big)


@needs_native
@settings(max_examples=200, deadline=None)
@given(data=st.binary(max_size=300), pad=st.integers(0, 40))
def test_the_c_blanking_is_the_translation_table(data: bytes, pad: int) -> None:
    """A piece that is not UTF-8 has each byte DuckDB's cast escapes made a newline; the C
    core's loop (vectorised) must give ``bytes.translate``'s result for every byte value, at
    any length and offset, from bytes or a view."""
    from survey.evidence.grep.reads import _blanked_py

    every = bytes(range(256)) * 2
    for blob in (data, every[pad:] + data, data * pad):
        assert W.NATIVE.blanked(blob) == _blanked_py(blob)
        assert W.NATIVE.blanked(memoryview(blob)[pad:]) == _blanked_py(blob[pad:])
    assert W.NATIVE.blanked(every * 200) == _blanked_py(every * 200)


_TEXTS = [b'"type"', b'"type"\r', b"[...]", b"x", b'"id"', b'"id"\r\r', b"zz"]


@needs_native
@settings(max_examples=300, deadline=None)
@given(files=st.lists(st.tuples(st.lists(st.sampled_from(b"ab/\n\xff\xc3 "), min_size=1, max_size=12).map(bytes),
                                st.lists(st.sampled_from(_TEXTS), min_size=1, max_size=8)), max_size=6),
       prefixed=st.booleans(), end_blank=st.booleans())
def test_the_c_rg_tally_is_the_python_count(files: list[tuple[bytes, list[bytes]]], prefixed: bool,
                                            end_blank: bool) -> None:
    """rg's ``-o --heading --null`` output is counted in C (``rg_tally``): each file's
    path (the root's prefix taken off, any byte but NUL, not UTF-8 too), the matches of each
    literal less trailing CRs, the files where a hazard matched; the same as the Python
    reading (``_rg_relative`` and a Counter per file), with or without a last blank line."""
    from survey.evidence import grep as G

    root = Path("/r/o")
    pre = b"/r/o/" if prefixed else b""
    out = b"\n".join(pre + path + b"\0" + b"".join(t + b"\n" for t in texts) for path, texts in files)
    if out and end_blank:
        out += b"\n"
    lits, hazards = [b'"type"', b"[...]"], frozenset({b'"id"'})
    got = G.rg._rg_tally(root, out, lits, hazards)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(G.reads, "NATIVE", None)
        assert got == G.rg._rg_tally(root, out, lits, hazards)
    assert sum(map(sum, got[1])) == sum(t.rstrip(b"\r") in lits for _, texts in files for t in texts)


@needs_native
@settings(max_examples=300, deadline=None)
@given(data=st.lists(st.sampled_from(b"ab0f\n\""), max_size=200).map(bytes),
       needles=st.lists(st.lists(st.sampled_from(b"ab0f"), max_size=9).map(bytes), max_size=6),
       cut=st.integers(0, 50))
def test_the_c_needle_search_is_bytes_in(data: bytes, needles: list[bytes], cut: int) -> None:
    """A parent transcript's chunks are searched for its children's ids with libc's memmem;
    each answer must be ``needle in data`` (empty needles, needles longer than the data and
    matches at either end included), from bytes or a view."""
    assert W.NATIVE.found(data, needles) == [nb in data for nb in needles]
    assert W.NATIVE.found(memoryview(data)[cut:], needles) == [nb in data[cut:] for nb in needles]
    with pytest.raises(TypeError):
        W.NATIVE.found(data, ["not bytes"])


@needs_native
@settings(max_examples=300, deadline=None)
@given(salt=st.binary(max_size=100), kind=st.sampled_from(["f", "i", "r", "xyz"]),
       texts=st.lists(st.text(max_size=60), max_size=12))
def test_the_c_pseudonyms_are_hmac_sha256(salt: bytes, kind: str, texts: list[str]) -> None:
    """The crawl names files and sessions in one C call per chunk: each name must be
    hmac.digest's, for salts short, block-sized and long (hashed first) and any text, lone
    surrogates (undecodable file names) included; without the C core the same list comes
    from ``pseudonym``."""
    import hmac

    from survey.corpus import privacy

    texts = [*texts, "a\udcffb", "caf\u00e9/\u2603"]
    msgs = [(kind + "\0" + t).encode("utf-8", "surrogateescape") for t in texts]
    want = [f"{kind}-{hmac.digest(salt, m, 'sha256').hex()[:16]}" for m in msgs]
    assert W.NATIVE.pseudonyms(salt, kind, texts) == want
    assert privacy.pseudonyms(salt, texts, kind) == want
    col = pl.Series(W.NATIVE.pseudonym_column(salt, kind, texts, "ids"))
    assert col.name == "ids" and col.dtype == pl.String and col.to_list() == want


@needs_native
@pytest.mark.parametrize("n", [0, 1, 8191, 8192, 20001])
def test_a_pseudonym_column_is_the_pseudonyms_on_one_thread_or_two(n: int) -> None:
    """The crawl's file ids come as one Arrow column, hashed on two threads from
    ``PSEUDO_THREAD_MIN`` (8192) names: every name where the list has it, whatever the
    split, undecodable names among them; a text that is not a str is refused."""
    from survey.corpus import privacy

    texts = [f"projects/p{i % 7}/{i:06d}.jsonl" if i % 5 else f"x\udcff{i}" for i in range(n)]
    col = pl.Series(W.NATIVE.pseudonym_column(b"k" * 40, "f", texts, "file_id"))
    assert col.to_list() == privacy.pseudonyms(b"k" * 40, texts, "f") and col.null_count() == 0
    with pytest.raises(TypeError):
        W.NATIVE.pseudonym_column(b"k", "f", [*texts, 3], "file_id")


@needs_native
@settings(max_examples=100, deadline=None)
@given(values=st.lists(st.integers(-(2**63), 2**63 - 1), max_size=50))
def test_an_int64_column_holds_the_packed_numbers(values: list[int]) -> None:
    """The crawl's numbers go to polars from their packed bytes (``crawl.int64s``), as they
    would from the array."""
    import array

    packed = array.array("q", values)
    col = pl.Series(W.NATIVE.int64_column("size", packed))
    assert col.name == "size" and col.dtype == pl.Int64 and col.to_list() == values
    with pytest.raises(ValueError):
        W.NATIVE.int64_column("size", b"1234567")


def test_pseudonyms_without_the_c_core_are_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    from survey import native
    from survey.corpus import privacy

    texts = ["a/b.jsonl", "", "x\udcff"]
    want = [privacy.pseudonym(b"salt", t, "i") for t in texts]
    calls: list[tuple] = []
    monkeypatch.setattr(native, "NATIVE", None)
    monkeypatch.setattr(privacy, "pseudonym", lambda *a, _p=privacy.pseudonym: calls.append(a) or _p(*a))
    assert privacy.pseudonyms(b"salt", texts, "i") == want
    assert len(calls) == len(texts)  # the fallback ran


def _odd_folder(root: Path) -> Path:
    """A folder with every kind of entry the crawl tells apart."""
    import os

    d = root / "odd"
    (d / "sub").mkdir(parents=True)
    (d / "sub" / "inner.jsonl").write_bytes(b"{}\n")
    (d / "a.jsonl").write_bytes(b'{"a":1}\n')
    (d / "empty.jsonl").write_bytes(b"")
    (d / "looks-like-a-file.jsonl").mkdir()
    (d / "new\nline.jsonl").write_bytes(b"{}\n")
    (d / os.fsdecode(b"not-utf8-\xff.jsonl")).write_bytes(b"{}\n")
    (d / "to-file.jsonl").symlink_to("a.jsonl")
    (d / "broken.jsonl").symlink_to("nowhere")
    (d / "loop-a").symlink_to("loop-b")
    (d / "loop-b").symlink_to("loop-a")
    if hasattr(os, "mkfifo"):
        os.mkfifo(d / "fifo.jsonl")
    return d


def _too_deep(root: Path) -> None:
    """Folders nested past PATH_MAX (made through folder descriptors): the deepest cannot be
    listed by its path, even by root (ENAMETOOLONG), so it is an unreadable folder's row."""
    import os

    root.mkdir(parents=True, exist_ok=True)
    fd = os.open(root, os.O_RDONLY)
    try:
        for i in range(20):
            name = f"{i:02d}" + "x" * 240
            os.mkdir(name, dir_fd=fd)
            nxt = os.open(name, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = nxt
        os.close(os.open("deep.jsonl", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd))
    finally:
        os.close(fd)


def _tree_in_python(root: Path) -> list[tuple]:
    """What the C core's scan_tree should give for ``root``: the crawl's folder-by-folder
    loop over ``crawl.scan_dir`` (names in str order, the last folder first), each entry as
    (relative path, kind, six numbers); a folder that cannot be listed is (path, "u", 0...)."""
    import os

    from survey.corpus import crawl as C

    out: list[tuple] = []
    stack = [""]
    while stack:
        rel = stack.pop()
        try:
            names, kinds, packed = C.scan_dir(os.path.join(root, rel) if rel else str(root))
        except OSError:
            out.append((rel or ".", ord("u"), *(0,) * C.SCAN_FIELDS))
            continue
        nums = memoryview(packed).cast("q").tolist()
        for i in sorted(range(len(names)), key=names.__getitem__):
            path = f"{rel}/{names[i]}" if rel else names[i]
            out.append((path, kinds[i], *nums[C.SCAN_FIELDS * i:C.SCAN_FIELDS * (i + 1)]))
            if kinds[i] == ord("d"):
                stack.append(path)
    return out


def _tree_in_c(root: Path, threads: int) -> list[tuple]:
    import os

    from survey.corpus import crawl as C

    paths, offsets, kinds, packed = W.NATIVE.scan_tree(str(root), threads)
    off = memoryview(offsets).cast("q").tolist()
    nums = memoryview(packed).cast("q").tolist()
    assert len(off) == len(kinds) + 1 and len(nums) == C.SCAN_FIELDS * len(kinds) and off[-1] == len(paths)
    return [(os.fsdecode(paths[off[i]:off[i + 1]]), kinds[i], *nums[C.SCAN_FIELDS * i:C.SCAN_FIELDS * (i + 1)])
            for i in range(len(kinds))]


@needs_native
def test_the_c_tree_scan_is_the_folder_by_folder_loops(tmp_path: Path) -> None:
    import os

    root = tmp_path / "t"
    d = _odd_folder(root)
    # names whose str order is not their bytes' order: an escaped byte (U+DCF8) sorts before
    # U+FB00 and U+1F600, whose UTF-8 begins with a smaller byte (0xEF, 0xF0)
    for raw in (b"\xf8x", "\ufb00".encode(), "\U0001f600".encode(), b"\xc3(", "\u00e9".encode(), b"A", b"a"):
        (d / "sub" / os.fsdecode(raw)).mkdir()
        (d / "sub" / os.fsdecode(raw) / "f.jsonl").write_bytes(b"{}\n")
    deep = root / "deep"
    for i in range(30):
        deep = deep / f"d{i}"
    deep.mkdir(parents=True)
    (deep / "leaf.jsonl").write_bytes(b"{}\n")
    (root / "empty-folder").mkdir()
    _too_deep(root / "long")
    shut = root / "shut"
    (shut / "inside").mkdir(parents=True)
    shut.chmod(0)
    try:
        want = _tree_in_python(root)
        for threads in (1, 2, 5):
            assert _tree_in_c(root, threads) == want
        kinds = {chr(row[1]) for row in want}
        assert {"f", "d", "l"} <= kinds
        assert [r[0].count("/") for r in want if r[1] == ord("u")][-1] > 10  # (past PATH_MAX)
        # (root reads a folder of mode 0)
        assert any(r[0] == "shut" and r[1] == ord("u") for r in want) == (not os.access(shut, os.R_OK))
        assert [r[0] for r in want if r[0].startswith("odd/sub/") and r[1] == ord("d")][:7] == [
            "odd/sub/A", "odd/sub/a", "odd/sub/\u00e9", "odd/sub/" + os.fsdecode(b"\xc3("),
            "odd/sub/" + os.fsdecode(b"\xf8x"), "odd/sub/\ufb00", "odd/sub/\U0001f600"]
        # a folder of more than SCAN_THREAD_MIN (8,192) entries is lstat'ed by two threads, each
        # its half: every kind of entry still where it was, with its own numbers
        for i in range(9000):
            (d / f"n{i:05d}.jsonl").write_bytes(b"x" * (i % 7))
        # and put in name order beside the calls, eight bytes at a time while two names
        # share ASCII: here names that share 16 bytes, then differ past a byte that is not
        raw_names = (b"\xf8x", "\ufb00".encode(), "\U0001f600".encode(), b"\xc3(", "\u00e9".encode(), b"A", b"", b"\x7f")
        shared = {b"shared-prefix-16" + raw + tail + b"-%d" % k
                  for k, raw in enumerate(raw_names) for tail in (b"", b"z", raw)}
        # (equal eight bytes that end in the first byte of a sequence, whose next byte
        # decides: "\u00e9" sorts before an escaped 0xC3 and "(")
        shared |= {b"shared-prefix-16abcdefg\xc3\xa9", b"shared-prefix-16abcdefg\xc3("}
        for name in shared:
            (d / os.fsdecode(name)).write_bytes(b"")
        wide = _tree_in_c(root, 2)
        assert wide == _tree_in_python(root) and len(wide) == len(want) + 9000 + len(shared)
    finally:
        shut.chmod(0o755)
    assert _tree_in_c(tmp_path / "gone", 2) == [(".", ord("u"), *(0,) * 6)]


@needs_native
@pytest.mark.parametrize("odd", [(), ("ab\u00e9".encode(),), (b"ab\xf8x", "ab\ufb00".encode())])
def test_a_large_folders_names_come_in_str_order(tmp_path: Path, odd: tuple[bytes, ...]) -> None:
    """A folder of at least ``PREFIX_SORT_MIN`` (1,024) names is sorted by each name's first 16
    bytes while they are ASCII, then by the whole name where 16 are shared: names that begin
    others, share all 16 bytes and then differ past a byte that is not ASCII (or an escaped
    one) come in Python's str order. A name not ASCII in its first 16 bytes (``odd``)
    sends the whole folder to the comparison sort, in the same order: an escaped byte 0xF8
    sorts before U+FB00, whose UTF-8 begins with the smaller byte 0xEF."""
    import os
    import random

    rnd = random.Random(7)
    names: set[bytes] = set()
    while len(names) < 1500:
        names.add(bytes(rnd.choice(b"ab-Z9~") for _ in range(rnd.randint(1, 22))))
    shared = b"0123456789abcdef"
    names |= {shared, shared[:15], shared + b"\xc3(", shared + "\u00e9".encode(), shared + b"\xf8",
              shared + b"z", shared + "\U0001f600".encode(), shared + b"\x7f"}
    names.update(odd)
    d = tmp_path / "flat"
    d.mkdir()
    for name in names:
        os.close(os.open(os.path.join(os.fsencode(d), name), os.O_WRONLY | os.O_CREAT, 0o644))
    got = [row[0] for row in _tree_in_c(d, 2)]
    assert got == sorted(os.fsdecode(n) for n in names) == [row[0] for row in _tree_in_python(d)]


@needs_native
@pytest.mark.parametrize("runtime", ["cursor_stream", "claude_code"])
def test_the_crawl_is_the_same_with_and_without_the_c_scan(runtime: str, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    from survey.corpus import crawl as C
    from survey.synth import hostile

    hostile.generate(tmp_path / "h", seed=3, big_line_mb=1)
    _odd_folder(tmp_path / "h")
    _too_deep(tmp_path / "h" / "long")
    native = C.crawl(tmp_path / "h", get(runtime), SALT)
    monkeypatch.setattr(C, "NATIVE", None)
    python = C.crawl(tmp_path / "h", get(runtime), SALT)
    assert native.frame.equals(python.frame) and native.names.equals(python.names)
    # files' paths drained every two and frames made every three rows: the same rows, in order
    monkeypatch.setattr(C, "DRAIN_ROWS", 2)
    monkeypatch.setattr(C, "CHUNK_ROWS", 3)
    small = C.crawl(tmp_path / "h", get(runtime), SALT)
    assert small.frame.equals(python.frame) and small.names.equals(python.names)
    assert {"symlink", "broken_symlink", "symlink_loop", "empty", "dir_named_like_file", "unreadable_dir"} <= set(
        native.frame["problem"].drop_nulls().to_list())


def test_the_native_walker_builds_where_a_compiler_is(tmp_path: Path) -> None:
    """``make`` builds the C walker; where a C compiler exists the build must succeed and
    the module must carry the hash of the current source (else walk.py would not use it)."""
    cc = build.command(tmp_path / "x.so")[0]
    if not shutil.which(cc):
        pytest.skip(f"no C compiler ({cc}): the Python walker is used, only slower")
    out = tmp_path / ("_walkcore" + build.target().name.removeprefix("_walkcore"))
    cmd = build.command(out)
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    code = ("import importlib.util, sys; s = importlib.util.spec_from_file_location('_walkcore', sys.argv[1]); "
            "m = importlib.util.module_from_spec(s); s.loader.exec_module(m); print(m.SOURCE_HASH)")
    got = subprocess.run([sys.executable, "-c", code, str(out)], capture_output=True, text=True, check=True)
    assert got.stdout.strip() == build.source_hash()


@needs_native
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(obj=records, rclass=st.sampled_from([None, "stored/class"]),
       mode=st.sampled_from(["reviewed", "discover"]))
def test_arbitrary_records_are_recorded_identically(obj: dict, rclass: str | None, mode: str) -> None:
    """Odd values anywhere: nulls, huge ints, NaN, surrogates, blocks that are not objects,
    payloads of every type, more keys than ``max_keys``, typed arrays."""
    c, p = _PAIRS.get(mode) or _PAIRS.setdefault(mode, pair("cursor", mode))
    a, b = W.FileResult(file_id="x"), W.FileResult(file_id="x")
    for r, w in ((a, c), (b, p)):
        w.record(r, 0, "ok", 10, 0, obj, rclass)
        w.node(r, "<array>", "$", [obj, [obj]], 0, 1)
        w.record(r, 2, "malformed", 10, 4, None)
    assert_same(a, b, "record")


_PAIRS: dict[str, tuple[W.Walker, W.Walker]] = {}


@needs_native
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ids=st.lists(st.text(st.characters(blacklist_categories=("Cs",)), max_size=150)
                    | st.sampled_from(["", "x\udc80", "d" * 53, "a" * 54, "b" * 62, "c" * 117, "é" * 40]), min_size=1, max_size=6))
def test_id_pseudonyms_are_privacys_own(ids: list[str]) -> None:
    """The C walker hashes ids itself (HMAC-SHA256 from key states made once): every link is
    ``privacy.pseudonym(salt, id, "i")`` exactly, for any id (empty, an escaped byte as a
    store's text may hold, multi-byte text, lengths across SHA-256's block edges), and
    repeats come from its cache. (JSON never gives a lone surrogate: orjson refuses it.)"""
    from survey.corpus.privacy import file_key, id_ref, pseudonym

    c, p = _PAIRS.get("claude") or _PAIRS.setdefault("claude", pair("claude_code"))
    a, b = W.FileResult(file_id="x"), W.FileResult(file_id="x")
    for r, w in ((a, c), (b, p)):
        for i, v in enumerate([*ids, *ids]):
            w.record(r, i, "ok", 10, 0, {"type": "user", "uuid": v, "sessionId": ids[0]})
    assert_same(a, b, "ids")
    want = {id_ref(SALT, v) for v in ids}
    assert {ref for _, _, ref, _ in a.links} == want
    assert want == {file_key(pseudonym(SALT, v, "i")) for v in ids}


def _texts(obj: dict) -> list[bytes]:
    """One record as the JSON texts a writer might produce: orjson's compact form, every
    non-ASCII character escaped (``\\uXXXX``, surrogate pairs), spaced out, with a key
    given twice, and with escapes where none are needed."""
    import json

    out = []
    for ensure_ascii, seps in ((True, (",", ":")), (False, (" ,\t", " : "))):
        with contextlib.suppress(ValueError):
            out.append(json.dumps(obj, ensure_ascii=ensure_ascii, separators=seps).encode("utf-8", "surrogatepass"))
    try:
        compact = W.orjson.dumps(obj)
    except TypeError:
        return out
    out.append(compact)
    if compact.startswith(b'{"'):
        out.append(b'{"role":1,' + compact[1:] if obj else compact)  # a key twice when "role" is one
        out.append(compact.replace(b'"type"', b'"t\\u0079pe"').replace(b"/", b"\\/") + b"\r")
        out.append(b" \t" + compact.replace(b":", b": ", 3) + b"  ")
    return out


@needs_native
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(objs=st.lists(records, min_size=1, max_size=4), runtime=st.sampled_from(["cursor", "claude_code"]))
def test_json_text_on_the_tape_walks_as_orjson_reads_it(objs: list[dict], runtime: str,
                                                        tmp_path_factory: pytest.TempPathFactory) -> None:
    """The C core reads most lines from their text (its "tape") rather than through orjson's
    objects. Whatever the text (escapes, surrogate pairs, spacing, a repeated key, floats,
    integers past 64 bits, NaN, invalid UTF-8), its tables equal the Python walker's."""
    c, p = _PAIRS.get(runtime) or _PAIRS.setdefault(runtime, pair(runtime))
    assert c._use_tape
    f = tmp_path_factory.mktemp("tape") / "x.jsonl"
    f.write_bytes(b"\n".join(t for o in objs for t in _texts(o)) + b"\n")
    a = W.walk_file(c, str(f), "x", "jsonl", f.stat().st_size)
    b = W.walk_file(p, str(f), "x", "jsonl", f.stat().st_size)
    assert_same(a, b, "json text")


_TRICKY_INPUTS = [b"18446744073709551615", b"18446744073709551616", b"-9223372036854775809", b"1E5", b"-0",
                  b"-0.0", b"1e+300", b"0.1", b"[1.5,-0,2]", b'{"\\u0061":1,"b":[true,false,null]}', b'{"a\\nb\\u0001":1}',
                  b'"\\u0001\\u001f\\u007f\\u2028\\ud83d\\ude00\\"\\\\\\/\\b\\f\\n\\r\\t"', b'"\xe6\x97\xa5\xf0\x9f\x98\x80"',
                  b"[" * 300 + b"]" * 300, b"1e400", b'"\\ud800"', b"{}", b"[]", b'""',
                  *(b'"' + b"a" * k + b"\\n" + b"b" * 40 + "é".encode() + b"c" * 33 + b'"' for k in (6, 7, 8, 30, 31, 32)),
                  b'"' + b"d" * 64 + b'"', b'"' + b"e" * 63 + b'\\"x"']


def _tricky_lines() -> list[bytes]:
    lines = []
    for v in _TRICKY_INPUTS:
        for key in (b"input", b"content", b"text", b"arguments"):
            lines.append(b'{"role":"assistant","type":"assistant","message":{"role":"assistant","usage":{"input_tokens":'
                         + (v if v[:1] in b"-0123456789" else b"1") + b'},"content":[{"type":"tool_use","name":"Read","'
                         + key + b'":' + v + b'},{"type":"text","text":' + v + b"}]}}")
        lines.append(b'{"type":"response_item","payload":{"type":"function_call","arguments":' + v + b"}}")
        # the same text as JSON inside a string (Codex's arguments), after whitespace that
        # str.lstrip() drops and JSON does not, after Unicode whitespace, or after a word
        for lead in ("", " \n", "\x0b", "\u00a0", "x"):
            text = W.orjson.dumps(lead + v.decode("utf-8"))
            lines.append(b'{"type":"response_item","payload":{"type":"function_call","arguments":' + text + b"}}")
    # one short string at paths the gate answers differently (allowed, withheld, an id)
    for word in (b"user", b"assistant", b"tool_use", b"Read", b"1.2.3"):
        lines.append(b'{"type":"%s","uuid":"%s","version":"%s","message":{"role":"%s","content":[{"type":"tool_use",'
                     b'"name":"%s","input":{}},{"type":"%s","name":"%s"}]},"payload":{"type":"%s","name":"%s"}}'
                     % ((word,) * 9))
    return lines


def _tricky_check(runtime: str, folder: Path) -> W.FileResult:
    c, p = _PAIRS.get(runtime) or _PAIRS.setdefault(runtime, pair(runtime))
    f = folder / "x.jsonl"
    f.write_bytes(b"\n".join(_tricky_lines()) + b"\n")
    a = W.walk_file(c, str(f), "x", "jsonl", f.stat().st_size)
    b = W.walk_file(p, str(f), "x", "jsonl", f.stat().st_size)
    assert_same(a, b, "tricky payloads")
    return b


@needs_native
@pytest.mark.parametrize("runtime", ["cursor", "claude_code", "codex"])
def test_tricky_payloads_on_the_tape(runtime: str, tmp_path: Path) -> None:
    """Payload lengths, numbers and values the tape works out from the text itself, where
    orjson rewrites it: integers past 64 bits become floats, 1E5 is written 100000.0, -0 is
    0, escapes shrink or grow, nesting past the encoder's depth is a truncation; one short
    string at paths the gate answers differently; strings whose escapes and multi-byte
    characters sit on either side of 8- and 32-byte boundaries."""
    b = _tricky_check(runtime, tmp_path)
    assert any(row[-1] is not None for row in b.blocks) or runtime == "codex"


@needs_native
def test_the_tape_without_the_cpus_vector_and_sha_extensions(tmp_path: Path) -> None:
    """Where the CPU has AVX2 the tape skips plain string bytes 32 at a time, else 8 at a
    time; where it has SHA extensions ids are hashed with them. The other paths (every
    other machine; SURVEY_NO_AVX2=1, SURVEY_NO_SHA_NI=1) must walk the tricky lines alike."""
    code = ("import sys; from pathlib import Path; from tests.test_walk_native import _tricky_check\n"
            "for rt in ('cursor', 'claude_code', 'codex'):\n"
            "    d = Path(sys.argv[1]) / rt; d.mkdir(); _tricky_check(rt, d)\n")
    env = {**__import__("os").environ, "SURVEY_NO_AVX2": "1", "SURVEY_NO_SHA_NI": "1"}
    proc = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, env=env,
                          cwd=Path(__file__).parents[1], check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]


@needs_native
def test_id_pseudonyms_without_the_cpus_sha_extensions() -> None:
    """Where the CPU has SHA extensions the C walker hashes with them; the portable rounds
    (every other machine) must give the same pseudonyms. SURVEY_NO_SHA_NI=1 forces them."""
    code = ("import sys; from survey.census import walk as W; from survey.corpus.privacy import id_ref\n"
            "w = W.make_walker('claude_code', 'reviewed', False, b's'); r = W.FileResult(file_id='x')\n"
            "ids = ['', 'a' * 55, 'b' * 56, 'c' * 64, 'é' * 40, '0f8e2c1a-uuid']\n"
            "w._core.lines(r, b''.join(b'{\"type\":\"user\",\"uuid\":\"%s\"}\\n' % i.encode() for i in ids), 0, 1 << 20, 0)\n"
            "assert sorted(x[2] for x in r.links) == sorted(id_ref(b's', i) for i in ids), r.links\n")
    env = {**__import__("os").environ, "SURVEY_NO_SHA_NI": "1"}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]


# -- batch tables: _walkcore.Table against the Python lists ---------------------------------

def _parts(spill: Path) -> dict[str, tuple]:
    """Each part's schema as polars reads it and its rows."""
    import polars as pl

    return {f"{p.parent.name}/{p.name}": (dict(df.schema), df.rows())
            for p in sorted(spill.rglob("*.parquet")) for df in [pl.read_parquet(p)]}


@needs_native
@pytest.mark.parametrize("runtime", NAMES)
def test_batch_parts_are_the_same_from_c_tables_and_python_lists(runtime: str, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A batch's rows become Parquet parts through ``_walkcore.Table`` (written by the C core,
    or by polars where it gives no ``ARROW:schema``; a JSONL file's rows put in by the walk
    or, without ``ROW_SINKS``, added from its lists) or, without the C core, through
    ``_ListTable`` (lists, written by polars): the parts are
    equal, row for row and type for type, with every null, uint64 file key, float and
    boolean of every runtime's canaries."""
    import importlib

    from survey.census import collect as C

    prof = get(runtime)
    importlib.import_module(prof.synth).generate(tmp_path / "c", seed=5, sessions=5, canaries=True)
    tasks = corpus_tasks(runtime, tmp_path / "c")
    walker = W.make_walker(runtime, "reviewed", False, SALT)
    fc = list(prof.frame_fields)
    for d in "absp":
        (tmp_path / d).mkdir()
    C.walk_batch(walker, tasks, str(tmp_path / "a"), 0, fc)
    with monkeypatch.context() as m:  # C tables written by polars (no ARROW:schema to give the C writer)
        m.setattr(C, "_arrow_kv", lambda schema: None)
        C.walk_batch(walker, tasks, str(tmp_path / "p"), 0, fc)
    monkeypatch.setattr(C, "ROW_SINKS", False)  # C tables, a JSONL file's rows through its lists
    C.walk_batch(walker, tasks, str(tmp_path / "s"), 0, fc)
    monkeypatch.setattr(W, "NATIVE", None)  # the walker keeps its C core; only the tables change
    C.walk_batch(walker, tasks, str(tmp_path / "b"), 0, fc)
    a, b = _parts(tmp_path / "a"), _parts(tmp_path / "b")
    assert a == b  # the C core's parts (``write_parquet``) read as polars's, Categorical and all
    assert _parts(tmp_path / "s") == a
    assert _parts(tmp_path / "p") == a
    assert {"frames/part-000000.parquet", "nodes/part-000000.parquet"} <= set(a)
    assert any(None in row for _, rows in a.values() for row in rows), "no null was exercised"
    for name, (schema, rows) in a.items():  # the links grouped by kind (``collect.GROUPED``)
        if name.startswith("links/"):
            kinds = [r[list(schema).index("kind")] for r in rows]
            assert kinds == sorted(kinds) and len(set(kinds)) > 1, name


@pytest.mark.parametrize("runtime", ["cursor_desktop", "cursor_chats"])
@pytest.mark.parametrize("native", [True, False])
def test_a_store_handed_over_mid_walk_gives_the_same_parts(runtime: str, native: bool, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """A store's per-record rows go to the batch's tables every ``SPILL_RECORDS`` records
    while it is walked, and out to held pieces past ``FLUSH_ROWS`` rows (a large store is not
    held whole): the parts are the same, row for row and in order, as when each store is
    handed over once at its end."""
    import importlib

    from survey.census import collect as C

    prof = get(runtime)
    importlib.import_module(prof.synth).generate(tmp_path / "c", seed=5, sessions=5, canaries=True)
    tasks = corpus_tasks(runtime, tmp_path / "c")
    base = W.make_walker(runtime, "reviewed", False, SALT)
    walker = W.Walker(base.p, base.gate, SALT, base.max_line, native=native)
    fc = list(prof.frame_fields)
    (tmp_path / "a").mkdir(), (tmp_path / "b").mkdir()
    C.walk_batch(walker, tasks, str(tmp_path / "a"), 0, fc)
    calls = []
    real = C._BatchTables.add

    def add(self: C._BatchTables, r: W.FileResult, rows_only: bool = False) -> None:
        calls.append(rows_only)
        real(self, r, rows_only)

    monkeypatch.setattr(C._BatchTables, "add", add)
    monkeypatch.setattr(W, "SPILL_RECORDS", 3)
    C.walk_batch(walker, tasks, str(tmp_path / "b"), 0, fc)
    assert any(calls), "no store was handed over mid-walk"
    assert _parts(tmp_path / "a") == _parts(tmp_path / "b")
    # ...and written out as held pieces past FLUSH_ROWS rows, joined into the same parts
    flushed: list[int] = []
    real_flush = C._BatchTables.flush
    monkeypatch.setattr(C._BatchTables, "flush", lambda self, *a: flushed.append(self.rows()) or real_flush(self, *a))
    monkeypatch.setattr(C, "FLUSH_ROWS", 5)
    (tmp_path / "c2").mkdir()
    C.walk_batch(walker, tasks, str(tmp_path / "c2"), 0, fc)
    assert len(flushed) > 1, "no rows were held out mid-walk"
    assert _parts(tmp_path / "a") == _parts(tmp_path / "c2")  # no held piece left over


@needs_native
def test_table_columns_types_nulls_and_failed_rows() -> None:
    """Each kind of column round-trips through the Arrow interface; a row that fails half
    way is taken back from every column; a column is handed over once."""
    import polars as pl

    t = W.NATIVE.Table(("file_id", "file_key", "n", "name", "value", "found"), "suisfb")
    t.add([(1, "a", 1.5, True), (2, None, 3, None), (None, "é€𝄞", None, False)], ("f", 2**63 + 5))
    with pytest.raises(TypeError):
        t.add([(None, None, None, None), (5, 6, 1.0, True)], ("f", 1))  # the second row's name is an int
    with pytest.raises(ValueError):
        t.add([(4, "b", 1.0)], ("f", 1))  # a row one value short
    with pytest.raises(OverflowError):
        t.add([(2**64, "b", 1.0, True)], ("f", 1))
    assert len(t) == 3
    t.add([(7, "", -0.5, True)], ("g", 0))
    cols = t.columns()
    assert len(t) == 0 and t.columns()[0].count() == 0
    df = pl.DataFrame([pl.Series(c) for c in cols])
    assert df.schema == {"file_id": pl.String, "file_key": pl.UInt64, "n": pl.Int64, "name": pl.String,
                         "value": pl.Float64, "found": pl.Boolean}
    assert df.rows() == [("f", 2**63 + 5, 1, "a", 1.5, True), ("f", 2**63 + 5, 2, None, 3.0, None),
                         ("f", 2**63 + 5, None, "é€𝄞", None, False), ("g", 0, 7, "", -0.5, True)]
    with pytest.raises(ValueError, match="exported already"):
        pl.Series(cols[0])
    with pytest.raises(UnicodeEncodeError):  # as polars itself refuses a lone surrogate
        W.NATIVE.Table(("a",), "s").add([("x\ud800",)], ())


@needs_native
def test_a_d_column_numbers_each_str_object_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A 'd' column (a str column of few values) keeps, per row, the number of its str
    object, and each object once, in order; None is a null; a failed row is taken back.
    ``collect._frame`` makes a Categorical of the two, equal strings under two addresses as
    one value, and the frame equals the one made without the C core (lists)."""
    import polars as pl

    from survey.census import collect as C

    a, b = "user", "".join(["us", "er"])  # equal strings, two objects
    assert a is not b
    t = W.NATIVE.Table(("file_id", "line_no", "rclass"), "sid")
    t.add([(0, a), (1, None), (2, a), (3, b)], ("f",))
    with pytest.raises(TypeError):
        t.add([(4, "x"), (5, 7)], ("f",))  # an int in a 'd' column: the row is taken back
    assert len(t) == 4
    _fid, _line, (numbers, values) = t.columns()
    assert pl.Series(numbers).to_list() == [0, None, 0, 1]
    assert values == ["user", "user", "x"] and values[0] is a and values[1] is b  # "x": numbered, never used

    schema = {"file_id": pl.String, "line_no": pl.Int64, "rclass": pl.String}
    rows = [(0, a), (1, None), (2, b), (3, "assistant")]
    frames = []
    for native in (W.NATIVE, None):
        monkeypatch.setattr(W, "NATIVE", native)
        table = C._table(schema)
        table.add(rows, ("f",))
        table.add(rows[:2], ("g",))  # a file's id, in a 'd' column too, numbered once for its rows
        frames.append(C._frame(table, schema))
    c, lists = frames
    assert dict(c.schema) == dict(lists.schema) == {"file_id": pl.Categorical, "line_no": pl.Int64, "rclass": pl.Categorical}
    assert c.rows() == lists.rows() == [("f", 0, "user"), ("f", 1, None), ("f", 2, "user"), ("f", 3, "assistant"),
                                        ("g", 0, "user"), ("g", 1, None)]
    codes = c["rclass"].to_physical().to_list()
    assert codes[0] == codes[2] != codes[3]  # "user" under two addresses: one category


_KINDS = ["user", "assistant", "".join(["us", "er"]), "é", "", None]  # equal strings as two objects


@needs_native
@settings(max_examples=60, deadline=None)
@given(rows=st.lists(st.tuples(st.sampled_from(_KINDS), st.one_of(st.none(), st.integers(-5, 5)),
                               st.one_of(st.none(), st.text(max_size=4)), st.one_of(st.none(), st.booleans())),
                     max_size=40))
def test_group_rows_is_a_stable_sort_by_str_value(rows: list[tuple]) -> None:
    """``Table.group_rows`` puts a table's rows in the order of a 'd' column's values as
    polars sorts them (str order, nulls first, the rows of one value in the order they
    came: ``collect._grouped``, the order without the C core), every column moved with its
    row: an int, a str, a boolean, nulls in each, equal strings under two numbers as one."""
    import polars as pl

    from survey.census import collect as C

    schema = {"file_id": pl.String, "kind": pl.String, "n": pl.Int64, "s": pl.String, "b": pl.Boolean}
    t = W.NATIVE.Table(tuple(schema), "sdisb")
    t.add(rows, ("f",))
    t.group_rows(1)
    assert len(t) == len(rows)
    want = pl.DataFrame([("f", *r) for r in rows], orient="row", schema=schema)
    assert C._frame(t, schema).rows() == C._grouped(want, "kind").rows()
    with pytest.raises(ValueError, match="'d' column"):
        W.NATIVE.Table(("a", "k"), "sd").group_rows(0)


@needs_native
@pytest.mark.parametrize("seed", range(4))
def test_parquet_written_from_table_columns_reads_back_in_polars_and_duckdb(seed: int, tmp_path: Path) -> None:
    """``_walkcore.write_parquet`` writes a part from a Table's columns: every kind, nulls
    (None rows, and a None among a 'd' column's values), row groups cut anywhere, a 'd'
    column's equal strings under two numbers as one dictionary entry, pages that LZ4
    compresses to almost nothing and ones it cannot compress. polars and DuckDB read back
    the rows written; polars reads the str columns Categorical, from the metadata given."""
    import random

    import duckdb
    import polars as pl

    from survey.census import collect as C

    rng = random.Random(seed)
    schema = {"file_id": pl.String, "file_key": pl.UInt64, "n": pl.Int64, "s": pl.String,
              "x": pl.Float64, "b": pl.Boolean, "same": pl.Int64}
    words = ["".join(rng.choice("abcé✓") for _ in range(rng.randrange(0, 12))) for _ in range(rng.randrange(1, 400))]
    twins = ["".join(list(w)) for w in words]  # equal strings, other objects: other numbers in the column
    t = W.NATIVE.Table(tuple(schema), "duidfbi")
    want = []
    for f in range(rng.randrange(1, 30)):
        rows = [(rng.choice([None, rng.randrange(-2**63, 2**63)]) if rng.random() < 0.05 else j,
                 None if rng.random() < 0.05 else rng.choice(rng.choice([words, twins])),
                 None if rng.random() < 0.02 else rng.random() * 1e300 * rng.choice([1, -1]),
                 None if rng.random() < 0.03 else rng.random() < 0.5, 7)
                for j in range(rng.choice([0, 1, 7, 8, 9, rng.randrange(0, 5000)]))]
        t.add(list(rows), (f"f-{f:016x}", 2**64 - 1 - f))
        want += [(f"f-{f:016x}", 2**64 - 1 - f, *r) for r in rows]
    n = len(t)
    cols = dict(zip(schema, t.columns(), strict=True))
    numbers, values = cols["s"]
    values.append(None)  # a value that is None: a null wherever a row has its number
    specs = [("d", *c) if isinstance(c, tuple) else (C._KINDS[schema[k]], c, None) for k, c in cols.items()]
    path = tmp_path / "p.parquet"
    group = rng.choice([8, 64, 1 << 16])
    W.NATIVE.write_parquet(str(path), tuple(schema), specs, n, group, C._arrow_kv(schema))
    got = pl.read_parquet(path)
    assert dict(got.schema) == {**schema, "file_id": pl.Categorical, "s": pl.Categorical}
    assert got.rows() == want
    con = duckdb.connect()
    assert con.execute("SELECT * FROM read_parquet(?)", [str(path)]).fetchall() == want
    meta = con.execute("SELECT DISTINCT compression FROM parquet_metadata(?)", [str(path)]).fetchall()
    assert meta == ([("LZ4_RAW",)] if n else [])

    # a row group with no value at all: every kind's column all null, a 'd' column's rows
    # numbered to a None value too (an empty dictionary page)
    t = W.NATIVE.Table(("d", "v", "i", "b"), "ddib")
    t.add([(None, "w", None, None)] * 9 + [("x", "w", 1, True)], ())
    (dn, dv), (vn, vv), i_col, b_col = t.columns()
    vv[vv.index("w")] = None
    W.NATIVE.write_parquet(str(path), ("d", "v", "i", "b"), [("d", dn, dv), ("d", vn, vv), ("i", i_col, None),
                                                          ("b", b_col, None)], 10, 8, ())
    nulls = [(None, None, None, None)] * 9 + [("x", None, 1, True)]
    assert pl.read_parquet(path).rows() == nulls
    assert con.execute("SELECT * FROM read_parquet(?)", [str(path)]).fetchall() == nulls

    # one dictionary entry per distinct string: a long one under two numbers, every row
    # alternating, is written once (2 entries would be twice its bytes before compression)
    long, twin = "é" * 1000, "".join(["é" * 500, "é" * 500])
    t = W.NATIVE.Table(("s",), "d")
    t.add([(long,), (twin,)] * 500, ())
    (numbers, values), = t.columns()
    assert values == [long, twin] and values[0] is not values[1]
    W.NATIVE.write_parquet(str(path), ("s",), [("d", numbers, values)], 1000, 1 << 16, ())
    assert pl.read_parquet(path)["s"].to_list() == [long] * 1000
    (raw,), = con.execute("SELECT total_uncompressed_size FROM parquet_metadata(?)", [str(path)]).fetchall()
    assert 2000 < raw < 2 * 2000


@needs_native
def test_parquet_writer_refuses_what_it_cannot_write(tmp_path: Path) -> None:
    """A column of another length or kind, a number outside its values, a value that is not
    a str, metadata that is not str: a clear error and no part (none half written); an
    unwritable place: an OSError that names no path."""
    import polars as pl

    t = W.NATIVE.Table(("a", "s"), "id")
    t.add([(1, "x"), (2, "y")], ())
    a, (num, vals) = t.columns()
    p = str(tmp_path / "p.parquet")
    with pytest.raises(ValueError, match="another kind or length"):
        W.NATIVE.write_parquet(p, ("a", "s"), [("i", a, None), ("d", num, vals)], 3, 8, ())
    with pytest.raises(ValueError, match="another kind or length"):
        W.NATIVE.write_parquet(p, ("a", "s"), [("u", a, None), ("d", num, vals)], 2, 8, ())
    with pytest.raises(ValueError, match="not in its values"):  # found as it writes: no half part left
        W.NATIVE.write_parquet(p, ("a", "s"), [("i", a, None), ("d", num, vals[:1])], 2, 8, ())
    assert not Path(p).exists()
    with pytest.raises(TypeError, match="kv is"):
        W.NATIVE.write_parquet(p, ("a", "s"), [("i", a, None), ("d", num, vals)], 2, 8, (("k", 1),))
    assert not Path(p).exists()
    with pytest.raises(TypeError, match="str or None"):
        W.NATIVE.write_parquet(p, ("a", "s"), [("i", a, None), ("d", num, [1, 2])], 2, 8, ())
    secret = tmp_path / "no-such-folder-7f3a" / "p.parquet"
    with pytest.raises(OSError) as e:
        W.NATIVE.write_parquet(str(secret), ("a", "s"), [("i", a, None), ("d", num, vals)], 2, 8, ())
    assert "7f3a" not in str(e.value) and e.value.filename is None
    W.NATIVE.write_parquet(p, ("a", "s"), [("i", a, None), ("d", num, vals)], 2, 8, ())
    assert pl.read_parquet(p).rows() == [(1, "x"), (2, "y")]


@needs_native
def test_a_row_sink_takes_cells_then_ids_and_moves_a_files_rows() -> None:
    """A batch Table as a row sink (``Walker.row_sinks``): the C core appends a row's cells
    (``append``), the batch fills the file's ids once at its end (``fill_ids``); until then
    nothing reads or adds to it. A volatile file's rows move to its own part's Table
    (``move_rows``) with every kind, null and str intact; a failed row is taken back."""
    import polars as pl

    from survey.census import collect as C

    schema = {"file_id": pl.String, "file_key": pl.UInt64, "line_no": pl.Int64, "s": pl.String,
              "x": pl.Float64, "b": pl.Boolean}
    sink, other = C._table(schema), C._table(schema)
    a = [(0, "user", 1.5, True), (1, None, None, None), (2, "x" * 40, 2, False)]
    b = [(0, "assistant", None, True), (1, "user", 0.5, None)]
    for r in a:
        sink.append(r)
    with pytest.raises(TypeError):
        sink.append((3, 7, 1.0, True))  # an int in a 'd' column: the row is taken back
    with pytest.raises(ValueError, match="not filled in"):
        sink.columns()
    with pytest.raises(ValueError, match="not filled in"):
        sink.add([(9, "y", 1.0, True)], ("f", 5))
    sink.fill_ids(("f-a", 1))
    start = len(sink)
    for r in b:
        sink.append(r)
    sink.fill_ids(("f-b", 2))
    other.add([(7, "z", 0.0, False)], ("f-c", 3))
    other.move_rows(sink, start)
    assert len(sink) == 3 and len(other) == 3
    assert C._frame(sink, schema).rows() == [("f-a", 1, *r) for r in a]
    assert C._frame(other, schema).rows() == [("f-c", 3, 7, "z", 0.0, False), *(("f-b", 2, *r) for r in b)]
    # what the sink holds afterwards is whole again: rows add to it as to any table
    sink.append((5, "q", None, None))
    sink.fill_ids(("f-d", 4))
    assert C._frame(sink, schema).rows() == [("f-d", 4, 5, "q", None, None)]


@needs_native
def test_table_counts_number_each_key_once() -> None:
    import polars as pl

    t = W.NATIVE.Table(("file_id", "key_number", "count", "max_len"), "siii")
    with pytest.raises(ValueError):
        W.NATIVE.Table(("file_id", "key_number", "count"), "ssi").add_counts("f", {("a",): 1}, {})
    keys: dict[tuple, int] = {}
    t.add_counts("f1", {("a", "b"): [1, 2], ("c", None): [3, None]}, keys)
    t.add_counts("f2", {("c", None): [5, 6]}, keys)
    with pytest.raises(ValueError):
        t.add_counts("f3", {("d",): [1, 2], ("e",): [1]}, keys)  # the second count list is short
    # keys numbered before the failure stay numbered, never used: the frame gathers by number
    assert keys == {("a", "b"): 0, ("c", None): 1, ("d",): 2, ("e",): 3}
    assert pl.DataFrame([pl.Series(c) for c in t.columns()]).rows() == [
        ("f1", 0, 1, 2), ("f1", 1, 3, None), ("f2", 1, 5, 6)]
    # the same tuples numbered in another dict: a number remembered for the first is not used
    ab, cn = ("a", "b"), ("c", None)
    t.add_counts("f1", {ab: [1, 0], cn: [2, 0]}, keys)
    fresh: dict[tuple, int] = {}
    t.add_counts("f4", {cn: [7, 0], ab: [8, 0]}, fresh)
    assert fresh == {cn: 0, ab: 1}
    assert [r[:2] for r in pl.DataFrame([pl.Series(c) for c in t.columns()][:2]).rows()] == [
        ("f1", 0), ("f1", 1), ("f4", 0), ("f4", 1)]


@needs_native
def test_node_key_tuples_are_shared_and_still_found_when_the_cache_is_full() -> None:
    """The C walker gives every file the same key tuple for a node key (Table.add_counts
    finds it by address). Past its 65,536 cached keys a new key gets a tuple of its own,
    equal by value, and the keys it has cached are still shared."""
    w = W.make_walker("cursor", "reviewed", False, SALT)
    core, rc = w._core, "r"
    paths = [f"$.p{i}" for i in range(70_000)]

    def key(path: str) -> tuple:
        r = W.FileResult(file_id="f")
        core.node(r, rc, path, "x", 0, 0)
        (k,) = r.nodes
        return k

    first = key(paths[0])
    assert key(paths[0]) is first
    for p in paths[1:]:
        key(p)
    assert key(paths[0]) is first  # cached before the table filled: still shared
    late = key(paths[-1])
    assert late == (rc, paths[-1], "string", "") and key(paths[-1]) is not late


@needs_native
@pytest.mark.parametrize("runtime", NAMES)
def test_counts_taken_from_the_c_core_are_the_counts_of_res(runtime: str, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """A batch takes a JSONL file's node and value counts straight from the C core
    (``Core.take``), without the dicts ``res.nodes`` and ``res.values``; its tables are the
    same, row for row, as when the counts go through the dicts (``HOLD_COUNTS`` off): the
    same key numbers, keys met twice summed, truncations and withheld values (which the core
    writes to res directly) in their place. On every runtime's synthetic corpus and the
    hostile one."""
    import importlib

    import polars as pl

    from survey.census import collect as C
    from survey.synth import hostile

    prof = get(runtime)
    importlib.import_module(prof.synth).generate(tmp_path / "c", seed=12, sessions=6)
    hostile.generate(tmp_path / "c" / "zz-hostile", seed=5, big_line_mb=1)
    inv = crawl(tmp_path / "c", prof, SALT)

    def tables(hold: bool) -> dict[str, pl.DataFrame]:
        monkeypatch.setattr(C, "HOLD_COUNTS", hold)
        out = C.collect(inv, tmp_path / "c", prof, mode="reviewed", allow_mcp=False, salt=SALT, jobs=1)
        return {k: (v.collect() if isinstance(v, pl.LazyFrame) else v)
                for k, v in out.items() if k in ("nodes", "values", "headings", "node_counts", "rawsets", "formats")}

    held, through_res = tables(True), tables(False)
    assert held["nodes"].height > 0 and held["rawsets"].height > 0 and held["formats"].height > 0
    for name, df in through_res.items():
        assert held[name].equals(df), f"{runtime}: {name} differs when the counts are taken from the core"


# atoms a string or number is drawn from, so that every format class and its near misses come
# up: hex runs, dashes, a timestamp's parts, schemes, path starts, escapes, whitespace
_FMT_ATOMS = ["0d7a3c2e", "-", "1b4f", "9e107d9d372bb6826bd81d3542a419d6", "a" * 24, "2026-08-17", "T", " ", "18:55",
              ":41.627", "Z", "+02:00", "https", "://", "x.example", "/", "~/", "./", "../", "C:", "\\", "\n", "\t",
              "é", "\U0001F600", "g", "a b", "\"", "\u2028", "file"]
_NUMBERS = st.sampled_from([946_684_799, 946_684_800, 1_754_000_000, 4_102_444_799, 4_102_444_800,
                            1_754_000_000_000, 4_102_444_800_000, 99_999_999_999, -1_754_000_000, 0, 10**19,
                            1_754_000_000.5, 1.7e9, 1.754e12, 4_102_444_799.9999999, 9_999_999_999.99999,
                            1e300, -0.0]) | st.integers() | st.floats(allow_nan=False)


@needs_native
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(values=st.lists(st.lists(st.sampled_from(_FMT_ATOMS), max_size=8).map("".join) | _NUMBERS
                       | st.text(max_size=80).map(lambda t: t.encode("utf-16", "surrogatepass").decode("utf-16")),
                       min_size=1, max_size=12),
       pad=st.integers(0, 70))
def test_value_formats_are_the_python_walkers_on_the_tape_and_off_it(values: list, pad: int,
                                                                     tmp_path_factory: pytest.TempPathFactory) -> None:
    """Every string and number, as read from the text (the tape: plain, every non-ASCII
    character escaped, "/" escaped, long strings past the 64 bytes the core decodes) and as
    a Python object (``Walker.node``), gets the Python walker's format class."""
    c, p = _PAIRS.get("claude") or _PAIRS.setdefault("claude", pair("claude_code"))
    long = ["x" * pad + v if isinstance(v, str) else v for v in values]
    obj = {"type": "user", "a": values, "b": {"c": long}, "d": [v + "q" * pad for v in values if isinstance(v, str)]}
    f = tmp_path_factory.mktemp("fmt") / "x.jsonl"
    f.write_bytes(b"\n".join(_texts(obj)) + b"\n")
    a = W.walk_file(c, str(f), "x", "jsonl", f.stat().st_size)
    b = W.walk_file(p, str(f), "x", "jsonl", f.stat().st_size)
    assert_same(a, b, "value formats")
    assert b.formats
    ra, rb = W.FileResult(file_id="x"), W.FileResult(file_id="x")
    c.node(ra, "user", "$", obj, 0, 0)
    p.node(rb, "user", "$", obj, 0, 0)
    assert_same(ra, rb, "value formats of objects")


@needs_native
def test_escaped_strings_past_64_bytes_keep_their_format(tmp_path: Path) -> None:
    """A long string with escapes is decoded by the core only where it could be a URL or a
    path: escapes in a scheme, a drive's colon, a first slash; and numbers written with an
    exponent or a long fraction. Each gets the Python walker's class, and the expected one."""
    c, p = _PAIRS.get("claude") or _PAIRS.setdefault("claude", pair("claude_code"))
    tail = b"y" * 80
    cases = {b'"http\\u003a//x.example/' + tail + b'"': "url", b'"\\u0068ttp://x.example/' + tail + b'"': "url",
             b'"C\\u003a\\\\' + tail + b'"': "path", b'"\\u002fhome/' + tail + b'"': "path",
             b'"\\/home/' + tail + b'\\n"': "text", b'"\\u0030d7a3c2e-1b4f-4e6a-9c1d-2f3e4a5b6c7d"': "uuid",
             b'"2026-08-17T18:55:41.627\\u005a"': "timestamp", b'"abcdefghijklmnop\\u003a//' + tail + b'"': "url",
             b'"abcdefghijklmnopq://' + tail + b'"': "text", b'"say \\"hi\\" ' + tail + b'"': "text",
             b"1754000000.0e0": "epoch_s", b"17540000000000e-1": "epoch_ms", b"1754000000." + b"0" * 70: "epoch_s",
             b"4102444799.99999999": "number", b"-1754000000": "number"}
    for i, (text, want) in enumerate(cases.items()):
        f = tmp_path / f"{i}.jsonl"
        f.write_bytes(b'{"type":"user","a":' + text + b"}\n")
        a = W.walk_file(c, str(f), "x", "jsonl", f.stat().st_size)
        b = W.walk_file(p, str(f), "x", "jsonl", f.stat().st_size)
        assert_same(a, b, f"format of {text[:30]!r}")
        assert [fm for (_rc, path, fm) in b.formats if path != "$.type"] == [want], text[:30]
