#!/usr/bin/env bash
# bench/fuzz/harness-cost.sh TARGET INPUTS [ROUNDS] [REPS]
#   The harness's own CPU time per execution, without any engine: TARGET's harness and library
#   rebuilt (from its evotest build's log, bench/work/fuzz/build/TARGET/evotest/build.log) as
#     plain    clang-22, no instrumentation
#     sancov   clang-22 -fsanitize-coverage=inline-8bit-counters (libFuzzer's counters)
#     twins    evotest-cc, EVOTEST_LITE_MARKS=0 (clones count through inline counters placed
#              before optimisation)
#     marks    evotest-cc, the default (clones count through marks made counters after it)
#   each linked with lite_replay.c and run over the files of INPUTS (e.g. an AFL++ queue),
#   evotest's builds coverage-only (LITE=1). ROUNDS passes over the inputs per replay (default
#   3), REPS replays of each build, alternated (default 5); prints each build's minimum and
#   median µs per execution (the machine's load moves single replays by ±30%). The target's
#   own standard error is discarded.
#   Needs `make build` and `bench/fuzz/build.sh TARGET evotest` first. Work in
#   bench/work/fuzz/harness-cost/TARGET/.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
t="${1:?usage: harness-cost.sh TARGET INPUTS [ROUNDS] [REPS]}"
inputs="$(cd "${2:?usage: harness-cost.sh TARGET INPUTS [ROUNDS] [REPS]}" && pwd)"
rounds="${3:-3}"; reps="${4:-5}"
src="$root/bench/work/fuzz/build/$t/evotest"
[ -f "$src/build.log" ] || { echo "harness-cost: no evotest build of $t (bench/fuzz/build.sh $t evotest)" >&2; exit 2; }
work="$root/bench/work/fuzz/harness-cost/$t"
rm -rf "$work"; mkdir -p "$work"
cc="$root/target/release/evotest-cc"; cxx="$root/target/release/evotest-c++"
# build VARIANT CC CXX [ENV=V...]: the build log's commands with another compiler, then the link
build() {
  local v=$1 c=$2 cx=$3; shift 3
  local d="$work/$v"; mkdir -p "$d/obj"
  grep '^\$ ' "$src/build.log" | sed 's/^\$ //' | sed '$d' \
    | sed "s#$src#$d#g; s#$cc #$c #; s#$cxx #$cx #; s# -fsanitize=fuzzer-no-link##g" > "$d/cmds.sh"
  local last; last=$(grep '^\$ ' "$src/build.log" | tail -1 | sed 's/^\$ //' | sed "s#$src#$d#g")
  (cd "$root/bench/work/fuzz/prep/$t" 2>/dev/null || cd "$d"; env "$@" bash -e "$d/cmds.sh") > "$d/build.log" 2>&1 \
    || { echo "harness-cost: building $v failed, see $d/build.log" >&2; exit 1; }
  local objs libs
  objs=$(grep -o "$d/[^ ]*\.\(o\|a\)" <<<"$last" | tr '\n' ' ')
  libs=$(grep -o ' -l[a-z0-9_]*' <<<"$last" | tr '\n' ' ' || true)
  env "$@" $c -O1 -c "$here/lite_replay.c" -o "$d/replay.o"
  echo 'void __sanitizer_cov_8bit_counters_init(char *a, char *b) { (void)a; (void)b; }' > "$d/stub.c"
  clang-22 -c "$d/stub.c" -o "$d/stub.o"
  # shellcheck disable=SC2086
  env "$@" $cx -O1 "$d/replay.o" "$d/stub.o" $objs $libs -o "$d/replay" >> "$d/build.log" 2>&1 \
    || { echo "harness-cost: linking $v failed, see $d/build.log" >&2; exit 1; }
}
build plain clang-22 clang++-22
build sancov "clang-22 -fsanitize-coverage=inline-8bit-counters" "clang++-22 -fsanitize-coverage=inline-8bit-counters"
build twins "$cc" "$cxx" EVOTEST_LITE_MARKS=0
build marks "$cc" "$cxx"
for k in $(seq "$reps"); do
  for v in plain sancov twins marks; do
    echo "$v $(LITE=1 "$work/$v/replay" "$inputs" "$rounds" 2>/dev/null | awk '{print $(NF-1)}')"
  done
done | sort -k1,1 -k2,2n | awk -v t="$t" '{a[$1]=a[$1]" "$2; n[$1]++}
  END { printf "%s: µs per coverage-only execution (min / median of %d replays)\n", t, n["plain"];
        split("plain sancov twins marks", order, " ");
        for (i = 1; i <= 4; i++) { v = order[i]; split(a[v], x, " ");
          printf "  %-7s %8.2f / %8.2f\n", v, x[1], x[int((n[v] + 1) / 2)] } }'
