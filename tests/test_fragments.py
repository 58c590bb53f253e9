"""Census queries that share a chain of CTEs hold it as one fragment writes it (``census/fragments.py``)."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from survey.census import fragments


def test_each_query_holds_its_fragments_as_written() -> None:
    assert fragments.main(["--check"]) == 0, "run: python -m survey.census.fragments"


def test_every_fragment_is_in_each_query_it_names_and_its_fields_filled() -> None:
    for fragment, queries in fragments.USES.items():
        body = fragments._body(fragment)
        assert not body.startswith("--") and fragment.read_text().endswith(body + "\n")  # (its comments left out)
        for q, fields in queries.items():
            text = q.read_text()
            filled = body
            for k, v in fields.items():
                filled = filled.replace("{" + k + "}", v)
            assert "{" not in filled.replace("{{", ""), f"{fragment.name}: a field {q.name} does not fill"
            assert text.count(filled) == 1, f"{q.name} does not hold {fragment.name} once"
            duckdb.extract_statements(text)  # (still SQL)


@pytest.fixture
def copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """One fragment and one query that holds it, copied, the query's copy drifted from it."""
    fragment, queries = next(iter(fragments.USES.items()))
    query, fields = next(iter(queries.items()))
    frag, q = tmp_path / fragment.name, tmp_path / query.name
    frag.write_text(fragment.read_text())
    q.write_text(query.read_text().replace("count(*) OVER", "count(1) OVER", 1))
    monkeypatch.setattr(fragments, "USES", {frag: {q: fields}})
    return q


def test_check_names_a_query_that_drifted_and_write_puts_the_fragment_back(copy, capsys) -> None:
    q = copy
    drifted = q.read_text()
    assert fragments.main(["--check"]) == 1
    assert capsys.readouterr().out == f"differs: {q}\n"
    assert q.read_text() == drifted  # (--check writes nothing)
    assert fragments.main([]) == 0
    assert "count(1) OVER" not in q.read_text() and "count(*) OVER" in q.read_text()
    assert q.read_text().replace("count(*) OVER", "count(1) OVER", 1) == drifted  # nothing else moved
    assert fragments.main(["--check"]) == 0


def test_a_query_without_the_fragment_is_a_clear_error(copy) -> None:
    q = copy
    q.write_text("SELECT 1;\n")
    with pytest.raises(ValueError, match="holds no CTEs 'res' to 'attributed'"):
        fragments.main(["--check"])


def test_a_wrong_argument_is_a_usage_error(capsys) -> None:
    assert fragments.main(["--write"]) == 2
    assert capsys.readouterr().err == "usage: python -m survey.census.fragments [--check]\n"
