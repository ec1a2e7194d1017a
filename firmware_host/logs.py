"""The daemon's log: plain lines on stderr (the journal adds time and priority), every line
escaped so that no text from a request can start a line of its own, repeats thinned."""

from __future__ import annotations

import logging
import sys
import time
import unicodedata
from collections.abc import Callable

# Control, format (zero-width, direction overrides) and line/paragraph separators: shown as
# escapes, never obeyed by a terminal or taken for a new journal line.
UNSAFE_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp"})


def _escape_char(ch: str) -> str:
    code = ord(ch)
    if code < 0x100:
        return {"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(ch, f"\\x{code:02x}")
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def escape(text: str) -> str:
    """`text` with every control, format and separator character written as an escape
    (`\\n`, `\\x1b`, `\\u202e`): one line, shown as it was sent."""
    if text.isprintable():  # the common case: nothing to do
        return text
    return "".join(_escape_char(ch) if unicodedata.category(ch) in UNSAFE_CATEGORIES else ch
                   for ch in text)


def unsafe_chars(text: str) -> list[str]:
    """The characters of `text` that `escape` would rewrite, as escapes (for refusals)."""
    return [_escape_char(ch) for ch in dict.fromkeys(text)
            if unicodedata.category(ch) in UNSAFE_CATEGORIES]


class EscapingFormatter(logging.Formatter):
    """Every record's message escaped, whatever the call site passed; a traceback keeps its
    lines, each after the first indented, so none can pass for a line of its own."""

    def format(self, record: logging.LogRecord) -> str:
        saved = record.msg, record.args, record.exc_text
        try:
            record.msg, record.args = escape(record.getMessage()), None
            if record.exc_info and not record.exc_text:
                record.exc_text = self.formatException(record.exc_info)
            if record.exc_text:
                record.exc_text = "\n".join("  " + escape(line) for line in
                                            record.exc_text.splitlines())
            text = super().format(record)
            if record.stack_info:
                text = text.replace("\n", "\n  ")
            return text
        finally:
            record.msg, record.args, record.exc_text = saved


class RepeatFilter(logging.Filter):
    """Let the same log line through a few times, then once per `every_s` with a count of
    what was dropped: a flood ("Too many open files" on every accept) cannot fill the disk.
    Bounded: it remembers at most `max_lines` distinct lines."""

    def __init__(self, burst: int = 5, every_s: float = 10.0, max_lines: int = 256,
                 now: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.burst, self.every_s, self.max_lines, self.now = burst, every_s, max_lines, now
        self._seen: dict[tuple[str, str], list[float]] = {}  # key -> [window start, count]

    def filter(self, record: logging.LogRecord) -> bool:
        key = (record.name, str(record.msg))
        now = self.now()
        seen = self._seen.get(key)
        if seen is None or now - seen[0] >= self.every_s:
            dropped = 0 if seen is None else int(seen[1]) - self.burst
            if seen is None and len(self._seen) >= self.max_lines:
                self._seen.clear()  # forgetting only lets a few more lines through
            self._seen[key] = [now, 1.0]
            if dropped > 0:
                record.msg = f"{record.msg} (and {dropped} more like it in {self.every_s:g} s)"
            return True
        seen[1] += 1
        return seen[1] <= self.burst


FORMAT = "%(levelname)s %(name)s: %(message)s"


def configure_logging(level: str) -> None:
    """Plain escaped lines on stderr; the journal adds time and priority; repeats thinned."""
    logging.basicConfig(level=getattr(logging, level.upper()), stream=sys.stderr, force=True)
    for handler in logging.getLogger().handlers:
        handler.setFormatter(EscapingFormatter(FORMAT))
        handler.addFilter(RepeatFilter())


# The same characters as a regular-expression class (for the names' JSON Schema pattern),
# in escapes that Python's re, Rust's regex (pydantic) and JSON Schema read alike; written
# out, not computed at import (a walk of Unicode takes seconds on a Pi). A test compares it
# with Python's Unicode database.
UNSAFE_CLASS = (
    r"\u0000-\u001f\u007f-\u009f\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890-\u0891"
    r"\u08e2\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff"
    r"\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U00013438\U0001bca0-\U0001bca3"
    r"\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f"
)
