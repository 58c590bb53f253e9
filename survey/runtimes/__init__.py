"""Runtime profiles, by name. Adding a runtime adds a folder here and one template
(docs/adding-a-runtime.md); ``register`` adds one from elsewhere, in this process."""

from __future__ import annotations

import importlib

from survey.runtimes.base import Profile

NAMES = ("cursor", "cursor_chats", "cursor_desktop", "cursor_stream", "claude_code", "codex")


# runtimes registered in this process (a profile whose ``home`` folder holds its vocab.json,
# queries/ and template): found by ``get`` and the renderer, not listed in NAMES
REGISTERED: dict[str, Profile] = {}


def register(profile: Profile) -> None:
    """Make ``profile`` a runtime of this process (``get(profile.name)`` returns it).
    Walk workers are forked from this process, so register before the first survey."""
    if profile.name in NAMES:
        raise ValueError(f"runtime {profile.name!r} is shipped: pick another name")
    REGISTERED[profile.name] = profile


def unregister(name: str) -> None:
    REGISTERED.pop(name, None)


def get(name: str) -> Profile:
    if name in REGISTERED:
        return REGISTERED[name]
    if name not in NAMES:
        raise KeyError(f"unknown runtime {name!r}; known: {', '.join(NAMES)}")
    mod = importlib.import_module(f"survey.runtimes.{name}")
    return mod.PROFILE


def all_profiles() -> list[Profile]:
    return [get(n) for n in NAMES]
