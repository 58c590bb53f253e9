"""docs/adding-a-runtime.md is a walkthrough that works: its five files (profile, vocabulary,
query, claims, template), taken from the page, make a runtime that registers, surveys a
tiny corpus and renders a page whose figures are the corpus's, counted here with ``json``,
and which carries none of the corpus's text."""

from __future__ import annotations

import importlib
import json
import random
import re
import sys
from dataclasses import replace
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[1] / "docs" / "adding-a-runtime.md"
BLOCK = re.compile(r"^## \d\. [^\n]*?`([^`]+)`.*?^```\w+\n(.*?)^```", re.MULTILINE | re.DOTALL)
CANARY = "cnrytoy5f3a9e1c7z"


def doc_files() -> dict[str, str]:
    return {name: body for name, body in BLOCK.findall(DOC.read_text())}


def test_the_walkthrough_names_the_five_files() -> None:
    assert set(doc_files()) == {"survey/runtimes/toy/__init__.py", "survey/runtimes/toy/vocab.json",
                                "survey/runtimes/toy/queries/kinds.sql", "survey/runtimes/toy/claims.py",
                                "survey/render/templates/toy.md.j2"}


def tiny_corpus(root: Path, seed: int = 5) -> dict[str, int]:
    """Sessions of call/result/note records, a cost-free corpus with text everywhere; the
    records of each kind, counted as written."""
    rng = random.Random(seed)
    counts: dict[str, int] = {}
    root.mkdir(parents=True)
    for s in range(4):
        with open(root / f"s{s:02d}.jsonl", "w") as fh:
            for _ in range(rng.randint(3, 9)):
                kind = rng.choice(["call", "result", "note"])
                counts[kind] = counts.get(kind, 0) + 1
                fh.write(json.dumps({"kind": kind, "tool": rng.choice(["Read", "Edit"]),
                                     "text": f"private {CANARY} words {rng.random()}"}) + "\n")
    return counts


@pytest.fixture
def toy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    from survey.runtimes import get, register, unregister

    files = doc_files()
    home = tmp_path / "pkgs" / "toy"
    (home / "queries").mkdir(parents=True)
    for name, body in files.items():
        dest = home / name.removeprefix("survey/runtimes/toy/").removeprefix("survey/render/templates/")
        dest.write_text(body)
    monkeypatch.syspath_prepend(str(tmp_path / "pkgs"))
    sys.modules.pop("toy", None)
    mod = importlib.import_module("toy")
    register(replace(mod.PROFILE, home=str(home)))
    try:
        yield get("toy")
    finally:
        unregister("toy")
        sys.modules.pop("toy", None)
        sys.modules.pop("toy.claims", None)


def test_a_toy_runtime_from_the_walkthrough_is_surveyed_end_to_end(toy, tmp_path: Path) -> None:
    from survey.pipeline import run_survey

    counts = tiny_corpus(tmp_path / "corpus")
    res = run_survey(toy, tmp_path / "corpus", snapshots=tmp_path / "s", reports=tmp_path / "r", jobs=1,
                     cache=False, date="2026-01-01")
    page = Path(res.page).read_text()
    assert res.runtime == "toy" and res.files == 4 and not res.problems
    # the claim's figures are the corpus's; "note" is not reviewed vocabulary, so it is masked
    reviewed = {k: v for k, v in counts.items() if k != "note"}
    claims = {c["id"]: c for c in json.loads((Path(res.snapshot) / "claims.json").read_text())}
    got = claims["kinds"]["value"]
    assert {k: v for k, v in got.items() if k in reviewed} == reviewed
    assert sum(got.values()) == sum(counts.values()) and "note" not in got
    assert "A cost figure: not observed as a key in 4 walked files" in page
    assert "# Toy agent session schema" in page and "kinds.sql" in page  # its evidence, cited
    assert CANARY not in page and CANARY not in "".join(
        p.read_text(errors="replace") for p in Path(res.snapshot).rglob("*.json"))


def test_a_registered_runtime_cannot_shadow_a_shipped_one(toy) -> None:
    from survey.runtimes import register

    with pytest.raises(ValueError, match="shipped"):
        register(replace(toy, name="codex"))
