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
    assert list((tmp_path / "cache").rglob("*.census/*.parquet")), "no partial rows kept to search"
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
