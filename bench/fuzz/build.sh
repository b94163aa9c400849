#!/usr/bin/env bash
# bench/fuzz/build.sh TARGET|all CONFIG|all [--force] [--keep-going]
#
# Fetches TARGET's Debian source package (cached under bench/work/fuzz/src/) and builds
# its harness in CONFIG into bench/work/fuzz/build/TARGET/CONFIG/harness.
# CONFIG: libfuzzer | afl | afl-cmplog | cov | cc | evotest, or all (= the first five
# except cc, which needs CC, CXX and LIB_FUZZING_ENGINE from the environment).
# BENCH_FUZZ_JOBS (default 2) compiles that many files at a time.  FORCE=1 rebuilds.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [ $# -lt 2 ]; then
  echo "usage: bench/fuzz/build.sh TARGET|all CONFIG|all [--force] [--keep-going]" >&2
  exit 2
fi
target="$1" config="$2"; shift 2
if [ "$config" = all ]; then config=libfuzzer,afl,afl-cmplog,cov; fi
exec python3 "$here/fuzzbench.py" build "$target" "$config" "$@"
