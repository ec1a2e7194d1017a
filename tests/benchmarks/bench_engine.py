"""The game machine's own cost per action, and the size of the engine's code (prints figures).

Run with `pytest tests/benchmarks/bench_engine.py -s`, or as a script against another copy of
the engine to compare (`PYTHONPATH=/tmp/old python tests/benchmarks/bench_engine.py /tmp/old/
cribbage`). The goal: the step costs no more than 10% over the figure before the machine was
split and made to return events.

Per action: the same seeded games (dealt mode, every variant; and keeper mode) are replayed,
each action parsed from its JSON dict as the daemon's log holds it, then the view built as the
daemon does after every accepted action. CPU time of this process, best of several runs
(the machine is shared).
"""

from __future__ import annotations

import ast
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

import cribbage
from cribbage.simulate import random_action

VARIANTS = {"six-card": ("Ann", "Bob"), "five-card": ("Ann", "Bob"),
            "three-player": ("Ann", "Bob", "Cy"), "four-player": ("Ann", "Bob", "Cy", "Di")}
REPEATS = 5


def _machine() -> Any:
    # The machine's name before the rename was Keeper: the script measures either.
    return getattr(cribbage, "Game", None) or cribbage.Keeper


def _games(per_variant: int = 3, length: int = 400) -> list[tuple[dict[str, Any], list[Any]]]:
    """(options, actions as JSON dicts) of seeded games."""
    machine = _machine()
    rng = random.Random(2026)
    out = []
    for variant, names in VARIANTS.items():
        for _ in range(per_variant):
            opts = {"variant": variant, "names": names, "mode": "dealt", "dealer": 0,
                    "muggins": rng.random() < 0.5}
            g = machine.new(**opts)
            actions = []
            for _ in range(length):
                a = random_action(g, rng)
                g = g.apply(a)
                actions.append(a)
                if g.phase == "over":
                    actions.append({"type": "next_game"})
                    g = g.apply(actions[-1])
            out.append((opts, actions))
        opts = {"variant": variant, "names": names, "mode": "keeper", "dealer": 0}
        g = machine.new(**opts)
        actions = []
        for _ in range(length):
            legal = g.legal_actions()
            if "peg" in legal and rng.random() < 0.6:
                a = {"type": "peg", "side": rng.randrange(len(g.sides)),
                     "points": rng.randint(1, 4)}
            elif "count" in legal:
                a = {"type": "count", "points": rng.choice([0, 2, 4, 6, 8, 12])}
            else:
                a = {"type": "next_game"}
            g = g.apply(a)
            actions.append(a)
        out.append((opts, actions))
    return out


def per_action_us(games: list[tuple[dict[str, Any], list[Any]]], *, view: bool) -> float:
    """Best-of-REPEATS CPU microseconds per action: step (or apply, before) and, if `view`,
    the view after it."""
    machine = _machine()
    stepping = hasattr(machine, "step")
    n = sum(len(a) for _, a in games)
    best = float("inf")
    for _ in range(REPEATS):
        start = time.process_time()  # this process's CPU: the machine is shared
        for opts, actions in games:
            g = machine.new(**opts)
            for a in actions:
                g = g.step(a).game if stepping else g.apply(a)
                if view:
                    g.view()
        best = min(best, (time.process_time() - start) / n * 1e6)
    return best


def code_figures(root: Path) -> dict[str, Any]:
    """Largest function and module under `root` (lines), and radon's worst cc and mi."""
    functions: list[tuple[int, str]] = []
    modules: list[tuple[int, str]] = []
    for path in sorted(root.rglob("*.py")):
        text = path.read_text()
        name = str(path.relative_to(root.parent))
        modules.append((len(text.splitlines()), name))
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                size = (node.end_lineno or node.lineno) - node.lineno + 1
                functions.append((size, f"{name}:{node.name}"))
    out: dict[str, Any] = {"largest_function": max(functions), "largest_module": max(modules)}
    try:
        from radon.complexity import cc_visit
        from radon.metrics import mi_visit
    except ImportError:  # radon is in the dev extra
        return out
    worst_cc: tuple[int, str] = (0, "")
    worst_mi: tuple[float, str] = (100.0, "")
    for path in sorted(root.rglob("*.py")):
        text = path.read_text()
        name = str(path.relative_to(root.parent))
        for block in cc_visit(text):
            worst_cc = max(worst_cc, (block.complexity, f"{name}:{block.name}"))
        worst_mi = min(worst_mi, (mi_visit(text, multi=True), name))
    out["worst_cc"] = worst_cc
    out["worst_mi"] = (round(worst_mi[0], 2), worst_mi[1])
    return out


def _load() -> str:
    one, five, _ = os.getloadavg()
    return f"(load average {one:.2f} / {five:.2f} on {os.cpu_count()} cores)"


def report(root: Path) -> None:
    games = _games()
    n = sum(len(a) for _, a in games)
    step = per_action_us(games, view=False)
    both = per_action_us(games, view=True)
    print(f"\nengine per action over {n} actions {_load()}:")
    print(f"  step: {step:.1f} us   step + view: {both:.1f} us")
    for key, value in code_figures(root).items():
        print(f"  {key}: {value}")


def test_engine_per_action_and_code_size() -> None:
    report(Path(cribbage.__file__).resolve().parent)


if __name__ == "__main__":
    report(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(cribbage.__file__).resolve().parent)
