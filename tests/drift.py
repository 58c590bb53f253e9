"""The drift harness: survey a generated corpus, change it as a client update would, survey
again, and hold the page to the change.

Helpers, not tests: ``tests/test_drift_<runtime>.py`` declare the operators. For each, the
claims about the changed aspect must change, no sentence the drift made false may remain on
the drifted page, and ``survey diff --fail-on-drift`` must exit 3.

An operator over JSONL files reads every ``.jsonl`` file of a copied corpus and writes it back
changed, the way a client update would write its files: each parsed record goes through a
function that may edit it in place, drop it (return None) or add records after it (return a
list). ``corpus_fixtures`` gives a drift module its generated base corpus, surveyed once.
"""

from __future__ import annotations

import json
import os
import shutil
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner

from survey.cli import app
from survey.pipeline import run_survey
from survey.runtimes import get
from survey.snapshot.diff import diff


@dataclass
class Surveyed:
    page: str
    snap: Path
    claims: dict[str, dict]


def survey_once(runtime: str, root: Path, out: Path, date: str) -> Surveyed:
    """One whole-corpus run into ``out/snapshots/<date>`` with its page in ``out/reports-<date>``."""
    res = run_survey(get(runtime), root, snapshots=out / "snapshots", reports=out / f"reports-{date}", date=date)
    snap = Path(res.snapshot)
    claims = {c["id"]: c for c in orjson.loads((snap / "claims.json").read_bytes())}
    return Surveyed(Path(res.page).read_text(), snap, claims)


def copy_corpus(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst, symlinks=True, copy_function=shutil.copy2)
    return dst


def rewrite_jsonl(root: Path, fn: Callable[[dict, Path], Iterable[dict] | dict | None],
                  glob: str = "**/*.jsonl") -> int:
    """Apply ``fn(record, path)`` to every JSON object line of every matching file (a
    record, several, or None to drop it); lines that are not JSON objects stay as they are,
    and each file keeps its mtime (a drift is a change of shape, not of date). Returns the
    number of records ``fn`` was given."""
    n = 0
    for p in sorted(root.glob(glob)):
        if not p.is_file() or p.is_symlink():
            continue
        st = p.stat()
        out: list[bytes] = []
        for line in p.read_bytes().split(b"\n"):
            try:
                obj = orjson.loads(line) if line.strip() else None
            except orjson.JSONDecodeError:
                obj = None
            if not isinstance(obj, dict):
                out.append(line)
                continue
            n += 1
            got = fn(obj, p)
            for rec in ([] if got is None else [got] if isinstance(got, dict) else list(got)):
                out.append(orjson.dumps(rec))
        p.write_bytes(b"\n".join(out))
        os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))
    return n


Edit = Callable[[dict[str, Any]], "dict[str, Any] | list[dict[str, Any]] | None"]


def rewrite(root: Path, edit: Edit) -> int:
    """Apply ``edit`` to every parsed record of every ``.jsonl`` file (``rewrite_jsonl``: other
    lines and each file's mtime kept). Returns the records seen."""
    return rewrite_jsonl(root, lambda rec, _path: edit(rec))


def records(root: Path, name: str = "*.jsonl") -> list[tuple[Path, dict[str, Any]]]:
    """Every parsed record (object) of every matching file, with its file."""
    out = []
    for f in sorted(root.rglob(name)):
        for line in f.read_bytes().split(b"\n"):
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            if isinstance(rec, dict):
                out.append((f, rec))
    return out


def blocks(rec: dict[str, Any], carrier: tuple[str, str]) -> list[dict[str, Any]]:
    """The object blocks of ``rec[carrier[0]][carrier[1]]`` when it is a list (else none)."""
    outer = rec.get(carrier[0])
    inner = outer.get(carrier[1]) if isinstance(outer, dict) else None
    return [b for b in inner if isinstance(b, dict)] if isinstance(inner, list) else []


def copy_edited(src: Path, dst: Path, edit: Callable[[Path], Any] | None = None) -> Path:
    """A copy of a corpus, changed by ``edit`` (a base for an operator that adds what the
    generator always writes)."""
    shutil.copytree(src, dst)
    if edit:
        edit(dst)
    return dst


def page_texts(claims: dict[str, dict], *ids: str) -> list[str]:
    """The sentences of these claims as the page prints them (Markdown-escaped)."""
    return [claims[i]["text"].replace("<", "&lt;").replace(">", "&gt;") for i in ids]


def generated(factory: pytest.TempPathFactory, tmp: str, folder: str, generate: Callable[..., Any], *,
              seed: int, sessions: int) -> Path:
    """A corpus from a seeded generator, in ``folder`` of a fresh temp folder named ``tmp``."""
    root = factory.mktemp(tmp) / folder
    root.mkdir()
    generate(root, seed=seed, sessions=sessions)
    return root


def corpus_fixtures(runtime: str, generate: Callable[..., Any], folder: str, sessions: int,
                    seed: int = 5) -> tuple[Any, Any, Any]:
    """Module fixtures for a drift module: ``base`` (a generated corpus under ``folder``),
    ``surveyed`` (it surveyed once) and ``base_claims`` (its claims by id). Assign the three
    to module names so that pytest finds them."""
    @pytest.fixture(scope="module", name="base")
    def base_(tmp_path_factory: pytest.TempPathFactory) -> Path:
        return generated(tmp_path_factory, f"{runtime}_base", folder, generate, seed=seed, sessions=sessions)

    @pytest.fixture(scope="module", name="surveyed")
    def surveyed_(base: Path, tmp_path_factory: pytest.TempPathFactory) -> Surveyed:
        return survey_once(runtime, base, tmp_path_factory.mktemp(f"{runtime}_base_survey"), "2026-01-01")

    @pytest.fixture(scope="module", name="base_claims")
    def base_claims_(surveyed: Surveyed) -> dict[str, dict]:
        return surveyed.claims

    return base_, surveyed_, base_claims_


def diff_exit(out: Path, old: Surveyed, new: Surveyed) -> tuple[int, str]:
    r = CliRunner().invoke(app, ["diff", str(old.snap), str(new.snap), "--fail-on-drift"])
    crash = "".join(traceback.format_exception(r.exception)) if r.exception and not isinstance(r.exception, SystemExit) else ""
    return r.exit_code, r.output + crash


def check_drift(runtime: str, base: Surveyed, base_root: Path, mutate: Callable[[Path], Any], tmp: Path, *,
                changed: list[str], stale: list[str], date: str = "2026-02-01",
                named: Iterable[str] = ()) -> Surveyed:
    """Copy the base corpus, ``mutate`` it, survey it, and assert the page followed. Each claim
    in ``named`` must be reported by ``survey diff`` as a statement that changed (a drift no
    key set, vocabulary value or absence shows), by id, in the report and the exit message."""
    root = copy_corpus(base_root, tmp / "drifted")
    mutate(root)
    new = survey_once(runtime, root, tmp, date)
    for cid in changed:
        a, b = base.claims.get(cid), new.claims.get(cid)
        assert b is not None, f"claim {cid} vanished after the drift"
        assert a is None or (a["value"], a["text"]) != (b["value"], b["text"]), \
            f"claim {cid} did not change with the drift: {b['text']}"
    left = [s for s in stale if s in new.page]
    assert not left, f"the drifted page still says what the drift made false: {left}"
    code, text = diff_exit(tmp, base, new)
    assert code == 3, f"survey diff --fail-on-drift exited {code}, not 3:\n{text}"
    if named:
        d = diff(base.snap, new.snap)
        said = {s["claim"] for s in d.statements_changed}
        missing = [c for c in named if c not in said]
        assert not missing, f"survey diff did not report these statements as changed: {missing}\n{text}"
        assert "statements changed" in " ".join(text.split()), text
        assert all(c in text for c in named), text
    return new


def check_call_ids_added(runtime: str, base_root: Path, tmp: Path, folder: str,
                         strip: Callable[[Path], Any], add: Callable[[Path], Any]) -> Surveyed:
    """The base corpus with its call ids stripped (in ``folder``) is surveyed; adding them back
    must change the call-id claims, leave the stripped page's sentences stale, and have the
    page say that calls carry a native id."""
    stripped = copy_edited(base_root, tmp / "stripped" / folder, strip)
    a = check_drift(runtime, survey_once(runtime, stripped, tmp / "base", "2026-01-01"), stripped, add, tmp,
                    changed=["native_call_id", "model_call_id"], stale=["Calls carry no native id", "none observed ("])
    assert "Calls carry a native id" in a.page
    return a
