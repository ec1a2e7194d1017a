"""Which files make the board's firmware, and where each goes on the board (host only).

`crib board flash` copies these with mpremote; the MicroPython tests build a board's file
system from the same list, so a module missing here fails there.
"""

from __future__ import annotations

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
