"""Differential fuzzing of the walk's C core (``census/_walkcore.c``): ``make fuzz``.

Every input is one byte that picks an entry point of the core, then the bytes it is given.
Each target runs the C core and the reference it must equal (the Python walker, Python's
own functions, ``hmac.digest``) on those bytes and raises on any difference; under the
sanitized build (``--core``: ``-fsanitize=address,undefined``) a memory error or undefined
behaviour aborts with the sanitizer's report. Targets, the production batch path first:

``batch``     ``collect.walk_batch`` (counts held in the core, rows straight into Tables,
              Parquet parts written) of the bytes as a JSONL file, against the Python
              walker's batch: every part, row for row
``jsonl``     ``walk_file`` of the bytes as JSONL, at a chunk size and line cap the input picks
``json``      ``walk_file`` of the bytes as one JSON document
``store``     ``Core.record_text`` of the bytes as a SQLite store's record text (else parsed
              and ``record``), against the Python walker's parse and record
``node``      ``Core.node`` of the bytes' JSON value at a path and depth the input picks
``holding``   ``lines_holding`` against the Python search, needles from the input
``utf8``      ``utf8_valid`` and ``blanked`` against the Python check and translation
``found``     ``found`` against ``in``
``rg_tally``  ``rg_tally`` of an rg-shaped output against the Python count
``hmac``      ``hmac_sha256`` (SHA-NI and portable rounds) against ``hmac.digest``, and
              ``pseudonyms`` against ``privacy.pseudonym``
``table``     ``Table.add`` / ``columns`` / ``group_rows`` against the lists of ``_ListTable``
``files``     ``read_files`` and ``scan_tree`` of a file holding the bytes

``check(data)`` runs one input (``tests/test_fuzz_regressions.py`` replays every kept case
under the normal build). ``python -m tests.fuzz_harness --core SO --seconds N --cases DIR``
fuzzes for N seconds; every input that failed is written to DIR, and the number of
executions is printed last. Two drivers: atheris (libFuzzer, guided by the coverage of the
survey's Python code, which it instruments) where it is installed, on the normal build; and
hypothesis (inputs drawn from bytes and from JSON-ish atoms), which runs under the sanitized
build: gcc's AddressSanitizer runtime, which has to be loaded first, takes the coverage hooks
libFuzzer needs, so atheris cannot be guided there. ``make fuzz`` runs atheris first,
keeping the inputs that reached new code in a corpus folder, then the sanitized build
replays that corpus and goes on with hypothesis.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import importlib.util
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

TARGETS = ("batch", "jsonl", "json", "store", "node", "holding", "utf8", "found", "rg_tally", "hmac",
           "table", "files")
SALT = b"fuzz-salt"
_STATE: dict[str, Any] = {}


def load_core(path: str) -> None:
    """Use the C core built at ``path`` (the sanitized one) as ``survey.census._walkcore``:
    before anything imports ``survey.native``."""
    spec = importlib.util.spec_from_file_location("survey.census._walkcore", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    sys.modules["survey.census._walkcore"] = mod


def _state() -> dict[str, Any]:
    if not _STATE:
        from survey.census import walk as W

        if W.NATIVE is None:
            raise SystemExit(f"fuzz: the C core is not loaded ({W.ENGINE})")
        base = W.make_walker("claude_code", "reviewed", False, SALT)
        cur = W.make_walker("cursor", "reviewed", False, SALT)
        _STATE.update(
            W=W, dir=tempfile.mkdtemp(prefix="survey-fuzz-"),
            walkers={cap: (W.Walker(base.p, base.gate, SALT, cap), W.Walker(base.p, base.gate, SALT, cap, native=False))
                     for cap in (7, 64, 1 << 20)},
            cursor=(W.Walker(cur.p, cur.gate, SALT, cur.max_line), W.Walker(cur.p, cur.gate, SALT, cur.max_line,
                                                                            native=False)))
    return _STATE


def _same(a: Any, b: Any, what: str) -> None:
    if a != b and not _nan_equal(a, b):
        raise AssertionError(f"fuzz: {what} differs between the C core and its reference")


def _nan_equal(a: Any, b: Any) -> bool:
    """Equal, a NaN equal to a NaN (a record with NaN is kept: its number rows hold NaN)."""
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (a != a and b != b)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_nan_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_nan_equal(a[k], b[k]) for k in a)
    return bool(a == b)


def _result(r: Any) -> dict:
    import dataclasses

    return {k: v for k, v in dataclasses.asdict(r).items()}


def _file(data: bytes, name: str = "x.jsonl") -> str:
    path = os.path.join(_state()["dir"], name)
    with open(path, "wb") as fh:
        fh.write(data)
    return path


def t_batch(data: bytes) -> None:
    import polars as pl

    from survey.census import collect as C

    st = _state()
    path = _file(data)
    c, p = st["walkers"][1 << 20]
    fields = [col for col, _ in c.frame_fields]
    tables = []
    for n, w in enumerate((c, p)):
        spill = Path(st["dir"]) / f"spill{n}"
        if spill.exists():
            import shutil

            shutil.rmtree(spill)
        spill.mkdir()
        out = C.walk_batch(w, [(path, "f-0000000000000001", "jsonl", len(data), [])], str(spill), 0, fields,
                           split_volatile=False)
        parts = {str(f.relative_to(spill)): pl.read_parquet(f).rows() for f in sorted(spill.rglob("*.parquet"))}
        tables.append((out.files, parts))
    _same(tables[0], tables[1], "the batch's tables")


def t_jsonl(data: bytes) -> None:
    st = _state()
    W = st["W"]
    head, data = data[:1], data[1:]
    cap = (7, 64, 1 << 20)[head[0] % 3 if head else 2]
    chunk = (1, 2, 5, 64, 4096, 1 << 20)[(head[0] // 3) % 6 if head else 5]
    c, p = st["walkers"][cap]
    path = _file(data)
    old = W.CHUNK
    from survey.corpus import frames as F

    W.CHUNK = F.CHUNK = chunk
    try:
        a = W.walk_file(c, path, "f-x", "jsonl", len(data))
        b = W.walk_file(p, path, "f-x", "jsonl", len(data))
    finally:
        W.CHUNK = F.CHUNK = old
    _same(_result(a), _result(b), "a JSONL file's walk")


def t_json(data: bytes) -> None:
    st = _state()
    W = st["W"]
    c, p = st["walkers"][1 << 20]
    path = _file(data, "x.json")
    _same(_result(W.walk_file(c, path, "f-x", "json", len(data))),
          _result(W.walk_file(p, path, "f-x", "json", len(data))), "a JSON document's walk")


def t_store(data: bytes) -> None:
    from survey.corpus.stores import _classify_bytes

    st = _state()
    W = st["W"]
    c, p = st["cursor"]
    ra, rb = W.FileResult(file_id="f-x"), W.FileResult(file_id="f-x")
    assert c._core is not None
    c._core.hold(ra)
    try:
        got = c._core.record_text(ra, 0, data, "composer")
        if got is False:
            status, obj = _classify_bytes(data)
            if obj is None:
                ra.frames.append((0, status, len(data), 0, "composer", None, *([None] * len(c.frame_fields))))
            else:
                c.record(ra, 0, status, len(data), 0, obj, rclass="composer")
    finally:
        c._core.release(ra)
    status, obj = _classify_bytes(data)
    if obj is None:
        rb.frames.append((0, status, len(data), 0, "composer", None, *([None] * len(p.frame_fields))))
    else:
        p.record(rb, 0, status, len(data), 0, obj, rclass="composer")
    _same(_result(ra), _result(rb), "a store record's walk")


def t_node(data: bytes) -> None:
    import orjson

    st = _state()
    W = st["W"]
    head, data = data[:1], data[1:]
    try:
        obj = orjson.loads(data)
    except orjson.JSONDecodeError:
        return
    c, p = st["walkers"][1 << 20]
    paths = ("$", "$.message", "$.message.content", "$.toolUseResult", "$.message.content[]")
    path = paths[head[0] % len(paths)] if head else "$"
    depth = (head[0] // 8) % 24 if head else 0
    ra, rb = W.FileResult(file_id="f-x"), W.FileResult(file_id="f-x")
    c.node(ra, "user", path, obj, depth, 0)
    p.node(rb, "user", path, obj, depth, 0)
    _same(_result(ra), _result(rb), "a node walk")


def _needles(data: bytes) -> tuple[bytes, list[bytes]]:
    """The bytes before the last 0x01 as data, the pieces after it (split on 0x02) as needles."""
    at = data.rfind(b"\x01")
    if at < 0:
        return data, [b'"a"']
    return data[:at], [n for n in data[at + 1:].split(b"\x02") if n][:8] or [b"x"]


def t_holding(data: bytes) -> None:
    st = _state()
    W = st["W"]
    buf, needles = _needles(data)
    path = _file(buf)
    out = []
    for native in (W.NATIVE, None):
        saved, W.NATIVE = W.NATIVE, native
        fd = os.open(path, os.O_RDONLY)
        try:
            spans: list = []
            out.append((list(W._lines_holding(fd, needles, 1 << 20, spans)), spans))
        finally:
            os.close(fd)
            W.NATIVE = saved
    _same(out[0], out[1], "lines_holding")


def t_utf8(data: bytes) -> None:
    from survey.evidence.grep.reads import _blanked_py, _utf8_valid_py

    W = _state()["W"]
    for blob in (data, data * 9):
        _same(W.NATIVE.utf8_valid(blob), _utf8_valid_py(blob), "utf8_valid")
        _same(W.NATIVE.blanked(blob), _blanked_py(blob), "blanked")


def t_found(data: bytes) -> None:
    W = _state()["W"]
    buf, needles = _needles(data)
    _same(W.NATIVE.found(buf, needles), [n in buf for n in needles], "found")


def t_rg_tally(data: bytes) -> None:
    from survey.evidence import grep as G

    W = _state()["W"]
    body, literals = _needles(data)
    # an rg -o --heading --null output: paths (no NUL) each with matches, blank-line separated
    files = [f for f in body.split(b"\n\n") if f]
    out = b"\n\n".join(b"/r/" + f.split(b"\n", 1)[0].replace(b"\0", b"") + b"\0" + b"\n".join(
        literals[i % len(literals)] + (b"\r" if i % 3 == 0 else b"") for i in range(f.count(b"\n") + 1))
        for f in files) + (b"\n" if files else b"")
    hazards = frozenset(literals[1:2])
    a = G.rg._rg_tally(Path("/r"), out, literals, hazards)
    saved, G.reads.NATIVE = G.reads.NATIVE, None
    try:
        b = G.rg._rg_tally(Path("/r"), out, literals, hazards)
    finally:
        G.reads.NATIVE = saved
    _same((list(a[0]), [list(x) for x in a[1]], list(a[2])), (list(b[0]), [list(x) for x in b[1]], list(b[2])),
          "rg_tally")
    assert W.NATIVE is not None


def t_hmac(data: bytes) -> None:
    from survey.corpus.privacy import pseudonym

    W = _state()["W"]
    n = data[0] if data else 0
    key, msg = data[1:1 + n], data[1 + n:]
    want = hmac.digest(key, msg, "sha256")
    _same(W.NATIVE.hmac_sha256(key, msg, False), want, "HMAC-SHA256 (SHA-NI where the CPU has it)")
    _same(W.NATIVE.hmac_sha256(key, msg, True), want, "HMAC-SHA256 (portable rounds)")
    text = msg.decode("utf-8", "surrogateescape")
    _same(W.NATIVE.pseudonyms(key, "f", [text, ""]), [pseudonym(key, text, "f"), pseudonym(key, "", "f")],
          "pseudonyms")


def t_table(data: bytes) -> None:
    from survey.census import collect as C

    W = _state()["W"]
    text = data.decode("utf-8", "replace")
    cells = text.split("\x01")
    rows = []
    for i, cell in enumerate(cells[:64]):
        num = int.from_bytes(hashlib.blake2b(cell.encode(), digest_size=8).digest(), "little", signed=True)
        rows.append((cell if i % 4 else "", num if i % 5 else None, cell[:3] or None, i % 2 == 0))
    names, kinds = ("file_id", "s", "n", "d", "b"), "ssidb"
    t, ref = W.NATIVE.Table(names, kinds), C._ListTable(names, kinds)
    ids = ("f-x",)
    for part in (rows, rows[: len(rows) // 2]):
        if part:  # (the lists' table takes no empty batch; the C one takes it as nothing)
            t.add(part, ids)
            ref.add(part, ids)
        else:
            t.add(part, ids)
    _same(len(t), len(ref), "a Table's length")
    got = [list(_column(c)) for c in t.columns()]
    _same(got, ref.columns(), "a Table's columns")
    g = W.NATIVE.Table(("k", "v"), "di")
    g.add([(c[:2], len(c)) for c in cells[:64]], ())
    if len(g):
        g.group_rows(0)


def _column(c: Any) -> list:
    import polars as pl

    if isinstance(c, tuple):  # (codes Column, values): a dictionary column
        codes, values = c
        return [None if k is None else values[k] for k in pl.Series(codes).to_list()]
    return pl.Series(c).to_list()


def t_files(data: bytes) -> None:
    W = _state()["W"]
    path = _file(data, "f.bin")
    (got,) = W.NATIVE.read_files([path], [len(data)])
    _same(got, data, "read_files")
    W.NATIVE.scan_tree(_state()["dir"], 2)


def check(data: bytes) -> None:
    """One input: its first byte picks the target, the rest is the target's bytes."""
    if not data:
        return
    name = TARGETS[data[0] % len(TARGETS)]
    globals()["t_" + name](data[1:])


# -- the drivers ---------------------------------------------------------------------------
SEEDS = [b'{"type":"user","message":{"role":"user","content":"hi"},"uuid":"u1","parentUuid":null}\n',
         b'{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Read","input":{"file_path":"/a"}}]}}\n',
         b'{"role":"user","role":"assistant","n":1e400,"m":NaN}\n', b"\xff\xfe{\x00}\x00\n\x00",
         b'{"a":"\\u00e9\\ud83d\\ude00","b":[1,2.5,-0,true,false,null,{}]}\n\r\n\n', b"\x89PNG\r\n\x1a\n\x00\x00",
         # a value of every format class (walk.string_format, number_format), plain and escaped
         b'{"u":"0d7a3c2e-1b4f-4e6a-9c1d-2f3e4a5b6c7d","h":"9e107d9d372bb6826bd81d3542a419d6","t":"2026-08-17T18:55:41.627Z",'
         b'"s":1754000000,"ms":1754000000000.5,"e":1.7e9,"w":"https://x.example/a","p":"\\/home\\/a b","d":"C:\\\\x",'
         b'"x":"","f":"./a\\nb","g":"~/\\u0041"}\n']


def _keep(cases: Path, data: bytes) -> Path:
    cases.mkdir(parents=True, exist_ok=True)
    out = cases / f"{TARGETS[data[0] % len(TARGETS)] if data else 'empty'}-{hashlib.sha1(data).hexdigest()[:16]}.bin"
    out.write_bytes(data)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--core", help="the C core to load (the sanitized build)")
    ap.add_argument("--seconds", type=float, default=180)
    ap.add_argument("--cases", default="tests/fuzz_cases")
    ap.add_argument("--engine", choices=("auto", "atheris", "hypothesis"), default="auto")
    ap.add_argument("--corpus", help="a folder of inputs: atheris adds the ones that reach new code; hypothesis "
                    "runs them all first (so the sanitized run replays what coverage found)")
    ap.add_argument("--pending", help="where each input is written before it runs (kept by make fuzz after an abort)")
    args, rest = ap.parse_known_args(argv)
    if args.core:
        load_core(args.core)
    cases = Path(args.cases)
    cases.mkdir(parents=True, exist_ok=True)
    corpus = Path(args.corpus) if args.corpus else Path(tempfile.mkdtemp(prefix="survey-fuzz-corpus-"))
    corpus.mkdir(parents=True, exist_ok=True)
    execs = [0]
    pending = Path(args.pending) if args.pending else Path(tempfile.gettempdir()) / f"survey-fuzz-input-{os.getpid()}"
    engine = args.engine
    if engine == "auto":
        engine = "atheris" if importlib.util.find_spec("atheris") else "hypothesis"
    if engine == "atheris":  # the survey's own modules instrumented: Python-side coverage guides it too
        import atheris

        with atheris.instrument_imports(include=["survey"]):
            import survey.census.collect
            import survey.census.walk
            import survey.corpus.frames
            import survey.corpus.stores
            import survey.evidence.grep  # noqa: F401
    _state()
    deadline = time.monotonic() + args.seconds  # (from here: imports and instrumenting not counted)
    start = time.monotonic()

    def one(data: bytes) -> None:
        execs[0] += 1
        pending.write_bytes(data)  # a sanitizer abort leaves the input here (make fuzz keeps it)
        try:
            check(data)
        except Exception:
            print(f"fuzz: failing input kept as {_keep(cases, data)}", file=sys.stderr, flush=True)
            raise

    print(f"fuzz: {engine}, {args.seconds:.0f} s, targets: {', '.join(TARGETS)}", flush=True)
    if engine == "atheris":
        for i, s in enumerate(SEEDS):
            for t in range(len(TARGETS)):
                (corpus / f"seed-{i}-{t}").write_bytes(bytes([t]) + s)
        for f in sorted(cases.glob("*.bin")):
            (corpus / f.name).write_bytes(f.read_bytes())

        def test_one(data: bytes) -> None:
            if time.monotonic() > deadline:
                done(0)
            one(data)

        def done(code: int) -> None:
            print(f"fuzz: {execs[0]} executions in {time.monotonic() - start:.0f} s, no failure", flush=True)
            pending.unlink(missing_ok=True)
            os._exit(code)

        atheris.Setup([sys.argv[0], f"-artifact_prefix={cases}/", "-rss_limit_mb=4096", "-timeout=60",
                       f"-max_total_time={int(args.seconds) + 60}", "-max_len=8192", *rest, str(corpus)], test_one)
        atheris.Fuzz()
        done(0)
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    atoms = [s for seed in SEEDS for s in (seed, seed[:7], seed[7:])] + [b"\n", b"\x00", b"\x01", b"\x02", b'"', b"\\"]
    inputs = st.tuples(st.integers(0, len(TARGETS) - 1),
                       st.one_of(st.binary(max_size=512), st.lists(st.sampled_from(atoms), max_size=24).map(b"".join)))

    @settings(max_examples=500, deadline=None, database=None, derandomize=False,
              suppress_health_check=list(HealthCheck))
    @given(inputs)
    def run(x: tuple[int, bytes]) -> None:
        one(bytes([x[0]]) + x[1])

    for f in [*sorted(cases.glob("*.bin")), *sorted(corpus.iterdir())]:
        if f.is_file():
            one(f.read_bytes())
    while time.monotonic() < deadline:
        run()
    print(f"fuzz: {execs[0]} executions in {time.monotonic() - start:.0f} s, no failure", flush=True)
    pending.unlink(missing_ok=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
