"""A root one folder off: counted and named (``corpus.rootcheck``), never a silent page of zeros.

Each runtime's generated corpus is crawled from above its root (``~/.claude`` for
``~/.claude/projects``), from inside it (one project's folder) and from another runtime's
store; the check must name the move that puts files back on the walked surfaces, and name a
folder only where the profile itself uses that name.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from survey.cli import app
from survey.corpus.crawl import crawl
from survey.corpus.rootcheck import RootCheck, check_inventory, profile_folder_names
from survey.runtimes import get

SALT = b"r" * 32
# the runtimes whose roots have a name of their own (cursor_stream's captures may be anywhere)
NAMED = ("claude_code", "codex", "cursor", "cursor_chats", "cursor_desktop")


def _generate(runtime: str, root: Path, seed: int = 3) -> None:
    root.mkdir(parents=True)
    importlib.import_module(get(runtime).synth).generate(root, seed=seed, sessions=3)


def _check(runtime: str, root: Path) -> RootCheck | None:
    p = get(runtime)
    return check_inventory(p, root, crawl(root, p, SALT))


def _root_name(runtime: str) -> str:
    return Path(get(runtime).default_roots[0]).name


@pytest.mark.parametrize("runtime", NAMED)
def test_a_root_one_folder_too_high_names_the_profiles_folder(runtime: str, tmp_path: Path) -> None:
    name = _root_name(runtime)
    _generate(runtime, tmp_path / name)
    assert _check(runtime, tmp_path / name) is None  # the right root: nothing to say
    got = _check(runtime, tmp_path)
    assert got is not None and got.move == "down" and got.levels == 1
    assert got.folder == name and name in profile_folder_names(get(runtime))
    assert 0 < got.would_walk <= got.examined <= got.files
    assert f"pass --root <root>/{name}" in got.message()


@pytest.mark.parametrize("runtime", NAMED)
def test_a_root_one_folder_too_low_says_its_parent(runtime: str, tmp_path: Path) -> None:
    root = tmp_path / _root_name(runtime)
    _generate(runtime, root)
    # the subfolder holding most of the files: a project, a year, a chat's workspace...
    sub = max((d for d in root.iterdir() if d.is_dir()), key=lambda d: sum(1 for f in d.rglob("*") if f.is_file()))
    got = _check(runtime, sub)
    assert got is not None and (got.move, got.levels, got.folder) == ("up", 1, None)
    assert got.would_walk > 0
    assert "its parent folder as the root" in got.message()
    assert sub.name not in got.message()


def test_a_large_root_is_sampled_across_its_folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import survey.corpus.rootcheck as rc

    # a home's other folders (crawled before ``projects``) are far more than LIMIT files
    for i in range(60):
        (tmp_path / "cache" / f"{i:02}").mkdir(parents=True)
        (tmp_path / "cache" / f"{i:02}" / "x.bin").write_bytes(b"x")
    _generate("claude_code", tmp_path / "projects")
    p = get("claude_code")
    inv = crawl(tmp_path, p, SALT)
    # the crawl's order is the file system's: put the other folders first, as a home may
    inv.frame = inv.with_names(inv.frame).sort("path").drop("path")
    monkeypatch.setattr(rc, "LIMIT", 20)
    got = check_inventory(p, tmp_path, inv)
    assert got is not None and got.folder == "projects" and got.examined <= 20 < got.files


def test_a_folder_name_that_is_not_the_profiles_is_never_printed(tmp_path: Path) -> None:
    canary = "canary-4f1d-private-folder"
    _generate("claude_code", tmp_path / canary)
    got = _check("claude_code", tmp_path)
    assert got is not None and got.move == "down" and got.folder is None
    text = json.dumps(got.to_json())
    assert canary not in text and str(tmp_path) not in text
    assert "one of its subfolders (not named: folder names are data)" in got.message()


def test_only_the_ends_of_the_profiles_roots_are_nameable() -> None:
    import dataclasses

    p = get("cursor_desktop")
    # a Windows root, built from %APPDATA%: the user's own folders come first
    win = dataclasses.replace(p, default_roots=("C:/Users/alice-canary/AppData/Roaming/Cursor/User",))
    assert profile_folder_names(win) == {"Cursor", "User"}
    assert profile_folder_names(get("claude_code")) >= {"projects", ".claude"}


def test_another_runtimes_store_and_an_empty_root(tmp_path: Path) -> None:
    # (not Codex's: two folders down, its ``<day>/<rollout>.jsonl`` is a Claude Code layout)
    _generate("cursor_chats", tmp_path / "chats")
    got = _check("claude_code", tmp_path / "chats")
    assert got is not None and got.move is None and got.files > 0
    assert "is it claude_code's root?" in got.message()
    (tmp_path / "empty").mkdir()
    empty = _check("claude_code", tmp_path / "empty")
    assert empty is not None and empty.files == 0 and "holds no files" in empty.message()


def test_the_run_counts_it_on_the_page_and_fails_strict(tmp_path: Path) -> None:
    _generate("claude_code", tmp_path / "home" / "projects")
    args = ["run", "-r", "claude_code", "--root", str(tmp_path / "home"), "--snapshots", str(tmp_path / "s"),
            "--reports", str(tmp_path / "r"), "--date", "2026-01-02"]
    r = CliRunner().invoke(app, [*args, "--strict", "--json"])
    assert r.exit_code == 3, r.output
    res = json.loads(r.output)["results"][0]
    assert res["walked_files"] == 0 and res["root_check"]["folder"] == "projects"
    manifest = json.loads((Path(res["snapshot"]) / "manifest.json").read_text())
    assert manifest["root_check"] == res["root_check"]
    page = Path(res["page"]).read_text()
    assert "Not this runtime's root?" in page and "pass --root <root>/projects" in page
    assert str(tmp_path / "home") not in page  # (the snapshot it cites is the output, under s/)
    crawled = CliRunner().invoke(app, ["crawl", "-r", "claude_code", "--root", str(tmp_path / "home"), "--json"])
    assert crawled.exit_code == 0 and json.loads(crawled.output)["root_check"] == res["root_check"]
    # the right root: no banner, and --strict passes on a clean generated corpus's root check
    ok = CliRunner().invoke(app, ["run", "-r", "claude_code", "--root", str(tmp_path / "home" / "projects"),
                                  "--snapshots", str(tmp_path / "s2"), "--reports", str(tmp_path / "r2"),
                                  "--date", "2026-01-02", "--json"])
    assert ok.exit_code == 0, ok.output
    res2 = json.loads(ok.output)["results"][0]
    assert res2["root_check"] is None and res2["walked_files"] > 0
    assert "Not this runtime's root?" not in Path(res2["page"]).read_text()
