#!/bin/sh
# Verification of the feasible-outcome claims in the headers of examples/numeric/*.c.
#
# usage: examples/numeric/check/check.sh NAME...     (e.g. check.sh luhn pythag; no NAME: all)
#
# For each NAME it compiles examples/numeric/NAME.c at -O0 with clang-22's source-based coverage
# (-fprofile-instr-generate -fcoverage-mapping), links it with the driver NAME_check.c (no
# coverage), runs the driver (which compares every result with an independent oracle and exits
# non-zero on a mismatch), and prints llvm-cov-22's branch summary of NAME.c and every branch line
# with a zero count. llvm-cov shows a switch case as a branch whose True count is the number of
# times the case was taken (its False count means nothing for evotest), and `?:` as a branch even
# when clang lowers it to a select. Its column is that of the condition's first token, where
# evotest sites gives the operator's. Outputs go to $OUT (default /tmp/evotest-numeric-check).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=$(dirname "$here")
out=${OUT:-/tmp/evotest-numeric-check}
mkdir -p "$out"
if [ $# -eq 0 ]; then
    set -- $(cd "$src" && ls *.c | sed 's/\.c$//')
fi
status=0
for n in "$@"; do
    echo "==== $n"
    clang-22 -O0 -fprofile-instr-generate -fcoverage-mapping -c "$src/$n.c" -o "$out/$n.o"
    clang-22 -O1 -c "$here/${n}_check.c" -o "$out/${n}_check.o"
    clang-22 -fprofile-instr-generate "$out/$n.o" "$out/${n}_check.o" -lm -o "$out/$n"
    rm -f "$out/$n.profraw"
    if ! LLVM_PROFILE_FILE="$out/$n.profraw" "$out/$n"; then
        echo "$n: the driver reported mismatches"
        status=1
    fi
    llvm-profdata-22 merge -o "$out/$n.profdata" "$out/$n.profraw"
    llvm-cov-22 report "$out/$n" -instr-profile="$out/$n.profdata" --show-branch-summary "$src/$n.c" |
        awk '/^TOTAL/ {print "llvm-cov branches:", $(NF-2), "missed:", $(NF-1)}'
    llvm-cov-22 show "$out/$n" -instr-profile="$out/$n.profdata" --show-branches=count "$src/$n.c" \
        > "$out/$n.show.txt"
    echo "branch lines with a zero count (line:col [True, False]):"
    zero=$(grep -E 'Branch \(' "$out/$n.show.txt" | grep -E '(True|False): 0[],]' | sed 's/^ *| */  /' || true)
    echo "${zero:-  none}"
done
exit $status
