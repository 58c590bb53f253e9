"""Throughput bench: ``survey run`` beside the floors it is measured against.

``python -m bench.run`` (``make bench``) generates seeded corpora per runtime (or takes a real
root), then times, on the same warm files: the full survey (in a fresh subprocess, for its
per-stage timings and peak RSS), a bare ``orjson.loads`` of every JSONL line (the parse
limit), one raw ``rg`` pass with the probe literals (the grep floor), ``jq -c '[paths]'``
and, where installed, genson. See ``bench/README.md``.
"""
