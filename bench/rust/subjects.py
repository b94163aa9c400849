#!/usr/bin/env python3
"""C and Rust side by side: executions to full coverage of each subject of examples/ and its
Rust port in examples/rust/, with the same search, options and seeds.

    python3 bench/rust/subjects.py [--seeds N] [--max-execs N] [--only a,b] [--evotest PATH]

For every subject and seed 1..N it runs
    evotest run examples/NAME.c -f FUNCTION OPTIONS --seed S --max-execs M --max-time 0
    evotest run --crate examples/rust/CRATE -f FUNCTION OPTIONS --seed S --max-execs M --max-time 0
(default search, `--rust-checks ignore`), reads each report.json, and writes
bench/results/rust-subjects.md (the table, with the commands) and rust-subjects.json (every run).
A run reaches full coverage when it covers all of its goals; the figure is the execution at which
it did ("full_coverage_at_execution"). Work files go to bench/work/rust-subjects/.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# name, C function, Rust crate, Rust function, C options, Rust options (the C version's
# `--array a=10` is the Rust parameter's type, `&[i32; 10]`)
SUBJECTS = [
    ("triangle", "triangle", "triangle", "triangle", [], []),
    ("tritype", "tritype", "tritype", "tritype", ["--range", "a=1..100", "--range", "b=1..100", "--range", "c=1..100"], None),
    ("expint", "expint", "expint", "expint", [], []),
    ("counter", "counter", "flags", "counter", ["--array", "a=10", "--range", "a=-15000..15000"], ["--range", "a=-15000..15000"]),
    ("deceptive", "deceptive", "flags", "deceptive", ["--range", "x=-50000..50000@0.001"], None),
    ("enumeration", "enumeration", "flags", "enumeration", ["--range", "r=0..255", "--range", "g=0..255", "--range", "b=0..255"], None),
    ("flag_assignment", "flag_assignment", "flags", "flag_assignment", ["--range", "a=-50000..50000@0.001", "--range", "b=-50000..50000@0.001"], None),
    ("flag_loop_assignment", "flag_loop_assignment", "flags", "flag_loop_assignment", ["--array", "a=10", "--range", "a=-15000..15000"], ["--range", "a=-15000..15000"]),
    ("flag_avoid_loop_assignment", "flag_avoid_loop_assignment", "flags", "flag_avoid_loop_assignment", ["--array", "a=10", "--range", "a=-15000..15000"], ["--range", "a=-15000..15000"]),
    ("multiple_flag", "multiple_flag", "flags", "multiple_flag", ["--range", "a=-50000..50000@0.001", "--range", "b=-50000..50000@0.001"], None),
]


def run(cmd, out):
    t = time.time()
    p = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        return {"error": (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1], "wall": time.time() - t}
    r = json.load(open(os.path.join(out, "report.json")))
    full = r["branches_covered"] == r["branches_total"]
    return {
        "goals": r["branches_total"],
        "covered": r["branches_covered"],
        "full_at": r.get("full_coverage_at_execution") if full else None,
        "executions": r["executions"],
        "exec_per_sec": r.get("exec_per_sec"),
        "wall": time.time() - t,
    }


def cell(runs):
    """'a, b, c (median m)' of the runs' executions to full coverage, '–' for a run that failed."""
    ok = [r["full_at"] for r in runs if r.get("full_at")]
    vals = ", ".join(f"{r['full_at']:,}" if r.get("full_at") else "–" for r in runs)
    med = f"{statistics.median(ok):,.0f}" if ok else "–"
    return f"{len(ok)}/{len(runs)} · median **{med}**", vals


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--max-execs", type=int, default=100000)
    ap.add_argument("--only", default="")
    ap.add_argument("--evotest", default=os.path.join(ROOT, "target/release/evotest"))
    a = ap.parse_args()
    only = set(filter(None, a.only.split(",")))
    work = os.path.join(ROOT, "bench/work/rust-subjects")
    os.makedirs(work, exist_ok=True)
    results = []
    common = ["--max-execs", str(a.max_execs), "--max-time", "0", "-q"]
    for name, cf, crate, rf, copts, ropts in SUBJECTS:
        if only and name not in only:
            continue
        ropts = copts if ropts is None else ropts
        row = {"name": name, "c": [], "rust": [], "c_cmd": "", "rust_cmd": ""}
        for seed in range(1, a.seeds + 1):
            cout = os.path.join(work, f"{name}-c")
            rout = os.path.join(work, f"{name}-rust")  # one directory per subject: cargo's builds are kept
            ccmd = [a.evotest, "run", f"examples/{name}.c", "-f", cf, *copts, "--seed", str(seed), *common, "--out", cout]
            rcmd = [a.evotest, "run", "--crate", f"examples/rust/{crate}", "-f", rf, *ropts, "--seed", str(seed), *common, "--out", rout]
            row["c"].append(run(ccmd, cout))
            row["rust"].append(run(rcmd, rout))
            print(f"{name} seed {seed}: C {row['c'][-1].get('full_at') or row['c'][-1]}, Rust {row['rust'][-1].get('full_at') or row['rust'][-1]}", file=sys.stderr)
        show = lambda cmd: " ".join(c for c in cmd if not c.startswith(ROOT) and c not in ("--out", "-q")).replace("--seed 1 ", "--seed S ")
        row["c_cmd"] = "evotest " + show(ccmd[1:]).replace(f"--seed {a.seeds} ", "--seed S ")
        row["rust_cmd"] = "evotest " + show(rcmd[1:]).replace(f"--seed {a.seeds} ", "--seed S ")
        results.append(row)
    md = [
        "# C and Rust: executions to full coverage",
        "",
        f"evotest's default search, seeds 1–{a.seeds}, `--max-execs {a.max_execs} --max-time 0`, Rust with `--rust-checks ignore` (the default).",
        "Produced by `python3 bench/rust/subjects.py" + (f" --seeds {a.seeds}" if a.seeds != 10 else "") + (f" --max-execs {a.max_execs}" if a.max_execs != 100000 else "") + "` (`make bench-rust-subjects`).",
        "Each cell: runs that reached full coverage · median executions to full coverage; then the runs, seed by seed.",
        "",
        "| subject | goals C / Rust | C | Rust | C runs | Rust runs |",
        "|---|---:|---:|---:|---|---|",
    ]
    for row in results:
        g = lambda rs: rs[0].get("goals", "?") if rs else "?"
        cc, cv = cell(row["c"])
        rc, rv = cell(row["rust"])
        md.append(f"| {row['name']} | {g(row['c'])} / {g(row['rust'])} | {cc} | {rc} | {cv} | {rv} |")
    md += ["", "Commands (S = the seed):", ""]
    for row in results:
        md += [f"* {row['name']}: `{row['c_cmd']}`; `{row['rust_cmd']}`"]
    errors = [(row["name"], lang, r["error"]) for row in results for lang in ("c", "rust") for r in row[lang] if "error" in r]
    if errors:
        md += ["", "Errors:", ""] + [f"* {n} ({l}): {e}" for n, l, e in errors]
    out = os.path.join(ROOT, "bench/results")
    with open(os.path.join(out, "rust-subjects.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    with open(os.path.join(out, "rust-subjects.json"), "w") as f:
        json.dump({"seeds": a.seeds, "max_execs": a.max_execs, "subjects": results}, f, indent=1)
    print("\n".join(md))


if __name__ == "__main__":
    main()
