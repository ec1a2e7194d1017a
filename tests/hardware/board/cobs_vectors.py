"""The published COBS examples (Cheshire and Baker; the table on Wikipedia's COBS page),
without the trailing 0x00 delimiter. Shared by the host test and the MicroPython test."""

from __future__ import annotations

R = range
VECTORS: list[tuple[bytes, bytes]] = [
    (b"\x00", b"\x01\x01"),
    (b"\x00\x00", b"\x01\x01\x01"),
    (b"\x00\x11\x00", b"\x01\x02\x11\x01"),
    (b"\x11\x22\x00\x33", b"\x03\x11\x22\x02\x33"),
    (b"\x11\x22\x33\x44", b"\x05\x11\x22\x33\x44"),
    (b"\x11\x00\x00\x00", b"\x02\x11\x01\x01\x01"),
    (bytes(R(1, 255)), b"\xff" + bytes(R(1, 255))),  # 254 non-zero bytes: no trailing 01
    (bytes(R(0, 255)), b"\x01\xff" + bytes(R(1, 255))),
    (bytes(R(1, 256)), b"\xff" + bytes(R(1, 255)) + b"\x02\xff"),
    (bytes(R(2, 256)) + b"\x00", b"\xff" + bytes(R(2, 256)) + b"\x01\x01"),
    (bytes(R(3, 256)) + b"\x00\x01", b"\xfe" + bytes(R(3, 256)) + b"\x02\x01"),
]
