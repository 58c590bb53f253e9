"""Every probe over every file of its scope, by both engines, joined into the evidence:
``grep_scopes`` counts from the corpus alone (so it may run beside the walk), ``probe_report``
adds the structural figures and records any disagreement, ``run_probes`` does both."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path

from survey.evidence.grep import cache as grep_cache
from survey.evidence.grep import commands, duck, keyhits, reads, rg, scopes
from survey.runtimes.base import Profile, Scope

# -- all probes of a profile ------------------------------------------------------------------


@dataclass
class ScopeGrep:
    """One scope's two greps, counted before the snapshot exists: ``probe_report`` joins
    them with the key figures (which need the snapshot) into the evidence."""

    scope: Scope
    literals: list[str]
    duckdb: dict[str, dict]  # per literal: files_matched, occurrences, files_scanned, ...
    duckdb_cached: int  # files whose DuckDB counts came from the cache
    fallback: dict | None  # the DuckDB retry over the readable files, if the scope failed
    rg: dict  # ``rg_grep``'s result
    cache_error: str | None = None


def grep_scopes(root: Path, profile: Profile, readable: list[str] | Callable[[], list[str]] | None = None, *,
                cache_dir: Path | None = None, salt: bytes | None = None, known: scopes.Known | None = None,
                listing: Future[list[str] | None] | None = None,
                rg_lists: dict[str, scopes.AnyListing] | None = None) -> list[ScopeGrep]:
    """Both greps of every scope the profile's probes search (arguments as ``run_probes``).
    ``readable`` may be a function, called only if DuckDB cannot read a scope: the files the
    walk read cleanly are known only after it, and the greps may start beside it."""
    searched = [(sc, sorted({lit for p in profile.probes if p.scope == sc.name for lit in p.literals}))
                for sc in profile.scopes if any(p.scope == sc.name for p in profile.probes)]
    for _sc, literals in searched:
        for lit in literals:
            if not lit or not lit.isascii():
                raise ValueError(f"probe literal must be non-empty ASCII: {lit!r}")
    folder = grep_cache.grep_cache_folder(cache_dir) if cache_dir is not None and salt is not None else None
    everything = listing.result() if listing is not None else None
    if listing is not None and scopes.listed_too_early(everything, known):
        listing, rg_lists = None, None  # the crawl found a file made after the listings: list again
    # the crawl's files are the listing the ``**/`` globs are matched against: a scope
    # ``Known.listing`` lists needs no list of every file (made below, for the others)
    by_crawl = listing is None and known is not None
    if listing is None and scopes.lists_everything(profile) and not all(
            known is not None and known.lists(sc.duckdb_globs)
            for sc, _ in searched if any(g.startswith("**/") for g in sc.duckdb_globs)):
        everything = scopes.crawled_files(known) if known is not None else None
        if everything is None:
            everything = scopes.duckdb_everything(root)
    shared = rg.SharedRg(root, searched, rg_lists)
    out = []
    for scope, literals in searched:
        cache = grep_cache.GrepCache(folder, scope, literals, salt) if folder is not None and salt is not None else None
        fallback = None
        dd_keys: list[grep_cache.Keys] = []
        try:
            listing_of = everything
            if scope is searched[-1][0]:
                everything = None  # the last scope's: not held through its rg pass (567k names: 44 MB)
            dd, dd_cached = duck.duckdb_grep(root, scope, literals, cache=cache, known=known, everything=listing_of,
                                        by_crawl=by_crawl, keys_out=dd_keys)
            del listing_of
        except reads.GrepReadError as exc:
            files = scopes.in_scope(scope, (readable() if callable(readable) else readable) or [])
            fallback = {"error": str(exc), "files_searched": len(files)}
            try:
                dd, dd_cached = duck.duckdb_grep(root, scope, literals, files, cache=cache, known=known)
            except reads.GrepReadError as exc2:
                fallback["retry_error"] = str(exc2)
                dd, dd_cached = grep_cache._zeros(literals), 0
        rgr = rg.rg_grep(root, scope, literals, cache=cache, known=known, listing=(rg_lists or {}).get(scope.name),
                      shared=shared, keys=dd_keys[-1] if dd_keys else None)
        if cache is not None:
            cache.save()
        out.append(ScopeGrep(scope, literals, dd, dd_cached, fallback, rgr, cache.error if cache else None))
    return out


def probe_report(profile: Profile, greps: list[ScopeGrep], structural_all: dict[str, dict],
                 scope_files: dict[str, int]) -> dict:
    """The evidence: each scope's figures and each probe's verdict from both greps and,
    for a probe about a key, its structural figure (``key_hits``)."""
    out: dict = {"scopes": {}, "probes": []}
    for g in greps:
        scope, literals, dd, rgr, fallback = g.scope, g.literals, g.duckdb, g.rg, g.fallback
        probes = [p for p in profile.probes if p.scope == scope.name]
        from_cache = {"duckdb": g.duckdb_cached, "rg": rgr["files_from_cache"]}
        any_lit = next(iter(dd.values()), {})
        out["scopes"][scope.name] = {
            "globs": list(scope.duckdb_globs),
            "rg_globs": list(scope.rg_globs),
            "files_inventory": scope_files.get(scope.name, 0),
            "files_duckdb": int(any_lit.get("files_scanned", 0) or 0),
            "bytes_duckdb": int(any_lit.get("bytes_scanned", 0) or 0),
            "files_not_utf8": int(any_lit.get("files_not_utf8", 0) or 0),
            "files_rg": rgr["files_scanned"],
            "rg_exit_code": rgr["exit_code"],
            "rg_errors": rgr["errors"],
            "files_from_cache": from_cache,
            "literals": literals,
            "duckdb_command": commands.duckdb_command(scope, literals),
            "duckdb_fallback": fallback,
        }
        if g.cache_error:
            out["scopes"][scope.name]["cache_error"] = g.cache_error
        for p in probes:
            d_files = sum(int(dd[lit]["files_matched"] or 0) for lit in p.literals)
            d_occ = sum(int(dd[lit]["occurrences"] or 0) for lit in p.literals)
            r_files = sum(rgr["per_literal"][lit]["files_matched"] for lit in p.literals)
            r_occ = sum(rgr["per_literal"][lit]["occurrences"] for lit in p.literals)
            # a scope DuckDB could not read at all can agree with nothing
            agree = (d_files, d_occ) == (r_files, r_occ) and not (fallback and "retry_error" in fallback)
            hit = d_files > 0
            holds = (not hit) if p.expect == "absent" else (hit if p.expect == "present" else True)
            structural = structural_all.get(p.id)
            if structural and p.expect == "absent":
                holds = structural["files_with_key"] == 0
            out["probes"].append({
                "id": p.id,
                "about": p.about,
                "expect": p.expect,
                "scope": scope.name,
                "literals": list(p.literals),
                "files_scanned": int(any_lit.get("files_scanned", 0) or 0),
                "bytes_scanned": int(any_lit.get("bytes_scanned", 0) or 0),
                "files_from_cache": from_cache,
                "duckdb": {"files_matched": d_files, "occurrences": d_occ,
                           "per_literal": {lit: dd[lit] for lit in p.literals}},
                "rg": {"files_matched": r_files, "occurrences": r_occ,
                       "per_literal": {lit: rgr["per_literal"][lit] for lit in p.literals}},
                "agree": agree,
                "structural": structural,
                "verdict": ("disagreement" if not agree else
                            ("counted" if p.expect == "count" else ("holds" if holds else "fails"))),
                "duckdb_command": commands.duckdb_command(scope, list(p.literals)),
                "rg_command": commands.rg_command(scope, list(p.literals)),
            })
    return out


def run_probes(root: Path, profile: Profile, snap_dir: Path, snap_label: str,
               scope_files: dict[str, int], readable: list[str] | Callable[[], list[str]] | None = None, *,
               cache_dir: Path | None = None, salt: bytes | None = None, known: scopes.Known | None = None,
               listing: Future[list[str] | None] | None = None,
               rg_lists: dict[str, scopes.AnyListing] | None = None, greps: list[ScopeGrep] | None = None,
               structural: dict[str, dict] | None = None) -> dict:
    """Run every probe of the profile; ``scope_files`` is the crawl's count per scope.

    ``readable`` lists (or gives) the relative paths the walk read cleanly: if DuckDB cannot read the
    whole scope (a file unreadable, or shrinking while read), the query is run again over
    the readable files of the scope only, and the page says how many were left out.
    ``cache_dir`` is the walk's cache folder (None: no cache); the grep cache sits beside it
    and names files by ``salt``-ed pseudonyms; ``known`` gives the crawl's file_id and key
    of each file it saw, so they are not computed again, and its files are the listing
    the DuckDB grep matches ``**/`` globs against (``crawled_files``). ``listing``: a
    ``duckdb_everything`` of the root to use instead, and ``rg_lists`` (``rg_listings``),
    each scope's rg listing, may be started earlier by the caller (they walk the whole tree,
    which takes a while and needs no CPU of ours); both are taken again if ``known`` names a
    file the DuckDB listing lacks, and a scope's rg listing if ``known`` holds a file changed
    or made since it started that it lacks (``Known.since``).
    ``greps``: ``grep_scopes`` already run (beside the walk); ``structural``: ``key_hits``
    already taken (beside the census).
    """
    structural_all = keyhits.key_hits(snap_dir, list(profile.probes), snap_label) if structural is None else structural
    if greps is None:
        greps = grep_scopes(root, profile, readable, cache_dir=cache_dir, salt=salt, known=known,
                            listing=listing, rg_lists=rg_lists)
    return probe_report(profile, greps, structural_all, scope_files)
