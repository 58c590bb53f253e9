"""Mutation testing for the modules that make promises (``make mutate``).

Each module listed in ``modules.toml`` is mutated one small edit at a time (see
:mod:`tools.mutate.mutants`), and each mutant runs against only the tests that file maps to the
module; a mutant the tests do not fail "survived". A surviving mutant is either a test to
write or an equivalent mutant (no test could tell it apart), listed with its reason in
``equivalent.md`` and left out of the kill rate.

The mutant is loaded from memory in every process of the test run (``hook/sitecustomize.py``):
the module's file is never rewritten, so a run that is stopped leaves the tree as it was.
"""
