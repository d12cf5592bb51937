#!/usr/bin/env python3
"""alt.py compares rocetrace builds with the bare-parser baseline, alternating.

    bench/alt.py [-r ROUNDS] [-a ARGS] FILE BINARY...

Each round runs `handparse -q FILE` and then `BINARY ARGS FILE` for each
binary (ARGS default: "report --json"), the order reversed every other
round so that neither side always runs first; the file is read once
before the first round (into the page cache). It prints, per command, the
median wall time (perf_counter), the median CPU time (user+sys of the
child, from wait4) and their ratios to handparse's medians: issue 20's
"start against final, alternating" tables in BENCHMARKS.md come from it.

handparse is $HANDPARSE, default /tmp/handparse (build it with
`cd ../shared/bench/handparse && go build -o /tmp/handparse .`).
"""
import argparse
import os
import resource
import shlex
import statistics
import subprocess
import sys
import time


def timed(cmd):
    """Runs cmd with stdout discarded; returns (wall s, CPU s)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-r", "--rounds", type=int, default=15)
    ap.add_argument("-a", "--args", default="report --json", help="rocetrace arguments before FILE")
    ap.add_argument("file")
    ap.add_argument("binaries", nargs="+")
    o = ap.parse_args()
    hp = os.environ.get("HANDPARSE", "/tmp/handparse")
    if not os.access(hp, os.X_OK):
        sys.exit(f"alt.py: no handparse at {hp} (set HANDPARSE)")
    cmds = [("handparse", [hp, "-q", o.file])]
    for b in o.binaries:
        cmds.append((b, [b] + shlex.split(o.args) + [o.file]))
    with open(o.file, "rb") as f:
        while f.read(1 << 20):
            pass
    wall = {name: [] for name, _ in cmds}
    cpu = {name: [] for name, _ in cmds}
    for r in range(o.rounds):
        for name, cmd in (cmds if r % 2 == 0 else cmds[::-1]):
            w, c = timed(cmd)
            wall[name].append(w)
            cpu[name].append(c)
    hw, hc = statistics.median(wall["handparse"]), statistics.median(cpu["handparse"])
    print(f"{o.rounds} rounds, {o.file}")
    print("| command | wall s | CPU s | wall / handparse | CPU / handparse |")
    print("|---|---:|---:|---:|---:|")
    for name, _ in cmds:
        w, c = statistics.median(wall[name]), statistics.median(cpu[name])
        print(f"| {name} | {w:.4f} | {c:.3f} | {w / hw:.3f} | {c / hc:.3f} |")


if __name__ == "__main__":
    main()
