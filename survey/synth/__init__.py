"""Seeded generators of realistic corpora in each runtime's native layout.

Every generator module exposes::

    generate(root: Path, *, seed: int = 7, sessions: int | None = None,
             target_bytes: int | None = None, canaries: bool = False) -> dict

and returns a JSON-serialisable *planted* record: the ground truth of what it wrote
(file counts per surface, records per class, key sets, edge cases), which tests compare
with what the survey measures. Rules:

- Deterministic: the same arguments give byte-identical files and identical mtimes
  (mtimes come from a fixed base date, never from the clock).
- Native layout only, and nothing is written outside ``root``.
- A generator never imports the census, the walk or the evidence code: it must not know
  how it is measured.
- ``canaries=True`` plants a unique token in every free text, tool input value, key of a
  data-keyed map, path component, sidecar body and SQLite cell; the tokens are listed in
  ``planted["canaries"]`` so privacy tests can prove none of them leaves.
"""
