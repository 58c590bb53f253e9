"""``survey export audit`` judges enum values only where no value was withheld: a value-map row
that names ``<withheld>`` makes its path's values unknown, whether or not the row counts its
distinct withheld values (a row without that count, or a value map without the column)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from survey.corpus.privacy import WITHHELD
from tests.test_export_planted import HAND, planted, records

__all__ = ["planted"]  # the planted corpus's fixture, surveyed once per module


def findings(got: dict) -> list[tuple]:
    return [(f["kind"], f["path"], f.get("type", f.get("value"))) for f in got["findings"]]


@pytest.mark.parametrize("column", ["zero", "absent"])
def test_a_withheld_row_without_a_distinct_count_stops_value_judgement(planted: tuple[Path, Path], tmp_path: Path,
                                                                        column: str) -> None:
    from survey.export.audit import audit

    _root, snap = planted
    before = findings(audit(HAND, snap))
    # the planted corpus never shows the documented "retry" type: judged while every value is known
    assert ("value_never_observed", "$.type", "retry") in before
    assert "retry" not in {r["type"] for _f, r in records()}
    copy = tmp_path / "snapshots" / snap.parent.name / snap.name
    shutil.copytree(snap, copy)
    p = copy / "census.json"
    census = json.loads(p.read_text())
    vm = census["value_maps"]
    rows = [dict(zip(vm["columns"], r, strict=True)) for r in vm["rows"]]
    assert rows and not any(r["value"] == WITHHELD for r in rows if r["path"] == "$.type")
    rows.append({**dict.fromkeys(vm["columns"], 0), "path": "$.type", "value": WITHHELD, "occurrences": 1, "files": 1})
    cols = [c for c in vm["columns"] if column == "zero" or c != "distinct_withheld"]
    assert "distinct_withheld" in vm["columns"]
    census["value_maps"] = {**vm, "columns": cols, "rows": [[r[c] for c in cols] for r in rows]}
    p.write_text(json.dumps(census))
    after = findings(audit(HAND, copy))
    assert after == [f for f in before if f != ("value_never_observed", "$.type", "retry")]
