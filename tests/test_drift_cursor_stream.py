"""Drift operators for the stream-json page: each rewrites the captures as a CLI update would
(a new event family, a key every event of a family had dropped, a new outcome or variant, a
renamed key, a key appearing) and the page must say the new thing, keep no sentence the change
made false, and ``survey diff --fail-on-drift`` must exit 3.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from survey.synth import cursor_stream
from tests.drift import Surveyed, check_drift, survey_once


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Surveyed]:
    tmp = tmp_path_factory.mktemp("stream_base")
    root = tmp / "captures"
    cursor_stream.generate(root, seed=11, sessions=4)
    return root, survey_once("cursor_stream", root, tmp, "2026-01-01")


def rewrite(root: Path, fn: Callable[[dict[str, Any]], dict[str, Any] | list[dict[str, Any]] | None]) -> None:
    """Apply ``fn`` to every JSON event of every capture (None drops it, a list replaces it);
    plain-text lines stay as they are."""
    for f in sorted(root.rglob("*.jsonl")):
        out = []
        for line in f.read_bytes().split(b"\n"):
            try:
                ev = json.loads(line)
            except ValueError:
                out.append(line)
                continue
            new = fn(ev)
            for e in ([] if new is None else new if isinstance(new, list) else [new]):
                out.append(json.dumps(e, separators=(",", ":")).encode())
        f.write_bytes(b"\n".join(out))


def gone(old: Any, new: Any, *cids: str) -> None:
    """The old sentence of each claim, false after the drift, is nowhere on the new page."""
    for cid in cids:
        assert old.claims[cid]["text"] not in new.page, cid


def test_a_new_event_family_is_named_and_contradicts_the_reference_list(base: tuple[Path, Surveyed], tmp_path: Path) -> None:
    def heartbeat(ev: dict[str, Any]) -> Any:
        if ev.get("type") == "system":
            return [ev, {"type": "status", "subtype": "heartbeat", "session_id": ev.get("session_id")}]
        return ev

    root, old = base
    new = check_drift("cursor_stream", old, root, lambda r: rewrite(r, heartbeat),
                           changed=["families", "family_keysets", "ref_families"], stale=[],
                           tmp=tmp_path)
    gone(old, new, "families")
    assert old.claims["ref_families"]["value"] is True
    assert new.claims["ref_families"]["value"] is False
    # an unreviewed type is withheld, never printed: the new family shows as a placeholder
    assert new.claims["families"]["value"]["<withheld>/<withheld>"] == 4
    assert "heartbeat" not in new.page


def test_timestamp_dropped_from_every_tool_call_event(base: tuple[Path, Surveyed], tmp_path: Path) -> None:
    def drop(ev: dict[str, Any]) -> Any:
        if ev.get("type") == "tool_call":
            ev.pop("timestamp_ms", None)
        return ev

    root, old = base
    new = check_drift("cursor_stream", old, root, lambda r: rewrite(r, drop), changed=["timestamps"],
                           stale=[], tmp=tmp_path)
    was = old.claims["timestamps"]["text"]
    assert "tool_call/started" in was.split("; on none of")[0]          # timed before
    assert "tool_call/started" not in new.claims["timestamps"]["text"].split("; on none of")[0]
    gone(old, new, "timestamps")


def test_a_new_outcome_changes_the_outcome_map_and_the_reference_check(base: tuple[Path, Surveyed], tmp_path: Path) -> None:
    def abort(ev: dict[str, Any]) -> Any:
        if ev.get("type") == "tool_call" and ev.get("subtype") == "completed":
            for v in ev["tool_call"].values():
                if isinstance(v, dict) and isinstance(v.get("result"), dict):
                    v["result"] = {"aborted": {}}
        return ev

    root, old = base
    new = check_drift("cursor_stream", old, root, lambda r: rewrite(r, abort),
                           changed=["result_outcomes", "ref_outcomes"], stale=[], tmp=tmp_path)
    # a key outside the reviewed vocabulary is masked, never printed
    assert set(new.claims["result_outcomes"]["value"]["outcomes"]) == {"<unreviewed-key>"}
    assert "aborted" not in new.page
    assert new.claims["ref_outcomes"]["value"] is False
    gone(old, new, "result_outcomes")


def test_a_tool_call_with_two_keys_breaks_the_single_key_sentence(base: tuple[Path, Surveyed], tmp_path: Path) -> None:
    def two(ev: dict[str, Any]) -> Any:
        if ev.get("type") == "tool_call":
            ev["tool_call"]["function"] = {"name": "x", "arguments": "{}"}
        return ev

    root, old = base
    new = check_drift("cursor_stream", old, root, lambda r: rewrite(r, two),
                           changed=["tool_call_single_key"], stale=[], tmp=tmp_path)
    gone(old, new, "tool_call_single_key")
    ok, total = new.claims["tool_call_single_key"]["value"]
    assert ok == 0 and total > 0
    assert "the variant is not always the single key" in new.page


def test_call_id_renamed(base: tuple[Path, Surveyed], tmp_path: Path) -> None:
    def rename(ev: dict[str, Any]) -> Any:
        if "call_id" in ev:
            ev["callId"] = ev.pop("call_id")
        return ev

    root, old = base
    new = check_drift("cursor_stream", old, root, lambda r: rewrite(r, rename),
                           changed=["call_id_newlines", "family_keysets"],
                           stale=["ids must be sanitised"], tmp=tmp_path)
    gone(old, new, "call_id_newlines")
    assert new.claims["call_id_newlines"]["value"] == [0, 0]
    assert old.claims["call_id_newlines"]["value"][0] > 0


@pytest.mark.parametrize("key,cid,note,was,now", [("usage", "no_usage", "ref_usage", None, True),
                                                  ("version", "no_version", "ref_version", True, False)])
def test_a_key_appearing_on_result_events_flips_its_absence(base: tuple[Path, Surveyed], tmp_path: Path, key: str,
                                                            cid: str,
                                                            note: str, was: bool | None, now: bool) -> None:
    def add(ev: dict[str, Any]) -> Any:
        if ev.get("type") == "result":
            ev[key] = {"inputTokens": 1, "outputTokens": 2} if key == "usage" else "2026.02.27"
        return ev

    root, old = base
    new = check_drift("cursor_stream", old, root, lambda r: rewrite(r, add),
                           changed=[cid, note], stale=[], tmp=tmp_path)
    gone(old, new, cid)
    assert new.claims[cid]["value"] is False
    assert old.claims[note]["value"] is was and new.claims[note]["value"] is now


# -- call ids with and without a newline: no key set, value or absence moves, a statement does --
def _call_ids(fn: Callable[[str], str]) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """Rewrite every call id of an event (``call_id`` and the ``toolCallId`` its args echo)."""
    def edit(ev: dict[str, Any]) -> dict[str, Any]:
        if isinstance(ev.get("call_id"), str):
            ev["call_id"] = fn(ev["call_id"])
        for variant in (ev.get("tool_call") or {}).values() if isinstance(ev.get("tool_call"), dict) else ():
            args = variant.get("args") if isinstance(variant, dict) else None
            if isinstance(args, dict) and isinstance(args.get("toolCallId"), str):
                args["toolCallId"] = fn(args["toolCallId"])
        return ev
    return edit


def _one_line(s: str) -> str:
    return s.replace("\n", "")


def test_call_ids_losing_their_newline(base: tuple[Path, Surveyed], tmp_path: Path) -> None:
    root, old = base
    new = check_drift("cursor_stream", old, root, lambda r: rewrite(r, _call_ids(_one_line)), tmp_path,
                      changed=["call_id_newlines", "ref_call_id_newline"], stale=[],
                      named=["call_id_newlines", "ref_call_id_newline"])
    n = old.claims["call_id_newlines"]["value"][1]
    assert old.claims["call_id_newlines"]["value"] == [n, n] and n > 0
    assert new.claims["call_id_newlines"]["value"] == [0, n]
    assert old.claims["ref_call_id_newline"]["value"] is True
    assert new.claims["ref_call_id_newline"]["value"] is not True  # no longer shown to hold
    gone(old, new, "call_id_newlines")


def test_a_call_id_containing_a_newline(base: tuple[Path, Surveyed], tmp_path: Path) -> None:
    """From captures whose call ids are one line each, one call (its started and completed
    events) gets an id with a newline in it."""
    root, _ = base
    clean = tmp_path / "clean"
    clean.mkdir()
    clean_root = clean / "captures"
    shutil.copytree(root, clean_root)
    rewrite(clean_root, _call_ids(_one_line))
    old = survey_once("cursor_stream", clean_root, clean, "2026-01-01")
    first: list[str] = []

    def one(ev: dict[str, Any]) -> dict[str, Any]:
        cid = ev.get("call_id")
        if isinstance(cid, str) and (not first or cid == first[0]):
            first[:1] = [cid]
            return _call_ids(lambda s: s[:8] + "\n" + s[8:])(ev)
        return ev

    new = check_drift("cursor_stream", old, clean_root, lambda r: rewrite(r, one), tmp_path,
                      changed=["call_id_newlines", "ref_call_id_newline"], stale=[],
                      named=["call_id_newlines", "ref_call_id_newline"])
    n = old.claims["call_id_newlines"]["value"][1]
    assert old.claims["call_id_newlines"]["value"] == [0, n]
    assert new.claims["call_id_newlines"]["value"] == [2, n]  # the call's started and completed events
    assert old.claims["ref_call_id_newline"]["value"] is not True
    assert new.claims["ref_call_id_newline"]["value"] is True
    gone(old, new, "call_id_newlines")
