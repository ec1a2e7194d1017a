"""`crib shuffler shuffle`: one command starts a shuffle and follows it to the end, pass by
pass (on a hands-free machine: the phase and the time left), with the prompts the page shows;
Enter answers a prompt as the page's button does. Against the running daemon over HTTP (an
operator token), or with `--simulate` on the simulated machine of the configured build.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

from firmware_host.cli import until_stopped
from firmware_host.errors import ConfigError
from hardware.errors import HardwareError

# How often the status is read while a shuffle runs (s): well under a pass (6 s or more).
POLL_S = 0.1
# The longest the command waits for any change of the status before it gives up (s).
STALL_S = 120.0
_PHASE = {"pass": "passing", "restack": "restacking", "paused": "paused: lid open"}


class Remote:
    """The daemon's shuffler over HTTP on this machine, with an operator token."""

    def __init__(self, base: str, token: str) -> None:
        self.base = base.rstrip("/")
        self.token = token

    def _req(self, method: str, path: str, body: dict[str, Any] | None = None
             ) -> dict[str, Any]:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method, headers={
            "Authorization": f"Bearer {self.token}", "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=10) as reply:
                return dict(json.loads(reply.read(256 * 1024)))
        except urllib.error.HTTPError as exc:
            try:
                said = json.loads(exc.read(64 * 1024))
                why = said.get("say") or said.get("error") or exc.reason
            except ValueError:
                why = exc.reason
            raise HardwareError(f"the daemon refused {method} {path} ({exc.code}): {why}"
                                ) from None
        except (OSError, ValueError) as exc:
            reason = getattr(exc, "reason", exc)
            raise HardwareError(f"the daemon does not answer at {self.base} ({reason}): is "
                                "`crib serve` running?") from None

    def status(self) -> dict[str, Any]:
        return self._req("GET", "/api/shuffler")

    def shuffle(self, deck: int | None, plan: str | None) -> dict[str, Any]:
        body: dict[str, Any] = {}
        if deck is not None:
            body["deck"] = deck
        if plan is not None:
            body["plan"] = plan
        return self._req("POST", "/api/shuffler/shuffle", body)

    def resume(self) -> dict[str, Any]:
        return self._req("POST", "/api/shuffler/continue", {})

    def abort(self) -> dict[str, Any]:
        return self._req("POST", "/api/shuffler/abort", {})

    def close(self) -> None:
        """Nothing held: the daemon keeps its shuffler."""


class Local:
    """The configured build's simulated shuffler in this process, made by the daemon's own
    factory and read as the API reads it."""

    def __init__(self, settings: Any) -> None:
        from firmware_host.components.factories import device_factories
        from firmware_host.config import DeviceMode
        from hardware.clock import SystemClock

        settings.shuffler.mode = DeviceMode.SIMULATED
        _kind, make = device_factories(settings, SystemClock())["shuffler"]
        assert make is not None
        self.device, self._cleanup = make()
        self.device.start()

    def status(self) -> dict[str, Any]:
        from firmware_host.components.shuffler import status_json

        return status_json(self.device.status())  # type: ignore[attr-defined]

    def _call(self, call: Callable[[], Any]) -> dict[str, Any]:
        from firmware_host.components.shuffler import status_json

        try:
            return status_json(call())
        except (ValueError, RuntimeError) as exc:
            raise HardwareError(f"the shuffler refused: {exc}") from None

    def shuffle(self, deck: int | None, plan: str | None) -> dict[str, Any]:
        return self._call(lambda: self.device.shuffle(deck or 52, plan or "random"))  # type: ignore[attr-defined]

    def resume(self) -> dict[str, Any]:
        return self._call(self.device.resume)  # type: ignore[attr-defined]

    def abort(self) -> dict[str, Any]:
        return self._call(self.device.abort)  # type: ignore[attr-defined]

    def close(self) -> None:
        self.device.stop()
        self._cleanup()


def progress_line(st: dict[str, Any]) -> str:
    """The page's progress line in words: passes, phase, cards this pass, time left."""
    total = st.get("passes_total") or 0
    parts = [f"passes {st.get('passes_done', 0)} of {total} done"]
    phase = _PHASE.get(st.get("phase") or "")
    if phase:
        parts.append(phase)
    passing = st.get("state") == "busy" and (not st.get("hands_free") or st.get("phase") == "pass")
    if passing and st.get("deck_size"):
        parts.append(f"cards {st.get('cards_this_pass', 0)} of {st['deck_size']}")
    left = st.get("seconds_left")
    if left is not None and st.get("state") != "idle":
        parts.append(f"about {left:.0f} s left")
    return " · ".join(parts)


def plan_line(st: dict[str, Any]) -> str:
    """The plan, its uniformity as a number, and who restacks."""
    who = "restacked by the machine" if st.get("hands_free") else "you stack the piles"
    tv = st.get("tv_distance")
    quality = "" if tv is None else f", distance to a random deck {tv:.3f} (0 is perfect)"
    return (f"plan: {st.get('passes_total', 0)} passes of {st.get('deck_size')} cards, "
            f"{who}{quality}")


def _defaults(args: argparse.Namespace, settings: Any) -> tuple[int, str | None]:
    deck = args.deck or settings.shuffle.deck
    return deck, args.plan or (settings.shuffle.plan if args.simulate else None)


def _open(args: argparse.Namespace, settings: Any) -> Remote | Local:
    if args.simulate:
        if args.speed is not None:
            settings.shuffler.speed = args.speed
        return Local(settings)
    token = args.token or os.environ.get("CRIB_TOKEN")
    if not token:
        raise ConfigError("an operator token is needed to shuffle through the daemon: make "
                          "one on the Pi (`sudo -u cribbage crib token create cli`) and pass "
                          "it as --token or $CRIB_TOKEN, or run the simulated machine with "
                          "--simulate")
    host = settings.host if settings.host not in ("0.0.0.0", "::") else "127.0.0.1"
    url = args.url or f"http://{'[' + host + ']' if ':' in host else host}:{settings.port}"
    return Remote(url, token)


def _answer(out: Any, st: dict[str, Any]) -> bool:
    """Show the prompt; True when the player pressed Enter to answer it, False at the end of
    the input (the shuffle waits for the page, a touch or the next run)."""
    words = "Resume" if st.get("hands_free") else (
        "Done, go on" if st.get("state") == "fault" else "Stacked, next pass")
    out.line(f"press Enter: {words} (Ctrl-C stops the shuffle)", kind="ask", answer=words)
    return sys.stdin.readline() != ""


def run(args: argparse.Namespace, output: Callable[[bool], Any],
        settings_of: Callable[[argparse.Namespace], Any]) -> int:
    """`crib shuffler shuffle`: start, follow to the end, answer prompts with Enter.
    `output` makes the bring-up commands' printer, `settings_of` reads their settings."""
    out = output(args.json)
    try:
        settings = settings_of(args)
        machine = _open(args, settings)
    except (ConfigError, HardwareError, ValueError) as exc:
        print(f"crib shuffler shuffle: {exc}", file=sys.stderr)
        return 2
    deck, plan = _defaults(args, settings)
    code = 1
    with until_stopped():
        try:
            code = _follow(machine, out, deck, plan)
        except HardwareError as exc:
            print(f"crib shuffler shuffle: {exc}", file=sys.stderr)
            code = 2
        except KeyboardInterrupt:
            try:
                machine.abort()  # the motors stop before the command ends
            except HardwareError:
                pass
            out.line("stopped: the shuffle was aborted", kind="stopped")
            code = 130
        finally:
            machine.close()
    return code


def _follow(machine: Remote | Local, out: Any, deck: int, plan: str | None) -> int:
    st = machine.shuffle(deck, plan)
    out.line(plan_line(st), kind="plan", **{k: st.get(k) for k in (
        "deck_size", "passes_total", "tv_distance", "hands_free", "quality")})
    seen: tuple[Any, ...] = ()
    changed = time.monotonic()
    while True:
        key = (st.get("state"), st.get("phase"), st.get("passes_done"), st.get("prompt"),
               st.get("fault"))
        if key != seen:
            seen, changed = key, time.monotonic()
            state = st.get("state")
            if state in ("busy", "waiting", "fault") and st.get("passes_total"):
                out.line(progress_line(st), kind="progress", **{k: st.get(k) for k in (
                    "state", "phase", "passes_done", "passes_total", "cards_this_pass",
                    "restacks_done", "seconds_left")})
            if state == "fault" and st.get("fault"):
                out.line(f"STOPPED: {st['fault']}", kind="fault", words=st["fault"])
            elif state == "waiting" and st.get("prompt"):
                out.line(f"PROMPT: {st['prompt']}", kind="prompt", words=st["prompt"])
            if state in ("waiting", "fault"):
                if not _answer(out, st):
                    out.line("no answer: the shuffle waits (answer it on the page or with a "
                             "touch)", kind="waiting")
                    return 1
                st = machine.resume()
                continue
            if state == "idle":
                done = st.get("passes_total") and st.get("passes_done") == st.get("passes_total")
                if done:
                    out.line(progress_line(st), kind="progress", state="idle",
                             passes_done=st.get("passes_done"),
                             passes_total=st.get("passes_total"))
                out.line(st.get("prompt") or ("done" if done else "the shuffle ended"),
                         kind="done", ok=bool(done), tv_distance=st.get("tv_distance"))
                return 0 if done else 1
            if state not in ("busy",):
                out.line(f"the shuffler is {state}: {st.get('fault') or 'no shuffle'}",
                         kind="ended", state=state)
                return 1
        elif time.monotonic() - changed > STALL_S:
            out.line(f"no progress for {STALL_S:.0f} s: stopping the shuffle", kind="stalled")
            machine.abort()
            return 1
        time.sleep(POLL_S)
        st = machine.status()
