"""COBS against the published vectors, both ways (the firmware runs the same module)."""

from __future__ import annotations

import pytest

from hardware.board import cobs

from .cobs_vectors import VECTORS


@pytest.mark.parametrize(("raw", "encoded"), VECTORS,
                         ids=[f"v{i + 1}" for i in range(len(VECTORS))])
def test_cobs_matches_the_published_vectors(raw, encoded):
    assert cobs.encode(raw) == encoded
    assert cobs.decode(encoded) == raw


def test_a_run_of_254_non_zero_bytes_has_no_trailing_block():
    assert cobs.encode(b"\x07" * 254)[-1] == 0x07
    assert len(cobs.encode(b"\x07" * 254)) == 255
