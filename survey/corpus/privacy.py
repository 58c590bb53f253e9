"""The privacy gate: what may leave a corpus, and in what form.

Everything the survey writes under ``snapshots/`` or ``reports/`` passes through this module
first: keys and values leave only when identifier-shaped and reviewed, paths and ids only as
salted pseudonyms (``Gate``, ``pseudonym``; the salt stays in the user's config folder)."""

from __future__ import annotations

import functools
import hashlib
import os
import re
import secrets
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from survey import native

IDENT = re.compile(r"^[A-Za-z_][\w.:-]{0,63}\Z")
"""Identifier shape for keys and values (the original recon's ``^[\\w.:-]{1,64}$``, but a
leading digit or punctuation is refused: numbers-as-keys are data, not schema). Anchored with
``\\Z``, not ``$``: ``$`` also matches before a final newline, so ``"name\\n"`` would pass."""

VERSION = re.compile(r"^\d{1,4}\.\d{1,4}\.\d{1,10}(?:-[a-z]{1,10}(?:\.?\d{1,6})?)?\Z")
"""A dotted version number (``2.1.29``, ``0.142.2``, ``1.0.0-beta.3``): like a small integer,
it carries no private data, so it passes the value gate at a declared path whose last key names a
version (``$.version``, ``$.payload.cli_version``, ``$.schemaVersion``: see ``version_path``), in
either mode, reviewed or not."""

VERSION_KEY = re.compile(r"(?:^|[_-])[Vv]ersion\Z|[a-z0-9]Version\Z")
"""A last key that names a version: ``version``, ``cli_version``, ``schemaVersion``; not
``conversion`` or ``subversion``, which merely end in the letters."""

SALT_HEX = re.compile(r"[0-9a-fA-F]{64}")
"""A salt file's whole text (surrounding white space aside): 32 bytes as 64 hex digits."""

UNREVIEWED_KEY = "<unreviewed-key>"
DYNAMIC_KEY = "<dynamic-key>"
RARE_KEY = "<rare-key>"
WITHHELD = "<withheld>"
MASKS = frozenset({UNREVIEWED_KEY, DYNAMIC_KEY, RARE_KEY, WITHHELD})
MODES = ("reviewed", "discover")


def version_path(path: str) -> bool:
    """Whether a value path's last key names a version (``$.payload.cli_version``)."""
    return VERSION_KEY.search(path.rpartition(".")[2]) is not None


def config_dir() -> Path:
    env = os.environ.get("SURVEY_CONFIG_DIR")
    if env:
        return Path(env)
    # (XDG_CONFIG_HOME on Linux; macOS's and Windows' own places)
    from platformdirs import user_config_path

    return user_config_path("survey", appauthor=False)


class SaltError(Exception):
    """The salt cannot be read or kept: its file is open to other users, or is not 64 hex
    digits, or its folder cannot be made or written. The message names the salt's path (the
    machine's configuration, never the corpus) and what to do."""


def load_salt(create: bool = True) -> bytes:
    """The per-machine salt for pseudonyms: 32 bytes, kept as 64 hex digits in a file only its
    owner may read (0600), outside any snapshot.

    A salt file that other users may read (or write) is refused, as ssh refuses such a key:
    with it, anyone on the machine could map pseudonyms back to file names. ``create=False``
    (``survey locate``) never makes one: a missing salt is ``FileNotFoundError``.
    """
    path = config_dir() / "salt"
    if path.is_file():
        try:
            text = path.read_text().strip()
            if not SALT_HEX.fullmatch(text):
                raise ValueError("not 64 hex digits")
            salt = bytes.fromhex(text)
            mode = path.stat().st_mode & 0o777
        except (OSError, ValueError) as exc:
            raise SaltError(f"the survey's salt at {path} cannot be read ({type(exc).__name__}: {getattr(exc, 'strerror', None) or exc}): "
                            "restore it, or remove it to start a new one (pseudonyms then change)") from exc
        if mode & 0o077:  # (a broken salt is named first: chmod would not mend it)
            raise SaltError(f"the survey's salt at {path} is open to other users (mode {mode:04o}): "
                            f"run chmod 600 {shlex.quote(str(path))}")
        return salt
    if not create:
        raise FileNotFoundError("no survey salt on this machine")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        salt = secrets.token_bytes(32)
        # a temp file of this process's own, linked as the salt only where there is none:
        # of first runs at once, one salt is kept and every run uses it
        tmp = path.with_name(f".salt.{os.getpid()}-{secrets.token_hex(4)}.tmp")
        try:
            # made 0600 from the start (O_EXCL: never through a file or link already there; a
            # umask only takes bits away), so the salt is never readable by others, not even
            # for a moment
            with os.fdopen(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w") as f:
                f.write(salt.hex())
            os.link(tmp, path)
        except FileExistsError:
            return load_salt(create=False)
        finally:
            tmp.unlink(missing_ok=True)
    except OSError as exc:
        raise SaltError(f"the survey's salt cannot be kept at {path} ({exc.strerror or type(exc).__name__}): "
                        "set SURVEY_CONFIG_DIR to a folder it may write") from exc
    return salt


@functools.lru_cache(maxsize=8)
def _hmac_states(salt: bytes) -> tuple[Any, Any]:
    """HMAC-SHA256's inner and outer hash states after the key's block (RFC 2104): copying
    them costs a third of setting the key up again for every name (the crawl names every
    file and id: 1.7 -> 0.6 us a name)."""
    key = (hashlib.sha256(salt).digest() if len(salt) > 64 else salt).ljust(64, b"\0")
    return hashlib.sha256(bytes(b ^ 0x36 for b in key)), hashlib.sha256(bytes(b ^ 0x5C for b in key))


def pseudonym(salt: bytes, text: str, kind: str = "f") -> str:
    """A stable, salted, non-reversible name: ``f-1a2b3c4d5e6f`` for files, ``i-…`` for ids
    (the first 64 bits of HMAC-SHA256(salt, kind NUL text), exactly ``hmac.digest``'s)."""
    inner, outer = _hmac_states(salt)
    h = inner.copy()
    h.update(f"{kind}\0{text}".encode("utf-8", "surrogateescape"))
    o = outer.copy()
    o.update(h.digest())
    return f"{kind}-{o.hexdigest()[:16]}"


def pseudonyms(salt: bytes, texts: list[str], kind: str = "f") -> list[str]:
    """``pseudonym`` of each text, in one call to the C core when it is built (0.2 us a name
    there, 1.7 us through ``pseudonym``: the crawl names every file and session)."""
    if native.NATIVE is not None:
        return native.NATIVE.pseudonyms(salt, kind, texts)  # type: ignore[no-any-return]
    return [pseudonym(salt, t, kind) for t in texts]


def id_ref(salt: bytes, text: str) -> int:
    """An id's link ref: its pseudonym's 64 bits (``pseudonym(salt, text, "i")`` as a
    number, ``file_key``), as the walk's ``links`` rows hold it. A number, not the pseudonym:
    the census groups and joins millions of them (the uuid DAG, usage per message), and
    DuckDB cannot inline an 18-character string (12 bytes at most), so each compare and hash
    went through a pointer and its hash tables were twice the size (at 5 GB of Claude Code
    sessions two such queries, beside each other in 384 MB, spilled to disk)."""
    return file_key(pseudonym(salt, text, "i"))


def file_key(file_id: str) -> int:
    """A pseudonym's 64 bits as a number (``f-00000000000000ff`` -> 255): the walk's
    per-record tables carry it beside ``file_id``, because DuckDB joins and partitions on a
    number about three times faster than on an 18-character string (at 5 GB of Cursor
    transcripts, a semi join of 9 M blocks to 4.7 M frames: 1.3 s -> 0.45 s)."""
    return int(file_id[2:], 16)


@dataclass(frozen=True)
class Gate:
    """Decides which keys and values may be written, for one runtime.

    ``keys`` is the reviewed key vocabulary; ``values`` maps a vocabulary path to its
    reviewed values. ``withheld_paths`` are vocabulary paths whose values are withheld unless
    ``allow_mcp_names`` (third-party server and tool names).

    A corpus holds private prompts, code, commands and paths; even its *keys* can be private
    (objects keyed by file paths, env names, MCP argument names). Everything the survey writes
    under ``snapshots/`` or ``reports/`` passes through this module first:

    - **Keys** leave only when identifier-shaped *and* in the runtime's reviewed vocabulary;
      otherwise they become ``<unreviewed-key>`` (identifier-shaped) or ``<dynamic-key>``.
    - **Values** leave only at declared vocabulary paths, identifier-shaped and reviewed;
      every other value is ``<withheld>`` and counted (with a salted pseudonym so distinct
      withheld values can be counted without being revealed).
    - **Paths and ids** become salted HMAC pseudonyms. The salt lives in the user's config dir
      (``$SURVEY_CONFIG_DIR`` or ``~/.config/survey/salt``), never in a snapshot: the same machine
      can map a pseudonym back to its file for a re-check; the snapshot alone reveals nothing.

    Discover mode (``Gate(mode="discover")``) lets unreviewed identifier-shaped keys and values
    through, for a local-only report that is never written under ``snapshots/`` or ``reports/``.
    """

    keys: frozenset[str]
    values: dict[str, frozenset[str]] = field(default_factory=dict)
    mode: str = "reviewed"
    allow_mcp_names: bool = False
    withheld_paths: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        if self.mode not in MODES:  # a misspelt mode must not quietly mean one of them
            raise ValueError(f"gate mode must be one of {', '.join(MODES)}, not {self.mode!r}")

    def key(self, k: str) -> str:
        if not IDENT.match(k):
            return DYNAMIC_KEY
        if k in self.keys or self.mode == "discover":
            return k
        return UNREVIEWED_KEY

    def value(self, path: str, v: object) -> str | None:
        """The value as it may be written, or None when withheld (anything but a string too)."""
        if isinstance(v, str) and VERSION.match(v) and version_path(path):
            return v  # a dotted version at a declared version path ($.version, $.payload.cli_version)
        if not isinstance(v, str) or not IDENT.match(v):
            return None
        if v.startswith("mcp__") and not self.allow_mcp_names:
            return None  # an MCP server__tool name, wherever it sits (tool-name value maps)
        if path in self.withheld_paths and not self.allow_mcp_names:
            return None
        if self.mode == "discover":
            return v
        allowed = self.values.get(path)
        if allowed is not None and v in allowed:
            return v
        return None
