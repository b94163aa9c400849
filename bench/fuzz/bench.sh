#!/usr/bin/env bash
# bench/fuzz/bench.sh [quick|full] — the whole fuzzing benchmark on real C libraries:
#   install missing packages -> fetch sources -> build every config -> run every tool ->
#   coverage replay -> report (bench/results/fuzz.md, fuzz.json, fuzz/*.svg).
#
#   full  (default): BENCH_FUZZ_SECS=300 s per run, BENCH_FUZZ_SEEDS=2 seeds
#   quick          : 60 s per run, 1 seed
# Environment overrides:
#   BENCH_FUZZ_SECS, BENCH_FUZZ_SEEDS   budget per run and number of seeds (1..N)
#   BENCH_FUZZ_TARGETS                  comma list (default: all of targets.toml)
#   BENCH_FUZZ_TOOLS                    comma list (default: libfuzzer,afl,evotest)
#   BENCH_FUZZ_JOBS                     parallel compile jobs (default 2; runs: 2 at a time)
#   BENCH_FUZZ_RUNS, BENCH_FUZZ_OUT     runs directory and results directory (a side benchmark)
# The evotest tool slot is built and run only when evotest's compiler wrapper and
# `evotest fuzz` exist; until then its runs are recorded as unavailable, with the reason.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
mode="${1:-full}"

# Every Debian package this benchmark needs (a fresh Debian 12 machine installs them here).
BENCH_FUZZ_APT_PACKAGES="clang-22 llvm-22 libclang-rt-22-dev afl++ cmake make tcl patch xz-utils bzip2 python3"

case "$mode" in
  quick) secs="${BENCH_FUZZ_SECS:-60}"; nseeds="${BENCH_FUZZ_SEEDS:-1}" ;;
  full)  secs="${BENCH_FUZZ_SECS:-300}"; nseeds="${BENCH_FUZZ_SEEDS:-2}" ;;
  *) echo "usage: bench/fuzz/bench.sh [quick|full]" >&2; exit 2 ;;
esac
targets="${BENCH_FUZZ_TARGETS:-all}"
tools="${BENCH_FUZZ_TOOLS:-libfuzzer,afl,evotest}"
seeds="$(seq -s, 1 "$nseeds")"

missing=""
for p in $BENCH_FUZZ_APT_PACKAGES; do
  dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "bench-fuzz: installing$missing"
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing
fi

py="python3 $here/fuzzbench.py"
echo "bench-fuzz: $mode mode: $secs s per run, seeds $seeds, tools $tools, targets $targets"
t0=$(date +%s)
$py fetch "$targets"
if ! $py build "$targets" libfuzzer,afl,afl-cmplog,cov --keep-going; then
  echo "bench-fuzz: some builds failed (above); runs that need them are recorded as unavailable"
fi
case ",$tools," in
  *,evotest,*|*,evotest-inprocess,*)
    # evotest's own build: evotest-cc / evotest-c++ through the generic cc recipe.
    if ! $py build "$targets" evotest --keep-going; then
      echo "bench-fuzz: no evotest build (see above); its runs will be recorded as unavailable"
    fi ;;
esac
$py run --tools "$tools" --targets "$targets" --seeds "$seeds" --secs "$secs" --jobs 2
$py cov --targets "$targets" --tools "$tools"
report_args=()
if [ -n "${BENCH_FUZZ_RUNS:-}" ]; then report_args+=(--runs "$BENCH_FUZZ_RUNS"); fi
if [ -n "${BENCH_FUZZ_OUT:-}" ]; then report_args+=(--out "$BENCH_FUZZ_OUT"); fi
python3 "$here/report.py" "${report_args[@]}" --title "Fuzzing real C libraries ($mode mode: $secs s, $nseeds seed(s))"
echo "bench-fuzz: done in $(( $(date +%s) - t0 )) s; see bench/results/fuzz.md"
