#!/usr/bin/env python3
"""evotest fuzz against cargo-fuzz/libFuzzer on real crates.io parsers, with one independent
coverage observer.

    python3 bench/rust/fuzz.py [--secs 60] [--seeds 2] [--targets a,b] [--evotest PATH]

The fuzz crate bench/rust/fuzz/ (cargo-fuzz targets written for this benchmark, on pinned
versions of semver, httparse and imagesize; cargo fetches them from crates.io) is built three
times, in bench/work/rust-fuzz/:

* evotest: `evotest fuzz --cargo-fuzz bench/rust/fuzz TARGET --instrument_crates CRATE`, the
  bitcode route with the crate under test instrumented (as cargo-fuzz instruments it; its files
  are named relative to its package, so its branches are in the guidance's frontier);
* libFuzzer: what `cargo fuzz build -s none` does on stable rustc: `cargo build --release` with
  libfuzzer-sys linking libFuzzer and RUSTFLAGS `-Cpasses=sancov-module` with cargo-fuzz's
  SanitizerCoverage options (inline 8-bit counters, pc table, trace-compares), `--cfg fuzzing`,
  debug assertions and overflow checks; no sanitizer (ASan needs nightly);
* the observer: `-C instrument-coverage` (and `-Z coverage-options=branch`, which stable rustc
  accepts only with RUSTC_BOOTSTRAP=1: set for this build only, no tool runs it) with a replayer
  `main` in place of libFuzzer.

Each (target, seed) pair runs evotest and libFuzzer at the same time, for the same seconds, from
the same seed inputs (bench/rust/fuzz/seeds/TARGET), so that both see the same load on the
machine and their exec/s form a ratio measured in one run. Then every tool's corpus (with the
seeds and any crash inputs) is replayed through the observer, and llvm-profdata-22 / llvm-cov-22
count the regions, branches, lines and functions covered in the crate under test's sources.
Results: bench/results/rust-fuzz.md and rust-fuzz.json.
"""
import argparse
import glob
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CRATE = os.path.join(ROOT, "bench/rust/fuzz")
WORK = os.path.join(ROOT, "bench/work/rust-fuzz")
TRIPLE = "x86_64-unknown-linux-gnu"

# fuzz target -> the crate under test (its library name and its package directory's prefix in
# cargo's registry)
TARGETS = {
    "semver_parse": "semver",
    "httparse_request": "httparse",
    "imagesize_blob": "imagesize",
}

# cargo-fuzz's RUSTFLAGS for `cargo fuzz build -s none` (cargo-fuzz 0.12, src/project.rs), on
# stable: the sancov pass is in rustc's LLVM, so -Cpasses loads it without -Z flags
LIBFUZZER_RUSTFLAGS = " ".join([
    "-Cpasses=sancov-module",
    "-Cllvm-args=-sanitizer-coverage-level=4",
    "-Cllvm-args=-sanitizer-coverage-inline-8bit-counters",
    "-Cllvm-args=-sanitizer-coverage-pc-table",
    "-Cllvm-args=-sanitizer-coverage-trace-compares",
    "--cfg fuzzing",
    "-Cllvm-args=-simplifycfg-branch-fold-threshold=0",
    "-Cdebug-assertions",
    "-Coverflow_checks",
])

REPLAY_MAIN = r"""#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
extern int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
extern int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));
int main(int argc, char **argv) {
    if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (!f) continue;
        fseek(f, 0, SEEK_END);
        long len = ftell(f);
        rewind(f);
        uint8_t *buf = malloc(len > 0 ? (size_t)len : 1);
        if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len) { fclose(f); free(buf); continue; }
        fclose(f);
        LLVMFuzzerTestOneInput(buf, (size_t)len);
        free(buf);
    }
    return 0;
}
"""


def sh(cmd, env=None, cwd=ROOT, log=None, check=True):
    e = dict(os.environ)
    if env:
        e.update(env)
    out = open(log, "w") if log else subprocess.DEVNULL
    p = subprocess.run(cmd, env=e, cwd=cwd, stdout=out, stderr=subprocess.STDOUT if log else subprocess.PIPE, text=True)
    if check and p.returncode != 0:
        msg = open(log).read()[-2000:] if log else (p.stderr or "")[-2000:]
        sys.exit(f"rust-fuzz: {' '.join(cmd[:4])}… failed:\n{msg}")
    return p


def cargo_env(extra):
    e = {"CARGO_INCREMENTAL": "0"}
    e.update(extra)
    for k in ("RUSTFLAGS", "CARGO_TARGET_DIR", "CARGO_BUILD_TARGET"):
        os.environ.pop(k, None)
    return e


def replayer():
    """An archive with the replayer's main, as libfuzzer-sys's CUSTOM_LIBFUZZER_PATH."""
    os.makedirs(WORK, exist_ok=True)
    c = os.path.join(WORK, "replay_main.c")
    with open(c, "w") as f:
        f.write(REPLAY_MAIN)
    o = os.path.join(WORK, "replay_main.o")
    a = os.path.join(WORK, "libreplay.a")
    sh(["clang-22", "-O1", "-c", c, "-o", o])
    if os.path.exists(a):
        os.remove(a)
    sh(["llvm-ar-22", "rc", a, o])
    return a


def build(targets, evotest):
    os.makedirs(WORK, exist_ok=True)
    bins = {}
    # libFuzzer (libfuzzer-sys compiles libFuzzer's sources with the cc crate)
    d = os.path.join(WORK, "libfuzzer")
    print("rust-fuzz: building the libFuzzer targets", file=sys.stderr)
    sh(["cargo", "build", "--release", "--target", TRIPLE, "--manifest-path", os.path.join(CRATE, "Cargo.toml"), "--target-dir", d]
       + sum([["--bin", t] for t in targets], []),
       env=cargo_env({"RUSTFLAGS": LIBFUZZER_RUSTFLAGS}), log=os.path.join(WORK, "build-libfuzzer.log"))
    # the coverage observer
    rp = replayer()
    d2 = os.path.join(WORK, "cov")
    print("rust-fuzz: building the coverage observer", file=sys.stderr)
    sh(["cargo", "build", "--target", TRIPLE, "--manifest-path", os.path.join(CRATE, "Cargo.toml"), "--target-dir", d2]
       + sum([["--bin", t] for t in targets], []),
       env=cargo_env({"RUSTFLAGS": "--cfg fuzzing -Cinstrument-coverage -Zcoverage-options=branch", "RUSTC_BOOTSTRAP": "1",
                      "CUSTOM_LIBFUZZER_PATH": rp, "CUSTOM_LIBFUZZER_STD_CXX": "none"}),
       log=os.path.join(WORK, "build-cov.log"))
    for t in targets:
        bins[t] = {
            "libfuzzer": os.path.join(d, TRIPLE, "release", t),
            "cov": os.path.join(d2, TRIPLE, "debug", t),
            "evotest": os.path.join(CRATE, "target", "evotest", t),
        }
        # evotest's build (inside `evotest fuzz`, kept in bench/rust/fuzz/target/evotest), made
        # here so that no run's clock includes it
        print(f"rust-fuzz: building {t} for evotest", file=sys.stderr)
        tmp = os.path.join(WORK, "build-corpus")
        shutil.rmtree(tmp, ignore_errors=True)
        sh([evotest, "fuzz", "--cargo-fuzz", CRATE, t, tmp, "--instrument_crates", TARGETS[t], "-runs=1", "-q"],
           log=os.path.join(WORK, f"build-evotest-{t}.log"))
    return bins


def run_pair(t, seed, secs, bins, evotest):
    base = os.path.join(WORK, "runs", f"{t}-s{seed}")
    shutil.rmtree(base, ignore_errors=True)
    seeds = os.path.join(CRATE, "seeds", t)
    procs = {}
    for tool in ("evotest", "libfuzzer"):
        d = os.path.join(base, tool)
        os.makedirs(os.path.join(d, "corpus"))
        os.makedirs(os.path.join(d, "crashes"))
        if tool == "evotest":
            cmd = [evotest, "fuzz", "--cargo-fuzz", CRATE, t, os.path.join(d, "corpus"), seeds,
                   "--instrument_crates", TARGETS[t],
                   f"-max_total_time={secs}", f"-seed={seed}", f"-artifact_prefix={d}/crashes/", "-q", "--json"]
        else:
            cmd = [bins[t]["libfuzzer"], os.path.join(d, "corpus"), seeds, f"-max_total_time={secs}", f"-seed={seed}",
                   "-use_value_profile=1", "-print_final_stats=1", f"-artifact_prefix={d}/crashes/"]
        out = open(os.path.join(d, "stdout"), "w")
        err = open(os.path.join(d, "stderr"), "w")
        procs[tool] = (subprocess.Popen(cmd, cwd=d, stdout=out, stderr=err, env={**os.environ, "RUST_BACKTRACE": "0"}), cmd, out, err)
    res = {}
    for tool, (p, cmd, out, err) in procs.items():
        p.wait()
        out.close()
        err.close()
        d = os.path.join(base, tool)
        r = {"cmd": " ".join(os.path.relpath(c, ROOT) if c.startswith(ROOT) else c for c in cmd).replace(ROOT + "/", ""), "exit": p.returncode}
        if tool == "evotest":
            try:
                s = json.load(open(os.path.join(d, "stdout")))
                r["execs"] = s.get("execs") or s.get("executions")
                r["exec_per_sec"] = s.get("exec_per_sec") or s.get("execs_per_sec")
                r["summary_keys"] = sorted(s.keys())
            except Exception as e:  # noqa: BLE001
                r["error"] = f"no JSON summary: {e}"
        else:
            text = open(os.path.join(d, "stderr")).read()
            m = re.search(r"stat::number_of_executed_units:\s*(\d+)", text)
            v = re.search(r"stat::average_exec_per_sec:\s*(\d+)", text)
            r["execs"] = int(m.group(1)) if m else None
            r["exec_per_sec"] = int(v.group(1)) if v else None
        r["crashes"] = len(os.listdir(os.path.join(d, "crashes")))
        r["corpus"] = len(os.listdir(os.path.join(d, "corpus")))
        res[tool] = r
    return base, res


def coverage(t, base, tool, bins):
    """Regions, branches, lines and functions of the crate under test covered by the tool's
    corpus, its seeds and its crash inputs, replayed through the observer."""
    d = os.path.join(base, tool)
    files = sorted(glob.glob(os.path.join(d, "corpus", "*")) + glob.glob(os.path.join(CRATE, "seeds", t, "*"))
                   + glob.glob(os.path.join(d, "crashes", "*")))
    prof = os.path.join(d, "prof")
    shutil.rmtree(prof, ignore_errors=True)
    os.makedirs(prof)
    env = {**os.environ, "LLVM_PROFILE_FILE": os.path.join(prof, "%p.profraw"), "RUST_BACKTRACE": "0"}
    # in batches; a batch whose process dies (a panic aborts, and its profile is lost) is
    # replayed one input per process
    for i in range(0, len(files), 200):
        batch = files[i:i + 200]
        p = subprocess.run([bins[t]["cov"], *batch], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if p.returncode != 0:
            for f in batch:
                subprocess.run([bins[t]["cov"], f], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    raws = glob.glob(os.path.join(prof, "*.profraw"))
    merged = os.path.join(d, "merged.profdata")
    sh(["llvm-profdata-22", "merge", "-sparse", "-o", merged, *raws])
    p = subprocess.run(["llvm-cov-22", "export", "-summary-only", bins[t]["cov"], f"-instr-profile={merged}"],
                       capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"rust-fuzz: llvm-cov-22 export failed: {p.stderr[-2000:]}")
    data = json.loads(p.stdout)["data"][0]
    crate = TARGETS[t]
    tot = {k: [0, 0] for k in ("regions", "branches", "lines", "functions")}
    nfiles = 0
    for f in data["files"]:
        if not re.search(rf"/{crate}-\d[^/]*/src/", f["filename"]):
            continue
        nfiles += 1
        for k in tot:
            tot[k][0] += f["summary"][k]["covered"]
            tot[k][1] += f["summary"][k]["count"]
    return {"files": nfiles, "inputs": len(files), **{k: {"covered": v[0], "count": v[1]} for k, v in tot.items()}}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--secs", type=int, default=60)
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--targets", default=",".join(TARGETS))
    ap.add_argument("--evotest", default=os.path.join(ROOT, "target/release/evotest"))
    a = ap.parse_args()
    targets = [t for t in a.targets.split(",") if t]
    for t in targets:
        if t not in TARGETS:
            sys.exit(f"rust-fuzz: unknown target {t} (targets: {', '.join(TARGETS)})")
    t0 = time.time()
    bins = build(targets, a.evotest)
    rows = []
    for t in targets:
        for seed in range(1, a.seeds + 1):
            print(f"rust-fuzz: {t} seed {seed}: evotest and libFuzzer, {a.secs} s each, side by side", file=sys.stderr)
            base, res = run_pair(t, seed, a.secs, bins, a.evotest)
            for tool in res:
                res[tool]["coverage"] = coverage(t, base, tool, bins)
            rows.append({"target": t, "crate": TARGETS[t], "seed": seed, **res})
            print(json.dumps({k: (v if k in ("target", "seed") else {kk: vv for kk, vv in v.items() if kk != "cmd"} if isinstance(v, dict) else v)
                              for k, v in rows[-1].items()}), file=sys.stderr)
    write(rows, a, time.time() - t0)


def fmt(c):
    return f"{c['covered']:,}/{c['count']:,}"


def write(rows, a, wall):
    md = [
        "# Rust fuzzing: evotest against cargo-fuzz/libFuzzer on crates.io parsers",
        "",
        f"Produced by `python3 bench/rust/fuzz.py --secs {a.secs} --seeds {a.seeds}` (`make bench-rust-fuzz`), {wall / 60:.0f} minutes in all.",
        f"Each run: {a.secs} s, evotest and libFuzzer side by side on the 2-core machine, same seed inputs (bench/rust/fuzz/seeds/).",
        "Coverage: one observer, a `-C instrument-coverage` build replaying each tool's corpus, seeds and crash inputs; counted by",
        "llvm-cov-22 over the crate under test's own source files (covered/total).",
        "",
        "| target (crate) | seed | tool | regions | branches | lines | functions | corpus | crashes | executions | exec/s | exec/s ratio evotest/libFuzzer |",
        "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        e, l = r["evotest"], r["libfuzzer"]
        ratio = (e["exec_per_sec"] / l["exec_per_sec"]) if e.get("exec_per_sec") and l.get("exec_per_sec") else None
        for tool, x in (("evotest", e), ("libFuzzer", l)):
            c = x["coverage"]
            md.append(
                f"| {r['target']} ({r['crate']}) | {r['seed']} | {tool} | {fmt(c['regions'])} | {fmt(c['branches'])} | {fmt(c['lines'])} | "
                f"{fmt(c['functions'])} | {x['corpus']:,} | {x['crashes']} | {x.get('execs') or 0:,} | {x.get('exec_per_sec') or 0:,.0f} | "
                + (f"{ratio:.2f}" if ratio is not None and tool == "evotest" else "") + " |"
            )
    md += ["", "Medians over seeds (regions, branches covered; exec/s):", ""]
    for t in dict.fromkeys(r["target"] for r in rows):
        rs = [r for r in rows if r["target"] == t]
        line = []
        for tool in ("evotest", "libfuzzer"):
            reg = statistics.median(r[tool]["coverage"]["regions"]["covered"] for r in rs)
            br = statistics.median(r[tool]["coverage"]["branches"]["covered"] for r in rs)
            eps = statistics.median((r[tool].get("exec_per_sec") or 0) for r in rs)
            line.append(f"{tool} {reg:,.0f} regions, {br:,.0f} branches, {eps:,.0f} exec/s")
        md.append(f"* {t}: " + "; ".join(line))
    md += ["", "Commands of the first run of each target:", ""]
    for t in dict.fromkeys(r["target"] for r in rows):
        r = next(r for r in rows if r["target"] == t)
        md += [f"* `{r['evotest']['cmd']}`", f"* `{r['libfuzzer']['cmd']}`"]
    out = os.path.join(ROOT, "bench/results")
    with open(os.path.join(out, "rust-fuzz.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    with open(os.path.join(out, "rust-fuzz.json"), "w") as f:
        json.dump({"secs": a.secs, "seeds": a.seeds, "runs": rows}, f, indent=1)
    print("\n".join(md))


if __name__ == "__main__":
    main()
