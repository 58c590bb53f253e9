"""Runtime profiles: everything runtime-specific, as data.

A profile is a frozen record plus a folder of ``.sql`` files (``queries/``) and one page
template. Nothing in the pipeline branches on a runtime's name: the crawl classifies files by
the profile's surfaces, the walk extracts what the profile declares, the census runs the
profile's queries, the evidence stage runs its probes, and the page is its template.

Paths in a profile use one small syntax, the same one the walk writes into Parquet:
``$`` is the record, ``.key`` a member, ``[]`` an array element, and ``[type=X]`` an array
element that is an object whose ``type`` is X (so block key sets are per block type).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent


@dataclass(frozen=True)
class Surface:
    """A class of files, recognised by a regex over the path relative to the root.

    ``kind`` says how files are read: ``jsonl`` (framed and walked), ``json`` (one document,
    walked as one record), ``text`` (counted, line-scanned by ``text_headings``), ``sqlite``
    (a store, read by its profile's store reader) or ``blob`` (counted only).
    Named groups ``session`` and ``parent`` in the regex give ids from the path.
    """

    name: str
    pattern: str
    kind: str = "jsonl"
    walk: bool = True
    description: str = ""

    def regex(self) -> re.Pattern[str]:
        """The pattern, with ``.`` matching a newline too (DOTALL): a name may hold one, and
        DuckDB's globs and rg's take it as any other character. A match ends at the path's
        end (``\\Z``): ``$`` alone also matches before a final newline."""
        return re.compile(f"(?:{self.pattern})\\Z", re.DOTALL)


@dataclass(frozen=True)
class Probe:
    """A negative (or positive) grep over every file of a scope.

    ``literals`` are searched in their JSON-encoded form (``"tool_result"`` with quotes), so
    a key is found as a key or a string, never as part of a longer word. ``key`` names the
    JSON key the probe is about, when it is about one: the page then shows the structural
    figure (files where the walk saw the key) beside the text figure.
    """

    id: str
    literals: tuple[str, ...]
    scope: str
    expect: str = "absent"  # absent | present | count (informational: the figure is the point)
    key: str | None = None
    key_paths: tuple[str, ...] = ()  # where the key counts structurally; () = any path
    about: str = ""


@dataclass(frozen=True)
class Scope:
    """Files a probe searches: DuckDB globs and the equivalent ripgrep ``-g`` globs."""

    name: str
    duckdb_globs: tuple[str, ...]
    rg_globs: tuple[str, ...]
    surfaces: tuple[str, ...]


@dataclass(frozen=True)
class Note:
    """Knowledge the corpus cannot show (what a client's loader requires, behaviour seen only
    live), kept with its source and rendered with a ``[reference]`` label, never as a finding.

    ``check(kit)``, where the census can test the note, returns ``(holds, evidence)``:
    True marks it ``holds``, False ``CONTRADICTED`` (the data wins), None ``not determined``.
    """

    id: str
    text: str
    source: str  # the document and its date, e.g. "cursor-session-schema.txt, 2026-09-18"
    check: Callable[..., tuple[bool | None, Any]] | None = None


@dataclass(frozen=True)
class Link:
    """A link the format promises between records (or a record and its file), evaluated as a
    join over the walk's salted pseudonyms (``walk/links.parquet``): how many source records
    find their target, how many do not, and the rate. No id leaves: refs are compared as
    64-bit pseudonyms inside DuckDB and only counts come out.

    ``source`` and ``target`` are ``(record class, link kind)``: the record class as the walk
    names it (``"*"``: any), the kind a key of ``Profile.links``. A target of
    ``("<path>", "session")`` is the id the file's path carries (the surface's ``session``
    group, as the inventory keeps it). ``scope`` is where a target is looked for: ``file``
    (the same file), ``store`` (the files of one store folder: the same path id) or
    ``corpus`` (anywhere). ``expect``: ``all`` (every source finds a target), ``unique``
    (exactly one target, and one source per id: a pairing) or ``constant`` (the source kind
    holds one value per scope unit; no target).

    ``compared_by="reader"``: the profile's store reader compares the two sides itself (ids
    or digests it must not emit) and counts the outcome per store into its facts as
    ``link_<name>_matched`` / ``link_<name>_unmatched``; ``source``/``target`` then only
    label the two sides.
    """

    name: str
    source: tuple[str, str]
    target: tuple[str, str] | None = None
    scope: str = "file"  # file | store | corpus
    expect: str = "all"  # all | unique | constant
    about: str = ""  # what the link means, as the page states it
    compared_by: str = "sql"  # sql | reader

    def __post_init__(self) -> None:
        if self.scope not in ("file", "store", "corpus"):
            raise ValueError(f"link {self.name}: unknown scope {self.scope!r}")
        if self.expect not in ("all", "unique", "constant"):
            raise ValueError(f"link {self.name}: unknown expectation {self.expect!r}")
        if self.compared_by not in ("sql", "reader"):
            raise ValueError(f"link {self.name}: compared by {self.compared_by!r}")
        if (self.expect == "constant") != (self.target is None) and self.compared_by == "sql":
            raise ValueError(f"link {self.name}: a target, except for a constant")
        if not re.fullmatch(r"[a-z][a-z0-9_]*", self.name):
            raise ValueError(f"link name {self.name!r}: lower-case letters, digits, _")


@dataclass(frozen=True)
class SubagentPairs:
    """How a runtime's subagent files pair with their parents, so that their shapes (record
    class, path, JSON type, key set: ``walk/nodes.parquet``) can be compared
    (``evidence/subagents.py`` makes one query a runtime from one template).

    ``tops``: the surfaces of top-level transcripts. A child is found either by its path
    (``children``: its surfaces; its parent is the top file whose path id is the child's
    path parent id) or by its first header (``header = (record class, parent kind, own
    kind)``, kinds of ``Profile.links``: a file whose first record of that class carries a
    parent id other than its own id is a child, and its parent is the file whose first such
    record's own id is that parent id). Ids are compared as salted pseudonyms; only counts
    and paths leave.
    """

    tops: tuple[str, ...]
    children: tuple[str, ...] = ()
    header: tuple[str, str, str] | None = None

    def __post_init__(self) -> None:
        if bool(self.children) == (self.header is not None):
            raise ValueError("subagent pairs: children surfaces or a header, one of the two")


@dataclass(frozen=True)
class Profile:
    name: str
    title: str
    default_roots: tuple[str, ...]
    env_roots: tuple[str, ...]
    surfaces: tuple[Surface, ...]
    # walk
    record_class: tuple[str, ...]  # paths whose gated values name a record's class
    frame_fields: dict[str, str]  # column -> path, gated vocabulary values per frame
    carriers: tuple[str, ...]  # paths of block arrays (e.g. "message.content")
    block_name_key: str = "name"
    payload_keys: tuple[str, ...] = ("text", "thinking", "input", "content")
    vocab_paths: frozenset[str] = frozenset()
    withheld_paths: frozenset[str] = frozenset()
    dict_paths: frozenset[str] = frozenset()
    opaque_paths: frozenset[str] = frozenset()
    links: dict[str, str] = field(default_factory=dict)  # kind -> path (hashed ids)
    # links evaluated as joins over those ids (``evidence/links.py``): a rate and its evidence each
    declared_links: tuple[Link, ...] = ()
    # subagent files and their parents, whose shapes are compared (None: no subagent files)
    subagent_pairs: SubagentPairs | None = None
    # name -> path: numeric values recorded per frame (walk/numbers.parquet: file_id, line_no,
    # name, value), e.g. token counts for the usage double-count factor
    numbers: dict[str, str] = field(default_factory=dict)
    # name -> path: a string there names a file; only whether it exists is recorded
    # (walk/markers.parquet rows "<name>:present" / "<name>:missing"), never the path
    exists_checks: dict[str, str] = field(default_factory=dict)
    # paths whose string values are JSON documents: decoded and walked (path + ".<json>")
    # with at most ``carrier_depth`` further levels; every cut is counted as a truncation
    json_carriers: frozenset[str] = frozenset()
    carrier_depth: int = 3
    markers: dict[str, tuple[str, str]] = field(default_factory=dict)  # name -> (path, substring)
    # (a marker named ``text:<label>``, or ``text:<label>@<where>`` for a second path, is a text
    # marker: its records and files are counted and stated on the page, never the text around it)
    # claim id -> globs over key-census paths (``*`` any run of characters; ``class|path`` to
    # name a record class too): the key sets of the objects there, per record class, each key
    # with its presence rate
    nested_keysets: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # a store's record class -> (a top-level key, its name key, its input key): the object
    # there is a named block (one ``blocks`` row, carrier ``$.<key>``: its name through the
    # gate at ``$.<key>.<name key>``, its input's type and key set; an input that is a string
    # is JSON carried in it, parsed, ``<not-json>`` where it does not parse; absent or null: no
    # input), so the tool-input key sets per tool name serve it as they serve block arrays
    named_objects: dict[str, tuple[str, str, str]] = field(default_factory=dict)
    text_headings: dict[str, str] = field(default_factory=dict)  # name -> regex with group 1
    max_keys: int = 40
    max_depth: int = 12
    # evidence
    scopes: tuple[Scope, ...] = ()
    probes: tuple[Probe, ...] = ()
    # pages
    template: str = ""
    claims: Callable[..., None] | None = None  # claims(kit): states the page's sentences
    notes: tuple[Note, ...] = ()  # reference notes, stated after the claims (kind "reference")
    handmade_marker: str = "handmade"
    synth: str = ""  # module of the runtime's generator (survey.synth.<name>)
    fixtures: str = ""  # module whose PREDICATES declare the fixture set (survey.export.fixtures)
    # For ``sqlite`` surfaces: "module.function" taking the db path and returning
    # (facts: dict, records: iterator of (rclass, status, obj | None, nbytes)).
    store_reader: str = ""
    # record statuses that are the format's normal state here, not problems (e.g. "opaque"
    # agentKv cells, "non_json" protobuf blobs): counted on the page, not by --strict
    expected_statuses: frozenset[str] = frozenset()
    # the folder of its vocab.json, queries/ and (outside the shipped ones) its page template;
    # "" is survey/runtimes/<name>/ (a runtime registered from elsewhere names its own)
    home: str = ""

    @property
    def folder(self) -> Path:
        return Path(self.home) if self.home else HERE / self.name

    @property
    def queries_dir(self) -> Path:
        return self.folder / "queries"

    def surface(self, name: str) -> Surface:
        for s in self.surfaces:
            if s.name == name:
                return s
        raise KeyError(name)

    def scope(self, name: str) -> Scope:
        for s in self.scopes:
            if s.name == name:
                return s
        raise KeyError(name)

    def env_root_paths(self) -> list[Path]:
        """The roots the environment names, in ``env_roots`` order (those set).

        An ``env_roots`` entry ``VAR/sub`` means the folder ``sub`` under ``$VAR`` (e.g.
        ``CODEX_HOME/sessions``); a plain ``VAR`` is the root itself.
        """
        out = []
        for env in self.env_roots:
            var, _, sub = env.partition("/")
            val = os.environ.get(var)
            if val:
                out.append(Path(val).expanduser() / sub if sub else Path(val).expanduser())
        return out

    def env_root_name(self) -> str | None:
        """The ``env_roots`` entry (``VAR`` or ``VAR/sub``) that names this machine's root,
        where the environment names one (the first set, as ``env_root_paths`` orders them)."""
        for env in self.env_roots:
            if os.environ.get(env.partition("/")[0]):
                return env
        return None

    def default_root(self) -> Path | None:
        """First existing root: env overrides first (``env_root_paths``), then the defaults."""
        env = self.env_root_paths()
        if env:
            return env[0]
        for r in self.default_roots:
            p = Path(r).expanduser()
            if p.is_dir() and _has_entries(p):
                return p  # an empty store folder is no store: the demo stands in for it
        return None

    def owns_root(self, root: Path) -> bool:
        """Is ``root`` where this runtime keeps its store: a folder its environment names, or
        one of its default roots (compared resolved)?"""
        want = root.expanduser().resolve()
        mine = [*self.env_root_paths(), *(Path(r).expanduser() for r in self.default_roots)]
        return any(p.resolve() == want for p in mine)


def _has_entries(p: Path) -> bool:
    try:
        return next(os.scandir(p), None) is not None
    except OSError:
        return False


def load_vocab(name: str) -> tuple[frozenset[str], dict[str, frozenset[str]]]:
    """Read a runtime's reviewed vocabulary (``runtimes/<name>/vocab.json``)."""
    import orjson

    from survey.runtimes import get

    data = orjson.loads((get(name).folder / "vocab.json").read_bytes())
    keys = frozenset(data.get("keys", []))
    values = {p: frozenset(v) for p, v in data.get("values", {}).items()}
    return keys, values


def vocab_version(name: str) -> str:
    """The reviewed vocabulary's version: the first 16 hex digits of sha256 over its file
    (snapshots of one version gate keys and values alike: ``survey merge`` checks it)."""
    import hashlib

    from survey.runtimes import get

    return hashlib.sha256((get(name).folder / "vocab.json").read_bytes()).hexdigest()[:16]
