"""Each reference page's structural facts, held against the generated page of its surface.

``tests/reference_facts/<runtime>.toml`` lists every structural fact of the reference page a
runtime's page regenerates, each classified: a computed claim (its id, and a pattern its
sentence must match: the fact's aspect), a reference note (for what only live behaviour can
show), a census table the page prints, a fact measured by a mechanism still to come
(``after``: listed as pending, one counted line, not a failure), or not structural (with why).

Each runtime's page is built from its seeded demo corpus (as ``make survey`` builds it), once
per test session, and every listed claim and note must be on it.
"""

from __future__ import annotations

import re
import tomllib
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import orjson
import pytest

from survey.pipeline import run_survey
from survey.render.render import md_escape
from survey.runtimes import NAMES, get
from survey.synth.demo import DEMO_SEED, generator

FACTS = Path(__file__).parent / "reference_facts"
KINDS = ("claim", "note", "table", "after", "not_structural")
AFTER = ("links", "formats")


def load(runtime: str) -> dict:
    return tomllib.loads((FACTS / f"{runtime}.toml").read_text())


def facts_files() -> list[str]:
    return sorted(p.stem for p in FACTS.glob("*.toml"))


def on_page(text: str, page: str) -> bool:
    """The sentence is on the page whole, or (in a table whose first column names it) the part
    after its first colon."""
    t = md_escape(text).rstrip(".")
    return t in page or (":" in t and t.split(":", 1)[1].strip() in page)


@pytest.fixture(scope="session")
def demo_page(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], tuple[str, dict, dict]]:
    """``demo_page(runtime)``: (page text, claims by id, census) of its demo corpus."""
    base = tmp_path_factory.mktemp("reference-facts")
    done: dict[str, tuple[str, dict, dict]] = {}

    def one(runtime: str) -> tuple[str, dict, dict]:
        if runtime not in done:
            root = base / "corpora" / runtime
            root.mkdir(parents=True)
            generator(runtime)(root, seed=DEMO_SEED)
            res = run_survey(get(runtime), root, snapshots=base / "snapshots", reports=base / "reports",
                             date="2026-01-01", cache=False)
            snap = Path(res.snapshot)
            claims = {c["id"]: c for c in orjson.loads((snap / "claims.json").read_bytes())}
            census = orjson.loads((snap / "census.json").read_bytes())
            done[runtime] = (Path(res.page).read_text(), claims, census)
        return done[runtime]

    return one


def test_every_runtime_has_a_facts_list_and_each_fact_one_class() -> None:
    assert facts_files() == sorted(NAMES)
    for rt in NAMES:
        data = load(rt)
        assert data["runtime"] == rt and data["reference"]
        assert data["fact"], rt
        for f in data["fact"]:
            assert f.get("fact"), f"{rt}: a fact without its statement: {f}"
            kinds = [k for k in KINDS if k in f]
            # a pending fact keeps its `after` once the integrator fills its claim id
            assert len(kinds) == 1 or (set(kinds) == {"claim", "after"}), f"{rt}: {f['fact']!r}: {kinds}"
            if "claim" in f:
                assert f.get("aspect"), f"{rt}: {f['fact']!r}: a computed fact names its aspect"
                re.compile(f["aspect"])
            if "after" in f:
                assert f["after"] in AFTER, f"{rt}: {f['fact']!r}: after = {f['after']!r}"


def test_every_reference_note_of_a_runtime_is_listed() -> None:
    for rt in NAMES:
        listed = {f["note"] for f in load(rt)["fact"] if "note" in f}
        notes = {n.id for n in get(rt).notes}
        assert notes <= listed, f"{rt}: notes not in the facts list: {sorted(notes - listed)}"
        assert listed <= notes, f"{rt}: listed notes the profile does not hold: {sorted(listed - notes)}"


@pytest.mark.parametrize("runtime", NAMES)
def test_the_page_carries_every_listed_fact(runtime: str, demo_page, capsys: pytest.CaptureFixture) -> None:
    page, claims, census = demo_page(runtime)
    missing: list[str] = []
    pending: Counter[str] = Counter()
    for f in load(runtime)["fact"]:
        what = f["fact"]
        if "claim" in f:
            c = claims.get(f["claim"])
            if c is None:
                missing.append(f"claim {f['claim']} ({what}): not stated")
            elif c["kind"] == "reference":
                missing.append(f"claim {f['claim']} ({what}): a reference note, not a computed claim")
            elif not on_page(c["text"], page):
                missing.append(f"claim {f['claim']} ({what}): stated but not on the page")
            elif not re.search(f["aspect"], c["text"], re.IGNORECASE | re.DOTALL):
                missing.append(f"claim {f['claim']} ({what}): does not state {f['aspect']!r}: {c['text'][:160]}")
        elif "note" in f:
            c = claims.get(f["note"])
            if c is None or c["kind"] != "reference":
                missing.append(f"note {f['note']} ({what}): not stated as a reference note")
            elif not on_page(c["text"], page):
                missing.append(f"note {f['note']} ({what}): stated but not on the page")
        elif "table" in f:
            if f["table"] not in census:
                missing.append(f"table {f['table']} ({what}): no such census query")
        elif "after" in f:
            pending[f["after"]] += 1
    if load(runtime).get("generated_only"):  # no real sample: the page says its figures are generated
        assert "> **Generated corpus.**" in page and "none is evidence of what a real client writes" in page
    if pending:
        with capsys.disabled():
            print(f"\n{runtime}: pending "
                  + ", ".join(f"{n} after {k}" for k, n in sorted(pending.items())))
    assert not missing, f"{runtime}: {len(missing)} listed facts missing:\n" + "\n".join(missing)
