"""Build the walk's C core (``_walkcore.c``) in place: ``python -m survey.census.build``.

The survey runs without it (the Python walker gives identical tables, several times more
slowly), so a machine without a C compiler loses only speed: a failed build is reported
and the exit code is 0 unless ``--strict``. The compiled module embeds the hash of the
source it was built from, and ``walk.py`` ignores a binary whose hash is not the current
source's, so an edited ``.c`` never runs stale.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import subprocess
import sys
import sysconfig
from pathlib import Path

HERE = Path(__file__).parent
SOURCE = HERE / "_walkcore.c"


def source_hash() -> str:
    return hashlib.sha256(SOURCE.read_bytes()).hexdigest()[:16]


def target() -> Path:
    return HERE / ("_walkcore" + (sysconfig.get_config_var("EXT_SUFFIX") or ".so"))


# ``--sanitize DIR``: the build ``make fuzz`` loads, into DIR (never over the normal one):
# AddressSanitizer and UndefinedBehaviorSanitizer, any report fatal
SANITIZE = ["-O1", "-g", "-fno-omit-frame-pointer", "-fsanitize=address,undefined", "-fno-sanitize-recover=all"]


def compiler() -> list[str]:
    return shlex.split(os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc")


def command(out: Path, sanitize: bool = False) -> list[str]:
    include = sysconfig.get_paths()["include"]
    return [*compiler(), *(SANITIZE if sanitize else ["-O2"]), "-shared", "-fPIC", "-Wall",
            "-Werror=implicit-function-declaration", f"-I{include}", f'-DSOURCE_HASH="{source_hash()}"', str(SOURCE),
            "-o", str(out)]


def build(quiet: bool = False, out: Path | None = None, into: Path | None = None) -> tuple[bool, str]:
    """Compile the core to ``out`` (default: beside the source, where ``native`` loads it;
    the wheel's build hook, ``hatch_build.py``, names a folder of its own); ``into``: the
    sanitized build ``make fuzz`` loads, into that folder (``--sanitize``)."""
    out = into / target().name if into is not None else out or target()
    tmp = out.with_name(out.name + f".tmp{os.getpid()}")
    try:
        proc = subprocess.run(command(tmp, sanitize=into is not None), capture_output=True, text=True, check=False)
    except OSError as exc:
        return False, f"no C compiler ({type(exc).__name__}): the survey uses the Python walker"
    if proc.returncode != 0:
        tmp.unlink(missing_ok=True)
        return False, "the C build failed: the survey uses the Python walker\n" + proc.stderr[-2000:]
    tmp.replace(out)  # atomic: a running survey never sees half a binary
    return True, f"built {out.name} ({source_hash()})"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if "--sanitize" in args:  # the fuzzing build: its path printed, exit 1 if it failed
        into = Path(args[args.index("--sanitize") + 1])
        into.mkdir(parents=True, exist_ok=True)
        ok, msg = build(into=into)
        print(f"survey: {msg}", file=sys.stderr)
        if ok:
            print(into / target().name)
        return 0 if ok else 1
    ok, msg = build()
    print(f"survey: {msg}", file=sys.stderr)
    return 0 if ok or "--strict" not in args else 1


if __name__ == "__main__":
    raise SystemExit(main())
