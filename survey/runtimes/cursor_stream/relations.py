"""Relations between figures of the stream-json page: a run's outcome beside the outcomes of
its calls, and assistant chunks beside the final message (``links_*.sql``). Stated after the
page's other claims, in the links section."""

from __future__ import annotations

from survey.evidence.claims import as_int, fmt, pct
from survey.evidence.kit import Kit


def relation_claims(k: Kit) -> list[str]:
    """State the relation claims; return their ids (the links section lists them)."""
    ft = k.one("links_failed_turns")
    n = as_int(ft.get("captures_with_failed_calls"))
    ok = as_int(ft.get("ending_result_success"))
    k.state("link_failed_turns_result", "rate",
            (f"Of {fmt(n)} captures in which a tool call failed ({fmt(as_int(ft.get('failed_calls')))} calls) or was "
             f"rejected ({fmt(as_int(ft.get('rejected_calls')))}), {fmt(ok)} ({pct(ok, n)}) still end with a "
             f"result/success event; {fmt(as_int(ft.get('with_is_error_true')))} carry is_error true and "
             f"{fmt(as_int(ft.get('without_result_event')))} have no result event: a run's result/success does not "
             "say its calls succeeded." if ok else
             f"Of {fmt(n)} captures in which a tool call failed or was rejected, none ends with a result/success event.")
            if n else "No capture holds a failed or rejected tool call: whether result/success follows one is not determined.",
            k.ev("links_failed_turns", f"{ok} of {n} captures"),
            value={key: as_int(v) for key, v in ft.items()}, provenance="observed" if n else "not determined")

    rows = k.rows("links_assistant_segments")
    ks = [r for r in rows if r["row_kind"] == "keyset"]
    caps = {r["position"]: r for r in rows if r["row_kind"] == "captures"}
    before = [r for r in ks if r["position"] == "before the last"]
    last = [r for r in ks if r["position"] == "last"]
    chunk_sets = {r["keyset"] for r in before}
    final = [r for r in last if r["keyset"] not in chunk_sets]
    followed = caps.get("chunks, then a final key set", {})
    with_chunks = sum(as_int(r["captures"]) for p, r in caps.items() if p.startswith("chunks"))

    def label(rs: list[dict]) -> str:
        return "; ".join(f"{{{r['keyset']}}} ×{fmt(r['events'])}" for r in rs) or "none"

    k.state("link_assistant_chunks", "census",
            (f"Assistant chunks (events before a capture's last assistant event) carry {label(before)}; "
             f"the final message (the last, in a key set no chunk carries) {label(final)}. "
             f"In {fmt(as_int(followed.get('captures')))} of {fmt(with_chunks)} captures with chunks a final message follows them.")
            if ks else "No assistant event was observed: chunks and final messages are not determined.",
            k.ev("links_assistant_segments", f"{len(ks)} key-set rows; followed {as_int(followed.get('captures'))}/{with_chunks}"),
            value={"chunk_keysets": {r["keyset"]: as_int(r["events"]) for r in before},
                   "final_keysets": {r["keyset"]: as_int(r["events"]) for r in final},
                   "captures_with_chunks": with_chunks, "followed_by_final": as_int(followed.get("captures"))},
            provenance="observed" if ks else "not determined")
    return ["link_failed_turns_result", "link_assistant_chunks"]
