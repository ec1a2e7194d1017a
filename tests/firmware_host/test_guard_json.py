"""The door's JSON check at its depth limit: the bracket count that spares real bodies a walk
of their text never lets a body nested past MAX_DEPTH through."""

from __future__ import annotations

import pytest

from firmware_host.api.guard import MAX_DEPTH, BodyRefused, check_json


def nested(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


def test_nesting_up_to_the_limit_passes_and_one_more_is_refused() -> None:
    check_json(nested(MAX_DEPTH))
    with pytest.raises(BodyRefused, match=f"nests {MAX_DEPTH + 1} deep"):
        check_json(nested(MAX_DEPTH + 1))


def test_brackets_inside_strings_do_not_count_as_nesting() -> None:
    check_json(b'{"op_id": "' + b"[{" * 50 + b'", "action": {"type": "peg"}}')


def test_a_real_action_body_passes() -> None:
    check_json(b'{"version": 17, "op_id": "12-17", '
               b'"action": {"type": "peg", "side": 1, "points": 1}}')
