"""``survey merge``: the snapshots of one runtime from many machines, as one snapshot.

Each machine's snapshot is structure only (its walk tables passed the privacy gate there);
the merge unions their tables, tagged by a pseudonymous machine id (``engines``), names
only what at least ``min_machines`` machines saw (``threshold``), runs the census's own
queries over the union and states the claims as a survey does (``merge``).
"""
