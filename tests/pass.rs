//! The pass on every kind of branch site, checked through `evotest sites` and a full run.

mod common;

use common::*;

#[test]
fn sites_lists_switch_float_bool_char_and_callee_sites() {
    let o = evotest()
        .args(["sites", "tests/fixtures/kinds.c"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("switch  s  [default, case 3, case 10, case 11]"),
        "{out}"
    );
    assert!(out.contains("d >= 2.5"), "{out}");
    assert!(out.contains("d < 2.75"), "{out}");
    assert!(out.contains("c == 'x'"), "{out}");
    assert!(out.contains("u > 4000000000"), "{out}");
    assert!(
        out.contains("int kinds(int s, double d, unsigned int u, _Bool flag, char c)"),
        "{out}"
    );
}

#[test]
fn every_outcome_of_every_site_kind_is_covered_including_a_static_callee() {
    let dir = tempfile::tempdir().unwrap();
    let (_, r) = run(
        "tests/fixtures/kinds.c",
        "kinds",
        dir.path(),
        &["--seed", "4"],
    );
    // switch: 4 outcomes; d >= 2.5, d < 2.75, flag, c == 'x', helper's u > 4e9: 2 each
    assert_eq!(r["branches_total"], 4 + 2 * 5);
    assert_eq!(
        r["branches_covered"],
        r["branches_total"],
        "uncovered {:?}",
        uncovered(&r)
    );
    let funcs: Vec<&str> = r["sites"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["function"].as_str().unwrap())
        .collect();
    assert!(funcs.contains(&"helper"));
    let out = compile_and_run_tests_c(dir.path(), "tests/fixtures/kinds.c");
    assert!(out.trim().ends_with("passed, 0 failed"), "{out}");
}

#[test]
fn two_translation_units_keep_site_ids_unique_and_statics_apart() {
    let dir = tempfile::tempdir().unwrap();
    let o = evotest()
        .args([
            "run",
            "tests/fixtures/multi_a.c",
            "tests/fixtures/multi_b.c",
            "-f",
            "check",
            "--seed",
            "1",
            "--out",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let r = read_json(&dir.path().join("report.json"));
    let sites = r["sites"].as_array().unwrap();
    let mut ids: Vec<u64> = sites.iter().map(|s| s["id"].as_u64().unwrap()).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), sites.len(), "duplicate site ids: {sites:?}");
    // check's a > b, both local_helper's, and classify's x > 100: 4 sites in 2 files
    assert_eq!(sites.len(), 4);
    let files: std::collections::BTreeSet<&str> =
        sites.iter().map(|s| s["file"].as_str().unwrap()).collect();
    assert_eq!(files.len(), 2, "{files:?}");
    let conds: Vec<&str> = sites
        .iter()
        .map(|s| s["condition"].as_str().unwrap())
        .collect();
    assert!(
        conds.contains(&"v < -5") && conds.contains(&"v == 42"),
        "{conds:?}"
    );
    // v == 42 is only reachable through classify(a - b) with a - b == 42
    assert_eq!(r["branches_covered"], 8, "uncovered {:?}", uncovered(&r));
    let out = compile_and_run_tests_c_with(
        dir.path(),
        &["tests/fixtures/multi_a.c", "tests/fixtures/multi_b.c"],
    );
    assert!(out.trim().ends_with("passed, 0 failed"), "{out}");
}

/// Condition texts read as C: a compare of a bitwise result keeps its parentheses (it printed
/// `x & m != 0`, which C reads as `x & (m != 0)`), also through a cast; arithmetic needs none.
#[test]
fn condition_texts_keep_the_parentheses_c_needs() {
    let dir = tempfile::tempdir().unwrap();
    let o = evotest()
        .args([
            "run",
            "tests/fixtures/bitmasks.c",
            "-f",
            "bitmasks",
            "--seed",
            "1",
            "--max-execs",
            "2000",
            "--out",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let r = read_json(&dir.path().join("report.json"));
    let conds: Vec<&str> = r["sites"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["condition"].as_str().unwrap())
        .collect();
    for want in [
        "(x & m) != 0",
        "(x ^ m) == 3",
        "(x | m) == 7",
        "x + (m * 2) > 10",
    ] {
        assert!(conds.contains(&want), "{want:?} not in {conds:?}");
    }
    // llvm.fmuladd as the arithmetic it contracts, clang's `0 - o` as `-o`, and glibc's
    // expansion of the <ctype.h> macros as the macro
    let out = evotest()
        .args(["sites", "tests/fixtures/bitmasks.c"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    for want in [
        "px * px + (py * py) <= r * r + 1e-9",
        "-o > 5",
        "isalnum(*p)",
        "isdigit(p[1])",
        "isspace(p[2])",
    ] {
        assert!(text.contains(want), "no `{want}` in:\n{text}");
    }
    // characters as C writes them, escapes too, also as the character strchr looks for
    let src = dir.path().join("chars.c");
    std::fs::write(&src, "#include <string.h>\nint f(const char *s) { return (*s == '\\t') + (*s == '\\\\') + (s[1] == 'q') + (strchr(s, '\\n') != 0); }\n").unwrap();
    let out = evotest().arg("sites").arg(&src).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    for want in [
        "*s == '\\t'",
        "*s == '\\\\'",
        "s[1] == 'q'",
        "strchr(s, '\\n')",
    ] {
        assert!(text.contains(want), "no `{want}` in:\n{text}");
    }
}

/// The instrumented IR of C source file `src` under `evotest-cc FLAGS -c -S -emit-llvm`.
fn instrumented_ir(src: &std::path::Path, flags: &[&str]) -> String {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_evotest-cc"))
        .args(flags)
        .args(["-c", "-S", "-emit-llvm", "-o", "-"])
        .arg(src)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The compare probes' `pred` argument carries the pass's flag on an operand that is a program
/// constant (`OPERAND_B_CONST`, bit 28, on `x == 7`'s 7), and none on a compare of two variables,
/// so input-to-state never looks for a constant in the input.
#[test]
fn compare_probes_flag_constant_operands() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("cf.c");
    std::fs::write(
        &src,
        "int f(int x, int y) { if (x == 7) return 1; if (x < y) return 2; return 0; }\n",
    )
    .unwrap();
    let ir = instrumented_ir(&src, &[]);
    let preds: Vec<u32> = ir
        .lines()
        .filter(|l| l.contains("call void @__evotest_cmp_int("))
        .map(|l| {
            let args: Vec<&str> = l.split(", ").collect();
            args[3].trim_start_matches("i32 ").parse().unwrap()
        })
        .collect();
    // eq = 32, slt = 40 (LLVM's predicate numbers)
    assert_eq!(preds, vec![32 | (1 << 28), 40], "{ir}");
}

/// A definition probe runs only under the ordered trace: at every `-O` level the call to
/// `__evotest_def` is guarded by a load of the runtime's flag, inline (the always-inlined
/// wrapper is gone), so a fuzzer's hot loops pay two loads and a branch per definition, not a
/// call. (That the probe still fires under the ordered trace, chaining's tests show: their event
/// sequences need the definitions.)
#[test]
fn definition_probes_are_called_only_under_the_ordered_trace() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("defs.c");
    std::fs::write(&src, "int f(int *a, int n) { int s = 0; for (int i = 0; i < n; i++) { s += a[i]; if (s > 100) s = 0; } return s; }\n").unwrap();
    for opt in ["-O0", "-O1", "-O2"] {
        let ir = instrumented_ir(&src, &["-g", opt]);
        let calls = ir
            .lines()
            .filter(|l| l.contains("call void @__evotest_def("))
            .count();
        assert!(calls > 0, "{opt}: no definition probe\n{ir}");
        assert!(
            !ir.contains("call void @__evotest_def_if_tracing"),
            "{opt}: the wrapper was not inlined\n{ir}"
        );
        // the global's declaration, and one load of it before each call
        assert!(
            ir.matches("@__evotest_events_flag").count() > calls,
            "{opt}: the flag is not loaded before every call\n{ir}"
        );
    }
}

/// Calls of a routine whose first two parameters are pointers and that returns a value (the
/// program's own string compare; AFL++'s CmpLog "rtn" calls) get the routine probe before them,
/// behind the inline test of the runtime's flags; calls of other routines do not.
#[test]
fn routine_calls_with_two_pointer_arguments_are_probed_behind_the_flags() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("rtn.c");
    std::fs::write(
        &src,
        "int eq(const char *a, const char *b);\n\
         int eqn(const char *a, const char *b, unsigned long n);\n\
         void copy(char *a, const char *b);\n\
         int at(const char *a, int i);\n\
         int f(const char *s, char *t) {\n\
           int r = eq(s, \"keyword\") + eqn(s, \"prefix\", 6) + at(s, 2);\n\
           copy(t, s);\n\
           return r;\n\
         }\n",
    )
    .unwrap();
    for opt in ["-O0", "-O2"] {
        let ir = instrumented_ir(&src, &["-g", opt]);
        let probes: Vec<&str> = ir
            .lines()
            .filter(|l| l.contains("call void @__evotest_cmp_rtn("))
            .collect();
        // eq and eqn; not copy (void) nor at (one pointer)
        assert_eq!(probes.len(), 2, "{opt}: {probes:#?}\n{ir}");
        // eq's length is unknown (all ones); eqn's is its third argument, 6
        assert!(
            probes.iter().any(|l| l.contains("i64 -1)")),
            "{opt}: {probes:#?}"
        );
        assert!(
            probes.iter().any(|l| l.contains("i64 6)")),
            "{opt}: {probes:#?}"
        );
        assert!(
            !ir.contains("call void @__evotest_rtn_if_logging"),
            "{opt}: the wrapper was not inlined\n{ir}"
        );
        assert!(
            ir.matches("@__evotest_flags").count() > probes.len(),
            "{opt}: the flags are not loaded before every call\n{ir}"
        );
    }
}

/// Flag functions (returning only constants or truth values) get a frame: a frame probe at each
/// of their conditions and a return probe, behind the inline test of the runtime's flags; one
/// returning a computed number (a count, `2 * x`) gets none. A flag function with a loop passes
/// its return probe 16 evaluations per condition, at least 256, as the approach bound. The caller's
/// compare of a call's result with 0 (also negated, also of a `bool`) takes the callee.
#[test]
fn flag_functions_get_frames_and_their_callers_compares_name_the_callee() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("flags.c");
    std::fs::write(
        &src,
        "#include <stdbool.h>\n\
         static int ok(int x) { return x > 3 && x < 9; }\n\
         static bool b(double d) { if (d < 0.5) return false; return true; }\n\
         static int count(const int *a, int n) { int k = 0; for (int i = 0; i < n; i++) if (a[i] == 7) k++; return k; }\n\
         static int twice(int x) { return x > 0 ? 2 * x : 0; }\n\
         static int alldig(const char *s, int n) { for (int i = 0; i < n; i++) if (s[i] < '0' || s[i] > '9') return 0; return 1; }\n\
         int f(int x, double d, const int *a) {\n\
           if (alldig((const char *)a, 2)) return 5;\n\
           if (ok(x)) return 1;\n\
           if (!b(d)) return 2;\n\
           if (count(a, 3) != 0) return 3;\n\
           if (twice(x)) return 4;\n\
           return 0;\n\
         }\n",
    )
    .unwrap();
    let ir = instrumented_ir(&src, &["-g", "-O0"]);
    let rets: Vec<&str> = ir
        .lines()
        .filter(|l| l.contains("call void @__evotest_frame_ret("))
        .collect();
    // ok, b, alldig (a loop) and f itself (it returns constants); not count (a count) nor twice
    // (2 * x)
    for name in ["@ok", "@b", "@alldig", "@f"] {
        assert!(
            rets.iter().any(|l| l.contains(&format!("ptr {name},"))),
            "{name} has no frame: {rets:#?}"
        );
    }
    for name in ["@count", "@twice"] {
        assert!(
            !rets.iter().any(|l| l.contains(&format!("ptr {name},"))),
            "{name} has a frame: {rets:#?}"
        );
    }
    // ok: two compares; b: one float compare
    assert!(
        rets.iter().any(|l| l.contains("ptr @ok, i32 2)")),
        "{rets:#?}"
    );
    // alldig: three conditions in a loop
    assert!(
        rets.iter().any(|l| l.contains("ptr @alldig, i32 256)")),
        "{rets:#?}"
    );
    assert!(ir.contains("call void @__evotest_frame_fcmp("), "{ir}");
    // every caller-side compare of a call's result asks for the callee's flag distance, and
    // the site probe takes it
    let asked: Vec<&str> = ir
        .lines()
        .filter(|l| l.contains("call double @__evotest_flag_of("))
        .collect();
    for name in ["@ok", "@b", "@count", "@twice"] {
        assert!(
            asked.iter().any(|l| l.contains(&format!("ptr {name})"))),
            "{name}: {asked:#?}"
        );
    }
    assert!(
        ir.lines()
            .filter(|l| l.contains("call void @__evotest_cmp_flag(")
                || l.contains("call void @__evotest_cond_flag("))
            .count()
            >= 4,
        "{ir}"
    );
    assert!(
        !ir.contains("call void @__evotest_if_on") && !ir.contains("@__evotest_flag_of_if_on("),
        "the wrappers were not inlined\n{ir}"
    );
    // a result kept in a local first: its shadow is set after the store and read at the test
    let src = dir.path().join("local.c");
    std::fs::write(&src, "static int ok(int x) { return x > 3 && x < 9; }\nint g(int x) { int r = ok(x); if (!r) return 1; return 0; }\n").unwrap();
    let ir = instrumented_ir(&src, &["-g", "-O0"]);
    let g = ir.split("define dso_local i32 @g(").nth(1).unwrap_or("");
    assert!(
        g.contains("call double @__evotest_flag_of(ptr @ok)") && g.contains("alloca double"),
        "{g}"
    );
    assert!(g.contains("call void @__evotest_cmp_flag("), "{g}");
}

/// `signbit(x)` compares the float's bit pattern as an integer with 0: the condition reads
/// `bits(x) < 0`, not `x < 0` (false for -0.0 and for a NaN with the sign bit set).
#[test]
fn a_float_reinterpreted_as_an_integer_reads_as_its_bits() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("sb.c");
    std::fs::write(&src, "#include <math.h>\nint g(double x) { if (signbit(x)) return 1; if (x < 0) return 2; return 0; }\n").unwrap();
    let o = evotest().arg("sites").arg(&src).output().unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("bits(x) < 0") && out.contains("x < 0.0"),
        "{out}"
    );
}

/// `errno` reads as `errno` in a condition, not as the C library's expansion
/// (`*__errno_location()` in glibc).
#[test]
fn errno_reads_as_errno() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("e.c");
    std::fs::write(&src, "#include <errno.h>\n#include <stdlib.h>\nlong g(const char *s) { errno = 0; long v = strtol(s, 0, 10); if (errno == ERANGE) return -1; return v; }\n").unwrap();
    let out = sites_of(src.to_str().unwrap(), &[]);
    assert!(
        out.contains("errno == 34") && !out.contains("__errno_location"),
        "{out}"
    );
}

/// `evotest sites` on C source file `src` with extra compiler flags `cflags`.
fn sites_of(src: &str, cflags: &[&str]) -> String {
    let mut c = evotest();
    c.arg("sites");
    for f in cflags {
        c.arg(format!("--cflag={f}"));
    }
    let o = c.arg(src).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A flat chain of calls, `if (ctxt && !g(ctxt, "f0", 0) && …)` (libexslt's function tables),
/// fits no `&&`/`||` text (each `br` leaves towards the false outcome when its call returns
/// non-zero); the search for one was exponential in the chain's length (146 s for 28 terms). 40
/// terms now compile in a fraction of a second, and the decisions of a small fixture are the
/// ones the exhaustive search gave.
#[test]
fn a_long_chain_of_calls_compiles_quickly_and_decisions_are_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("chain40.c");
    let mut c = String::from("int g(void *c, const char *name, int k);\nint reg(void *ctxt, const char *prefix) {\n    if (ctxt && prefix\n");
    for k in 0..40 {
        c += &format!("        && !g(ctxt, \"f{k}\", {k})\n");
    }
    c += "       ) return 0;\n    return -1;\n}\n";
    std::fs::write(&src, c).unwrap();
    let start = std::time::Instant::now();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_evotest-cc"))
        .args(["-O1", "-c", "-o"])
        .arg(dir.path().join("chain40.o"))
        .arg(&src)
        .spawn()
        .unwrap();
    let limit = std::time::Duration::from_secs(10);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("40 conditions: evotest-cc still compiling after {limit:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert!(status.success(), "{status}");
    // one decision of the 42 conditions, in the braces of a chain without && / || text
    let out = sites_of(src.to_str().unwrap(), &[]);
    let decision = out
        .lines()
        .find(|l| l.trim_start().starts_with("decision"))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(
        decision.contains("{ctxt != NULL, prefix != NULL, g(ctxt, \"f0\", 0) != 0,"),
        "{decision}"
    );
    assert_eq!(decision.matches(" s").count(), 42, "{decision}");

    let out = sites_of("tests/fixtures/chains.c", &[]);
    let decisions: Vec<&str> = out
        .lines()
        .filter(|l| l.trim_start().starts_with("decision"))
        .map(str::trim)
        .collect();
    assert_eq!(
        decisions,
        [
            "decision     5:12   (a > 0 || b > 1) && c == 3  [conditions s0 s1 s2]",
            "decision     7:11   a < -5 && b < -5 && c < -5  [conditions s3 s4 s5]",
            "decision     9:9    ctxt != NULL && !reg(ctxt, \"x\", 1) && !reg(ctxt, \"y\", 2)  [conditions s6 s7 s8]",
        ],
        "{out}"
    );
}

/// A probe between a call and the `ret` that returns its result keeps clang -O2 from turning
/// tail and accumulator recursion into a loop: the return value computed from a call gets no
/// definition probe, and a recursion 100,000,000 calls deep runs as it does without the pass
/// (it overflowed the stack, SIGSEGV).
#[test]
fn tail_recursion_is_still_eliminated_at_o2() {
    let dir = tempfile::tempdir().unwrap();
    let exe = dir.path().join("tail_recursion");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_evotest-cc"))
        .args(["-O2", "tests/fixtures/tail_recursion.c", "-o"])
        .arg(&exe)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = std::process::Command::new(&exe).output().unwrap();
    assert!(
        o.status.success(),
        "{:?} {}",
        o.status,
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&o.stdout).trim(),
        "5000000050000000 0"
    );
    // the other return values keep their probes (chaining's ordered trace needs them)
    let ir = instrumented_ir(&path("tests/fixtures/tail_recursion.c"), &["-O0"]);
    let defs = ir
        .lines()
        .filter(|l| l.contains("call void @__evotest_def("))
        .count();
    // `return acc`, `return 1`, `n = …`, main's `return 0`
    assert_eq!(defs, 4, "{ir}");
}

/// The checks `-fsanitize=undefined` inserts (overflow, shift, bounds, null and pointer overflow
/// checks: branches to a `__ubsan_handle_*` call, or to `llvm.ubsantrap` under
/// `-fsanitize-trap`) are no decisions of the program: a sanitized build has the sites of a plain
/// one, no more (it had 8 times as many).
#[test]
fn sanitizer_checks_are_not_sites() {
    let fixture = "tests/fixtures/sanitized.c";
    let site_lines = |out: &str| -> Vec<String> {
        out.lines()
            .filter(|l| {
                l.trim_start()
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_digit())
            })
            .map(str::to_string)
            .collect()
    };
    let plain = site_lines(&sites_of(fixture, &[]));
    assert_eq!(plain.len(), 6, "{plain:#?}");
    for flags in [
        &["-fsanitize=undefined"][..],
        &["-fsanitize=undefined", "-fno-sanitize-recover=all"],
        &["-fsanitize=undefined", "-fsanitize-trap=undefined"],
        &["-fsanitize=undefined,integer,nullability,local-bounds"],
    ] {
        assert_eq!(site_lines(&sites_of(fixture, flags)), plain, "{flags:?}");
    }
}

/// A compare of pointers (`p < end`, `p == mark`, `q != NULL`, also as a `select` and stored)
/// is probed by its outcome only: no compare probe gets an address (`ptrtoint`), which address
/// randomisation would change from run to run. The compare of the pointed-to byte keeps its
/// integer probe.
#[test]
fn pointer_compares_pass_no_addresses_to_the_probes() {
    let ir = instrumented_ir(&path("tests/fixtures/pointer_compares.c"), &["-g"]);
    let addresses: Vec<&str> = ir
        .lines()
        .filter(|l| l.contains(" = ptrtoint "))
        .map(|l| l.trim().split(' ').next().unwrap())
        .collect();
    let int_probes: Vec<&str> = ir
        .lines()
        .filter(|l| {
            l.contains("call void @__evotest_cmp_int(")
                || l.contains("call void @__evotest_ccmp_int(")
        })
        .collect();
    for l in &int_probes {
        for a in &addresses {
            assert!(
                !l.contains(&format!("{a},")) && !l.contains(&format!("{a})")),
                "{l}\n{ir}"
            );
        }
    }
    // *p == 'a'
    assert_eq!(int_probes.len(), 1, "{int_probes:#?}");
    // p < end, p == mark, q != NULL (br and select), p == end (stored)
    let conds = ir
        .lines()
        .filter(|l| {
            l.contains("call void @__evotest_cond(") || l.contains("call void @__evotest_ccond(")
        })
        .count();
    assert_eq!(conds, 5, "{ir}");
    let out = sites_of("tests/fixtures/pointer_compares.c", &[]);
    assert!(
        out.contains("p < end") && out.contains("p == mark") && out.contains("q != NULL"),
        "{out}"
    );
}

/// GCC vector extensions: a compare of vectors gives a mask (`v4i m = a < b;`), and branches on
/// its elements reach it through memory at -O0 (`if (m[0])`, a loop over `m`, `switch (m[1])`,
/// a union or `memcpy` of it). The mask has no one outcome: it gets no site, and the build
/// neither fails ("non-integer branch condition") nor behaves otherwise than clang's, at any
/// level; the branches on its elements are sites named by the element. A select on a vector
/// mask (C++'s `m ? a : b`) is no two-outcome site either.
#[test]
fn vector_compare_masks_build_and_their_elements_are_sites() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("vec.c");
    std::fs::write(
        &c,
        r#"#include <stdio.h>
#include <string.h>
typedef float v4f __attribute__((vector_size(16)));
typedef int v4i __attribute__((vector_size(16)));
typedef double v2d __attribute__((vector_size(16)));
typedef long long v2l __attribute__((vector_size(16)));
union U { v4i v; int i[4]; };
__attribute__((noinline)) int t(v4f a, v4f b, v4i x, v4i y, v2d c, v2d d) {
  int r = 0;
  v4i m = a < b;
  if (m[0] && m[3]) r += 1;
  v4i e = x == y;
  if (e[0]) r += 2;
  for (int i = 0; i < 4; i++) if (m[i]) r += 4;
  switch (m[1]) { case -1: r += 8; break; case 0: r += 16; break; }
  while (m[3] && r < 40) r += 32;
  union U u; u.v = e; if (u.i[1]) r += 64;
  v2l k = c < d; long long q; memcpy(&q, &k, 8); if (q) r += 128;
  if ((m & 1)[2] == 1) r += 256;
  return r;
}
int main(void) {
  v4f a = {1, 2, 3, 4}, b = {2, 1, 1, 5};
  v4i x = {1, 2, 3, 4}, y = {1, 0, 3, 0};
  v2d c = {1, 2}, d = {2, 1};
  printf("%d\n", t(a, b, x, y, c, d));
  return 0;
}
"#,
    )
    .unwrap();
    let cc = dir.path().join("sel.cc");
    std::fs::write(
        &cc,
        r#"#include <cstdio>
typedef int v4i __attribute__((vector_size(16)));
__attribute__((noinline)) v4i pick(v4i m, v4i a, v4i b) { return m ? a : b; }
__attribute__((noinline)) v4i pick2(v4i x, v4i a, v4i b) { return (x > 2) ? a : b; }
int main() {
  v4i m = {0, 1, 0, 1}, a = {1, 2, 3, 4}, b = {5, 6, 7, 8};
  v4i r = pick(m, a, b), s = pick2(a, a, b);
  std::printf("%d %d %d %d %d %d\n", r[0], r[1], r[2], r[3], s[0], s[3]);
  return 0;
}
"#,
    )
    .unwrap();
    for opt in ["-O0", "-O1", "-O2"] {
        for (wrapper, src, want) in [
            (env!("CARGO_BIN_EXE_evotest-cc"), &c, "187\n"),
            (env!("CARGO_BIN_EXE_evotest-cxx"), &cc, "5 2 7 4 5 4\n"),
        ] {
            let exe = dir.path().join("prog");
            let o = std::process::Command::new(wrapper)
                .arg(opt)
                .arg(src)
                .arg("-o")
                .arg(&exe)
                .output()
                .unwrap();
            assert!(
                o.status.success(),
                "{opt} {}: {}",
                src.display(),
                String::from_utf8_lossy(&o.stderr)
            );
            let o = std::process::Command::new(&exe).output().unwrap();
            assert!(o.status.success(), "{opt} {}", src.display());
            assert_eq!(String::from_utf8_lossy(&o.stdout), want, "{opt}");
        }
    }
    let out = sites_of(c.to_str().unwrap(), &[]);
    for want in [
        "br      m[0] != 0",
        "br      m[i] != 0",
        "switch  m[1]  [default, case -1, case 0]",
        "br      u[1] != 0",
        "br      q != 0",
    ] {
        assert!(out.contains(want), "no `{want}` in:\n{out}");
    }
    // no condition-only site on the masks `m`, `e`, `k`: the only one is the `while`'s last
    // condition
    let conds: Vec<&str> = out.lines().filter(|l| l.contains(" cond ")).collect();
    assert!(
        conds.len() == 1 && conds[0].contains("r < 40"),
        "{conds:?}\n{out}"
    );
}

/// A flag function made of a `switch` (`case 1: case 5: return 1`) gives its frame the case
/// values, so the distance of `ok(x)` is to 1 or 5: they were read from operand slots LLVM 22 no
/// longer keeps them in (`[i64 93991225057536]`).
#[test]
fn a_flag_functions_switch_gives_its_frame_the_case_values() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("sw.c");
    std::fs::write(
        &src,
        "static int ok(int x) { switch (x) { case 1: return 1; case 5: return 1; default: return 0; } }\nint f(int x, int y) { if (ok(x)) { if (y == 77) return 2; return 1; } return 0; }\n",
    )
    .unwrap();
    let ir = instrumented_ir(&src, &["-O0"]);
    assert!(
        ir.contains("[2 x i64] [i64 1, i64 5]"),
        "{}",
        ir.lines()
            .filter(|l| l.contains("frame_cases"))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// A `switch` on an `unsigned` variable names its cases as the source writes them (`case
/// 4294967280`, was `case -16`), and `--target` takes that name.
#[test]
fn an_unsigned_switch_names_its_cases_as_the_source_does() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("op.c");
    std::fs::write(
        &src,
        "unsigned op_kind(unsigned op) {\n  switch (op) {\n    case 0xFFFFFFF0u: return 1;\n    case 3000000000u: return 2;\n    default: return 0;\n  }\n}\nint s(signed char c) { switch (c) { case -3: return 1; default: return 0; } }\n",
    )
    .unwrap();
    let o = evotest().arg("sites").arg(&src).output().unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("case 4294967280, case 3000000000") && text.contains("case -3"),
        "{text}"
    );
    let out = dir.path().join("out");
    let o = evotest()
        .arg("run")
        .arg(&src)
        .args([
            "-f",
            "op_kind",
            "--target",
            "2:case 3000000000",
            "--max-execs",
            "2000",
            "-q",
            "--out",
        ])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}
