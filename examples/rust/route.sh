#!/usr/bin/env bash
# The bitcode route for Rust targets, end to end (see ROUTE.md). Stable rustc only; LLVM 22 tools
# (opt-22, clang-22, llvm-ar-22, llvm-dis-22, llvm-objcopy-22); python3 for tools/dump_meta.py.
#
# usage (from anywhere, after `cargo build --workspace` in the repository root):
#   examples/rust/route.sh [triangle|samples|fuzz|all] [--engine]
#     triangle  examples/rust/triangle: a C harness and a Rust harness, run by hand (default)
#     samples   examples/rust/samples: what the pass sees for Rust types; a Rust harness for &str
#     fuzz      examples/rust/fuzzshape: a cargo-fuzz target built by cargo without libFuzzer,
#               linked with evotest's driver instead
#     --engine  also run `evotest run` on the bitcode (triangle, samples: an extern "C" function;
#               fuzz: LLVMFuzzerTestOneInput)
# Everything is written under each crate's out/ and target/ (ignored by git).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
T=${CARGO_TARGET_DIR:-$ROOT/target}/debug
PASS=$T/libevotest_pass.so
RT=$T/libevotest_rt.a
for f in "$PASS" "$RT" "$T/libevotest_rt.rlib" "$T/evotest"; do
    [ -e "$f" ] || { echo "missing $f: run cargo build --workspace first" >&2; exit 1; }
done
WHAT=triangle ENGINE=0
for a in "$@"; do
    case $a in
        triangle|samples|fuzz|all) WHAT=$a ;;
        --engine) ENGINE=1 ;;
        *) echo "usage: $0 [triangle|samples|fuzz|all] [--engine]" >&2; exit 2 ;;
    esac
done
# The libraries a Rust staticlib (the runtime, which carries std) needs from the system.
SYSLIBS=(-lgcc_s -lutil -lrt -lpthread -lm -ldl -lc)
# Debian's GNU ld prints a warning about LLVM's gold plugin for each archive; drop it.
quiet_ld() { "$@" 2> >(grep -v '^bfd plugin' >&2); }
# A crash's backtrace costs time and output; the engine does not need it.
export RUST_BACKTRACE=0
# expect_abort CMD...: CMD must end with SIGABRT (exit status 134); its last lines are shown.
expect_abort() {
    local rc=0
    { "$@" > abort.log 2>&1; } 2>/dev/null || rc=$?  # (and no "Aborted" notice from bash)
    tail -n 2 abort.log
    [ $rc = 134 ] || { echo "expected SIGABRT (134) from $*, got $rc" >&2; exit 1; }
}

# rustc flags of the route. opt-level 0 keeps every decision a branch; debuginfo 2 gives names,
# types and locations; one codegen unit = one .bc per crate; no-prepopulate-passes: rustc runs no
# LLVM pass at all, so the evotest pass sees the module as the C plugin sees clang's, at pipeline
# start. (Overflow checks and debug assertions are on at opt-level 0 by default.)
RUST_ROUTE_FLAGS=(-C opt-level=0 -C debuginfo=2 -C codegen-units=1 -C no-prepopulate-passes)

# instrument IN.bc OUT.o: the pass (registered by name for opt), then an object. Any -O level would
# do for the second step: the probes are in. --target avoids clang's "overriding the module target
# triple" warning (rustc writes x86_64-unknown-linux-gnu, clang's default is x86_64-pc-linux-gnu).
instrument() {
    opt-22 -load-pass-plugin="$PASS" -passes=evotest "$1" -o "${2%.o}.inst.bc"
    clang-22 --target=x86_64-unknown-linux-gnu -O0 -c "${2%.o}.inst.bc" -o "$2"
    echo "$(basename "$1"): $(llvm-dis-22 "${2%.o}.inst.bc" -o - | grep -c 'call void @__evotest_') probes"
}

# An rlib whose object is replaced by the instrumented one: rustc then links a Rust harness against
# it like any crate. The bitcode and the rlib must come from the same rustc session (the symbol
# hashes match), which --emit=llvm-bc,link gives.
rlib_replace() { # RLIB OBJ
    local m
    m=$(llvm-ar-22 t "$1" | grep 'rcgu\.o$')
    cp "$2" "$m" && llvm-ar-22 r "$1" "$m" && rm "$m"
}

# A Rust harness: rustc links std once, and the runtime as an rlib of the same rustc.
rust_harness() { # SRC OUT --extern name=rlib...
    local src=$1 out=$2
    shift 2
    rustc --edition 2021 -C debuginfo=2 "$@" --extern evotest_rt="$T/libevotest_rt.rlib" \
        -L dependency="$T/deps" "$src" -o "$out"
}

triangle() {
    echo "== triangle"
    local crate=$HERE/triangle out=$HERE/triangle/out/route
    rm -rf "$out" && mkdir -p "$out" && cd "$out"
    # 1. Bitcode, and from the same session the rlib whose symbols it matches.
    rustc --edition 2021 --crate-type=rlib --crate-name triangle "${RUST_ROUTE_FLAGS[@]}" \
        --emit=llvm-bc=triangle.bc,link=libtriangle.rlib "$crate/src/lib.rs"
    # 2, 3. The pass, then an object.
    instrument triangle.bc triangle.o
    # 4a. C harness: the object and the runtime staticlib, which carries std (of the rustc that built
    #     it: it must be the same rustc as in step 1). It calls the extern "C" wrapper.
    quiet_ld clang-22 -g "$HERE/harness/triangle_main.c" triangle.o "$RT" "${SYSLIBS[@]}" -o triangle_c
    # 4b. Rust harness: the instrumented object replaces the one in the rlib, and the harness calls
    #     the Rust-ABI function by its path.
    rlib_replace libtriangle.rlib triangle.o
    rust_harness "$HERE/harness/triangle_main.rs" triangle_rs --extern triangle=libtriangle.rlib
    # 5. Run by hand: the runtime traces privately and prints the recorded return value.
    printf '\003\000\000\000\004\000\000\000\005\000\000\000' > in345
    printf '\002\000\000\000\002\000\000\000\002\000\000\000' > in222
    echo "C harness, 3 4 5 (SCALENE = 4):"
    ./triangle_c in345
    echo "Rust harness, 2 2 2 (EQUILATERAL = 2):"
    ./triangle_rs in222
    # 6. The metadata is in the linked binaries.
    for exe in triangle_c triangle_rs; do
        echo "evotest_meta of $exe:"
        python3 "$HERE/tools/dump_meta.py" "$exe" --summary | sed -n '1,2p;/^  site 0 /p'
    done
    if [ $ENGINE = 1 ]; then
        # 7. The engine takes the bitcode as its "source" (clang-22 -fpass-plugin instruments it),
        #    and its generated C harness calls a function with C scalar types: the extern "C"
        #    wrapper, or the mangled Rust function itself.
        "$T/evotest" run triangle.bc -f triangle_c --max-execs 20000 -q -o engine
        local mangled
        mangled=$(python3 "$HERE/tools/dump_meta.py" triangle_c --summary | awk '/= triangle::triangle /{print $2}')
        "$T/evotest" run triangle.bc -f "$mangled" --max-execs 20000 -q -o engine-mangled
    fi
}

samples() {
    echo "== samples"
    local crate=$HERE/samples out=$HERE/samples/out/route
    rm -rf "$out" && mkdir -p "$out" && cd "$out"
    rustc --edition 2021 --crate-type=rlib --crate-name samples "${RUST_ROUTE_FLAGS[@]}" \
        --emit=llvm-bc=samples.bc,link=libsamples.rlib "$crate/src/lib.rs"
    instrument samples.bc samples.o
    # What the pass wrote for the crate's own functions (not for the std generics instantiated in it).
    python3 "$HERE/tools/dump_meta.py" samples.o > meta.json
    python3 "$HERE/tools/dump_meta.py" samples.o --summary --user > meta-user.txt
    head -1 meta-user.txt
    echo "(functions, parameters and sites: $out/meta-user.txt)"
    # A Rust harness for a function with a &str parameter.
    rlib_replace libsamples.rlib samples.o
    rust_harness "$HERE/harness/classify_main.rs" classify --extern samples=libsamples.rlib
    printf 'test1' > in-test1 && printf 'id:500' > in-id500 && printf 'id:x' > in-idx
    for i in in-test1 in-id500; do echo "classify($(cat $i)):"; ./classify $i; done
    echo "classify(id:x), a panic in expect (SIGABRT expected):"
    expect_abort ./classify in-idx
    if [ $ENGINE = 1 ]; then
        "$T/evotest" run samples.bc -f samples_c --buffer s=n:8 --max-execs 20000 -q -o engine
    fi
}

fuzz() {
    echo "== fuzz"
    local crate=$HERE/fuzzshape out=$HERE/fuzzshape/out
    rm -rf "$out" && mkdir -p "$out"
    # 1. libFuzzer's stand-in for cargo's own link: libfuzzer-sys links the archive named by
    #    CUSTOM_LIBFUZZER_PATH instead of compiling libFuzzer (its default feature link_libfuzzer).
    #    Here it holds a plain replayer's main, so cargo's binary links and replays files.
    clang-22 -O1 -c "$HERE/harness/replay_main.c" -o "$out/replay_main.o"
    llvm-ar-22 rc "$out/libreplay.a" "$out/replay_main.o"
    # 2. cargo builds every crate with the route's flags plus --emit=llvm-bc (a .bc next to each
    #    rlib in deps/). --target keeps RUSTFLAGS away from build scripts; --cfg fuzzing as
    #    cargo-fuzz sets it; no incremental compilation, which would split crates into many units.
    (
        cd "$crate"
        CARGO_TARGET_DIR=$crate/target CARGO_INCREMENTAL=0 \
        CUSTOM_LIBFUZZER_PATH=$out/libreplay.a CUSTOM_LIBFUZZER_STD_CXX=none \
        RUSTFLAGS="--cfg fuzzing ${RUST_ROUTE_FLAGS[*]} --emit=llvm-bc,link" \
            cargo build --quiet --target x86_64-unknown-linux-gnu --bin fuzz_parse
    )
    local deps=$crate/target/x86_64-unknown-linux-gnu/debug/deps
    cd "$out"
    printf 'x=4242' > in-ok && printf 'q=-1' > in-crash
    echo "cargo's binary (replayer, not instrumented):"
    "$crate/target/x86_64-unknown-linux-gnu/debug/fuzz_parse" in-ok
    # 3. Instrument the crate under test and the fuzz target; libfuzzer-sys and arbitrary stay as
    #    they are (their rlibs). 4. Link with evotest's driver (main → LLVMFuzzerTestOneInput),
    #    libFuzzer's stubs and the runtime, which carries std.
    instrument "$(ls "$deps"/fuzzshape-*.bc)" fuzzshape.o
    instrument "$(ls "$deps"/fuzz_parse-*.bc)" fuzz_parse.o
    quiet_ld clang-22 -g "$HERE/harness/fuzz_main.c" "$HERE/harness/libfuzzer_stubs.c" fuzz_parse.o fuzzshape.o \
        "$deps"/liblibfuzzer_sys-*.rlib "$deps"/libarbitrary-*.rlib "$RT" "${SYSLIBS[@]}" -o fuzz_parse_evotest
    echo "evotest's binary, x=4242 (0: kept):"
    ./fuzz_parse_evotest in-ok
    echo "evotest's binary, q=-1 (the target panics; SIGABRT expected):"
    expect_abort ./fuzz_parse_evotest in-crash
    python3 "$HERE/tools/dump_meta.py" fuzz_parse_evotest --summary --user > meta-user.txt
    grep '^module' meta-user.txt
    echo "(functions, parameters and sites: $out/meta-user.txt)"
    if [ $ENGINE = 1 ]; then
        # The engine on the same bitcode, entry LLVMFuzzerTestOneInput (defined by libfuzzer-sys).
        # Its goals are the entry's sites and its direct callees'; parse() is reached through
        # catch_unwind's indirect call, so it is not a goal (ROUTE.md, problems).
        clang-22 -c "$HERE/harness/libfuzzer_stubs.c" -o stubs.o
        "$T/evotest" run "$deps"/fuzz_parse-*.bc "$deps"/fuzzshape-*.bc "$deps"/libfuzzer_sys-*.bc \
            -f LLVMFuzzerTestOneInput --buffer data=size:16 \
            --ldflag="$(ls "$deps"/libarbitrary-*.rlib)" --ldflag="$out/stubs.o" --max-execs 20000 -q -o engine
    fi
}

case $WHAT in
    triangle) triangle ;;
    samples) samples ;;
    fuzz) fuzz ;;
    all) triangle; samples; fuzz ;;
esac
