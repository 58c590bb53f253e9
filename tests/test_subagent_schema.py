"""The subagent-schema queries are the template with each profile's pairing written in, and
the pairing declaration refuses a half-made one."""

from __future__ import annotations

import pytest

from survey.evidence.subagents import main as write_queries
from survey.evidence.subagents import query_path, render_sql
from survey.runtimes import all_profiles, get
from survey.runtimes.base import SubagentPairs


def test_each_query_file_is_the_template_with_its_pairing() -> None:
    assert write_queries(["--check"]) == 0, "run: python -m survey.evidence.subagents"
    declared = [p.name for p in all_profiles() if p.subagent_pairs is not None]
    assert set(declared) >= {"cursor", "claude_code", "codex"}
    for name in declared:
        p = get(name)
        sql = query_path(p).read_text()
        assert sql == render_sql(p)
        assert "{" not in sql.replace("{}", ""), f"{name}: a placeholder left in the query"


def test_codex_pairs_by_header_and_the_others_by_path() -> None:
    assert "walk/links.parquet" in render_sql(get("codex")) and "'session_meta'" in render_sql(get("codex"))
    for name in ("cursor", "claude_code"):
        sql = render_sql(get(name))
        assert "walk/links.parquet" not in sql and "k.parent_id = t.session_id" in sql


def test_a_pairing_is_by_path_or_by_header() -> None:
    with pytest.raises(ValueError):
        SubagentPairs(tops=("a",))
    with pytest.raises(ValueError):
        SubagentPairs(tops=("a",), children=("b",), header=("c", "d", "e"))
