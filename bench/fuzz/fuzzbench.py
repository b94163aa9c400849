#!/usr/bin/env python3
"""Benchmark infrastructure for fuzzing real C libraries (evotest bench/fuzz).

Subcommands (the shell scripts beside this file call them):
  fetch  TARGET|all                  Debian source packages -> bench/work/fuzz/src/
  build  TARGET|all CONFIG|all       -> bench/work/fuzz/build/TARGET/CONFIG/harness
  run    --tools T,.. --targets X,.. --seeds 1,2 --secs N [--jobs 2]
                                     -> bench/work/fuzz/runs/TARGET/TOOL/seedS/run.json
  cov    RUNDIR...|all               replay a run's corpus through the cov build
                                     -> RUNDIR/cov.json, RUNDIR/cov-time.csv
  list                               the targets, one a line

Python 3.11+, standard library only.  See bench/fuzz/README.md.
"""
import argparse
import concurrent.futures
import glob
import hashlib
import json
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import time
import tomllib
from pathlib import Path

BENCH = Path(__file__).resolve().parent          # bench/fuzz
ROOT = BENCH.parent.parent                       # the repository
WORK = ROOT / "bench" / "work" / "fuzz"
SRC = WORK / "src"
TARBALLS = SRC / "tarballs"
PREP = WORK / "prep"
BUILD = WORK / "build"
# BENCH_FUZZ_RUNS: another runs directory (a side benchmark that must not replace the main one)
RUNS = Path(os.environ["BENCH_FUZZ_RUNS"]) if os.environ.get("BENCH_FUZZ_RUNS") else WORK / "runs"
SEEDS = WORK / "seeds"
APTDIR = WORK / "apt"

CONFIGS = ["libfuzzer", "afl", "afl-cmplog", "cov", "cc"]
ALL_CONFIGS = CONFIGS + ["evotest"]
TOOLS = ["libfuzzer", "afl", "evotest", "evotest-inprocess"]
# Coverage-over-time checkpoints, as fractions of the run's budget.
CHECKPOINTS = [0.0, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0]

CLANG = os.environ.get("BENCH_CLANG", "clang-22")
CLANGXX = os.environ.get("BENCH_CLANGXX", "clang++-22")
LLVM_AR = os.environ.get("BENCH_LLVM_AR", "llvm-ar-22")
PROFDATA = os.environ.get("BENCH_LLVM_PROFDATA", "llvm-profdata-22")
LLVM_COV = os.environ.get("BENCH_LLVM_COV", "llvm-cov-22")
AFL_DRIVER = "/usr/lib/afl/libAFLDriver.a"


class BenchError(Exception):
    pass


def die(msg):
    print(f"fuzzbench: {msg}", file=sys.stderr)
    sys.exit(1)


def log(msg):
    print(f"fuzzbench: {msg}", flush=True)


def shown(p):
    """`p` relative to the repository when it lies inside it (BENCH_FUZZ_RUNS may not)."""
    try:
        return Path(p).relative_to(ROOT)
    except ValueError:
        return p


def load_config():
    with open(BENCH / "targets.toml", "rb") as f:
        return tomllib.load(f)


CFG = load_config()
TARGETS = list(CFG["targets"].keys())


def target_list(arg):
    if arg in ("all", "", None):
        return TARGETS
    names = [a for a in arg.split(",") if a]
    for n in names:
        if n not in CFG["targets"]:
            die(f"unknown target '{n}' (known: {', '.join(TARGETS)})")
    return names


# --------------------------------------------------------------------------- fetch

def pkg_dir(pkg):
    return SRC / f"{pkg}-{CFG['packages'][pkg]['version']}"


def apt_opts():
    return ["-o", "Dir::Etc::SourceList=/dev/null", "-o", f"Dir::Etc::SourceParts={APTDIR}",
            "-o", f"Dir::State::Lists={APTDIR}/lists", "-o", "APT::Sandbox::User=root"]


def apt_update():
    stamp = APTDIR / "updated"
    if stamp.exists() and time.time() - stamp.stat().st_mtime < 24 * 3600:
        return
    (APTDIR / "lists" / "partial").mkdir(parents=True, exist_ok=True)
    sources = Path("/etc/apt/sources.list.d/debian.sources")
    if sources.exists():
        text = re.sub(r"(?m)^Types: deb$", "Types: deb-src", sources.read_text())
        (APTDIR / "src.sources").write_text(text)
    else:  # classic one-line format
        lines = []
        for line in Path("/etc/apt/sources.list").read_text().splitlines():
            if line.startswith("deb "):
                lines.append("deb-src " + line[4:])
        (APTDIR / "src.list").write_text("\n".join(lines) + "\n")
    r = subprocess.run(["apt-get", *apt_opts(), "update", "-qq"], capture_output=True, text=True)
    if r.returncode != 0 or "Failed to fetch" in r.stderr or "Could not resolve" in r.stderr:
        last = (r.stderr.strip().splitlines() or ["no output"])[-1]
        raise BenchError(f"cannot reach Debian's package registry (apt-get update failed: {last})")
    stamp.write_text(time.ctime() + "\n")


def find_orig(pkg, ver):
    hits = sorted(TARBALLS.glob(f"{pkg}_{ver}.orig.tar.*"))
    return hits[0] if hits else None


def source_versions(pkg):
    """The versions of source package `pkg` that apt's index lists, each once, in its order."""
    r = subprocess.run(["apt-cache", *apt_opts(), "showsrc", pkg], capture_output=True, text=True)
    out = []
    for line in r.stdout.splitlines():
        if line.startswith("Version: "):
            v = line.split(": ", 1)[1].strip()
            if v not in out:
                out.append(v)
    return out


def fetch_package(pkg):
    ver = CFG["packages"][pkg]["version"]
    dest = pkg_dir(pkg)
    patches = CFG["packages"][pkg].get("patches", [])
    stamp = "\n".join([ver, *patches])
    if (dest / ".unpacked").exists() and (dest / ".unpacked").read_text().split("\n", 1)[-1] \
            == stamp + "\n":
        return dest
    TARBALLS.mkdir(parents=True, exist_ok=True)
    tb = find_orig(pkg, ver)
    if tb is None:
        try:
            apt_update()
        except BenchError as e:
            raise BenchError(f"fetching {pkg}: {e}") from None
        log(f"fetching Debian source package {pkg} (upstream {ver})")
        # Only the .orig tarball is used; a missing Debian diff (a superseded security
        # revision) makes apt-get fail without harm, so judge by the orig tarball.
        r = subprocess.run(["apt-get", *apt_opts(), "source", "--download-only", pkg],
                           cwd=TARBALLS, capture_output=True, text=True)
        tb = find_orig(pkg, ver)
        if tb is None:
            # the newest revision's files may be missing from its pool (a security update
            # whose source the security archive no longer serves, seen for zlib
            # 1:1.2.13.dfsg-1+deb12u1): try the other revisions the index lists
            for v in source_versions(pkg):
                r = subprocess.run(["apt-get", *apt_opts(), "source", "--download-only",
                                    f"{pkg}={v}"], cwd=TARBALLS, capture_output=True, text=True)
                tb = find_orig(pkg, ver)
                if tb is not None:
                    log(f"{pkg}: fetched revision {v}")
                    break
        if tb is None:
            other = sorted(p.name for p in TARBALLS.glob(f"{pkg}_*.orig.tar.*"))
            if other:
                raise BenchError(f"Debian's {pkg} is not upstream {ver} (got {other[0]}); "
                                 f"update bench/fuzz/targets.toml")
            last = ((r.stderr or r.stdout).strip().splitlines() or ["no output"])[-1]
            raise BenchError(f"cannot fetch source package {pkg} from Debian's registry: {last}")
    tmp = dest.with_name(dest.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    subprocess.run(["tar", "-xf", str(tb), "-C", str(tmp), "--strip-components=1"], check=True)
    for patch in CFG["packages"][pkg].get("patches", []):
        r = subprocess.run(["patch", "-p1", "-d", str(tmp), "-i", str(BENCH / patch)],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise BenchError(f"{pkg}: patch {patch} does not apply: {r.stdout.strip()[-300:]}")
        log(f"{pkg}: applied {patch}")
    shutil.rmtree(dest, ignore_errors=True)
    tmp.rename(dest)
    (dest / ".unpacked").write_text(tb.name + "\n" + stamp + "\n")
    log(f"unpacked {tb.name} -> {shown(dest)}")
    return dest


def fetch_target(t):
    tc = CFG["targets"][t]
    for pkg in [tc["package"], *tc.get("also", [])]:
        fetch_package(pkg)


# --------------------------------------------------------------------------- paths

def expand(s, t):
    tc = CFG["targets"][t]

    def sub(m):
        key = m.group(1)
        if key == "src":
            return str(pkg_dir(tc["package"]))
        if key.startswith("src:"):
            return str(pkg_dir(key[4:]))
        if key == "prep":
            return str(PREP / t)
        if key == "bench":
            return str(BENCH)
        raise BenchError(f"unknown placeholder {{{key}}} in target {t}")
    return re.sub(r"\{(src(?::[\w.+-]+)?|prep|bench)\}", sub, s)


def src_path(p, t):
    p = expand(p, t)
    if not os.path.isabs(p):
        p = str(pkg_dir(CFG["targets"][t]["package"]) / p)
    return p


def dict_path(t):
    d = CFG["targets"][t].get("dict")
    return src_path(d, t) if d else None


def harness_paths(t):
    return [src_path(h, t) for h in CFG["targets"][t]["harness"]]


# --------------------------------------------------------------------------- prep & seeds

def prep_target(t):
    tc = CFG["targets"][t]
    d = PREP / t
    cmd = expand(tc.get("prep", ""), t)
    key = hashlib.sha1(cmd.encode()).hexdigest()
    stamp = d / ".prep-done"
    if stamp.exists() and stamp.read_text().strip() == key:
        return 0.0
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    t0 = time.time()
    if cmd.strip():
        log(f"{t}: prep: {cmd}")
        env = dict(os.environ, CC=CLANG, CXX=CLANGXX)
        with open(d / "prep.log", "w") as lf:
            r = subprocess.run(["bash", "-c", "set -e; " + cmd], cwd=d, env=env,
                               stdout=lf, stderr=subprocess.STDOUT)
        if r.returncode != 0:
            tail = (d / "prep.log").read_text().splitlines()[-20:]
            print("\n".join(tail), file=sys.stderr)
            raise BenchError(f"{t}: prep step failed (log: {d / 'prep.log'})")
    secs = time.time() - t0
    (d / "prep-seconds").write_text(f"{secs:.1f}\n")
    stamp.write_text(key + "\n")
    return secs


def make_seeds(t):
    """Copy the target's seed files into SEEDS/t (flat, unique names)."""
    tc = CFG["targets"][t]
    d = SEEDS / t
    specs = tc.get("seeds", [])
    key = hashlib.sha1(json.dumps(specs).encode()).hexdigest()
    stamp = d / ".seeds"
    if stamp.exists():
        # up to date only if nothing was added or removed (a tool run by hand with the
        # seed directory as its first corpus directory writes into it)
        lines = stamp.read_text().splitlines()
        names = sorted(p.name for p in d.iterdir() if not p.name.startswith("."))
        if lines and lines[0] == key and lines[1:] == names:
            return d
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    files = []
    for spec in specs:
        if spec.startswith("bench:"):
            base = BENCH
            pat = spec[len("bench:"):]
        else:
            base = pkg_dir(tc["package"])
            pat = spec
        full = str(base / pat)
        for p in sorted(glob.glob(full)):
            if os.path.isdir(p):
                files += [(os.path.join(p, f), os.path.relpath(os.path.join(p, f), base))
                          for f in sorted(os.listdir(p)) if os.path.isfile(os.path.join(p, f))]
            elif os.path.isfile(p):
                files.append((p, os.path.relpath(p, base)))
    if not files:
        raise BenchError(f"{t}: no seed files from {specs}")
    for p, rel in files:
        shutil.copyfile(p, d / rel.replace("/", "_"))
    stamp.write_text("\n".join([key, *sorted(rel.replace("/", "_") for _, rel in files)]) + "\n")
    # the stamp file starts with '.', which libFuzzer, AFL++ and the replay main skip
    return d


# --------------------------------------------------------------------------- build

def which_or(name, fallback=None):
    p = shutil.which(name)
    return p or fallback


def config_spec(config):
    """Compilers, flags, link engine and environment of a build configuration."""
    o1 = ["-O1", "-g"]
    if config == "libfuzzer":
        return dict(cc=CLANG, cxx=CLANGXX, cflags=o1 + ["-fsanitize=fuzzer-no-link"],
                    cxxflags=o1 + ["-fsanitize=fuzzer-no-link"], engine=["-fsanitize=fuzzer"],
                    env={})
    if config in ("afl", "afl-cmplog"):
        env = {"AFL_QUIET": "1", "AFL_DONT_OPTIMIZE": "1"}
        if config == "afl-cmplog":
            env["AFL_LLVM_CMPLOG"] = "1"
        return dict(cc="afl-clang-fast", cxx="afl-clang-fast++", cflags=o1, cxxflags=o1,
                    engine=[AFL_DRIVER], env=env)
    if config == "cov":
        f = ["-O0", "-g", "-fprofile-instr-generate", "-fcoverage-mapping"]
        return dict(cc=CLANG, cxx=CLANGXX, cflags=f, cxxflags=f,
                    engine=["-fprofile-instr-generate"], env={})
    if config in ("cc", "evotest"):
        # OSS-Fuzz conventions: $CC $CFLAGS, $CXX $CXXFLAGS, $LIB_FUZZING_ENGINE.
        if config == "evotest":
            rel = ROOT / "target" / "release"
            cc = os.environ.get("CC") or which_or("evotest-cc", str(rel / "evotest-cc"))
            cxx = os.environ.get("CXX") or which_or("evotest-c++", str(rel / "evotest-c++"))
            engine = os.environ.get("LIB_FUZZING_ENGINE", "-fsanitize=fuzzer")
            for c in (cc, cxx):
                if not (shutil.which(c) or os.access(c, os.X_OK)):
                    raise BenchError(f"evotest config: compiler {c} not found "
                                     f"(build evotest's evotest-cc first, or set CC/CXX)")
        else:
            missing = [v for v in ("CC", "CXX", "LIB_FUZZING_ENGINE") if v not in os.environ]
            if missing:
                raise BenchError("config cc needs CC, CXX and LIB_FUZZING_ENGINE in the "
                                 f"environment (missing: {', '.join(missing)})")
            cc, cxx, engine = os.environ["CC"], os.environ["CXX"], os.environ["LIB_FUZZING_ENGINE"]
        dflt = "-O1 -g -fsanitize=fuzzer-no-link"
        cflags = shlex.split(os.environ.get("CFLAGS", dflt))
        cxxflags = shlex.split(os.environ.get("CXXFLAGS", dflt))
        return dict(cc=cc, cxx=cxx, cflags=cflags, cxxflags=cxxflags,
                    engine=shlex.split(engine), env={})
    raise BenchError(f"unknown config '{config}' (known: {', '.join(ALL_CONFIGS)})")


def obj_name(path, t):
    rel = os.path.relpath(path, WORK)
    return re.sub(r"[^A-Za-z0-9_.-]", "_", rel) + ".o"


def is_cxx(path):
    return path.endswith((".cc", ".cpp", ".cxx"))


def run_logged(cmd, env, logf, cwd):
    logf.write("$ " + " ".join(shlex.quote(c) for c in cmd) + "\n")
    logf.flush()
    r = subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, errors="replace")
    logf.write(r.stdout)
    logf.flush()
    return r.returncode, r.stdout


def toolchain_fingerprint(config, spec):
    """For an evotest build: a digest of the pass, the runtime and the driver next to the
    compiler wrapper (a build made by an older evotest is stale: its probes, or the layout of its
    trace map, may differ from the engine's); None for the other configs."""
    if config != "evotest":
        return None
    cc = shutil.which(spec["cc"]) or spec["cc"]
    d = Path(os.path.realpath(cc)).parent
    h = hashlib.sha1()
    for name in ("libevotest_pass.so", "libevotest_rt.a", "libevotest_driver.a"):
        f = d / name
        h.update(name.encode())
        if f.exists():
            with open(f, "rb") as fh:
                for chunk in iter(lambda: fh.read(1 << 20), b""):
                    h.update(chunk)
    return h.hexdigest()


def build(t, config, jobs=2, force=False):
    fetch_target(t)
    prep_secs = prep_target(t)
    make_seeds(t)
    tc = CFG["targets"][t]
    spec = config_spec(config)
    out = BUILD / t / config
    binary = out / "harness"
    lib_cflags = [expand(f, t) for f in tc.get("cflags", [])]
    h_cflags = [expand(f, t) for f in tc.get("harness_cflags", [])]
    sources = [src_path(s, t) for s in tc["sources"]]
    harness = harness_paths(t)
    libs = tc.get("libs", [])
    key_data = json.dumps([spec, lib_cflags, h_cflags, sources, harness, libs,
                           tc.get("prep", ""), toolchain_fingerprint(config, spec)], sort_keys=True)
    key = hashlib.sha1(key_data.encode()).hexdigest()
    meta_path = out / "build.json"
    if not force and binary.exists() and meta_path.exists():
        try:
            if json.loads(meta_path.read_text()).get("key") == key:
                log(f"{t}/{config}: up to date")
                return json.loads(meta_path.read_text())
        except json.JSONDecodeError:
            pass
    shutil.rmtree(out, ignore_errors=True)
    (out / "obj").mkdir(parents=True)
    env = dict(os.environ, **spec["env"])
    t0 = time.time()
    logpath = out / "build.log"
    cwd = str(pkg_dir(tc["package"]))
    log(f"{t}/{config}: building with {spec['cc']} / {spec['cxx']}")
    with open(logpath, "w") as logf:
        def compile_one(src, extra):
            compiler, flags = (spec["cxx"], spec["cxxflags"]) if is_cxx(src) else \
                (spec["cc"], spec["cflags"])
            obj = out / "obj" / obj_name(src, t)
            cmd = [compiler, *flags, *lib_cflags, *extra, "-c", src, "-o", str(obj)]
            rc, text = run_logged(cmd, env, logf, cwd)
            if rc != 0:
                raise BenchError(f"{t}/{config}: compiling {src} failed:\n{text[-3000:]}")
            return str(obj)

        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as ex:
            lib_objs = list(ex.map(lambda s: compile_one(s, []), sources))
            h_objs = list(ex.map(lambda s: compile_one(s, h_cflags), harness))
        archive = out / f"lib{t}.a"
        rc, text = run_logged([os.environ.get("AR", LLVM_AR) if config in ("cc", "evotest")
                               else LLVM_AR, "rcs", str(archive), *lib_objs], env, logf, cwd)
        if rc != 0:
            raise BenchError(f"{t}/{config}: archiving failed:\n{text[-2000:]}")
        extra_objs = []
        if config == "cov":
            rm = out / "obj" / "replay_main.o"
            rc, text = run_logged([CLANG, "-O1", "-g", "-c", str(BENCH / "replay_main.c"),
                                   "-o", str(rm)], env, logf, cwd)
            if rc != 0:
                raise BenchError(f"{t}/{config}: compiling replay_main.c failed:\n{text[-2000:]}")
            extra_objs.append(str(rm))
        link = [spec["cxx"], *spec["cxxflags"], *h_objs, *extra_objs, str(archive),
                *spec["engine"], *libs, "-o", str(binary)]
        rc, text = run_logged(link, env, logf, cwd)
        if rc != 0:
            raise BenchError(f"{t}/{config}: linking failed:\n{text[-3000:]}")
    secs = time.time() - t0
    try:
        prep_secs = float((PREP / t / "prep-seconds").read_text())
    except (OSError, ValueError):
        pass
    meta = dict(target=t, config=config, key=key, seconds=round(secs, 1),
                prep_seconds=round(prep_secs, 1), cc=spec["cc"], cxx=spec["cxx"],
                cflags=spec["cflags"], cxxflags=spec["cxxflags"], engine=spec["engine"],
                env=spec["env"], binary=str(binary), date=time.strftime("%Y-%m-%d %H:%M:%S"),
                package=tc["package"], version=CFG["packages"][tc["package"]]["version"])
    meta_path.write_text(json.dumps(meta, indent=1) + "\n")
    log(f"{t}/{config}: built {shown(binary)} in {secs:.1f} s")
    return meta


# --------------------------------------------------------------------------- run

def parse_libfuzzer_stats(text):
    stats = {}
    for m in re.finditer(r"^stat::(\w+):\s*(\S+)", text, re.M):
        try:
            stats[m.group(1)] = float(m.group(2))
        except ValueError:
            pass
    return stats


def crash_key(text, artifact):
    """A dedup key for a libFuzzer crash: the top three frames of the printed stack (function
    and file:line, libFuzzer, libc and sanitizer frames left out), else the crashing input."""
    frames = re.findall(r"^\s*#\d+ 0x[0-9a-f]+ in (\S+)(?: (\S+))?", text, re.M)
    skip = re.compile(r"^(fuzzer::|__sanitizer|__interceptor|__ubsan|__asan|abort$|raise$|"
                      r"gsignal$|pthread_kill$|__pthread_kill|__assert|__GI_|__libc|main$|_start$)")
    keep = []
    for name, loc in frames:
        if name.startswith("fuzzer::") and keep:
            break  # below the harness: libFuzzer's own loop
        if skip.match(name):
            continue
        loc = re.sub(r":\d+$", "", loc) if loc and not loc.startswith("(") else ""
        keep.append(f"{name} {os.path.basename(loc)}".strip())
        if len(keep) == 3:
            break
    if keep:
        return "stack:" + " | ".join(keep)
    if artifact and os.path.exists(artifact):
        return "input:" + hashlib.sha1(Path(artifact).read_bytes()).hexdigest()
    return "unknown"


def count_files(d):
    d = Path(d)
    if not d.is_dir():
        return 0
    return sum(1 for p in d.iterdir() if p.is_file() and not p.name.startswith(".")
               and p.name != "README.txt")


def run_libfuzzer_like(tool, t, seed, secs, out, cmd_prefix, extra_flags):
    """libFuzzer (or a libFuzzer-compatible tool): restart after a crash until the budget
    is spent; the corpus directory carries over."""
    corpus = out / "corpus"
    crashes = out / "crashes"
    corpus.mkdir()
    crashes.mkdir()
    seeds = SEEDS / t
    d = dict_path(t)
    total_execs = 0.0
    fuzz_secs = 0.0
    segments = []
    keys = set()
    hangs = 0
    t_start = time.time()
    k = 0
    logpath = out / "fuzz.log"
    with open(logpath, "w") as logf:
        while True:
            remaining = int(round(secs - (time.time() - t_start)))
            if remaining < 3 or k >= 200:
                break
            s = seed + 1000 * k
            cmd = [*cmd_prefix, *extra_flags, f"-seed={s}", f"-max_total_time={remaining}",
                   "-print_final_stats=1", "-close_fd_mask=1", "-artifact_prefix=crashes/"]
            if d:
                cmd.append(f"-dict={d}")
            cmd += ["corpus", str(seeds)]
            logf.write(f"### segment {k}: " + " ".join(shlex.quote(c) for c in cmd) + "\n")
            logf.flush()
            before = set(os.listdir(crashes))
            t0 = time.time()
            try:
                r = subprocess.run(cmd, cwd=out, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True, errors="replace",
                                   timeout=remaining + 120)
                rc, text = r.returncode, r.stdout
            except subprocess.TimeoutExpired as e:
                rc, text = -9, (e.stdout or b"").decode(errors="replace") \
                    if isinstance(e.stdout, bytes) else (e.stdout or "")
            el = time.time() - t0
            fuzz_secs += el
            if len(text) > 200000:  # keep the start (settings) and the end (stats)
                text_log = text[:20000] + "\n[... output cut ...]\n" + text[-180000:]
            else:
                text_log = text
            logf.write(text_log)
            logf.flush()
            st = parse_libfuzzer_stats(text)
            execs = st.get("number_of_executed_units", 0.0)
            total_execs += execs
            new = sorted(set(os.listdir(crashes)) - before)
            seg = dict(seed=s, rc=rc, seconds=round(el, 1), execs=execs,
                       exec_per_sec=st.get("average_exec_per_sec"), new_artifacts=new)
            segments.append(seg)
            if rc == 127 or (rc != 0 and execs == 0 and not new):
                # the tool did not start (or died before fuzzing): no point in retrying
                seg["error"] = (text.strip().splitlines() or ["no output"])[-1][:300]
                break
            # crash-* artifacts are crashes; timeout-*, oom-* and slow-unit-* are not
            m = re.search(r"Test unit written to (\S+)", text)
            art = m.group(1) if m else None
            if art and os.path.basename(art).startswith("crash-"):
                keys.add(crash_key(text, str(out / art)))
            elif art and os.path.basename(art).startswith(("timeout-", "oom-")):
                hangs += 1
            if rc == 0:
                break
            k += 1
    wall = time.time() - t_start
    eps = None
    if len(segments) == 1 and segments[0].get("exec_per_sec") is not None:
        eps = segments[0]["exec_per_sec"]
    elif fuzz_secs > 0:
        eps = total_execs / fuzz_secs
    status = "ok" if segments and "error" not in segments[-1] else "failed"
    return dict(status=status, execs=int(total_execs), execs_per_sec=eps,
                unique_crashes=len(keys), timeouts_or_ooms=hangs,
                crash_artifacts=count_files(crashes),
                crash_keys=sorted(keys), segments=segments, corpus_dirs=[str(corpus)],
                corpus_time="mtime", crashes_dir=str(crashes), log=str(logpath),
                wall_seconds=round(wall, 1), start=t_start)


def run_afl(t, seed, secs, out):
    fuzzer = BUILD / t / "afl" / "harness"
    cmplog = BUILD / t / "afl-cmplog" / "harness"
    for b in (fuzzer, cmplog):
        if not b.exists():
            raise BenchError(f"{t}: no AFL++ build at {b} (bench/fuzz/build.sh {t} afl "
                             f"and afl-cmplog)")
    aflout = out / "afl"
    cmd = ["afl-fuzz", "-i", str(SEEDS / t), "-o", str(aflout), "-s", str(seed), "-V", str(secs)]
    d = dict_path(t)
    if d:
        cmd += ["-x", d]
    cmd += ["-c", str(cmplog), "--", str(fuzzer)]
    # AFL++ binds itself to a free CPU by default, as evotest does; when it finds none it stops
    # ("No more free CPU cores"), and the run is repeated unbound (AFL_NO_AFFINITY).
    env = dict(os.environ, AFL_NO_UI="1", AFL_SKIP_CPUFREQ="1",
               AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES="1",
               AFL_SKIP_CRASHES="1", AFL_NO_WARN_INSTABILITY="1")
    env.pop("AFL_QUIET", None)
    env.pop("AFL_NO_AFFINITY", None)
    logpath = out / "fuzz.log"
    for attempt in range(2):
        if attempt:
            env["AFL_NO_AFFINITY"] = "1"
            shutil.rmtree(aflout, ignore_errors=True)
        t_start = time.time()
        with open(logpath, "a" if attempt else "w") as logf:
            logf.write("$ " + " ".join(shlex.quote(c) for c in cmd) + "\n")
            logf.flush()
            try:
                r = subprocess.run(cmd, cwd=out, env=env, stdout=logf, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, timeout=secs + 300)
                rc = r.returncode
            except subprocess.TimeoutExpired:
                rc = -9
        if rc == 0 or "No more free CPU cores" not in logpath.read_text(errors="replace"):
            break
    wall = time.time() - t_start
    stats = {}
    sf = aflout / "default" / "fuzzer_stats"
    if sf.exists():
        for line in sf.read_text().splitlines():
            if ":" in line:
                k, v = line.split(":", 1)
                stats[k.strip()] = v.strip()
    def num(k):
        try:
            return float(stats[k])
        except (KeyError, ValueError):
            return None
    crashes = aflout / "default" / "crashes"
    status = "ok" if rc == 0 and stats else "failed"
    res = dict(status=status, rc=rc, execs=int(num("execs_done") or 0),
               execs_per_sec=num("execs_per_sec"),
               unique_crashes=int(num("saved_crashes") or num("unique_crashes") or 0),
               crash_artifacts=count_files(crashes), corpus_dirs=[str(aflout / "default" / "queue")],
               corpus_time="afl", crashes_dir=str(crashes), log=str(logpath),
               wall_seconds=round(wall, 1), start=t_start,
               afl_start_time=num("start_time"), afl_run_time=num("run_time"),
               corpus_count=num("corpus_count"), bitmap_cvg=stats.get("bitmap_cvg"))
    if status != "ok":
        tail = logpath.read_text(errors="replace").strip().splitlines()[-5:]
        res["error"] = " | ".join(tail)[-500:]
    return res


def evotest_binary():
    e = os.environ.get("EVOTEST")
    if e:
        return e
    p = ROOT / "target" / "release" / "evotest"
    return str(p) if p.exists() else (shutil.which("evotest") or str(p))


def run_evotest(t, seed, secs, out, in_process=False):
    """evotest fuzz: one run for the whole budget (it keeps fuzzing after a crash, records each
    unique crash once and minimises its reproducer); statistics from its --json summary.
    in_process: `--in_process` (the harness called in evotest's engine's process; the same
    evotest build of the target)."""
    exe = evotest_binary()
    if not (os.access(exe, os.X_OK) or shutil.which(exe)):
        raise BenchError(f"evotest: no binary at {exe} (build it with `cargo build --release` "
                         f"or set EVOTEST)")
    probe = subprocess.run([exe, "fuzz", "--help"], capture_output=True, text=True)
    if probe.returncode != 0:
        raise BenchError("evotest: this evotest has no working `fuzz` subcommand "
                         f"(`{exe} fuzz --help` exited {probe.returncode})")
    harness = BUILD / t / "evotest" / "harness"
    if not harness.exists():
        raise BenchError(f"evotest: no evotest build of {t} at {harness} "
                         f"(bench/fuzz/build.sh {t} evotest)")
    corpus = out / "corpus"
    crashes = out / "crashes"
    corpus.mkdir()
    crashes.mkdir()
    cmd = [exe, "fuzz", str(harness), "corpus", str(SEEDS / t), f"-seed={seed}",
           f"-max_total_time={secs}", "-artifact_prefix=crashes/", "--json", "-q"]
    d = dict_path(t)
    if d:
        cmd.append(f"-dict={d}")
    if in_process:
        cmd.append("--in_process")
    logpath = out / "fuzz.log"
    t_start = time.time()
    with open(logpath, "w") as logf:
        logf.write("$ " + " ".join(shlex.quote(c) for c in cmd) + "\n")
        logf.flush()
        try:
            r = subprocess.run(cmd, cwd=out, stdout=subprocess.PIPE, stderr=logf, text=True,
                               errors="replace", timeout=secs + 300)
            rc, text = r.returncode, r.stdout
        except subprocess.TimeoutExpired as e:
            rc, text = -9, ""
    wall = time.time() - t_start
    (out / "summary.json").write_text(text)
    try:
        sm = json.loads(text)
    except json.JSONDecodeError:
        tail = logpath.read_text(errors="replace").strip().splitlines()[-5:]
        return dict(status="failed", rc=rc, error=" | ".join(tail)[-500:], execs=0,
                    execs_per_sec=None, unique_crashes=0, corpus_dirs=[str(corpus)],
                    corpus_time="mtime", crashes_dir=str(crashes), log=str(logpath),
                    wall_seconds=round(wall, 1), start=t_start)
    keys = sorted({c.get("signature", "") for c in sm.get("crashes", [])})
    return dict(status="ok" if rc in (0, 1, 70, 71) else "failed", rc=rc, execs=int(sm["executions"]),
                execs_per_sec=sm["exec_per_sec"], unique_crashes=int(sm["unique_crashes"]),
                timeouts_or_ooms=len(sm.get("timeouts", [])) + len(sm.get("ooms", [])),
                crash_artifacts=count_files(crashes), crash_keys=keys,
                outcomes_covered=sm.get("outcomes_covered"), outcomes_total=sm.get("outcomes_total"),
                corpus_dirs=[str(corpus)], corpus_time="mtime", crashes_dir=str(crashes),
                log=str(logpath), wall_seconds=round(wall, 1), start=t_start)


def run_one(tool, t, seed, secs):
    out = RUNS / t / tool / f"seed{seed}"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    base = dict(tool=tool, target=t, seed=seed, secs=secs, rundir=str(out),
                seeds_dir=str(SEEDS / t), dict=dict_path(t),
                date=time.strftime("%Y-%m-%d %H:%M:%S"))
    log(f"run {tool} on {t}, seed {seed}, {secs} s -> {shown(out)}")
    try:
        make_seeds(t)
        if tool == "libfuzzer":
            b = BUILD / t / "libfuzzer" / "harness"
            if not b.exists():
                raise BenchError(f"{t}: no libFuzzer build at {b} (bench/fuzz/build.sh {t} libfuzzer)")
            res = run_libfuzzer_like(tool, t, seed, secs, out, [str(b)],
                                     ["-use_value_profile=1", "-timeout=25"])
        elif tool == "afl":
            res = run_afl(t, seed, secs, out)
        elif tool == "evotest":
            res = run_evotest(t, seed, secs, out)
        elif tool == "evotest-inprocess":
            res = run_evotest(t, seed, secs, out, in_process=True)
        else:
            raise BenchError(f"unknown tool '{tool}' (known: {', '.join(TOOLS)})")
    except BenchError as e:
        res = dict(status="unavailable", error=str(e))
    base.update(res)
    (out / "run.json").write_text(json.dumps(base, indent=1) + "\n")
    if base["status"] == "ok":
        eps = base.get("execs_per_sec")
        log(f"done {tool} on {t} seed {seed}: {base['execs']} execs, "
            f"{eps:.0f} exec/s, {base['unique_crashes']} unique crashes" if eps is not None else
            f"done {tool} on {t} seed {seed}: {base['execs']} execs")
    else:
        log(f"{tool} on {t} seed {seed}: {base['status']}: {base.get('error', '')}")
    return base


def run_matrix(tools, targets, seeds, secs, jobs):
    jobs = max(1, min(2, jobs))
    # the tools take turns, so that the two runs at a time are mostly two tools on one target
    tasks = [(tool, t, s) for t in targets for s in seeds for tool in tools]
    results = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as ex:
        futs = [ex.submit(run_one, tool, t, s, secs) for tool, t, s in tasks]
        for f in futs:
            results.append(f.result())
    return results


# --------------------------------------------------------------------------- coverage

def corpus_entries(info):
    """[(seconds since the run's start, path)] for every input of a run, seeds at 0."""
    entries = []
    sd = Path(info["seeds_dir"])
    for p in sorted(sd.iterdir()):
        if p.is_file() and not p.name.startswith("."):
            entries.append((0.0, str(p)))
    start = info.get("start", 0)
    for d in info.get("corpus_dirs", []):
        d = Path(d)
        if not d.is_dir():
            continue
        for p in sorted(d.iterdir()):
            if not p.is_file() or p.name.startswith(".") or p.name == "README.txt":
                continue
            if info.get("corpus_time") == "afl":
                m = re.search(r"time:(\d+)", p.name)
                if "orig:" in p.name:
                    ts = 0.0
                elif m:
                    ts = int(m.group(1)) / 1000.0
                else:
                    ts = p.stat().st_mtime - (info.get("afl_start_time") or start)
            else:
                ts = p.stat().st_mtime - start
            entries.append((max(0.0, ts), str(p)))
    entries.sort(key=lambda e: (e[0], e[1]))
    return entries


def ignore_regex(t):
    tc = CFG["targets"][t]
    pats = [re.escape(h) for h in harness_paths(t)]
    pats.append(r"replay_main\.c")
    pats.append(r"^/usr/")
    for c in tc.get("cov_ignore", []):
        pats.append(re.escape(expand(c, t)))
    return "|".join(pats)


def replay(binary, files, rawdir, tag, logf):
    """Run the cov binary over files, resuming after inputs that crash or hang."""
    pos = 0
    part = 0
    aborted = []
    while pos < len(files):
        lst = rawdir / f"{tag}-{part}.list"
        lst.write_text("\n".join(files[pos:]) + "\n")
        env = dict(os.environ, LLVM_PROFILE_FILE=str(rawdir / f"{tag}-{part}.profraw"),
                   REPLAY_TIMEOUT=os.environ.get("REPLAY_TIMEOUT", "10"))
        r = subprocess.run([str(binary), f"@{lst}"], env=env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True, errors="replace")
        lst.unlink()
        m = re.search(r"replay: (?:aborted|exit) at input (\d+)", r.stderr)
        logf.write(f"{tag}-{part}: rc={r.returncode} " +
                   (r.stderr.strip().splitlines() or [""])[-1][:300] + "\n")
        if m:
            idx = int(m.group(1))
            aborted.append(files[pos + idx])
            pos = pos + idx + 1
        else:
            if r.returncode != 0:
                logf.write(f"{tag}-{part}: replay failed without a marker\n")
            break
        part += 1
    return aborted


def cov_summary(binary, profdata, t):
    r = subprocess.run([LLVM_COV, "export", "-summary-only", f"-instr-profile={profdata}",
                        str(binary), f"-ignore-filename-regex={ignore_regex(t)}"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise BenchError(f"llvm-cov export failed: {r.stderr.strip()[:500]}")
    data = json.loads(r.stdout)
    totals = data["data"][0]["totals"]
    files = [f["filename"] for f in data["data"][0]["files"]]
    out = {}
    for k in ("branches", "regions", "lines", "functions"):
        out[k] = dict(covered=totals[k]["covered"], total=totals[k]["count"])
    out["source_files"] = len(files)
    return out, files


def coverage(rundir):
    rundir = Path(rundir)
    info = json.loads((rundir / "run.json").read_text())
    if info.get("status") != "ok":
        log(f"cov: skipping {shown(rundir)} (run status {info.get('status')})")
        return None
    t = info["target"]
    binary = BUILD / t / "cov" / "harness"
    if not binary.exists():
        raise BenchError(f"{t}: no cov build at {binary} (bench/fuzz/build.sh {t} cov)")
    cdir = rundir / "cov"
    shutil.rmtree(cdir, ignore_errors=True)
    cdir.mkdir()
    entries = corpus_entries(info)
    secs = info["secs"]
    cps = [round(f * secs, 2) for f in CHECKPOINTS]
    rows = []
    prev_prof = None
    summary = None
    files = []
    aborted = []
    t0 = time.time()
    idx = 0
    with open(cdir / "replay.log", "w") as logf:
        for k, cp in enumerate(cps):
            last = k == len(cps) - 1
            bucket = []
            while idx < len(entries) and (last or entries[idx][0] <= cp):
                bucket.append(entries[idx][1])
                idx += 1
            if bucket or prev_prof is None:
                aborted += replay(binary, bucket, cdir, f"b{k}", logf)
                raws = sorted(str(p) for p in cdir.glob(f"b{k}-*.profraw"))
                prof = cdir / f"cum{k}.profdata"
                inputs = ([str(prev_prof)] if prev_prof else []) + raws
                if not inputs:
                    raise BenchError(f"{rundir}: replay produced no profile")
                r = subprocess.run([PROFDATA, "merge", "-sparse", *inputs, "-o", str(prof)],
                                   capture_output=True, text=True)
                if r.returncode != 0:
                    raise BenchError(f"llvm-profdata merge failed: {r.stderr.strip()[:500]}")
                for p in raws:
                    os.unlink(p)
                if prev_prof:
                    os.unlink(prev_prof)
                prev_prof = prof
                summary, files = cov_summary(binary, prof, t)
            rows.append(dict(secs=cp, inputs=idx, **{
                f"{k2}_{w}": summary[k2][w] for k2 in ("branches", "regions", "lines", "functions")
                for w in ("covered", "total")}))
    final = cdir / "final.profdata"
    if prev_prof:
        os.replace(prev_prof, final)
    with open(rundir / "cov-time.csv", "w") as f:
        cols = list(rows[0].keys())
        f.write(",".join(cols) + "\n")
        for row in rows:
            f.write(",".join(str(row[c]) for c in cols) + "\n")
    res = dict(target=t, tool=info["tool"], seed=info["seed"], inputs=len(entries),
               aborted_inputs=aborted, cov_seconds=round(time.time() - t0, 1),
               profdata=str(final), files=files, ignore_regex=ignore_regex(t), **summary)
    (rundir / "cov.json").write_text(json.dumps(res, indent=1) + "\n")
    log(f"cov {t}/{info['tool']}/seed{info['seed']}: branches "
        f"{summary['branches']['covered']}/{summary['branches']['total']}, regions "
        f"{summary['regions']['covered']}/{summary['regions']['total']} "
        f"({len(entries)} inputs, {res['cov_seconds']} s)")
    return res


def all_rundirs(targets=None, tools=None):
    out = []
    for p in sorted(RUNS.glob("*/*/seed*/run.json")):
        d = p.parent
        if targets and d.parent.parent.name not in targets:
            continue
        if tools and d.parent.name not in tools:
            continue
        out.append(d)
    return out


# --------------------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("fetch")
    p.add_argument("targets", nargs="?", default="all")
    p = sub.add_parser("build")
    p.add_argument("targets")
    p.add_argument("configs")
    p.add_argument("--jobs", type=int, default=int(os.environ.get("BENCH_FUZZ_JOBS", "2")))
    p.add_argument("--force", action="store_true", default=os.environ.get("FORCE") == "1")
    p.add_argument("--keep-going", action="store_true")
    p = sub.add_parser("run")
    p.add_argument("--tools", default="libfuzzer,afl")
    p.add_argument("--targets", default="all")
    p.add_argument("--seeds", default="1")
    p.add_argument("--secs", type=int, default=int(os.environ.get("BENCH_FUZZ_SECS", "300")))
    p.add_argument("--jobs", type=int, default=2)
    p = sub.add_parser("cov")
    p.add_argument("rundirs", nargs="*")
    p.add_argument("--targets", default="")
    p.add_argument("--tools", default="")
    p.add_argument("--jobs", type=int, default=2)
    sub.add_parser("list")
    a = ap.parse_args()
    try:
        if a.cmd == "list":
            for t in TARGETS:
                tc = CFG["targets"][t]
                print(t, tc["package"], CFG["packages"][tc["package"]]["version"],
                      tc.get("harness_name", ""), sep="\t")
        elif a.cmd == "fetch":
            for t in target_list(a.targets):
                fetch_target(t)
                prep_target(t)
                make_seeds(t)
        elif a.cmd == "build":
            configs = CONFIGS if a.configs == "all" else a.configs.split(",")
            failed = []
            for c in configs:
                config_spec(c)  # a missing compiler or variable stops here, once
            for t in target_list(a.targets):
                for c in configs:
                    try:
                        build(t, c, a.jobs, a.force)
                    except BenchError as e:
                        if not a.keep_going:
                            raise
                        print(f"fuzzbench: {e}", file=sys.stderr)
                        failed.append(f"{t}/{c}")
            if failed:
                die(f"builds failed: {' '.join(failed)}")
        elif a.cmd == "run":
            tools = [x for x in a.tools.split(",") if x]
            for x in tools:
                if x not in TOOLS:
                    die(f"unknown tool '{x}' (known: {', '.join(TOOLS)})")
            seeds = [int(s) for s in a.seeds.split(",") if s]
            run_matrix(tools, target_list(a.targets), seeds, a.secs, a.jobs)
        elif a.cmd == "cov":
            if a.rundirs and a.rundirs != ["all"]:
                dirs = [Path(d) for d in a.rundirs]
            else:
                dirs = all_rundirs(target_list(a.targets) if a.targets else None,
                                   a.tools.split(",") if a.tools else None)
            errors = []

            def one(d):
                try:
                    return coverage(d)
                except BenchError as e:
                    errors.append(f"{d}: {e}")
                    print(f"fuzzbench: {d}: {e}", file=sys.stderr)
            with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, min(2, a.jobs))) as ex:
                list(ex.map(one, dirs))
            if errors:
                die(f"coverage failed for {len(errors)} run(s)")
    except BenchError as e:
        die(str(e))


if __name__ == "__main__":
    main()
