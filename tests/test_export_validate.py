"""``survey validate``: every record held against the derived schema, counted beside the
snapshot; an unseen shape is reported by its path and keyword, never by a byte of content."""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from survey.cli import app
from survey.export.schema import derive, dumps

from .export_util import jsonl_records, survey
from .test_privacy import leaks

KEY = "cnry00000000feedz"  # a private key name, a content string and an unseen class's value
TEXT = "cnry00000000beefz"
KIND = "cnry00000000cafez"


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, Path, Path]:
    """A canary-planted Cursor corpus surveyed, then three records of unseen shape added to one
    transcript (after the snapshot: the schema has never seen them)."""
    base = tmp_path_factory.mktemp("validate")
    planted, root, snap = survey("cursor", base, seed=11, canaries=True)
    target = sorted(root.rglob("*.jsonl"))[0]
    with open(target, "ab") as fh:
        fh.write(b"\n".join(orjson.dumps(o) for o in (
            {"role": "user", "message": {"content": [{"type": "text", "text": TEXT}]}, KEY: TEXT},
            {"role": "assistant", "message": {"content": [{"type": "tool_use", "name": "Shell", "input": 7}]}},
            {"type": KIND, "status": TEXT},
        )) + b"\n")
    return planted, root, snap


def test_unseen_shapes_are_counted_by_path_never_by_content(planted: tuple[dict, Path, Path]) -> None:
    corpus_planted, root, snap = planted
    r = CliRunner().invoke(app, ["validate", str(snap), "--root", str(root), "--json"])
    assert r.exit_code == 0, r.output
    got = json.loads(r.output)
    records = len(jsonl_records(root))  # the walked surfaces hold only .jsonl files to parse
    assert got["records"] == records and got["valid"] == records - 3 and got["invalid"] == 3
    assert got["claim"] == f"{records - 3:,} of {records:,} records validate against the derived schema"
    fails = {(f["class"], f["keyword"], f["at"]): f for f in got["failures"]}
    # the unnamed key on a closed record: where, not what
    extra = fails[("user", "AdditionalProperties", "$")]
    assert extra["schema_path"] == "/$defs/user/additionalProperties" and extra["records"] == 1
    # a call's input of a type never seen
    typ = fails[("assistant", "Type", "$.message.content[].input")]
    assert typ["schema_path"].endswith("/properties/input/type") and typ["files"] == 1
    # a record of a class never seen: its class is the gate's <withheld>, not its value
    assert got["unseen_classes"] == {"<withheld>": 1}
    assert ("<withheld>", "UnseenClass", "$") in fails
    side = snap.parent / f"{snap.name}.validation.json"
    assert json.loads(side.read_text())["invalid"] == 3
    assert (snap / "manifest.json").exists() and not (snap / "validation.json").exists()  # snapshot untouched
    canaries = [*corpus_planted["canaries"], KEY, TEXT, KIND]
    assert not leaks(canaries, side.read_text() + r.output)
    assert not leaks(canaries, dumps(derive(snap)).decode())
    # sanity: they are in the corpus
    text = "".join(p.read_text(errors="replace") for p in root.rglob("*.jsonl"))
    assert KEY in text and TEXT in text and KIND in text


def test_strict_and_usage(planted: tuple[dict, Path, Path], tmp_path: Path) -> None:
    _c, root, snap = planted
    r = CliRunner().invoke(app, ["validate", str(snap), "--root", str(root), "--strict"])
    assert r.exit_code == 3, r.output
    assert "records validate" in r.output
    assert not leaks([KEY, TEXT, KIND], r.output)
    r = CliRunner().invoke(app, ["validate", str(snap), "--root", str(tmp_path / "none")])
    assert r.exit_code == 2
    # the verdict is written beside the snapshot: a snapshot inside the root is refused
    r = CliRunner().invoke(app, ["validate", str(snap), "--root", str(snap.parents[2])])
    assert r.exit_code == 2 and "inside the corpus root" in r.output


def test_the_page_can_show_the_counts(planted: tuple[dict, Path, Path]) -> None:
    from survey.corpus.privacy import load_salt
    from survey.export.validate import validate
    from survey.render.render import Page

    _c, root, snap = planted
    got = validate(snap, root, load_salt())
    page = Page(snap)
    assert page.validation["claim"] == got["claim"] and page.validation["invalid"] == 3
    assert page.validation["command"].startswith(f"survey validate {snap} --root")
