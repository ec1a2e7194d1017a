"""Consistent Overhead Byte Stuffing: frames that never contain 0x00, so 0x00 delimits them.

Written here rather than taken from the PyPI `cobs` package: it is twenty lines, the board's
firmware needs the very same code (this file is its reference), and the link wants nothing
beyond whole-frame encode/decode, which the stream splitter in `protocol.py` feeds.
"""

from __future__ import annotations

from hardware.errors import ProtocolError


def encode(data: bytes) -> bytes:
    """COBS-encode `data` (no trailing delimiter); the result holds no 0x00 byte."""
    out = bytearray(b"\x00")  # placeholder for the first code byte
    code_at, code = 0, 1
    for byte in data:
        if byte:
            out.append(byte)
            code += 1
        if not byte or code == 0xFF:
            out[code_at] = code
            code_at, code = len(out), 1
            out.append(0)
    out[code_at] = code
    return bytes(out)


def decode(data: bytes) -> bytes:
    """Undo `encode`. Raises ProtocolError naming the offset of a zero or short block."""
    out = bytearray()
    i, n = 0, len(data)
    while i < n:
        code = data[i]
        if code == 0:
            raise ProtocolError(f"COBS: zero byte inside a frame at offset {i}")
        end = i + code
        if end > n:
            left = n - i - 1
            raise ProtocolError(f"COBS: block at offset {i} needs {code - 1} bytes, {left} left")
        block = data[i + 1 : end]
        if 0 in block:
            raise ProtocolError(f"COBS: zero byte inside a frame near offset {i}")
        out += block
        i = end
        if code != 0xFF and i < n:
            out.append(0)
    return bytes(out)
