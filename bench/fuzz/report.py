#!/usr/bin/env python3
"""Aggregate bench/work/fuzz/runs/ into bench/results/fuzz.md, fuzz.json and SVG plots.

  python3 bench/fuzz/report.py [--runs DIR] [--out DIR] [--title TEXT]

Per target and tool: median branches (and regions) covered, as measured by the one
observer (the cov build replaying the corpus), median exec/s as reported by the tool,
unique crashes, and a coverage-over-time plot (bench/results/fuzz/TARGET.svg: the
median over seeds of branches covered at each checkpoint, thin lines per seed).
Python 3.11+, standard library only.
"""
import argparse
import os
import csv
import json
import statistics
import sys
import time
import tomllib
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent.parent
TOOL_ORDER = ["libfuzzer", "afl", "evotest", "evotest-inprocess"]
COLORS = {"libfuzzer": "#1f77b4", "afl": "#d62728", "evotest": "#2ca02c", "evotest-inprocess": "#9467bd"}
CONFIG_ORDER = ["libfuzzer", "afl", "afl-cmplog", "cov", "cc", "evotest"]


def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def fmt_int(x):
    return "–" if x is None else f"{int(round(x)):,}"


def load_runs(runs_dir):
    runs = []
    for p in sorted(runs_dir.glob("*/*/seed*/run.json")):
        d = p.parent
        r = json.loads(p.read_text())
        cj = d / "cov.json"
        r["cov"] = json.loads(cj.read_text()) if cj.exists() else None
        ct = d / "cov-time.csv"
        r["cov_time"] = []
        if ct.exists():
            with open(ct) as f:
                r["cov_time"] = [{k: float(v) for k, v in row.items()} for row in csv.DictReader(f)]
        runs.append(r)
    return runs


def build_times(build_dir):
    out = {}
    for p in sorted(build_dir.glob("*/*/build.json")):
        b = json.loads(p.read_text())
        out.setdefault(b["target"], {})[b["config"]] = dict(
            seconds=b["seconds"], prep_seconds=b.get("prep_seconds"), date=b.get("date"))
    return out


def svg_plot(target, per_tool, path, secs):
    """per_tool: {tool: [[(t, branches), ...] per seed]}."""
    W, H = 640, 400
    L, R, T, B = 70, 130, 40, 50
    pw, ph = W - L - R, H - T - B
    xmax = max([secs] + [pt[0] for runs in per_tool.values() for run in runs for pt in run]) or 1
    ymax = max([1] + [pt[1] for runs in per_tool.values() for run in runs for pt in run])
    ymin = min([ymax] + [pt[1] for runs in per_tool.values() for run in runs for pt in run])
    ylo = max(0, ymin - (ymax - ymin) * 0.1) if ymax > ymin else 0
    yhi = ymax + (ymax - ylo) * 0.05 + 1

    def X(t):
        return L + pw * t / xmax

    def Y(v):
        return T + ph * (1 - (v - ylo) / (yhi - ylo))

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
             f'viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="12">',
             f'<rect width="{W}" height="{H}" fill="white"/>',
             f'<text x="{W / 2}" y="22" text-anchor="middle" font-size="15">{target}: '
             f'branches covered over time</text>']
    raw = (yhi - ylo) / 5
    mag = 10 ** (len(str(int(raw))) - 1) if raw >= 1 else 1
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    v0 = (int(ylo // step) + 1) * step if ylo % step else ylo
    ticks = []
    while v0 <= yhi:
        ticks.append(v0)
        v0 += step
    for v in ticks:
        y = Y(v)
        parts.append(f'<line x1="{L}" y1="{y:.1f}" x2="{L + pw}" y2="{y:.1f}" stroke="#ddd"/>')
        parts.append(f'<text x="{L - 6}" y="{y + 4:.1f}" text-anchor="end">{int(v):,}</text>')
    for i in range(6):
        t = xmax * i / 5
        x = X(t)
        parts.append(f'<line x1="{x:.1f}" y1="{T}" x2="{x:.1f}" y2="{T + ph}" stroke="#eee"/>')
        parts.append(f'<text x="{x:.1f}" y="{T + ph + 18}" text-anchor="middle">{t:.0f}</text>')
    parts.append(f'<rect x="{L}" y="{T}" width="{pw}" height="{ph}" fill="none" stroke="#333"/>')
    parts.append(f'<text x="{L + pw / 2}" y="{H - 10}" text-anchor="middle">seconds</text>')
    parts.append(f'<text x="16" y="{T + ph / 2}" text-anchor="middle" '
                 f'transform="rotate(-90 16 {T + ph / 2})">branches covered</text>')
    ly = T + 10
    for tool in [t for t in TOOL_ORDER if t in per_tool] + \
            sorted(t for t in per_tool if t not in TOOL_ORDER):
        runs = per_tool[tool]
        color = COLORS.get(tool, "#555")
        for run in runs:
            pts = " ".join(f"{X(t):.1f},{Y(v):.1f}" for t, v in run)
            parts.append(f'<polyline points="{pts}" fill="none" stroke="{color}" '
                         f'stroke-width="1" stroke-opacity="0.35"/>')
        # median over seeds at each checkpoint (runs share the checkpoint times)
        n = min(len(r) for r in runs)
        med = [(runs[0][i][0], statistics.median(r[i][1] for r in runs)) for i in range(n)]
        pts = " ".join(f"{X(t):.1f},{Y(v):.1f}" for t, v in med)
        parts.append(f'<polyline points="{pts}" fill="none" stroke="{color}" stroke-width="2.5"/>')
        parts.append(f'<line x1="{L + pw + 10}" y1="{ly}" x2="{L + pw + 30}" y2="{ly}" '
                     f'stroke="{color}" stroke-width="2.5"/>')
        parts.append(f'<text x="{L + pw + 35}" y="{ly + 4}">{tool} ({len(runs)})</text>')
        ly += 18
    parts.append("</svg>")
    path.write_text("\n".join(parts) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", default=str(ROOT / "bench" / "work" / "fuzz" / "runs"))
    ap.add_argument("--builds", default=str(ROOT / "bench" / "work" / "fuzz" / "build"))
    ap.add_argument("--out", default=str(ROOT / "bench" / "results"))
    ap.add_argument("--title", default="Fuzzing real C libraries")
    a = ap.parse_args()
    with open(BENCH / "targets.toml", "rb") as f:
        cfg = tomllib.load(f)
    runs = load_runs(Path(a.runs))
    if not runs:
        print(f"report: no runs under {a.runs}", file=sys.stderr)
        sys.exit(1)
    btimes = build_times(Path(a.builds))
    out = Path(a.out)
    (out / "fuzz").mkdir(parents=True, exist_ok=True)
    targets = [t for t in cfg["targets"] if any(r["target"] == t for r in runs)]
    tools = [t for t in TOOL_ORDER if any(r["tool"] == t for r in runs)]
    secs_all = sorted({r["secs"] for r in runs})

    result = dict(title=a.title, generated=time.strftime("%Y-%m-%d %H:%M:%S"),
                  budgets_secs=secs_all, tools=tools, targets={})
    for t in targets:
        tc = cfg["targets"][t]
        pkg = tc["package"]
        entry = dict(package=pkg, version=cfg["packages"][pkg]["version"],
                     harness=tc.get("harness_name", ", ".join(tc["harness"])),
                     dict=tc.get("dict"), build_seconds=btimes.get(t, {}), tools={})
        plot = {}
        for tool in tools:
            rs = [r for r in runs if r["target"] == t and r["tool"] == tool]
            if not rs:
                continue
            ok = [r for r in rs if r.get("status") == "ok"]
            per_seed = []
            for r in rs:
                c = r.get("cov") or {}
                per_seed.append(dict(
                    seed=r["seed"], status=r.get("status"), error=r.get("error"),
                    secs=r["secs"], execs=r.get("execs"), execs_per_sec=r.get("execs_per_sec"),
                    unique_crashes=r.get("unique_crashes"),
                    branches_covered=(c.get("branches") or {}).get("covered"),
                    branches_total=(c.get("branches") or {}).get("total"),
                    regions_covered=(c.get("regions") or {}).get("covered"),
                    regions_total=(c.get("regions") or {}).get("total"),
                    corpus_inputs=c.get("inputs"), rundir=r.get("rundir")))
            okc = [s for s in per_seed if s["status"] == "ok"]
            entry["tools"][tool] = dict(
                runs=len(rs), ok_runs=len(ok),
                median_branches_covered=median(s["branches_covered"] for s in okc),
                branches_total=median(s["branches_total"] for s in okc),
                median_regions_covered=median(s["regions_covered"] for s in okc),
                regions_total=median(s["regions_total"] for s in okc),
                median_execs_per_sec=median(s["execs_per_sec"] for s in okc),
                median_execs=median(s["execs"] for s in okc),
                unique_crashes=[s["unique_crashes"] for s in okc],
                errors=sorted({s["error"] for s in per_seed if s["status"] != "ok" and s["error"]}),
                per_seed=per_seed)
            curves = [[(row["secs"], row["branches_covered"]) for row in r["cov_time"]]
                      for r in ok if r["cov_time"]]
            if curves:
                plot[tool] = curves
        if plot:
            svg_plot(t, plot, out / "fuzz" / f"{t}.svg", max(secs_all))
            entry["plot"] = f"fuzz/{t}.svg"
        result["targets"][t] = entry

    (out / "fuzz.json").write_text(json.dumps(result, indent=1) + "\n")

    md = [f"# {a.title}", "",
          f"Generated {result['generated']} by `bench/fuzz/report.py` from "
          f"`{os.path.relpath(a.runs, ROOT)}/`. Budget per run: {', '.join(f'{s} s' for s in secs_all)}. "
          "Coverage is measured by one observer for every tool: the `cov` build "
          "(clang-22 -O0 -fprofile-instr-generate -fcoverage-mapping) replays the seeds and the "
          "tool's corpus (libFuzzer's corpus directory, AFL++'s queue), and `llvm-cov-22 export` "
          "counts the library's own sources only (harness, replay main, zlib and system headers "
          "excluded).", ""]
    md += ["## Branches covered (median over seeds; covered / total)", "",
           "| target | version | " + " | ".join(tools) + " |",
           "|---|---|" + "---:|" * len(tools)]
    for t in targets:
        e = result["targets"][t]
        cells = []
        for tool in tools:
            x = e["tools"].get(tool)
            if not x:
                cells.append("–")
            elif not x["ok_runs"]:
                cells.append("unavailable")
            else:
                cells.append(f"{fmt_int(x['median_branches_covered'])} / "
                             f"{fmt_int(x['branches_total'])} ({x['ok_runs']})")
        md.append(f"| {t} | {e['version']} | " + " | ".join(cells) + " |")
    md += ["", "(n): runs that finished."]

    def table(heading, intro, cell):
        """A section: one row per target, one column per tool; `cell(x)` for a tool that ran."""
        rows = ["", heading, "", *intro, "| target | " + " | ".join(tools) + " |",
                "|---|" + "---:|" * len(tools)]
        for t in targets:
            xs = [result["targets"][t]["tools"].get(tool) for tool in tools]
            rows.append(f"| {t} | " + " | ".join("–" if not x or not x["ok_runs"] else cell(x)
                                                  for x in xs) + " |")
        return rows

    md += table("## Regions covered (median over seeds)", [],
                lambda x: f"{fmt_int(x['median_regions_covered'])} / {fmt_int(x['regions_total'])}")
    md += table("## Executions per second (median over seeds, as the tool reports it)", [],
                lambda x: fmt_int(x["median_execs_per_sec"]))
    md += table("## Unique crashes (per seed)",
                ["libFuzzer: distinct crashes over restarts (the bench restarts it after a crash "
                 "until the budget is spent; deduplicated by stack when one is printed, else by "
                 "input). AFL++: its `saved_crashes`.", ""],
                lambda x: ", ".join(str(c) for c in x["unique_crashes"]))
    errs = [(t, tool, err) for t in targets for tool, x in result["targets"][t]["tools"].items()
            for err in x["errors"]]
    if errs:
        md += ["", "## Runs that did not happen", ""]
        for t, tool, err in errs:
            md.append(f"- {t} / {tool}: {err}")
    md += ["", "## Build times (seconds; prep = configure / amalgamation, once per target)", "",
           "| target | prep | " + " | ".join(CONFIG_ORDER) + " |",
           "|---|---:|" + "---:|" * len(CONFIG_ORDER)]
    for t in targets:
        b = result["targets"][t]["build_seconds"]
        pf = ROOT / "bench" / "work" / "fuzz" / "prep" / t / "prep-seconds"
        try:
            prep = float(pf.read_text())
        except (OSError, ValueError):
            prep = max([v.get("prep_seconds") or 0 for v in b.values()] or [0])
        md.append(f"| {t} | {prep:.1f} | " + " | ".join(
            f"{b[c]['seconds']:.1f}" if c in b else "–" for c in CONFIG_ORDER) + " |")
    md += ["", "## Coverage over time", ""]
    for t in targets:
        if "plot" in result["targets"][t]:
            md += [f"### {t}", "", f"![{t}]({result['targets'][t]['plot']})", ""]
    (out / "fuzz.md").write_text("\n".join(md) + "\n")
    print(f"report: wrote {out / 'fuzz.md'}, {out / 'fuzz.json'} and {len(targets)} plots")


if __name__ == "__main__":
    main()
