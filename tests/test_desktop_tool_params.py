"""A desktop tool call's params (a JSON object carried in a string) per tool name: the key
sets with their presence rates and the calls with no params or with text that is not JSON,
each held against a plain sqlite3 + json recount of the generated store; params keys pass the
gate as every key does, and a canary key reaches no output byte."""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from pathlib import Path

import orjson
import polars as pl
import pytest

from survey.corpus.privacy import DYNAMIC_KEY, IDENT, RARE_KEY, UNREVIEWED_KEY
from survey.pipeline import run_survey
from survey.runtimes import get
from survey.synth.common import CANARY_RE
from survey.synth.cursor_desktop import generate
from tests.test_privacy import leaks, written_text


def _claims(snap: Path) -> dict[str, dict]:
    return {c["id"]: c for c in orjson.loads((snap / "claims.json").read_bytes())}


def _recount(root: Path) -> dict[str, dict]:
    """Per tool name, from the store by plain sqlite3 and json: calls, params outcomes and
    the calls holding each params key."""
    db = next(root.rglob("globalStorage/state.vscdb"))
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    rows = con.execute("SELECT value FROM cursorDiskKV WHERE key LIKE 'bubbleId:%'").fetchall()
    con.close()
    out: dict[str, dict] = {}
    for (value,) in rows:
        try:
            bubble = json.loads(value)
        except (ValueError, TypeError, UnicodeDecodeError):
            continue
        tfd = bubble.get("toolFormerData") if isinstance(bubble, dict) else None
        if not isinstance(tfd, dict):
            continue
        t = out.setdefault(tfd.get("name"), {"calls": 0, "object_params": 0, "no_params": 0, "not_json": 0,
                                             "other_type": 0, "keys": Counter(), "keysets": set()})
        t["calls"] += 1
        if tfd.get("params") is None:  # absent or null
            t["no_params"] += 1
            continue
        try:
            params = json.loads(tfd["params"])
        except ValueError:
            t["not_json"] += 1
            continue
        if isinstance(params, dict):
            t["object_params"] += 1
            t["keys"].update(params.keys())
            t["keysets"].add(tuple(sorted(params)))
        else:
            t["other_type"] += 1
    return out


@pytest.fixture(scope="module")
def surveyed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, dict], dict[str, dict]]:
    base = tmp_path_factory.mktemp("desktop-params")
    root = base / "User"
    root.mkdir()
    generate(root, seed=19, sessions=12)
    res = run_survey(get("cursor_desktop"), root, snapshots=base / "s", reports=base / "r", date="2026-01-01",
                     cache=False)
    return root, _recount(root), _claims(Path(res.snapshot))


def test_params_outcomes_per_tool_match_a_recount_of_the_store(surveyed) -> None:
    _root, want, claims = surveyed
    got = claims["tool_params"]["value"]
    assert set(got) == set(want)
    for name, w in want.items():
        assert {c: got[name][c] for c in ("calls", "object_params", "no_params", "not_json", "other_type")} == \
            {c: w[c] for c in ("calls", "object_params", "no_params", "not_json", "other_type")}, name
    # the planted shapes are there: a tool with no params at all, params that are not JSON
    assert any(w["no_params"] == w["calls"] > 0 for w in want.values())
    assert sum(w["not_json"] for w in want.values()) > 0
    text = claims["tool_params"]["text"]
    assert f"{sum(w['object_params'] for w in want.values())} of {sum(w['calls'] for w in want.values())} calls" in text
    assert "tool_params.sql" in claims["tool_params"]["evidence"][0]["command"]


def test_params_key_sets_per_tool_match_a_recount_of_the_store(surveyed) -> None:
    _root, want, claims = surveyed
    got = claims["nested_tool_input"]["value"]
    assert set(got) == {n for n, w in want.items() if w["object_params"]}
    reviewed = set(json.loads((Path(get("cursor_desktop").folder) / "vocab.json").read_text())["keys"])

    def gated(k: str) -> str:  # the gate's rule: reviewed keys by name, others masked by shape
        return k if k in reviewed else (UNREVIEWED_KEY if IDENT.match(k) else DYNAMIC_KEY)

    partial = 0
    for name, g in got.items():
        w = want[name]
        assert g["calls"] == w["object_params"], name
        assert g["keysets"] == len({tuple(sorted({gated(k) for k in ks})) for ks in w["keysets"]}), name
        for k, n in w["keys"].items():
            assert g["keys"][gated(k)] == n, (name, k)
        partial += any(0 < n < w["object_params"] for n in w["keys"].values())
    assert partial, "a params key on some calls of a tool only"
    # the unreviewed key is masked, never named
    assert UNREVIEWED_KEY in got["run_terminal_command_v2"]["keys"]
    assert DYNAMIC_KEY in got["run_terminal_command_v2"]["keys"]
    assert "privateArg" not in json.dumps(got) and ".env" not in json.dumps(got)


def test_a_canary_params_key_reaches_no_output_byte(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "User"
    root.mkdir()
    planted = generate(root, seed=5, sessions=10, canaries=True)
    store = next(root.rglob("globalStorage/state.vscdb")).read_bytes()
    keys = {m.group(0) for m in CANARY_RE.finditer(store.decode("utf-8", "replace"))
            if f'\\"./.env-{m.group(0)}\\":'.encode() in store}
    assert keys, "the generator plants a canary params key"
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SURVEY_CACHE_DIR", str(tmp_path / "cache"))
    for mode in ("reviewed", "discover"):
        res = run_survey(get("cursor_desktop"), root, snapshots=tmp_path / "s" / mode, reports=tmp_path / "r" / mode,
                         date="2026-01-01", mode=mode)
        snap = Path(res.snapshot)
        if mode == "reviewed":  # masked as unreviewed, the reviewed keys named
            got = _claims(snap)["nested_tool_input"]["value"]["run_terminal_command_v2"]["keys"]
            assert UNREVIEWED_KEY in got and DYNAMIC_KEY in got and "command" in got
        else:  # a key of one store file is a rare key, whatever its name; a path is no key
            blocks = pl.read_parquet(snap / "walk" / "blocks.parquet")
            sets = set(blocks.filter(pl.col("name") == "run_terminal_command_v2")["input_keyset"].drop_nulls().to_list())
            assert sets and all(set(ks.split(",")) == {RARE_KEY, DYNAMIC_KEY} for ks in sets), sets
    hay = "\n".join(written_text(tmp_path / d) for d in ("s", "r", "cache"))
    assert not leaks(sorted(keys), hay)
    assert not leaks(planted["canaries"], hay)


def test_params_of_every_odd_kind_are_counted_never_a_crash(tmp_path: Path) -> None:
    root = tmp_path / "User"
    root.mkdir()
    generate(root, seed=3, sessions=6)
    db = next(root.rglob("globalStorage/state.vscdb"))
    con = sqlite3.connect(db)
    rows = [(k, json.loads(v)) for k, v in con.execute("SELECT key, value FROM cursorDiskKV WHERE key LIKE 'bubbleId:%'")
            if v and v.lstrip().startswith("{") and '"toolFormerData"' in v]
    odd = ["[1, 2]", '"text"', "null", "[" * 3000 + "]" * 3000, json.dumps({f"k{i}": i for i in range(400)}),
           {"command": "x"}, 7, "", "{", None]
    assert len(rows) >= len(odd)
    for (key, b), params in zip(rows, odd, strict=False):
        b["toolFormerData"]["params"] = params
        con.execute("UPDATE cursorDiskKV SET value = ? WHERE key = ?", (json.dumps(b), key))
    con.commit()
    con.close()
    want = _recount_types(root)
    res = run_survey(get("cursor_desktop"), root, snapshots=tmp_path / "s", reports=None, date="2026-01-01", cache=False)
    got = _claims(Path(res.snapshot))["tool_params"]["value"]
    for c in ("calls", "object_params", "no_params", "not_json", "other_type"):
        assert sum(g[c] for g in got.values()) == want[c], c


def _recount_types(root: Path) -> Counter[str]:
    """Params outcomes over every tool call, by plain json: a string is parsed, anything else
    is taken as it is."""
    db = next(root.rglob("globalStorage/state.vscdb"))
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    out: Counter[str] = Counter()
    for (value,) in con.execute("SELECT value FROM cursorDiskKV WHERE key LIKE 'bubbleId:%'"):
        try:
            tfd = json.loads(value).get("toolFormerData")
        except (ValueError, TypeError, AttributeError, UnicodeDecodeError):
            continue
        if not isinstance(tfd, dict):
            continue
        out["calls"] += 1
        if tfd.get("params") is None:  # absent or null
            out["no_params"] += 1
            continue
        p = tfd["params"]
        if isinstance(p, str):
            try:
                p = json.loads(p)
            except (ValueError, RecursionError):
                out["not_json"] += 1
                continue
        out["object_params" if isinstance(p, dict) else "other_type"] += 1
    con.close()
    return out
