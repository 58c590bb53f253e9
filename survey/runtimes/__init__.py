"""Runtime profiles, by name. Adding a runtime adds a folder here and one template."""

from __future__ import annotations

import importlib

from survey.runtimes.base import Profile

NAMES = ("cursor", "cursor_chats", "cursor_desktop", "cursor_stream", "claude_code", "codex")


def get(name: str) -> Profile:
    if name not in NAMES:
        raise KeyError(f"unknown runtime {name!r}; known: {', '.join(NAMES)}")
    mod = importlib.import_module(f"survey.runtimes.{name}")
    return mod.PROFILE


def all_profiles() -> list[Profile]:
    return [get(n) for n in NAMES]
