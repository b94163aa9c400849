//! evotest's libFuzzer-compatible driver, `libevotest_driver.a`.
//!
//! `evotest-cc`/`evotest-c++` link it in place of libFuzzer when they see `-fsanitize=fuzzer` at
//! link time (or `$LIB_FUZZING_ENGINE` set to it, as OSS-Fuzz build scripts use). It holds a
//! `main` (`src/driver.c`) and the whole evotest runtime, so it replaces `libevotest_rt.a` in such
//! a link (two Rust static libraries cannot be linked into one program).
//!
//! What `main` does:
//! * calls `LLVMFuzzerInitialize(&argc, &argv)` if the harness defines it;
//! * **under the engine** (`evotest fuzz`): loops on `__evotest_next` (the runtime's fork server,
//!   persistent mode included), runs `LLVMFuzzerTestOneInput` on a heap copy of exactly the
//!   input's size (so that a sanitizer sees a read past its end, as with libFuzzer), and records a
//!   return after each input;
//! * **by hand**: runs each file named on the command line once (every file of a directory),
//!   printing `Running: FILE` and `Executed FILE in N ms` as libFuzzer's binaries do; of the
//!   arguments that start with `-` (libFuzzer flags) it takes `-timeout=SECS` (exit 70 past it)
//!   and `-rss_limit_mb=MB` (exit 71), `-help=1` prints its usage, and the rest are ignored.
//!   Without file arguments it runs standard input once. A crash reproduces with
//!   `./harness crash-…`, its stack printed when no sanitizer prints one.
//!
//! The symbol `__evotest_fuzz_driver` marks executables linked with it.

// Link the runtime into this static library.
extern crate evotest_rt;
