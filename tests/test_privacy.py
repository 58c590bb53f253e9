"""The privacy gate: nothing private leaves, in either mode, and canaries prove it.

Every runtime with a generator is generated with canaries planted in every text, input value,
data-map key, path component, sidecar body and SQLite cell; the whole pipeline runs in
reviewed and in discover mode; then every byte written (JSON, Markdown, and the *decoded*
contents of every Parquet file, since Parquet pages are compressed), plus everything the CLI
printed, is searched for each canary in raw, JSON-escaped, percent-encoded, base64 and
unsalted-hash forms.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import urllib.parse
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from survey.cli import app
from survey.corpus.privacy import IDENT, MASKS, VERSION
from survey.runtimes import NAMES, get
from survey.runtimes.base import load_vocab
from survey.synth.demo import generator

from .conftest import corpora

CANARY = re.compile(r"cnry[0-9a-f]{12}z")
HEX = re.compile(r"[0-9a-f]{32,64}")
B64 = re.compile(r"[A-Za-z0-9+/]{16,}={0,2}")


def leaks(canaries: list[str], haystack: str) -> set[str]:
    """Canaries found in the haystack raw, JSON-escaped, percent-encoded (all the same bytes
    for these alphanumeric tokens), as an unsalted md5/sha1/sha256 hex digest, or inside
    any base64 run at any alignment. Linear in the haystack."""
    wanted = set(canaries)
    found = set(CANARY.findall(haystack)) & wanted
    found |= {c for c in wanted if urllib.parse.quote(c) != c and urllib.parse.quote(c) in haystack}
    digests = {h(c.encode()).hexdigest(): c for c in wanted for h in (hashlib.md5, hashlib.sha1, hashlib.sha256)}
    found |= {digests[t] for t in HEX.findall(haystack) if t in digests}
    for run in B64.findall(haystack):
        for off in range(4):
            chunk = run[off:]
            chunk = chunk[: len(chunk) // 4 * 4]
            try:
                dec = base64.b64decode(chunk).decode("latin-1")
            except ValueError:
                continue
            found |= set(CANARY.findall(dec)) & wanted
    return found


def written_text(folder: Path) -> str:
    """Everything under a folder as text, with Parquet decoded to its cell values."""
    parts = []
    for p in sorted(folder.rglob("*")):
        if not p.is_file():
            continue
        if p.suffix == ".parquet":
            df = pl.read_parquet(p)
            try:
                parts.append(df.write_csv())
            except pl.exceptions.ComputeError:  # nested columns (the grep cache's counts): as JSON
                parts.append(df.write_ndjson())
        else:
            parts.append(p.read_bytes().decode("utf-8", "replace"))
    return "\n".join(parts)


# census tables whose rows name gated paths: each must be in the snapshot the search reads
CENSUS_TABLES = {"cursor": ("links_subagent_schema",), "claude_code": ("links_subagent_schema", "links_agent_id"),
                 "codex": ("links_subagent_schema",)}


def runtimes_with_generators() -> list[str]:
    out = []
    for n in NAMES:
        try:
            generator(n)
        except (KeyError, ModuleNotFoundError):
            continue
        out.append(n)
    return out


def test_leak_search_finds_every_form() -> None:
    c = "cnry0123456789abz"
    for form in (c, hashlib.sha256(c.encode()).hexdigest(), base64.b64encode(b"xx" + c.encode()).decode()):
        assert leaks([c], f"prefix {form} suffix") == {c}, form
    assert leaks([c], "nothing here") == set()


@pytest.mark.parametrize("runtime", runtimes_with_generators())
def test_no_canary_leaves_in_either_mode(runtime: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "corpus"
    root.mkdir()
    planted = generator(runtime)(root, seed=11, canaries=True)
    canaries = planted["canaries"]
    assert len(canaries) > 20, "the generator must plant canaries everywhere"
    monkeypatch.chdir(tmp_path)
    # the caches (the walk's parts and meta, the crawl's classes, the greps' counts, the
    # census's partial rows) are searched too: they claim to be no more private than a snapshot
    monkeypatch.setenv("SURVEY_CACHE_DIR", str(tmp_path / "cache"))
    # (split however small its walk tables, as a large corpus's census is: its rows kept)
    monkeypatch.setattr("survey.census.sql.SPLIT_MIN_BYTES", 0)
    printed = []
    for mode in ("reviewed", "discover"):
        r = CliRunner().invoke(app, ["run", "-r", runtime, "--root", str(root), "--mode", mode,
                                     "--date", "2026-01-01", "--json"])
        assert r.exit_code == 0, r.output
        printed.append(r.output)
        r = CliRunner().invoke(app, ["run", "-r", runtime, "--root", str(root), "--mode", mode,
                                     "--date", "2026-01-02"])
        printed.append(r.output)
    assert (tmp_path / "snapshots").is_dir() and (tmp_path / "discover").is_dir()
    # every chart beside the pages is searched, byte for byte, as the pages are
    assert list((tmp_path / "reports").rglob("*.svg")) and list((tmp_path / "discover").rglob("*.svg"))
    assert list((tmp_path / "cache").rglob("*.census/*.parquet")), "no partial rows kept to search"
    for table in ("rawsets", "formats"):  # (raw key sets' pseudonyms, value formats: searched like the rest)
        assert list((tmp_path / "snapshots").rglob(f"walk/{table}.parquet")), f"no {table} table to search"
    if runtime == "cursor_desktop":  # the result marker and the composers' counts: searched like the rest
        snap = next((tmp_path / "snapshots").rglob("walk/markers.parquet")).parent
        assert "tool_result" in pl.read_parquet(snap / "markers.parquet")["name"].to_list()
        assert "composers_without_bubbles" in pl.read_parquet(snap / "stores.parquet").columns
    # the subagent-schema comparison (gated paths only children hold) and agentId by file kind
    census = "\n".join(p.read_text() for p in (tmp_path / "snapshots").rglob("census.json"))
    for query in CENSUS_TABLES.get(runtime, ()):
        assert f'"{query}"' in census, f"no {query} rows to search"
    haystack = "\n".join([written_text(tmp_path / "snapshots"), written_text(tmp_path / "reports"),
                          written_text(tmp_path / "discover"), written_text(tmp_path / "cache"), *printed])
    leaked = sorted(leaks(canaries, haystack))
    assert not leaked, f"{len(leaked)} canaries leaked, e.g. {leaked[:3]}"
    # sanity: the canaries are really in the corpus (the search would find them)
    corpus_text = written_text(root)
    assert sum(c in corpus_text for c in canaries) >= len(canaries) // 2


def _emitted(snap: Path) -> tuple[set[str], dict[str, set[str]]]:
    nodes = pl.read_parquet(snap / "walk" / "nodes.parquet")
    keys: set[str] = set()
    for ks in nodes["keyset"].drop_nulls().to_list():
        if ks and ks not in MASKS and not ks.startswith("<"):
            keys.update(ks.split(","))
    for path in nodes["path"].to_list():
        for seg in path.replace("[]", "").split("."):
            seg = seg.split("[", 1)[0]
            if seg and seg != "$":
                keys.add(seg)
    vals = pl.read_parquet(snap / "walk" / "values.parquet")
    values: dict[str, set[str]] = {}
    for p, v in vals.select("path", "value").iter_rows():
        values.setdefault(p, set()).add(v)
    return keys, values


def test_reviewed_run_over_real_samples_emits_only_reviewed_vocabulary(tmp_path: Path) -> None:
    from survey.pipeline import run_survey
    from survey.samples import landed_roots

    base = corpora()
    for root, runtime, label in landed_roots(base):
        res = run_survey(get(runtime), root, snapshots=tmp_path / "s" / label, reports=tmp_path / "r" / label,
                         date="2026-01-01")
        keys, values = _emitted(Path(res.snapshot))
        vkeys, vvalues = load_vocab(runtime)
        bad_keys = {k for k in keys if k not in vkeys and k not in MASKS and not k.startswith("<")}
        assert not bad_keys, (label, sorted(bad_keys)[:10])
        for path, vs in values.items():
            for v in vs:
                ok = (v in MASKS or v in {"true", "false", "null"} or v.lstrip("-").isdigit()
                      or v in vvalues.get(path, frozenset())
                      # the gate's one rule beside the vocabulary: a dotted version at a version path
                      or (bool(VERSION.match(v)) and path.lower().endswith("version")))
                assert ok, (label, path, v)
                assert IDENT.match(v) or v in MASKS or v.lstrip("-").isdigit() or VERSION.match(v)


def test_real_sample_strings_and_private_keys_never_reach_output(tmp_path: Path) -> None:
    """The check the before-stop hook runs: long strings and data-map keys of the real
    samples, as canaries, against every byte the survey writes for those samples."""
    from survey.samples import main

    base = corpora()
    # Reviewed vocabulary values are schema words a person approved for output (a record type
    # such as inter_agent_communication_metadata is 34 characters long): not probes.
    reviewed = {v for n in NAMES for vs in load_vocab(n)[1].values() for v in vs}
    probes: set[str] = set()
    for p in base.rglob("*.json*"):
        for line in p.open("rb"):
            try:
                stack = [(json.loads(line), "")]
            except ValueError:
                continue
            while stack:
                x, parent = stack.pop()
                if isinstance(x, dict):
                    keyed = parent in ("trackedFileBackups", "env", "headers") or len(x) > 8
                    for k, v in x.items():
                        if keyed and len(k) >= 10 and not k.isidentifier() and "\n" not in k:
                            probes.add(k)
                        stack.append((v, k))
                elif isinstance(x, list):
                    stack.extend((v, parent) for v in x)
                elif isinstance(x, str) and len(x) >= 32 and "\n" not in x[:32] and x not in reviewed:
                    probes.add(x[:32])
    assert len(probes) > 100
    main(["--corpora", str(base), "--out", str(tmp_path / "samples")])
    hay = written_text(tmp_path / "samples")
    leaked = [p for p in probes if p in hay]
    assert not leaked, f"{len(leaked)} real strings leaked, e.g. {leaked[:2]!r}"


def test_discover_candidates_and_vocab_proposal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "c" / "proj" / "agent-transcripts" / "s1"
    root.mkdir(parents=True)
    (root / "s1.jsonl").write_text(
        json.dumps({"role": "user", "brandNewKey": 1, "message": {"content": [{"type": "text", "text": "x"}]}}) + "\n")
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(app, ["run", "-r", "cursor", "--root", str(tmp_path / "c")])
    assert r.exit_code == 0, r.output
    page = (tmp_path / "reports" / "cursor.md").read_text()
    assert "brandNewKey" not in page and "<unreviewed-key>" in written_text(tmp_path / "snapshots")
    r = CliRunner().invoke(app, ["run", "-r", "cursor", "--root", str(tmp_path / "c"), "--mode", "discover"])
    assert r.exit_code == 0, r.output
    cands = tmp_path / "discover" / "candidates-cursor.json"
    # discover mode collapses keys seen in fewer than 3 files by default: a one-file key stays hidden
    assert json.loads(cands.read_text())["keys"] == {}
    r = CliRunner().invoke(app, ["run", "-r", "cursor", "--root", str(tmp_path / "c"), "--mode", "discover",
                                 "--min-files", "1", "--date", "again"])
    assert r.exit_code == 0, r.output
    data = json.loads(cands.read_text())
    assert data["keys"] == {"brandNewKey": 1} and "UNREVIEWED" in data
    assert "UNREVIEWED" in (tmp_path / "discover" / "reports" / "cursor.md").read_text()
    r = CliRunner().invoke(app, ["vocab", str(cands), "--json"])
    assert json.loads(r.output)["added"]["keys"] == ["brandNewKey"]


def test_keys_in_fewer_than_min_files_collapse_to_rare_key(tmp_path: Path) -> None:
    from survey.pipeline import run_survey

    for i in range(3):
        d = tmp_path / "c" / "p" / "agent-transcripts" / f"s{i}"
        d.mkdir(parents=True)
        rec = {"role": "user", "message": {"content": [{"type": "text", "text": "x"}]}}
        if i == 0:
            rec["command"] = 1  # a reviewed key, but seen in one file only
        (d / f"s{i}.jsonl").write_text(json.dumps(rec) + "\n")
    res = run_survey(get("cursor"), tmp_path / "c", snapshots=tmp_path / "s", reports=None, min_files=2)
    nodes = pl.read_parquet(Path(res.snapshot) / "walk" / "nodes.parquet")
    assert "$.<rare-key>" in nodes["path"].to_list()
    assert not any("command" in (k or "") for k in nodes["keyset"].to_list())
    assert json.loads((Path(res.snapshot) / "manifest.json").read_text())["privacy"]["rare_keys_collapsed"] == 1


def test_pseudonyms_are_hmac_sha256_whatever_the_salt() -> None:
    """The precomputed HMAC states give exactly hmac.digest's names: short, block-sized and
    long (hashed first) salts, any text (lone surrogates from undecodable file names too)."""
    import hmac

    from survey.corpus.privacy import pseudonym

    for salt in (b"", b"k", b"s" * 32, bytes(range(64)), bytes(range(65)), b"x" * 200):
        for kind, text in (("f", "a/b.jsonl"), ("i", ""), ("r", "caf\u00e9/\udcff\u2603")):
            msg = f"{kind}\0{text}".encode("utf-8", "surrogateescape")
            want = f"{kind}-{hmac.digest(salt, msg, 'sha256').hex()[:16]}"
            assert pseudonym(salt, text, kind) == want


# -- the gate, the salt and the names, one rule at a time (planted inputs, expected by rule) --

def ident_shaped(s: str) -> bool:
    """The identifier shape, written without the regex: 1-64 characters, the first an ASCII
    letter or underscore, the rest word characters (str.isalnum, any script) or ``_.:-``."""
    return (1 <= len(s) <= 64 and s[0].isascii() and (s[0].isalpha() or s[0] == "_")
            and all(c.isalnum() or c in "_.:-" for c in s))


PLANTED_KEYS = ["role", "brandNew", "_x", "a.b:c-d_e9", "x" * 64, "café", "x" * 65, "a/b", "a b",
                "role\n", "\nrole", "1abc", "", "-x", ".x", "ro\tle", "a\\b", "a,b", "a\"b", "mcp__s__t"]


def test_gate_keys_by_shape_and_review() -> None:
    from survey.corpus.privacy import DYNAMIC_KEY, UNREVIEWED_KEY, Gate

    reviewed = frozenset({"role", "a.b:c-d_e9", "a/b", "role\n"})  # two not identifier-shaped
    for mode in ("reviewed", "discover"):
        gate = Gate(keys=reviewed, mode=mode)
        for k in PLANTED_KEYS:
            if not ident_shaped(k):
                want = DYNAMIC_KEY
            elif k in reviewed or mode == "discover":
                want = k
            else:
                want = UNREVIEWED_KEY
            assert gate.key(k) == want, (mode, k)
    # the shape alone: no slash, space, newline or leading digit passes, whatever the vocabulary
    assert not any(IDENT.match(k) for k in ("a/b", "a b", "role\n", "1abc", "x" * 65))


def test_identifier_shape_matches_its_definition_on_generated_text() -> None:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    alphabet = st.sampled_from([*"aZ_09.:-/ \n\t\\,\"é٣", "\u2028"])

    @settings(max_examples=400, deadline=None, database=None)
    @given(st.text(alphabet, max_size=70) | st.text(alphabet, min_size=63, max_size=66))
    def same(s: str) -> None:
        assert bool(IDENT.match(s)) == ident_shaped(s), repr(s)

    same()


def test_gate_values_by_path_mode_and_review() -> None:
    from survey.corpus.privacy import Gate

    vocab = {"$.role": frozenset({"user", "assistant", "a b", "mcp__srv__tool"}),
             "$.tool.server": frozenset({"known"})}
    planted = ["user", "assistant", "system", "a b", "user\n", "mcp__srv__tool", "mcp__x",
               "x" * 65, "1abc", "café"]
    for mode in ("reviewed", "discover"):
        for allow in (False, True):
            gate = Gate(keys=frozenset(), values=vocab, mode=mode, allow_mcp_names=allow,
                        withheld_paths=frozenset({"$.tool.server"}))
            for path in ("$.role", "$.tool.server", "$.other"):
                for v in [*planted, "known"]:
                    if not ident_shaped(v):
                        want = None
                    elif (v.startswith("mcp__") or path == "$.tool.server") and not allow:
                        want = None  # MCP names, wherever they sit, and withheld paths
                    elif mode == "discover" or v in vocab.get(path, ()):
                        want = v
                    else:
                        want = None
                    assert gate.value(path, v) == want, (mode, allow, path, v)
            for v in (True, False, None, 0, 7, 2.5, ["user"], {"user": 1}):
                assert gate.value("$.role", v) is None, (mode, v)


def test_mcp_names_never_leave_in_discover_mode_unless_allowed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A Cursor transcript calling an MCP tool: its server__tool name, and the server and tool
    names at the profile's withheld paths, stay out of a discover run, and come out only with
    --allow-mcp-names (the run can see them: the test would catch a leak)."""
    root = tmp_path / "c" / "proj" / "agent-transcripts" / "s1"
    root.mkdir(parents=True)
    secret_tool, server, tool = "mcp__acmeprivsrv__grabsecret", "acmeprivsrv", "grabsecret"
    recs = [{"role": "assistant", "message": {"content": [
        {"type": "tool_use", "name": secret_tool, "input": {"server": server, "toolName": tool}},
        {"type": "tool_use", "name": "CallMcpTool", "input": {"server": server, "toolName": tool}}]}}]
    (root / "s1.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    seen = {}
    for flags in ([], ["--allow-mcp-names"]):
        out = tmp_path / ("allowed" if flags else "plain")
        out.mkdir()
        monkeypatch.chdir(out)
        r = CliRunner().invoke(app, ["run", "-r", "cursor", "--root", str(tmp_path / "c"), "--mode", "discover",
                                     "--min-files", "1", *flags])
        assert r.exit_code == 0, r.output
        seen[bool(flags)] = written_text(out) + r.output
    for name in (secret_tool, server, tool):
        assert name not in seen[False], name
    assert secret_tool in seen[True] and server in seen[True] and tool in seen[True]


def test_version_numbers_pass_only_at_version_paths() -> None:
    from survey.corpus.privacy import Gate, version_path

    gate = Gate(keys=frozenset())
    versions = ["2.1.29", "0.142.2", "1.0.0-beta.3", "1.0.0-rc1"]
    not_versions = ["1.2", "v1.2.3", "1.2.3\n", "1.2.3.4", "1.0.0-BETA", "12345.1.1", "1.2.3 x", "1.0.0-be ta"]
    at = ["$.version", "$.payload.cli_version", "$.schemaVersion", "$.meta.Version", "$.x-version"]
    not_at = ["$.conversion", "$.subversion", "$.message.text", "$.versions", "$.version.name", "$.vers",
              "$.cliVersions", "$.version_name", "$.my version", "$.my Version", "$.x/version"]
    for path in at:
        assert version_path(path), path
        for v in versions:
            assert gate.value(path, v) == v, (path, v)
        for v in not_versions:
            assert gate.value(path, v) is None, (path, v)
    for path in not_at:
        assert not version_path(path), path
        for v in versions:
            assert gate.value(path, v) is None, (path, v)
    assert Gate(keys=frozenset(), mode="discover").value("$.message.text", "2.1.29") is None


def test_a_gate_is_strict_by_default() -> None:
    """Without options a gate is reviewed and withholds MCP names: nothing unreviewed leaves."""
    from survey.corpus.privacy import UNREVIEWED_KEY, Gate

    gate = Gate(keys=frozenset({"name"}), values={"$.name": frozenset({"mcp__s__t", "Read"})})
    assert gate.key("other") == UNREVIEWED_KEY and gate.value("$.name", "Read") == "Read"
    assert gate.value("$.name", "mcp__s__t") is None and gate.value("$.name", "Write") is None


def test_a_gate_with_an_unknown_mode_is_refused() -> None:
    from survey.corpus.privacy import MODES, Gate
    from survey.options import MODES as OPTION_MODES

    assert MODES == OPTION_MODES
    for mode in ("discovery", "Reviewed", ""):
        with pytest.raises(ValueError, match="gate mode"):
            Gate(keys=frozenset(), mode=mode)


def test_config_dir_is_chosen_by_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from survey.corpus.privacy import config_dir

    monkeypatch.setenv("SURVEY_CONFIG_DIR", str(tmp_path / "own"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert config_dir() == tmp_path / "own"
    monkeypatch.delenv("SURVEY_CONFIG_DIR")
    assert config_dir() == tmp_path / "xdg" / "survey"
    monkeypatch.setenv("XDG_CONFIG_HOME", "")
    assert config_dir() == tmp_path / "home" / ".config" / "survey"


@pytest.fixture
def salt_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    d = tmp_path / "cfg" / "deeper"
    monkeypatch.setenv("SURVEY_CONFIG_DIR", str(d))
    return d


def test_a_new_salt_is_32_random_bytes_owner_only(salt_dir: Path) -> None:
    import os
    import stat

    from survey.corpus.privacy import load_salt

    old = os.umask(0)  # a permissive umask must not open it up
    try:
        salt = load_salt()
    finally:
        os.umask(old)
    f = salt_dir / "salt"
    assert stat.S_IMODE(f.stat().st_mode) == 0o600
    text = f.read_text()
    assert len(salt) == 32 and text == salt.hex() and len(text) == 64
    assert sorted(p.name for p in salt_dir.iterdir()) == ["salt"]  # no temporary file left
    assert load_salt() == salt and load_salt(create=False) == salt  # kept, not made again
    (salt_dir / "salt").unlink()
    assert load_salt() != salt  # random: a new one differs
    assert sorted(p.name for p in salt_dir.iterdir()) == ["salt"]


def test_a_salt_that_cannot_be_kept_says_where_to_keep_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from survey.corpus.privacy import SaltError, load_salt

    (tmp_path / "file").write_text("x")
    monkeypatch.setenv("SURVEY_CONFIG_DIR", str(tmp_path / "file" / "cfg"))
    with pytest.raises(SaltError, match=r"cannot be kept at .*set SURVEY_CONFIG_DIR to a folder it may write"):
        load_salt()
    assert (tmp_path / "file").read_text() == "x"


def test_mask_words_are_the_documented_ones() -> None:
    """The masks a snapshot, page and vocabulary proposal carry, as the gate documents them."""
    from survey.corpus import privacy

    doc = privacy.Gate.__doc__ or ""
    for mask in ("<unreviewed-key>", "<dynamic-key>", "<withheld>"):
        assert f"``{mask}``" in doc
    assert privacy.MASKS == {privacy.UNREVIEWED_KEY, privacy.DYNAMIC_KEY, privacy.RARE_KEY, privacy.WITHHELD} == \
        {"<unreviewed-key>", "<dynamic-key>", "<rare-key>", "<withheld>"}


def test_locate_never_creates_a_salt(salt_dir: Path) -> None:
    from survey.corpus.privacy import load_salt

    with pytest.raises(FileNotFoundError, match=r"^no survey salt on this machine$"):
        load_salt(create=False)
    assert not salt_dir.exists()  # not even its folder
    root = salt_dir.parent.parent / "root"
    root.mkdir()
    r = CliRunner().invoke(app, ["locate", "f-0000000000000000", "--root", str(root)])
    assert r.exit_code == 2 and "no survey salt" in r.output and not salt_dir.exists(), r.output


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604, 0o620, 0o602, 0o610, 0o601, 0o666])
def test_a_salt_others_may_read_is_refused_with_the_fix(salt_dir: Path, mode: int) -> None:
    import os
    import shlex

    from survey.corpus.privacy import SaltError, load_salt

    salt_dir.mkdir(parents=True)
    f = salt_dir / "salt"
    f.write_text("ab" * 32)
    os.chmod(f, mode)
    with pytest.raises(SaltError) as exc:
        load_salt()
    msg = str(exc.value)
    assert f"chmod 600 {shlex.quote(str(f))}" in msg and f"{mode:04o}" in msg, msg
    assert f.read_text() == "ab" * 32  # left as it was
    for cmd in (["crawl", "-r", "cursor", "--root", str(salt_dir.parent.parent)],
                ["locate", "f-0000000000000000", "--root", str(salt_dir.parent.parent)]):
        r = CliRunner().invoke(app, cmd)
        assert r.exit_code == 2 and "chmod 600" in r.output and "Traceback" not in r.output, r.output
    os.chmod(f, 0o600)
    assert load_salt() == bytes.fromhex("ab" * 32)
    os.chmod(f, 0o400)  # owner read-only is fine too
    assert load_salt() == bytes.fromhex("ab" * 32)
    f.chmod(0o600)
    f.write_text("not a salt")
    os.chmod(f, mode)  # broken and open: named as broken, since chmod would not mend it
    with pytest.raises(SaltError, match="cannot be read") as exc:
        load_salt()
    assert "chmod" not in str(exc.value)
    f.chmod(0o600)
    f.write_text("ab" * 32)
    assert load_salt() == bytes.fromhex("ab" * 32)


@pytest.mark.parametrize("text", ["ab" * 31, "ab" * 33, "a" * 63, "a" * 65, "ab" * 31 + "zz",
                                  " ".join(["ab"] * 32), "ab" * 16 + " " + "ab" * 15 + "a", "ab" * 31 + "a/",
                                  "", "0x" + "ab" * 31])
def test_a_salt_must_be_exactly_64_hex_digits(salt_dir: Path, text: str) -> None:
    import os

    from survey.corpus.privacy import SaltError, load_salt

    salt_dir.mkdir(parents=True)
    f = salt_dir / "salt"
    f.write_text(text)
    os.chmod(f, 0o600)
    with pytest.raises(SaltError, match=r"cannot be read \(ValueError: not 64 hex digits\): restore it"):
        load_salt()
    assert f.read_text() == text  # never replaced: pseudonyms would change silently
    for good in ("AB" * 32, "ab" * 32 + "\n", "\n" + "0f" * 32 + "  \n"):
        f.write_text(good)
        assert load_salt() == bytes.fromhex(good.strip())


def test_pseudonyms_file_keys_and_id_refs_agree() -> None:
    import hmac

    from survey import native
    from survey.corpus.privacy import file_key, id_ref, pseudonym, pseudonyms

    salt = bytes(range(32))
    texts = ["a/b.jsonl", "", "caf\u00e9/x", "id-1"]
    for kind in ("f", "i"):
        want = [f"{kind}-" + hmac.digest(salt, (kind + "\0" + t).encode(), "sha256").hex()[:16] for t in texts]
        assert [pseudonym(salt, t, kind) for t in texts] == want
        assert pseudonyms(salt, texts, kind) == want
        saved = native.NATIVE
        native.NATIVE = None  # the Python path gives the same names
        try:
            assert pseudonyms(salt, texts, kind) == want
        finally:
            native.NATIVE = saved
    assert pseudonym(salt, "x") == pseudonym(salt, "x", "f") != pseudonym(salt, "x", "i")
    assert pseudonyms(salt, ["x"]) == [pseudonym(salt, "x", "f")]
    assert pseudonym(salt, "x") != pseudonym(bytes(32), "x")
    assert file_key("f-00000000000000ff") == 255 and file_key("i-8000000000000000") == 1 << 63
    for t in texts:
        assert id_ref(salt, t) == int(pseudonym(salt, t, "i")[2:], 16)


def test_of_two_first_runs_the_salt_linked_first_is_the_one_kept(salt_dir: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Another run links its salt between this run's look and its own link: this run keeps
    and returns that salt, never its own, and leaves no temporary file."""
    import os

    from survey.corpus import privacy

    theirs = bytes(range(32))
    link = os.link

    def raced(src: str, dst: Path) -> None:
        Path(dst).write_text(theirs.hex())  # the other run's salt, in place first
        Path(dst).chmod(0o600)
        link(src, dst)

    monkeypatch.setattr(privacy.os, "link", raced)
    assert privacy.load_salt() == theirs
    assert sorted(p.name for p in salt_dir.iterdir()) == ["salt"]
    assert (salt_dir / "salt").read_text() == theirs.hex()


def test_a_folder_where_the_salt_belongs_is_refused_with_where_to_keep_it(salt_dir: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A folder named ``salt`` is no salt and cannot become one: one look again without making
    one (never a retry without end), then a SaltError that says where to keep it; the folder
    is left as it was."""
    from survey.corpus import privacy

    (salt_dir / "salt").mkdir(parents=True)
    (salt_dir / "salt" / "x").write_text("x")
    calls: list[bool] = []
    load = privacy.load_salt

    def counted(create: bool = True) -> bytes:
        calls.append(create)
        assert len(calls) <= 2, "the salt was looked for again and again"
        return load(create=create)

    monkeypatch.setattr(privacy, "load_salt", counted)
    with pytest.raises(privacy.SaltError, match=r"cannot be kept at .*set SURVEY_CONFIG_DIR to a folder it may write"):
        privacy.load_salt()
    assert calls == [True, False]
    assert sorted(p.name for p in salt_dir.iterdir()) == ["salt"]
    assert [p.name for p in (salt_dir / "salt").iterdir()] == ["x"]


def test_a_salt_file_that_cannot_be_made_names_the_reason(salt_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The system's reason the file could not be made is the one named (not a later one about
    the temporary file that was never made), and nothing is left behind."""
    import errno

    from survey.corpus import privacy

    def full(*_: object) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(privacy.os, "open", full)
    with pytest.raises(privacy.SaltError, match=r"cannot be kept at .* \(No space left on device\): set SURVEY_CONFIG_DIR"):
        privacy.load_salt()
    assert list(salt_dir.iterdir()) == []
