"""The game machine's own cost per action, and the size of the engine's code (prints figures).

Run with `pytest tests/benchmarks/bench_engine.py -s`, or as a script:
`python tests/benchmarks/bench_engine.py --against 8c053e4` measures this engine and the one of
that commit in one process, interleaved (the fairest comparison on a shared machine: the old
engine is copied out of git as the package `oldcribbage`). The goal: the step costs no more
than 10% over the figure before the machine was split and made to return events.

Per action: the same seeded games (dealt mode, every variant; and keeper mode) are replayed,
each action parsed once from its JSON dict as the daemon's log holds it (`parse_action`, then
the typed step), then the view built as the daemon does after every accepted action. CPU
time of this process, best of several runs (the machine is shared).
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


def _parser(package: Any) -> Any:
    """The package's reader of a JSON action (the edge's one parse; the game takes it
    typed), or None for an engine that parsed inside its step."""
    import importlib

    try:
        return importlib.import_module(f"{package.__name__}.actions").parse_action
    except ImportError:
        return None


def _games(per_variant: int = 3, length: int = 400) -> list[tuple[dict[str, Any], list[Any]]]:
    """(options, actions as JSON dicts) of seeded games."""
    machine = _machine()
    parse = _parser(cribbage)
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
                g = g.apply(parse(a))
                actions.append(a)
                if g.phase == "over":
                    actions.append({"type": "next_game"})
                    g = g.apply(parse(actions[-1]))
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
            g = g.apply(parse(a))
            actions.append(a)
        out.append((opts, actions))
    return out


def per_action_us(games: list[tuple[dict[str, Any], list[Any]]], *, view: bool) -> float:
    """Best-of-REPEATS CPU microseconds per action: step (or apply, before) and, if `view`,
    the view after it."""
    machine = _machine()
    parse = _parser(cribbage)
    n = sum(len(a) for _, a in games)
    best = float("inf")
    for _ in range(REPEATS):
        start = time.process_time()  # this process's CPU: the machine is shared
        for opts, actions in games:
            g = machine.new(**opts)
            for a in actions:
                g = g.step(parse(a)).game
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


def against(commit: str, rounds: int = 10) -> None:
    """This engine and the one of `commit`, interleaved in one process (see the docstring)."""
    import importlib
    import io
    import re
    import subprocess
    import tarfile
    import tempfile

    here = Path(cribbage.__file__).resolve().parent
    tar = subprocess.run(["git", "-C", str(here.parent), "archive", commit, "cribbage"],
                         check=True, capture_output=True).stdout
    tmp = Path(tempfile.mkdtemp(prefix="old-engine-"))
    with tarfile.open(fileobj=io.BytesIO(tar)) as t:
        t.extractall(tmp, filter="data")
    (tmp / "cribbage").rename(tmp / "oldcribbage")
    for path in (tmp / "oldcribbage").rglob("*.py"):
        text = re.sub(r"\bcribbage\.", "oldcribbage.", path.read_text())
        path.write_text(text.replace('files("cribbage")', 'files("oldcribbage")'))
    sys.path.insert(0, str(tmp))
    old = importlib.import_module("oldcribbage")
    old_machine = getattr(old, "Game", None) or old.Keeper
    games = _games(per_variant=2, length=300)
    n = sum(len(a) for _, a in games)

    def run(machine: Any, view: bool) -> float:
        stepping = hasattr(machine, "step")
        package = old if machine is old_machine else cribbage
        parse = _parser(package) or (lambda a: a)
        start = time.process_time()
        for opts, actions in games:
            g = machine.new(**opts)
            for a in actions:
                # Both parse each JSON action once, as the daemon's edge does.
                g = g.step(parse(a)).game if stepping else g.apply(parse(a))
                if view:
                    g.view()
        return (time.process_time() - start) / n * 1e6

    best: dict[tuple[str, bool], float] = {}
    for _ in range(rounds):
        for name, machine in (("before", old_machine), ("after", _machine())):
            for view in (False, True):
                key = (name, view)
                best[key] = min(best.get(key, float("inf")), run(machine, view))
    print(f"{n} actions, CPU us per action, best of {rounds} interleaved rounds {_load()}:")
    for view in (False, True):
        b, a = best[("before", view)], best[("after", view)]
        print(f"  {'step + view' if view else 'step'}: {commit} {b:.1f}, now {a:.1f} "
              f"({(a / b - 1) * 100:+.1f}%)")


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--against":
        against(sys.argv[2])
    else:
        report(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(cribbage.__file__).resolve().parent)
