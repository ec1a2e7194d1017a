"""The director's token: made on the first start, kept in `<state_dir>/director-token`
(mode 600); whoever can read that file at the director's machine may change the night."""

from __future__ import annotations

import contextlib
import os
import secrets
from pathlib import Path

TOKEN_FILE = "director-token"


def token_path(state_dir: Path) -> Path:
    return state_dir / TOKEN_FILE


def ensure_token(state_dir: Path) -> str:
    """The token in the state directory, made (mode 600) if there is none; raises OSError
    when the directory cannot be used."""
    path = token_path(state_dir)
    with contextlib.suppress(FileNotFoundError):
        text = path.read_text().strip()
        if text:
            return text
    state_dir.mkdir(parents=True, exist_ok=True)
    token = secrets.token_urlsafe(32)
    tmp = path.with_name(f".{TOKEN_FILE}.{os.getpid()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.write(token + "\n")
        fh.flush()
        os.fsync(fh.fileno())
    try:
        os.link(tmp, path)  # fails if another process made one meanwhile: keep theirs
    except FileExistsError:
        token = path.read_text().strip()
    finally:
        tmp.unlink()
    return token


def same(given: str, token: str) -> bool:
    """Constant-time comparison of any text with the token."""
    return secrets.compare_digest(given.encode("utf-8", "surrogatepass"), token.encode())
