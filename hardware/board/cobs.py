"""Consistent Overhead Byte Stuffing: frames that never contain 0x00, so 0x00 delimits them.

Shared by the host and the board's firmware (MicroPython): plain loops, no `from __future__`.
Written here rather than taken from the PyPI `cobs` package because the firmware needs the
very same code; it is checked against the published vectors (Cheshire and Baker's paper, as
tabled on Wikipedia's COBS page): a run of 254 non-zero bytes ends with its 0xFF block and
no trailing 0x01 block.
"""

# ruff: noqa: UP031  (%-formatting: the firmware's MicroPython runs this module too)

from hardware.errors import ProtocolError


def encode(data):
    """COBS-encode `data` (bytes; no trailing delimiter); the result holds no 0x00 byte."""
    out = bytearray(b"\x00")  # placeholder for the first code byte
    code_at = 0
    code = 1
    full = False  # the last block closed because it reached 254 data bytes
    for byte in data:
        full = False
        if byte:
            out.append(byte)
            code += 1
            if code == 0xFF:
                out[code_at] = code
                code_at = len(out)
                out.append(0)
                code = 1
                full = True
        else:
            out[code_at] = code
            code_at = len(out)
            out.append(0)
            code = 1
    if full:
        out = out[:-1]  # no data follows a full block: it needs no empty block after it
    else:
        out[code_at] = code
    return bytes(out)


def decode(data):
    """Undo `encode`. Raises ProtocolError naming the offset of a zero or short block."""
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        code = data[i]
        if code == 0:
            raise ProtocolError("COBS: zero byte inside a frame at offset %d" % i)
        end = i + code
        if end > n:
            raise ProtocolError("COBS: block at offset %d needs %d bytes, %d left"
                                % (i, code - 1, n - i - 1))
        block = data[i + 1:end]
        if bytes(block).find(b"\x00") >= 0:
            raise ProtocolError("COBS: zero byte inside a frame near offset %d" % i)
        out += block
        i = end
        if code != 0xFF and i < n:
            out.append(0)
    return bytes(out)
