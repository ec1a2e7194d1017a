"""Start-up cost of the engine and the command line (prints figures; `make bench`).

Goals from issue 14: `import cribbage` under 30 ms; `crib score ...` under 150 ms above a
bare interpreter start (`python -c pass`). Each figure is the median of repeated runs of a
fresh process (hyperfine-style), with the best run beside it: the machine is shared.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import time

RUNS = 21


def _times(cmd: list[str]) -> tuple[float, float]:
    """(median, best) wall time in ms of running `cmd` in a fresh process."""
    subprocess.run(cmd, capture_output=True, check=True)  # warm the file cache
    out = []
    for _ in range(RUNS):
        start = time.perf_counter()
        subprocess.run(cmd, capture_output=True, check=True)
        out.append((time.perf_counter() - start) * 1000)
    return statistics.median(out), min(out)


def test_import_and_cli_start() -> None:
    py = sys.executable
    crib = shutil.which("crib", path=os.path.dirname(py)) or ""
    cases = [
        ("python -c pass", [py, "-c", "pass"]),
        ("import cribbage", [py, "-c", "import cribbage"]),
        ("import cribbage.scoring (tables loaded)", [py, "-c", "import cribbage.scoring"]),
        ("score one hand", [py, "-c", "import cribbage; cribbage.score_hand('5H 5C 5S JD', '5D')"]),
        ("Game.new + view", [py, "-c", "import cribbage; cribbage.Game.new().view()"]),
    ]
    if crib:
        cases.append(("crib score 5H 5C 5S JD --starter 5D",
                      [crib, "score", "5H", "5C", "5S", "JD", "--starter", "5D"]))
    one, five, _ = os.getloadavg()
    print(f"\n(load average {one:.2f} / {five:.2f} on {os.cpu_count()} cores; {RUNS} runs each)")
    base = None
    for name, cmd in cases:
        median, best = _times(cmd)
        base = median if base is None else base
        print(f"{name:<42} median {median:6.1f} ms  best {best:6.1f} ms  "
              f"(+{median - base:5.1f} ms over python -c pass)")
    importtime = subprocess.run([py, "-X", "importtime", "-c", "import cribbage"],
                                capture_output=True, text=True, check=True).stderr
    last = importtime.strip().splitlines()[-1]
    print(f"python -X importtime -c 'import cribbage': {last}")
    assert base is not None and base > 0
