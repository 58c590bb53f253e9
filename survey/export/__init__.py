"""Exports for parser authors, from a snapshot and (for validation and fixtures) its corpus.

- ``schema``: a JSON Schema (2020-12) derived from a snapshot's census alone.
- ``validate``: every walked record held against that schema; counts beside the snapshot.
- ``fixtures``: one scrubbed real record or file per declared structural predicate.
- ``audit``: a hand-written schema held against the census.
"""
