//! `tests.c`: a standalone C file whose `main()` calls the function under test with each archived
//! input and checks the recorded outcome. It needs no instrumentation and no evotest runtime:
//! compile it together with the original source using plain `clang-22`. For a C++ function it is
//! `tests.cpp`, the same C-style code built with `clang++-22`, calling the function by its
//! qualified name ([`FunctionFrontend::cxx_call`]).
//!
//! * Returned values are compared exactly; `float`/`double` results bit-exactly (as bit patterns,
//!   any NaN matching any NaN), which holds for the same compiler, flags and machine.
//! * What a call leaves in its outputs (non-`const` pointer parameters, global inputs, a returned
//!   structure) is compared too, with the values an observing build of the file read
//!   ([`super::outputs`]).
//! * Inputs whose recorded run crashed, hung or exited are run in a forked child, which must end
//!   the same way (same signal, or under a sanitizer any abnormal end; killed after the hang
//!   limit for a hang; same exit code).
//! * The file starts with the feature-test macros the source defines before its headers, and
//!   `_DEFAULT_SOURCE` for its own POSIX calls ([`c_feature_macros`]).

use super::harness::ReturnKind;
use super::outputs::{self, Observed};
use super::{shape, FunctionFrontend};
use crate::archive::TestCase;
use crate::exec::{signal_name, ExitKind, RetVal};
use crate::frontend::TestFile;
use crate::input::ScalarType;
use std::fmt::Write;

/// What the source's `main` is called in the tests, which include the source and have a `main` of
/// their own.
pub const ORIGINAL_MAIN: &str = "evotest_original_main";

/// Setup statements (arrays, strings), the call expression for `t`, and the statements after the
/// call (guard checks).
fn call(fe: &FunctionFrontend, t: &TestCase) -> (String, String, String) {
    // with the source included, its own structure types; else the generated ones
    let a = shape::c_args(
        &fe.params,
        &fe.domain,
        &t.input,
        "evotest_v",
        fe.defining_source.is_some(),
        &aliased_globals(fe),
    );
    let lines = |v: &[String]| -> String { v.iter().map(|l| format!("    {l}\n")).collect() };
    let (setup, after, mut args) = (lines(&a.setup), lines(&a.after), a.args);
    if fe.cxx_call.is_some() {
        // C++ converts no integer to an enumeration implicitly (`code(19)` for `code(Color)`
        // does not compile), nor a pointer or reference to the integer storage the tests build
        // to one to the enumeration: each is cast to the parameter's declared type (`(enum
        // Color)19`, `(const enum ns::Mode &)(*v)`, `(const enum ns::Mode *)(v)`), a C-style
        // cast that reinterprets the storage, of the enumeration's size
        for (arg, p) in args.iter_mut().zip(fe.params.iter().filter(|p| !p.global)) {
            if p.declared.contains("enum ") && arg != "NULL" {
                *arg = format!("({})({arg})", p.declared.trim());
            }
        }
    }
    // a C++ member function: its object is the first argument (`this`, built as a structure)
    let method = fe.cxx_call.is_some()
        && fe
            .params
            .first()
            .is_some_and(|p| p.name == "this" && !p.global);
    if method && !args.is_empty() {
        let qualified = fe
            .signature
            .shown
            .split('(')
            .next()
            .unwrap_or("")
            .rsplit(' ')
            .next()
            .unwrap_or("");
        let name = qualified.rsplit("::").next().unwrap_or(qualified);
        let (object, rest) = args.split_first().expect("a method has its object");
        return (
            setup,
            format!("({object})->{name}({})", rest.join(", ")),
            after,
        );
    }
    let callee = match fe.cxx_call.as_deref() {
        Some(c) => c,
        // the source's `main`, included under another name (see `render`)
        None if fe.signature.name == evotest_abi::names::RENAMED_MAIN
            && fe.defining_source.is_some() =>
        {
            ORIGINAL_MAIN
        }
        None => &fe.signature.name,
    };
    (setup, format!("{callee}({})", args.join(", ")), after)
}

/// The global inputs `tests.c` sets through an alias ([`shape::global_alias`]): those of
/// another source than the one it includes, which it cannot see declared.
pub fn aliased_globals(fe: &FunctionFrontend) -> Vec<String> {
    if fe.defining_source.is_none() {
        // the file declares every global input itself
        return vec![];
    }
    fe.foreign_globals
        .iter()
        .filter(|g| !g.internal)
        .map(|g| g.name.clone())
        .collect()
}

/// The global inputs `tests.c` cannot set: `static` variables of a source it does not include
/// (which the pass exposed for the harness, but a plain build of the sources keeps private),
/// as `` `mode` (a `static` of b.c) ``.
pub fn unreachable_globals(fe: &FunctionFrontend) -> Vec<String> {
    fe.foreign_globals
        .iter()
        .filter(|g| g.internal)
        .map(|g| format!("`{}` (a `static` of {})", g.name, g.source.display()))
        .collect()
}

/// What a rendering of `tests.c` does with the outputs of the calls ([`outputs`]).
pub enum Outputs<'a> {
    /// Not checked; the reason, for the header, if there is one to give.
    Off(Option<String>),
    /// The observing version: passing tests print their outputs, fault tests are left out.
    Observe,
    /// The file written: outputs compared with the values observed.
    Check(&'a Observed),
}

/// A C literal of `v` (`-5LL`; `i64::MIN`, which has none, as an expression).
pub fn c_i64(v: i64) -> String {
    if v == i64::MIN {
        "(-9223372036854775807LL - 1)".to_string()
    } else {
        format!("{v}LL")
    }
}

/// `what` as a C string literal, for a failure message.
pub fn c_label(what: &str) -> String {
    shape::c_string(what.as_bytes())
}

/// The statements of a passing test `name` after its setup: the call, its result's check, and
/// the checks (or, observing, the printing) of its outputs.
fn check(fe: &FunctionFrontend, name: &str, call: &str, t: &TestCase, mode: &Outputs) -> String {
    let outs = match mode {
        Outputs::Off(_) => vec![],
        _ => outputs::outputs(fe, t, &aliased_globals(fe)),
    };
    let after = match mode {
        Outputs::Off(_) => String::new(),
        Outputs::Observe => outputs::c_observe(name, &outs),
        Outputs::Check(seen) => outputs::c_checks(name, &outs, seen),
    };
    // a result whose value is an output itself: a structure, a string
    let unrecorded = fe.signature.ret_record.is_some() || outputs::returns_string(fe);
    if unrecorded && !matches!(mode, Outputs::Off(_)) {
        let ty = match &fe.signature.ret_record {
            Some(r) if fe.defining_source.is_some() => r.spelling.as_str(),
            _ => &fe.signature.ret_c,
        };
        return format!(
            "    {ty} evotest_r = {call};\n    (void)evotest_r;\n    evotest_passed++;\n{after}"
        );
    }
    let result = match (fe.signature.ret, mode) {
        (ReturnKind::Scalar(ty), Outputs::Observe) => format!(
            "    {} evotest_r = {call};\n{}",
            ret_c(fe),
            outputs::c_observe_result(name, ty)
        ),
        // the value the file's own build returned in two runs, where it was read: a result
        // that differs between runs (a clock, an address, memory never written) is not compared
        (ReturnKind::Scalar(ty), Outputs::Check(seen)) => {
            match outputs::observed_result(seen, name, ty) {
                Some(Ok(r)) => check_result(fe, name, call, Some(r)),
                Some(Err(())) => format!(
                    "    (void)({call}); /* its result differed between two runs of this file: not compared */\n    evotest_passed++;\n"
                ),
                None => check_result(fe, name, call, t.ret),
            }
        }
        _ => check_result(fe, name, call, t.ret),
    };
    format!("{result}{after}")
}

/// The C type `tests.c` declares the result in (C++ spells `_Bool` `bool`).
fn ret_c(fe: &FunctionFrontend) -> &str {
    if fe.cxx_call.is_some() && fe.signature.ret_c == "_Bool" {
        "bool"
    } else {
        &fe.signature.ret_c
    }
}

fn check_result(fe: &FunctionFrontend, name: &str, call: &str, ret: Option<RetVal>) -> String {
    let ret_c = ret_c(fe);
    match (fe.signature.ret, ret) {
        (ReturnKind::Scalar(ScalarType::F32), Some(RetVal::F32(bits))) => {
            format!("    {ret_c} evotest_r = {call};\n    evotest_check_f32(\"{name}\", evotest_r, 0x{bits:08x}u);\n")
        }
        (ReturnKind::Scalar(ScalarType::F64), Some(RetVal::F64(bits))) => {
            format!("    {ret_c} evotest_r = {call};\n    evotest_check_f64(\"{name}\", evotest_r, 0x{bits:016x}ull);\n")
        }
        (ReturnKind::Scalar(_), Some(RetVal::Signed(v))) => {
            let lit = c_i64(v);
            format!("    {ret_c} evotest_r = {call};\n    evotest_check_int(\"{name}\", (long long)evotest_r, {lit});\n")
        }
        (ReturnKind::Scalar(_), Some(RetVal::Unsigned(v))) => {
            format!("    {ret_c} evotest_r = {call};\n    evotest_check_uint(\"{name}\", (unsigned long long)evotest_r, {v}ULL);\n")
        }
        _ => format!("    {call};\n    evotest_passed++;\n"),
    }
}

/// The lines a `tests.c` starts with, before any header: the feature-test macros (`_GNU_SOURCE`,
/// `_POSIX_C_SOURCE`, `_FILE_OFFSET_BITS`, …) that `source` (the file it includes, if any)
/// defines before its first `#include`, as it spells them (so that its own definition repeats
/// them without a warning), since the file's helpers include system headers before the source
/// and a macro defined after those has no effect; then `_DEFAULT_SOURCE`, which the helpers'
/// POSIX calls (`fork`, `clock_gettime`, `usleep`) need under a strict `-std=c99`.
pub fn c_feature_macros(source: Option<&std::path::Path>) -> String {
    let mut s = String::new();
    let text = source
        .and_then(|p| std::fs::read(p).ok())
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
    let mut copied = Vec::new();
    for line in text.lines() {
        let t = line.trim();
        let Some(d) = t.strip_prefix('#') else {
            continue;
        };
        let d = d.trim_start();
        if d.starts_with("include") {
            break;
        }
        let Some(rest) = d.strip_prefix("define") else {
            continue;
        };
        if !rest.starts_with([' ', '\t']) || t.ends_with('\\') || t.contains("/*") {
            continue;
        }
        let name: String = rest
            .trim_start()
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        let feature = name.starts_with('_')
            && (name.ends_with("_SOURCE")
                || matches!(
                    name.as_str(),
                    "_FILE_OFFSET_BITS"
                        | "_TIME_BITS"
                        | "_REENTRANT"
                        | "_THREAD_SAFE"
                        | "__STDC_WANT_LIB_EXT1__"
                        | "__STDC_FORMAT_MACROS"
                        | "__STDC_LIMIT_MACROS"
                        | "__STDC_CONSTANT_MACROS"
                ));
        if feature && !copied.contains(&name) {
            let _ = writeln!(s, "#ifndef {name}\n{t}\n#endif");
            copied.push(name);
        }
    }
    if !copied.is_empty() {
        s.insert_str(
            0,
            "/* The feature-test macros the source defines before its headers, before the tests' own */\n",
        );
    }
    s.push_str("/* POSIX for the helpers below (fork, waitpid, clock_gettime), also under -std=c99 */\n#ifndef _DEFAULT_SOURCE\n#define _DEFAULT_SOURCE\n#endif\n");
    s
}

/// The checks and the fault runner `tests.c` files share (also the API frontend's).
pub const PRELUDE: &str = r#"#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <stdint.h>
#include <signal.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/wait.h>

static int evotest_passed, evotest_failures;

/* A child process ends with _exit (no atexit handlers, no second flush of the parent's
 * buffers), which skips the coverage profile's own exit handler: a build with
 * -fprofile-instr-generate writes the child's profile here first (LLVM_PROFILE_FILE=...%p
 * keeps one file per process). */
#ifdef __cplusplus
extern "C"
#endif
int __llvm_profile_write_file(void) __attribute__((weak));
static __attribute__((unused)) void evotest_child_exit(int status) {
    fflush(stdout);
    if (__llvm_profile_write_file) __llvm_profile_write_file();
    _exit(status);
}

/* Whether float (double) bits are a NaN: C leaves a NaN's sign and payload to the compiler and
 * the machine (clang folds 0.0/0.0 to 0x7ff8..., gcc computes 0xfff8... at run time), so any
 * NaN matches any NaN. */
static __attribute__((unused)) int evotest_nan32(uint32_t b) {
    return (b & 0x7f800000u) == 0x7f800000u && (b & 0x007fffffu) != 0;
}
static __attribute__((unused)) int evotest_nan64(uint64_t b) {
    return (b & 0x7ff0000000000000ull) == 0x7ff0000000000000ull && (b & 0x000fffffffffffffull) != 0;
}
static __attribute__((unused)) int evotest_same32(uint32_t got, uint32_t want) {
    return got == want || (evotest_nan32(got) && evotest_nan32(want));
}
static __attribute__((unused)) int evotest_same64(uint64_t got, uint64_t want) {
    return got == want || (evotest_nan64(got) && evotest_nan64(want));
}

/* Defined when a sanitizer's run-time is linked in (ASan, UBSan, MSan, TSan; clang and gcc):
 * it turns a crash by a signal into an exit with a report, so a recorded crash is then any
 * abnormal end. */
#ifdef __cplusplus
extern "C"
#endif
void __sanitizer_print_stack_trace(void) __attribute__((weak));

static __attribute__((unused)) void evotest_check_int(const char *t, long long got, long long want) {
    if (got == want) { evotest_passed++; return; }
    evotest_failures++;
    printf("FAIL %s: returned %lld, expected %lld\n", t, got, want);
}

static __attribute__((unused)) void evotest_check_uint(const char *t, unsigned long long got, unsigned long long want) {
    if (got == want) { evotest_passed++; return; }
    evotest_failures++;
    printf("FAIL %s: returned %llu, expected %llu\n", t, got, want);
}

static __attribute__((unused)) void evotest_check_f32(const char *t, float got, uint32_t want) {
    uint32_t g;
    memcpy(&g, &got, sizeof g);
    if (evotest_same32(g, want)) { evotest_passed++; return; }
    evotest_failures++;
    printf("FAIL %s: returned %a (bits 0x%08x), expected bits 0x%08x\n", t, (double)got, g, want);
}

static __attribute__((unused)) void evotest_check_f64(const char *t, double got, uint64_t want) {
    uint64_t g;
    memcpy(&g, &got, sizeof g);
    if (evotest_same64(g, want)) { evotest_passed++; return; }
    evotest_failures++;
    printf("FAIL %s: returned %a (bits 0x%016llx), expected bits 0x%016llx\n", t, got,
           (unsigned long long)g, (unsigned long long)want);
}

/* A value the call left in an output (an array element when i >= 0). */
static __attribute__((unused)) void evotest_output_failed(const char *t, const char *what, int i) {
    evotest_failures++;
    if (i >= 0) printf("FAIL %s: %s[%d] ", t, what, i);
    else printf("FAIL %s: %s ", t, what);
}

static __attribute__((unused)) void evotest_check_output_int(const char *t, const char *what, int i, long long got, long long want) {
    if (got == want) { evotest_passed++; return; }
    evotest_output_failed(t, what, i);
    printf("is %lld, expected %lld\n", got, want);
}

static __attribute__((unused)) void evotest_check_output_uint(const char *t, const char *what, int i, unsigned long long got, unsigned long long want) {
    if (got == want) { evotest_passed++; return; }
    evotest_output_failed(t, what, i);
    printf("is %llu, expected %llu\n", got, want);
}

static __attribute__((unused)) void evotest_check_output_f32(const char *t, const char *what, int i, float got, uint32_t want) {
    uint32_t g;
    memcpy(&g, &got, sizeof g);
    if (evotest_same32(g, want)) { evotest_passed++; return; }
    evotest_output_failed(t, what, i);
    printf("is %a (bits 0x%08x), expected bits 0x%08x\n", (double)got, g, want);
}

static __attribute__((unused)) void evotest_check_output_f64(const char *t, const char *what, int i, double got, uint64_t want) {
    uint64_t g;
    memcpy(&g, &got, sizeof g);
    if (evotest_same64(g, want)) { evotest_passed++; return; }
    evotest_output_failed(t, what, i);
    printf("is %a (bits 0x%016llx), expected bits 0x%016llx\n", got, (unsigned long long)g,
           (unsigned long long)want);
}

static __attribute__((unused)) void evotest_check_output_bytes(const char *t, const char *what, const void *got, const char *want, size_t n) {
    const unsigned char *g = (const unsigned char *)got;
    size_t i;
    for (i = 0; i < n; i++)
        if (g[i] != (unsigned char)want[i]) break;
    if (i == n) { evotest_passed++; return; }
    evotest_output_failed(t, what, (int)i);
    printf("is 0x%02x, expected 0x%02x\n", g[i], (unsigned char)want[i]);
}

/* A returned string: NULL when want is NULL, else n characters (and its end there, unless cut). */
static __attribute__((unused)) void evotest_check_output_string(const char *t, const char *what, const char *got, const char *want, size_t n, int cut) {
    if (!want || !got) {
        if (!want && !got) { evotest_passed++; return; }
        evotest_output_failed(t, what, -1);
        printf("is %s, expected %s\n", got ? "a string" : "NULL", want ? "a string" : "NULL");
        return;
    }
    size_t i;
    for (i = 0; i < n; i++)
        if (got[i] != want[i]) break;
    if (i == n && (cut || got[n] == 0)) { evotest_passed++; return; }
    evotest_output_failed(t, what, (int)i);
    printf("is 0x%02x, expected 0x%02x\n", (unsigned char)got[i], i < n ? (unsigned char)want[i] : 0);
}

enum evotest_expect { EXPECT_SIGNAL, EXPECT_HANG, EXPECT_EXIT, EXPECT_OOM, EXPECT_KILLS_PARENT };

/* Resident memory of process p in bytes, or -1. */
static __attribute__((unused)) long evotest_rss(pid_t p) {
    char path[64];
    long size, rss;
    snprintf(path, sizeof path, "/proc/%d/statm", (int)p);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    int n = fscanf(f, "%ld %ld", &size, &rss);
    fclose(f);
    return n == 2 ? rss * sysconf(_SC_PAGESIZE) : -1;
}

/* Run fn in a child with a process group of its own; it must end as recorded. It hangs if it
 * still runs after hang_seconds, and runs out of memory if its resident memory passes mem_limit
 * bytes; files it writes are limited to file_limit bytes. For EXPECT_KILLS_PARENT, fn runs in a
 * grandchild and must kill the child, its parent. */
static __attribute__((unused)) void evotest_expect_fault(const char *t, void (*fn)(void), enum evotest_expect kind, int value,
                                 unsigned hang_seconds, long mem_limit, long file_limit) {
    fflush(stdout);
    pid_t p = fork();
    if (p < 0) { evotest_failures++; printf("FAIL %s: fork failed\n", t); return; }
    if (p == 0) {
        setpgid(0, 0);
        evotest_profile_crashes();
        if (file_limit > 0) { /* as the search ran it: a larger file ends it with SIGXFSZ */
            struct rlimit rl = { (rlim_t)file_limit, (rlim_t)file_limit };
            setrlimit(RLIMIT_FSIZE, &rl);
        }
        if (kind == EXPECT_KILLS_PARENT) {
            pid_t g = fork();
            if (g == 0) { fn(); evotest_child_exit(0); }
            int gs;
            waitpid(g, &gs, 0);
            _exit(0);
        }
        fn();
        evotest_child_exit(0);
    }
    setpgid(p, p);
    int st = 0, hung = 0, oom = 0;
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (waitpid(p, &st, WNOHANG) != p) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        double elapsed = (double)(now.tv_sec - t0.tv_sec) + (now.tv_nsec - t0.tv_nsec) / 1e9;
        if (elapsed > hang_seconds) hung = 1;
        else if (mem_limit > 0 && evotest_rss(p) > mem_limit) oom = 1;
        if (hung || oom) { kill(-p, SIGKILL); kill(p, SIGKILL); waitpid(p, &st, 0); break; }
        usleep(1000);
    }
    kill(-p, SIGKILL); /* whatever fn forked */
    int ended = !hung && !oom, ok = 0;
    switch (kind) {
    case EXPECT_SIGNAL:
        ok = ended && ((WIFSIGNALED(st) && WTERMSIG(st) == value)
                       || (__sanitizer_print_stack_trace
                           && (WIFSIGNALED(st) || (WIFEXITED(st) && WEXITSTATUS(st) != 0))));
        break;
    case EXPECT_HANG: ok = hung; break;
    case EXPECT_EXIT: ok = ended && WIFEXITED(st) && WEXITSTATUS(st) == value; break;
    case EXPECT_OOM: ok = oom; break;
    case EXPECT_KILLS_PARENT: ok = ended && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL; break;
    }
    if (ok) { evotest_passed++; return; }
    evotest_failures++;
    printf("FAIL %s: child ended with status 0x%x%s, not as recorded\n", t, st, hung ? " (hung)" : oom ? " (out of memory)" : "");
}
"#;

/// The helper of a `tests.cpp` with a test whose recorded run ended in an uncaught exception: in
/// the test's child, the exception is checked against the recorded type and `what()` before it
/// is thrown on (to end the child with `SIGABRT`, as recorded): another type, or the same type
/// with another message, fails the test (the child's exit status 3 is not the recorded end).
const EXCEPTIONS: &str = r#"
#include <cxxabi.h>
#include <exception>
#include <typeinfo>
/* Called in a handler: the exception being handled must be of type `type` (as the runtime
 * names it) and, when `what` is not NULL, say `what` in what(). */
static __attribute__((unused)) void evotest_check_exception(const char *t, const char *type, const char *what) {
    std::type_info *ti = abi::__cxa_current_exception_type();
    int st = 0;
    char *name = ti ? abi::__cxa_demangle(ti->name(), 0, 0, &st) : 0;
    const char *got = name ? name : ti ? ti->name() : "?";
    const char *said = 0;
    try { throw; } catch (const std::exception &e) { said = e.what(); } catch (...) {}
    if (strcmp(got, type) != 0 || (what && (!said || !strstr(said, what)))) {
        printf("FAIL %s: threw '%s'%s%s, expected '%s'%s%s\n", t, got, said ? ": " : "", said ? said : "",
               type, what ? ": " : "", what ? what : "");
        fflush(stdout);
        _exit(3);
    }
    free(name);
}
"#;

/// The recorded uncaught C++ exception of a fault's message (`uncaught exception
/// 'std::invalid_argument': b is zero`, from `fuzz::triage`): its type and its `what()`, if it
/// said one.
fn recorded_exception(message: &str) -> Option<(String, Option<String>)> {
    let rest = message.strip_prefix("uncaught exception '")?;
    let (ty, after) = rest.split_once('\'')?;
    let what = after
        .strip_prefix(": ")
        .map(str::to_string)
        .filter(|w| !w.is_empty());
    Some((ty.to_string(), what))
}

/// The helper of a `tests.c` whose code keeps state between calls ([`isolation`]): each test runs
/// in a child of its own, so that none sees the state an earlier one left.
const ISOLATED: &str = r#"
/* Run fn, which checks one test, in a child process of its own: the code keeps state between
 * calls, and each test must start from the state a fresh process has, as in the search. */
static __attribute__((unused)) void evotest_isolated(const char *t, void (*fn)(void)) {
    fflush(stdout);
    pid_t p = fork();
    if (p < 0) { evotest_failures++; printf("FAIL %s: fork failed\n", t); return; }
    if (p == 0) {
        /* this test's own checks only: the parent's count of failures so far is not its */
        evotest_failures = 0;
        fn();
        evotest_child_exit(evotest_failures != 0);
    }
    int st = 0;
    if (waitpid(p, &st, 0) == p && WIFEXITED(st) && WEXITSTATUS(st) == 0) { evotest_passed++; return; }
    evotest_failures++;
    if (!WIFEXITED(st)) printf("FAIL %s: the test's process ended with status 0x%x\n", t, st);
}
"#;

/// Why every test of `tests.c` runs in a child process of its own, if it does: each recorded
/// result is that of an input run in a fresh process (or checked there before the suite was
/// written), so state the code keeps between calls must not pass from one test to the next.
/// The reasons: the code writes global variables ([`FunctionFrontend::isolate_tests`]), calls
/// functions outside the sources that may keep state ([`FunctionFrontend::hidden_state_calls`],
/// `rand`), or kept inputs ended differently when run again in a fresh process
/// ([`TestFile::fresh_results_differ`]). Lines of the header, empty when the tests share one
/// process.
fn isolation(fe: &FunctionFrontend, file: &TestFile) -> Vec<String> {
    let mut why = Vec::new();
    if fe.isolate_tests {
        why.push("writes global variables".to_string());
    }
    if !fe.hidden_state_calls.is_empty() {
        let names: Vec<String> = fe
            .hidden_state_calls
            .iter()
            .take(4)
            .map(|c| format!("{c}()"))
            .collect();
        let more = fe.hidden_state_calls.len().saturating_sub(names.len());
        why.push(format!(
            "calls {}{}, which may keep state between calls",
            names.join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            }
        ));
    }
    if file.fresh_results_differ {
        why.push("gave other results when inputs were run again in a fresh process".to_string());
    }
    if why.is_empty() {
        return why;
    }
    vec![
        format!(
            "The code {}, so every other test runs in a child process of its own",
            why.join(", and ")
        ),
        "too, and starts from the state of a fresh process, as the search ran it.".to_string(),
    ]
}

/// How a `tests.c` checks a recorded fault `exit`: the `evotest_expect` kind, its value (signal
/// or exit code) and the fault in words (`memory_limit` in bytes, for an out-of-memory one).
/// An exit that is no fault (`Ok`, `StepLimit`, `Stopped`: never replayed as one) reads as
/// killing its parent.
pub fn expectation(exit: ExitKind, memory_limit: u64) -> (&'static str, i32, String) {
    match exit {
        ExitKind::Crash { signal } => (
            "EXPECT_SIGNAL",
            signal,
            format!("crashes with {}", signal_name(signal)),
        ),
        ExitKind::Timeout => ("EXPECT_HANG", 0, "hangs".to_string()),
        ExitKind::Exit { code } => ("EXPECT_EXIT", code, format!("exits with status {code}")),
        ExitKind::Oom => (
            "EXPECT_OOM",
            0,
            format!("uses more than {} MB of memory", memory_limit >> 20),
        ),
        _ => (
            "EXPECT_KILLS_PARENT",
            0,
            "kills its parent process".to_string(),
        ),
    }
}

/// The commands that build `source` (a `tests.c`) into `exe`, objects of other sources with a
/// `main` going to `obj_dir`: the steps before, then the final command. `shell` spells them for
/// the file's header (the sources as one word, as given); otherwise each source is a word of
/// its own, for running.
pub fn build_commands(
    fe: &FunctionFrontend,
    obj_dir: &std::path::Path,
    source: &std::path::Path,
    exe: &std::path::Path,
    shell: bool,
) -> (Vec<Vec<String>>, Vec<String>) {
    let compiler = if fe.cxx_call.is_some() {
        "clang++-22"
    } else {
        "clang-22"
    };
    let mut cmd = vec![
        compiler.to_string(),
        "-o".into(),
        exe.display().to_string(),
        source.display().to_string(),
    ];
    // another source with a `main` (a driver) is compiled first with its `main` renamed, so
    // that it does not clash with the tests' own
    let mut steps: Vec<Vec<String>> = Vec::new();
    for (k, src) in fe.other_sources.iter().enumerate() {
        if !fe.main_sources.contains(src) {
            cmd.push(src.display().to_string());
            continue;
        }
        let stem = src
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let obj = obj_dir
            .join(format!("tests-{stem}.o"))
            .display()
            .to_string();
        let mut step = vec![
            compiler.to_string(),
            "-c".into(),
            format!("-Dmain=evotest_main_of_source{}", k + 1),
            "-o".into(),
            obj.clone(),
            src.display().to_string(),
        ];
        step.extend(fe.cflags.iter().cloned());
        steps.push(step);
        cmd.push(obj);
    }
    cmd.extend(fe.cflags.iter().cloned());
    cmd.push("-lm".into());
    if fe.defining_source.is_none() {
        if shell {
            cmd.insert(4, fe.sources.clone());
        } else {
            for (k, w) in fe.sources.split_whitespace().enumerate() {
                cmd.insert(4 + k, w.to_string());
            }
        }
    }
    (steps, cmd)
}

/// The text of `tests.c` for the cases of `file`; `outputs` says what it does with the values
/// the calls leave in their outputs.
pub fn render(fe: &FunctionFrontend, file: &TestFile, outputs: &Outputs) -> String {
    let mut s = String::new();
    // a C++ function by its qualified name (the prototype holds the linkage name)
    let shown = &fe.signature.shown;
    let _ = writeln!(
        s,
        "/* Tests generated by evotest {} for: {shown}",
        env!("CARGO_PKG_VERSION")
    );
    for l in &file.header {
        let _ = writeln!(s, " * {}", crate::frontend::comment_text(l));
    }
    let _ = writeln!(s, " *");
    let dir = file.path.parent().unwrap_or(std::path::Path::new("."));
    let path = if fe.cxx_call.is_some() {
        file.path.with_file_name("tests.cpp")
    } else {
        file.path.clone()
    };
    let (steps, cmd) = build_commands(fe, dir, &path, std::path::Path::new("tests"), true);
    match &fe.defining_source {
        Some(src) => {
            let _ = writeln!(
                s,
                " * It includes {} (so that a static function can be called), without",
                src.display()
            );
            let _ = writeln!(s, " * instrumentation. Build and run:");
        }
        None => {
            let _ = writeln!(
                s,
                " * Build and run together with the original source, without instrumentation:"
            );
        }
    }
    // quoted for a shell (paths with spaces); a word shlex cannot quote (a NUL) stays as it is
    let quoted = |cmd: &[String]| -> String {
        cmd.iter()
            .map(|w| {
                // a word of the shell's safe characters as it is (shlex quotes `-Dmain=x`)
                if !w.is_empty()
                    && w.chars()
                        .all(|c| c.is_ascii_alphanumeric() || "_-=./,+:@%".contains(c))
                {
                    return w.clone();
                }
                shlex::try_quote(w)
                    .map(|q| q.into_owned())
                    .unwrap_or_else(|_| w.clone())
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    for step in &steps {
        let _ = writeln!(s, " *   {} &&", quoted(step));
    }
    let _ = writeln!(s, " *   {} && ./tests", quoted(&cmd));
    let _ = writeln!(s, " *");
    let _ = writeln!(
        s,
        " * Returned values are compared exactly; float and double results bit-exactly (their bit"
    );
    let _ = writeln!(s, " * patterns; any NaN matches any NaN), which holds for the same compiler, flags and machine.");
    let _ = writeln!(s, " * Inputs whose recorded run crashed (under a sanitizer: ended abnormally), hung or exited");
    let _ = writeln!(s, " * run in a child process that must end the same way.");
    if fe.cxx_call.is_some() {
        let _ = writeln!(s, " * Structures are built with designated initializers: C++20, or clang's and g++'s default dialects.");
    }
    match outputs {
        Outputs::Check(_) => {
            s.push_str(concat!(
                " * What a call leaves in its outputs (the arrays, strings and structures its non-const\n",
                " * pointer parameters point to, global inputs, a returned structure or string) is\n",
                " * compared too. Results and outputs are the values a build of this file by the\n",
                " * command above read in two runs (three when the code calls time, rand, getpid or\n",
                " * the like); values that differed between them are not compared.\n",
            ));
        }
        Outputs::Off(Some(why)) => {
            let _ = writeln!(
                s,
                " * Outputs (pointer parameters, globals) are not compared: {}",
                crate::frontend::comment_text(why)
            );
        }
        _ => {}
    }
    let unreachable = unreachable_globals(fe);
    if !unreachable.is_empty() {
        let _ = writeln!(
            s,
            " * Not replayed: every test sets {}, which a file built from the sources",
            unreachable.join(", ")
        );
        let _ = writeln!(
            s,
            " * cannot reach; each test is left as a comment (suite.json has the inputs and results)."
        );
    }
    let isolated = isolation(fe, file);
    for l in &isolated {
        let _ = writeln!(s, " * {}", crate::frontend::comment_text(l));
    }
    let _ = writeln!(s, " */");
    s.push_str(&c_feature_macros(fe.defining_source.as_deref()));
    s.push_str(shape::C_PROFILE_CRASHES);
    s.push_str(PRELUDE);
    if fe.cxx_call.is_some() {
        // the generated locals are spelled in C (`_Bool`)
        s.push_str("\n#define _Bool bool\n");
    }
    s.push_str(shape::C_TEST_GUARD);
    if !isolated.is_empty() {
        s.push_str(ISOLATED);
    }
    let checks_exceptions = fe.cxx_call.is_some()
        && file.cases.iter().any(|t| {
            t.case
                .message
                .as_deref()
                .and_then(recorded_exception)
                .is_some()
        });
    if checks_exceptions {
        s.push_str(EXCEPTIONS);
    }
    if matches!(outputs, Outputs::Observe) {
        s.push_str(outputs::C_OBSERVERS);
    }
    match &fe.defining_source {
        Some(src) => {
            // the source's own main, if any, must not clash with the tests' main
            let rel = crate::util::relative_path(dir, src);
            let _ = writeln!(
                s,
                "\n{}#define main {ORIGINAL_MAIN}\n#include \"{}\"\n#undef main\n",
                fe.renaming_defines(),
                rel.display()
            );
        }
        None => {
            let _ = writeln!(s, "\n{}\n", fe.signature.declarations());
        }
    }
    let aliased = aliased_globals(fe);
    if !aliased.is_empty() {
        let _ = writeln!(
            s,
            "/* Global inputs of the other sources, declared under names of their own */"
        );
        for p in fe
            .params
            .iter()
            .filter(|p| p.global && aliased.contains(&p.name))
        {
            s.push_str(&shape::c_alias_declaration(p));
        }
        s.push('\n');
    }

    let hang = file.hang_seconds;
    let mut names = Vec::new();
    for e in &file.cases {
        let (name, t) = (&e.name, e.case);
        let _ = writeln!(
            s,
            "/* execution {}, inputs: {} */",
            t.exec,
            crate::frontend::comment_text(&fe.display_input(&t.input))
        );
        if !e.covers.is_empty() {
            let _ = writeln!(
                s,
                "/* covers: {} */",
                crate::frontend::comment_text(&e.covers.join(", "))
            );
        }
        let (setup, c, after) = call(fe, t);
        if !unreachable.is_empty() && t.exit != ExitKind::Stopped {
            let _ = writeln!(
                s,
                "/* {name}: not replayed here (see the header). Setup and call:\n{}    {}; */\n",
                crate::frontend::comment_text(&setup),
                crate::frontend::comment_text(&c)
            );
            continue;
        }
        match t.exit {
            ExitKind::Ok if !isolated.is_empty() => {
                let _ = writeln!(
                    s,
                    "static void evotest_body_{name}(void) {{\n{setup}{}{after}}}",
                    check(fe, name, &c, t, outputs)
                );
                let _ = writeln!(s, "static void evotest_{name}(void) {{ evotest_isolated(\"{name}\", evotest_body_{name}); }}\n");
            }
            ExitKind::Ok => {
                let _ = writeln!(
                    s,
                    "static void evotest_{name}(void) {{\n{setup}{}{after}}}\n",
                    check(fe, name, &c, t, outputs)
                );
            }
            ExitKind::StepLimit => {
                let _ = writeln!(
                    s,
                    "/* {name}: the recorded run exceeded the limit of executed branch events (a runaway loop?);\n   not replayed here. Call: {} */\n",
                    crate::frontend::comment_text(&c)
                );
                continue;
            }
            ExitKind::Stopped => continue,
            // the observing version runs the passing tests only
            _ if matches!(outputs, Outputs::Observe) => continue,
            e => {
                let (k, v, what) = expectation(e, file.memory_limit);
                let (mem, files) = (file.memory_limit, file.file_limit);
                let said = t
                    .message
                    .as_ref()
                    .map(|m| format!(": {}", crate::frontend::comment_text(m)))
                    .unwrap_or_default();
                let _ = writeln!(s, "/* recorded: {what}{said} */");
                let thrown = t
                    .message
                    .as_deref()
                    .and_then(recorded_exception)
                    .filter(|_| checks_exceptions);
                let call = match thrown {
                    // the exception's type and message checked, then thrown on
                    Some((ty, w)) => format!(
                        "try {{ {c}; }} catch (...) {{ evotest_check_exception(\"{name}\", {}, {}); throw; }}",
                        shape::c_string(ty.as_bytes()),
                        w.map_or("0".to_string(), |w| shape::c_string(w.as_bytes()))
                    ),
                    None => format!("{c};"),
                };
                let _ = writeln!(
                    s,
                    "static void evotest_run_{name}(void) {{\n{setup}    {call}\n{after}}}"
                );
                let _ = writeln!(
                    s,
                    "static void evotest_{name}(void) {{ evotest_expect_fault(\"{name}\", evotest_run_{name}, {k}, {v}, {hang}, {mem}L, {files}L); }}\n"
                );
            }
        }
        names.push(name.clone());
    }
    s.push_str("int main(void) {\n");
    if let Some(r) = &fe.reads_stdin {
        // as the search ran it: standard input at its end, wherever the suite runs
        let _ = writeln!(
            s,
            "    /* the function reads standard input ({r}): empty, as in the search */\n    if (!freopen(\"/dev/null\", \"r\", stdin)) return 2;"
        );
    }
    for n in &names {
        let _ = writeln!(s, "    evotest_{n}();");
    }
    // `(printf)`: a source's `#define printf(...)` (logging compiled out) must not silence it
    s.push_str("    (printf)(\"%d passed, %d failed\\n\", evotest_passed, evotest_failures);\n");
    s.push_str("    return evotest_failures != 0;\n}\n");
    s
}
