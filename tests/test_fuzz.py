"""Property tests: arbitrary bytes and values never make the framing or the walk raise.

- ``split_frames``/``iter_frames`` on arbitrary bytes, with tiny chunks and tiny caps too:
  no exception, and the frames account for every input byte (frame lengths + LFs + a
  stripped BOM == input length; an oversized frame carries its true length, no bytes).
- ``Walker.node``/``Walker.record`` on arbitrary JSON-ish values (any nesting, odd keys,
  huge ints, surrogates, block carriers with odd payloads): no exception.
- ``walk_file`` on arbitrary bytes as every file kind (a "SQLite file" of garbage as a blob,
  and as jsonl/json/text): no exception, a known status, every byte counted; and garbage
  "SQLite" through each runtime's store reader (if any): a counted status, nothing beside it.
"""

from __future__ import annotations

import hmac
import io
import os
import tempfile
from collections.abc import Iterator
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from survey.census.walk import FileResult, Walker, make_walker, sniff, walk_file
from survey.corpus import frames as F
from survey.corpus.privacy import pseudonym
from survey.native import NATIVE

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# bytes that make framing interesting: LF, CR, BOM pieces, NUL, JSON punctuation, bad UTF-8
_ATOMS = [b"\n", b"\r", b"\r\n", b"\xef\xbb\xbf", b"\x00", b"{", b"}", b"[", b"]", b'"', b":", b",",
          b'{"a":1}', b'{"role":"user"}', b"\xff", b"\xc3", b"\xe2\x80\xa8", b" ", b"x" * 40]
framing_bytes = st.one_of(
    st.binary(max_size=300),
    st.lists(st.sampled_from(_ATOMS), max_size=60).map(b"".join),
)


@pytest.fixture(scope="module")
def walker() -> Walker:
    return make_walker("cursor", "reviewed", False, b"salt")


def _split(data: bytes, max_line: int) -> list[tuple[bytes, bool, int]]:
    return list(F.split_frames(io.BytesIO(data), max_line))


def _check_split(data: bytes, max_line: int, got: list[tuple[bytes, bool, int]]) -> None:
    off = 0
    for i, (frame, terminated, length) in enumerate(got):
        if length > max_line:
            assert frame == b"", "an oversized frame must not carry its bytes"
        else:
            assert frame == data[off:off + length]
        if terminated:
            assert data[off + length:off + length + 1] == b"\n"
            off += length + 1
        else:
            assert i == len(got) - 1, "only the last frame can lack its LF"
            off += length
    assert off == len(data)
    assert len(got) == data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


@SETTINGS
@given(data=framing_bytes, chunk=st.sampled_from([1, 2, 3, 5, 8, 64, 1 << 20]),
       max_line=st.sampled_from([0, 1, 3, 7, 16, 100, F.DEFAULT_MAX_LINE]))
def test_split_frames_accounts_for_every_byte(data: bytes, chunk: int, max_line: int) -> None:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(F, "CHUNK", chunk)
        got = _split(data, max_line)
    _check_split(data, max_line, got)
    # the chunk size never changes the result
    assert got == _split(data, max_line)


@SETTINGS
@given(data=framing_bytes, chunk=st.sampled_from([1, 2, 4, 7, 1 << 20]),
       max_line=st.sampled_from([0, 2, 9, 50, F.DEFAULT_MAX_LINE]))
def test_iter_frames_never_raises_and_lengths_add_up(data: bytes, chunk: int, max_line: int) -> None:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(F, "CHUNK", chunk)
        got = list(F.iter_frames(io.BytesIO(data), max_line))
    total = 0
    for n, (line_no, status, nbytes, obj, flags) in enumerate(got):
        assert line_no == n
        assert status in F.STATUSES
        assert (status == "ok") == isinstance(obj, dict)
        assert (status == "oversized") == (nbytes > max_line)
        assert 0 <= flags < 8
        if flags & 1:
            assert n == 0
            total += 3
        total += nbytes
    lfs = data.count(b"\n")
    assert total + lfs == len(data)


def test_iter_frames_bom_and_oversized_first_line() -> None:
    # a BOM is stripped and flagged; an oversized first line keeps its BOM in its length
    got = list(F.iter_frames(io.BytesIO(F.BOM + b'{"a":1}\n'), 64))
    assert [(s, n, f) for _, s, n, _, f in got] == [("ok", 7, 1)]
    got = list(F.iter_frames(io.BytesIO(F.BOM + b"x" * 100 + b"\n{}\n"), 64))
    assert [(s, n) for _, s, n, _, _ in got] == [("oversized", 103), ("ok", 2)]


def test_classify_statuses_of_parser_limits() -> None:
    deep = b'{"a":' + b"[" * 2000 + b"]" * 2000 + b"}"
    assert F.classify(deep, True, len(deep), 1 << 20) == ("too_deep", None)
    ok_deep = b'{"a":' + b"[" * 1000 + b"]" * 1000 + b"}"
    assert F.classify(ok_deep, True, len(ok_deep), 1 << 20)[0] == "ok"
    bad = b'{"a":"\xff"}'
    assert F.classify(bad, True, len(bad), 100) == ("invalid_utf8", None)
    assert F.classify(b'{"a":', False, 5, 100) == ("partial", None)
    assert F.classify(b'{"a":', True, 5, 100) == ("malformed", None)
    assert F.classify(b"[1]", True, 3, 100) == ("not_object", None)
    assert F.classify(b" \t\r", True, 3, 100) == ("blank", None)


# -- the walker on arbitrary values --------------------------------------------------------
_KEYS = ["role", "type", "status", "message", "content", "name", "input", "text", "path", "command",
         "arguments", "server", "toolName", "thinking", "tool_use_id", "k", "", "a.b", "<x>", "日本",
         "\ud800", "0", "x" * 80]
keys = st.one_of(st.sampled_from(_KEYS), st.text(max_size=12))
scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=30),
    st.sampled_from(["user", "assistant", "tool_use", "text", "Shell", "ReadFile", "success", "/agent-tools/x"]),
)
json_ish = st.recursive(
    scalars,
    lambda kids: st.one_of(st.lists(kids, max_size=6), st.dictionaries(keys, kids, max_size=8)),
    max_leaves=40,
)


def _block(payload: Any) -> st.SearchStrategy[dict]:
    return st.fixed_dictionaries({"type": st.sampled_from(["tool_use", "text", "thinking", "x", 3]),
                                  "name": st.one_of(st.text(max_size=8), st.integers()),
                                  "input": payload})


records = st.one_of(
    st.dictionaries(keys, json_ish, max_size=10),
    st.builds(lambda role, blocks, extra: {"role": role, "message": {"content": blocks}, **extra},
              st.one_of(st.sampled_from(["user", "assistant"]), json_ish),
              st.one_of(st.lists(st.one_of(_block(json_ish), json_ish), max_size=5), json_ish),
              st.dictionaries(keys, json_ish, max_size=3)),
)


def _nested(levels: int, leaf: Any = "x") -> Any:
    v: Any = leaf
    for _ in range(levels):
        v = [v]
    return v


@SETTINGS
@given(value=json_ish)
def test_walker_node_never_raises(walker: Walker, value: Any) -> None:
    res = FileResult(file_id="f-x")
    walker.node(res, "<none>", "$", value, 0, 0)
    assert all(len(k) == 4 for k in res.nodes)


@SETTINGS
@given(obj=records, status=st.sampled_from(["ok", "malformed", "oversized"]))
def test_walker_record_never_raises(walker: Walker, obj: dict, status: str) -> None:
    res = FileResult(file_id="f-x")
    walker.record(res, 0, status, 10, 0, obj)
    walker.record(res, 1, status, 10, 0, None)
    assert len(res.frames) == 2
    n_fields = 6 + len(walker.frame_fields)
    assert all(len(f) == n_fields for f in res.frames)


@pytest.mark.parametrize("levels", [254, 255, 256, 300, 1000])
def test_walker_record_deep_block_payload(walker: Walker, levels: int) -> None:
    # parses (orjson reads 1024 levels) but is deeper than orjson writes (255): the
    # payload length is not measured, and that is counted as a truncation
    obj = orjson.loads(orjson.dumps({"role": "assistant", "message": {"content": [
        {"type": "tool_use", "name": "Shell", "input": "x"}]}}))
    obj["message"]["content"][0]["input"] = _nested(levels)
    res = FileResult(file_id="f-x")
    walker.record(res, 0, "ok", 10, 0, obj)
    (blk,) = res.blocks
    measured = levels < 255
    assert (blk[-1] is not None) == measured
    assert res.truncations == (1 if measured else 2)  # the node walk's depth cap, + the payload


# -- walk_file on arbitrary bytes ----------------------------------------------------------
@pytest.fixture(scope="module")
def scratch() -> Iterator[str]:
    with tempfile.TemporaryDirectory(prefix="survey-fuzz-") as d:
        yield d


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(data=st.one_of(st.binary(max_size=4096), framing_bytes,
                      st.binary(max_size=200).map(lambda b: b"SQLite format 3\x00" + b)),
       kind=st.sampled_from(["blob", "jsonl", "json", "text"]))
def test_walk_file_never_raises_on_arbitrary_bytes(walker: Walker, scratch: str, data: bytes, kind: str) -> None:
    path = os.path.join(scratch, "store.vscdb")
    with open(path, "wb") as fh:
        fh.write(data)
    res = walk_file(walker, path, "f-x", kind, len(data))
    sniffed = sniff(data) if kind in ("jsonl", "json") else None
    assert res.status == (sniffed[0] if sniffed else "ok")
    assert res.nbytes == len(data)
    if res.status == "binary":  # one outcome for the file, no frame
        assert res.frames == [] and res.lines == data.count(b"\n")
    elif kind == "jsonl" and res.status == "ok":
        assert sum(f[2] for f in res.frames) + data.count(b"\n") + (3 if res.frames and res.frames[0][3] & 1 else 0) \
            == len(data)


def test_walk_file_outcomes_of_unopenable_paths(walker: Walker, scratch: str) -> None:
    gone = os.path.join(scratch, "gone.jsonl")
    assert walk_file(walker, gone, "f-x", "jsonl", 10).status == "vanished"
    d = os.path.join(scratch, "dir.jsonl")
    os.makedirs(d, exist_ok=True)
    assert walk_file(walker, d, "f-x", "jsonl", 0).status == "unreadable"
    link = os.path.join(scratch, "link.jsonl")
    if not os.path.lexists(link):
        os.symlink(d, link)
    assert walk_file(walker, link, "f-x", "jsonl", 0).status == "unreadable"  # O_NOFOLLOW


@pytest.mark.parametrize("data,status", [
    (b'{"a":' + b"[" * 5000 + b"]" * 5000 + b"}", "too_deep"),
    (b'{"a":"\xff"}', "invalid_utf8"),
    (b'{"a":', "malformed"),
    (b"  \n", "blank"),
])
def test_walk_json_document_uses_the_frame_taxonomy(walker: Walker, scratch: str, data: bytes, status: str) -> None:
    path = os.path.join(scratch, "doc.json")
    with open(path, "wb") as fh:
        fh.write(data)
    res = walk_file(walker, path, "f-x", "json", len(data))
    assert res.status == "ok"
    assert [f[1] for f in res.frames] == [status]


_walkers: dict[str, Walker] = {}


def _store_runtimes() -> list[str]:
    from survey.runtimes import NAMES, get

    return [n for n in NAMES if get(n).store_reader]


_GARBAGE_DB = st.one_of(
    st.binary(max_size=2048),
    st.binary(max_size=300).map(lambda b: b"SQLite format 3\x00" + b),
    st.binary(min_size=84, max_size=600).map(lambda b: b"SQLite format 3\x00\x10\x00\x01\x01" + b),
)


@pytest.mark.parametrize("runtime", _store_runtimes() or [pytest.param("-", marks=pytest.mark.skip(
    reason="no runtime with a SQLite store reader"))])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(data=_GARBAGE_DB)
def test_walk_file_sqlite_store_of_garbage_never_raises(runtime: str, scratch: str, data: bytes) -> None:
    w = _walkers.get(runtime) or _walkers.setdefault(runtime, make_walker(runtime, "reviewed", False, b"salt"))
    path = os.path.join(scratch, f"{runtime}.vscdb")
    with open(path, "wb") as fh:
        fh.write(data)
    res = walk_file(w, path, "f-x", "sqlite", len(data))
    assert isinstance(res.status, str) and res.status
    assert not os.path.exists(path + "-wal") and not os.path.exists(path + "-shm")  # nothing written beside it



# -- the C core's SHA-256 / HMAC against hashlib ----------------------------------------------
@pytest.mark.skipif(NATIVE is None, reason="the C core is not built")
@settings(max_examples=300, deadline=None)
@given(key=st.one_of(st.binary(max_size=200), st.sampled_from([b"", b"k" * 63, b"k" * 64, b"k" * 65])),
       data=st.one_of(st.binary(max_size=300), st.integers(0, 200).map(lambda n: b"\xa5" * n)),
       portable=st.booleans())
def test_the_c_hmac_sha256_is_hmac_digest(key: bytes, data: bytes, portable: bool) -> None:
    """The pseudonyms' hand-written SHA-256 (SHA-NI rounds where the CPU has them, the
    portable ones otherwise) is kept only while it is ``hmac.digest`` exactly: any key
    length (a key past a block is hashed first), any message length across the padding's
    block boundaries (55, 56, 64 bytes ...)."""
    assert NATIVE.hmac_sha256(key, data, portable) == hmac.digest(key, data, "sha256")
    # and the pseudonyms built on it are privacy.pseudonym's
    text = data.decode("utf-8", "surrogateescape")
    assert NATIVE.pseudonyms(key, "i", [text]) == [pseudonym(key, text, "i")]
