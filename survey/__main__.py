"""``python -m survey``: the same CLI as the ``survey`` command (for a shell without the
virtualenv's ``bin`` on its PATH)."""

from survey.cli import app

app(prog_name="survey")
