#!/usr/bin/env python3
"""The README table of `make bench-fuzz-sbst` from bench/results/fuzz-sbst.json.

Each tool's cell: success rate · median executions to full feasible coverage of the successful
runs (the benchmark's own median). The last columns compare `fuzz` with the better peer on the
median over *all* runs, a failed run counted as infinitely many executions (so a tool that fails
in half of its runs or more has no finite median): ratio = better peer's median / fuzz's median,
and whether it is at least 10 (issue 13's goal).

Usage: bench/fuzz_sbst_table.py [RESULTS.json ...] (default bench/results/fuzz-sbst.json). With
several files, the runs of a (program, tool) pair come from the last file that has any, so that
evotest's tools can be re-measured after a change without re-running the peers (whose runs do
not depend on evotest's code); the table then says which file each tool's runs came from.
"""
import json
import math
import sys

TOOLS = ["fuzz", "fuzz+i2s", "fuzz+noguide", "libfuzzer", "afl"]
PEERS = ["libfuzzer", "afl"]


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    if n == 0:
        return math.inf
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def fmt(x):
    return "–" if x is None or math.isinf(x) else f"{x:,.0f}"


def main():
    paths = sys.argv[1:] or ["bench/results/fuzz-sbst.json"]
    by_pair, source = {}, {}
    for path in paths:
        fresh = {}
        for r in json.load(open(path))["records"]:
            fresh.setdefault((r["program"], r["tool"]), []).append(r)
        by_pair.update(fresh)
        for (_, t) in fresh:
            source[t] = path
    programs = []
    for (p, _) in by_pair:
        if p not in programs:
            programs.append(p)
    j = {"records": [r for rs in by_pair.values() for r in rs]}
    print("| program | outcomes | " + " | ".join(TOOLS) + " | better peer ÷ fuzz (all runs) | goal ≥ 10× |")
    print("|---|---:|" + "---:|" * len(TOOLS) + "---:|:---:|")
    met = 0
    for p in programs:
        cells, all_med = [], {}
        feasible = None
        for t in TOOLS:
            rs = [r for r in j["records"] if r["program"] == p and r["tool"] == t]
            if not rs:
                cells.append("")
                continue
            feasible = rs[0]["feasible"]
            ok = [r["executions_to_full"] for r in rs if r["success"]]
            sr = 100 * len(ok) / len(rs)
            cells.append(f"{sr:.0f}% · {fmt(median(ok)) if ok else '–'}")
            all_med[t] = median([r["executions_to_full"] if r["success"] else math.inf for r in rs])
        peer = min(all_med.get(t, math.inf) for t in PEERS)
        f = all_med.get("fuzz", math.inf)
        if math.isinf(f):
            ratio, ok = ("both fail" if math.isinf(peer) else "fuzz fails"), False
        elif math.isinf(peer):
            ratio, ok = "∞ (peers fail)", True
        else:
            ratio, ok = f"{peer / f:,.1f}", peer / f >= 10
        met += ok
        print(f"| {p} | {feasible} | " + " | ".join(cells) + f" | {ratio} | {'yes' if ok else '**no**'} |")
    print(f"\ngoal met on {met} of {len(programs)} programs")
    if len(paths) > 1:
        for t in TOOLS:
            if t in source:
                print(f"{t}: runs from {source[t]}")


if __name__ == "__main__":
    main()
