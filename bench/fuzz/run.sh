#!/usr/bin/env bash
# bench/fuzz/run.sh TOOL[,TOOL..] TARGET[,TARGET..]|all [SEED[,SEED..]] [SECS]
#
# Runs each TOOL (libfuzzer | afl | evotest) on each TARGET with each SEED for SECS
# seconds (default $BENCH_FUZZ_SECS, else 300), two runs at a time at most, each in a
# fresh directory bench/work/fuzz/runs/TARGET/TOOL/seedSEED/ (its run.json records
# executions, exec/s, unique crashes and the corpus/queue directory).
# Then replays every finished run's corpus through the cov build:
#   bench/work/fuzz/runs/TARGET/TOOL/seedSEED/{cov.json,cov-time.csv}
# (set BENCH_FUZZ_NO_COV=1 to skip that step).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [ $# -lt 2 ]; then
  echo "usage: bench/fuzz/run.sh TOOL[,TOOL..] TARGET[,TARGET..]|all [SEED[,SEED..]] [SECS]" >&2
  exit 2
fi
tools="$1" targets="$2" seeds="${3:-1}" secs="${4:-${BENCH_FUZZ_SECS:-300}}"
python3 "$here/fuzzbench.py" run --tools "$tools" --targets "$targets" --seeds "$seeds" \
  --secs "$secs" --jobs 2
if [ "${BENCH_FUZZ_NO_COV:-0}" != 1 ]; then
  python3 "$here/fuzzbench.py" cov --targets "$targets" --tools "$tools"
fi
