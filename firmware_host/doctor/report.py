"""What `crib doctor` says: one `Check` a line, and the `Report` of them all."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any


class Status(enum.StrEnum):
    """The outcome of one check; only FAIL makes `crib doctor` exit non-zero."""

    OK = "ok"
    WARN = "warn"
    FAIL = "fail"
    SKIP = "skip"


@dataclass(frozen=True, slots=True)
class Check:
    """One check's result: what was found, and the fix when something is wrong."""

    name: str
    status: Status
    message: str
    fix: str | None = None
    details: dict[str, Any] = field(default_factory=dict)

    def line(self) -> str:
        """The one line `crib doctor` prints for this check."""
        text = f"{self.status.upper():<4}  {self.name}: {self.message}"
        return f"{text} -> fix: {self.fix}" if self.fix else text

    def to_json(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "name": self.name,
            "status": str(self.status),
            "message": self.message,
            "fix": self.fix,
            "details": self.details,
        }


@dataclass(frozen=True, slots=True)
class Report:
    """All checks; `ok` is False when any check failed."""

    checks: tuple[Check, ...]

    @property
    def ok(self) -> bool:
        return all(c.status is not Status.FAIL for c in self.checks)

    def by_name(self, name: str) -> Check:
        """The check called `name`; raises KeyError if there is none."""
        for c in self.checks:
            if c.name == name:
                return c
        raise KeyError(name)

    def lines(self) -> list[str]:
        """One line per check, then a summary line."""
        failed = sum(c.status is Status.FAIL for c in self.checks)
        warned = sum(c.status is Status.WARN for c in self.checks)
        summary = "all good" if not failed and not warned else f"{failed} failed, {warned} warnings"
        return [c.line() for c in self.checks] + [f"doctor: {summary}"]

    def to_json(self) -> dict[str, Any]:
        """JSON-ready form, as `crib doctor --json` prints it."""
        return {"ok": self.ok, "checks": [c.to_json() for c in self.checks]}
