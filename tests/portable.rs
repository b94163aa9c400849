//! `tests.c` where users build it: a strict `-std=c99`, a source that defines `_GNU_SOURCE`
//! before its headers, a sanitizer that turns a crash into an exit, a result that differs from
//! one run to the next, NaNs of another sign, a freestanding source's own `index` and `sleep`
//! (robustness checks, 2026-12-01).

mod common;

use common::*;
use std::process::Command;

const FIXTURE: &str = "tests/fixtures/portable.c";

fn build_and_run(out: &std::path::Path, extra: &[&str]) -> (String, bool) {
    build_and_run_tests_c(out, "tests-extra", extra)
}

#[test]
fn tests_c_builds_under_a_strict_dialect_with_the_sources_feature_macros() {
    let dir = tempfile::tempdir().unwrap();
    run(
        FIXTURE,
        "find",
        dir.path(),
        &[
            "--string",
            "hay=8:a-c",
            "--string",
            "needle=2:a-c",
            "--max-execs",
            "3000",
        ],
    );
    for std in ["-std=c99", "-std=c11", "-std=gnu17"] {
        let (said, ok) = build_and_run(dir.path(), &[std, "-Werror=implicit-function-declaration"]);
        assert!(ok, "{std}: {said}");
    }
}

#[test]
fn a_crash_expected_by_a_test_passes_under_a_sanitizer() {
    let dir = tempfile::tempdir().unwrap();
    let (_, r) = run(FIXTURE, "deref", dir.path(), &[]);
    assert_eq!(r["branches_covered"], r["branches_total"]);
    let text = std::fs::read_to_string(dir.path().join("tests.c")).unwrap();
    assert!(text.contains("EXPECT_SIGNAL, 11"), "{text}");
    let (said, ok) = build_and_run(dir.path(), &["-fsanitize=address"]);
    assert!(ok, "{said}");
    // without a sanitizer the signal itself is still required
    let (said, ok) = build_and_run(dir.path(), &[]);
    assert!(ok, "{said}");
}

#[test]
fn a_result_that_differs_between_runs_is_not_compared() {
    let dir = tempfile::tempdir().unwrap();
    run(FIXTURE, "pid_mix", dir.path(), &[]);
    let text = std::fs::read_to_string(dir.path().join("tests.c")).unwrap();
    assert!(text.contains("differed between two runs"), "{text}");
    for _ in 0..3 {
        let (said, ok) = build_and_run(dir.path(), &[]);
        assert!(ok, "{said}");
    }
}

/// Any NaN matches any NaN: C leaves a NaN's sign to the compiler (gcc's 0.0/0.0 at run time is
/// 0xfff8…, clang's folded one 0x7ff8…).
#[test]
fn a_nan_of_either_sign_matches_a_recorded_nan() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("nan.c");
    let body = format!(
        "{}{}{}\nint main(void) {{\n  volatile double z = 0.0; double n = -(z / z); float m = -(float)(z / z);\n  evotest_check_f64(\"a\", n, 0x7ff8000000000000ull);\n  evotest_check_f32(\"b\", m, 0x7fc00000u);\n  evotest_check_output_f64(\"c\", \"x\", -1, n, 0x7ff8000000000000ull);\n  evotest_check_f64(\"d\", 1.0, 0x7ff8000000000000ull);\n  printf(\"%d passed, %d failed\\n\", evotest_passed, evotest_failures);\n  return 0;\n}}\n",
        evotest::frontend::function::ctests::c_feature_macros(None),
        evotest::frontend::function::shape::C_PROFILE_CRASHES,
        evotest::frontend::function::ctests::PRELUDE
    );
    std::fs::write(&src, body).unwrap();
    let exe = dir.path().join("nan");
    let c = Command::new("clang-22")
        .arg("-o")
        .arg(&exe)
        .arg(&src)
        .output()
        .unwrap();
    assert!(c.status.success(), "{}", String::from_utf8_lossy(&c.stderr));
    let o = Command::new(&exe).output().unwrap();
    let said = String::from_utf8_lossy(&o.stdout);
    assert!(said.contains("3 passed, 1 failed"), "{said}");
}

#[test]
fn a_source_under_a_directory_with_a_double_quote_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let q = dir.path().join("a\"b");
    std::fs::create_dir(&q).unwrap();
    std::fs::copy(path(FIXTURE), q.join("portable.c")).unwrap();
    let o = evotest()
        .current_dir(&q)
        .args(["run", "portable.c", "-f", "deref", "--out"])
        .arg(dir.path().join("out"))
        .output()
        .unwrap();
    let e = assert_one_line_error(&o);
    assert!(e.contains("double quote"), "{e}");
}

/// In a coverage build of `tests.c`, a test whose input crashes writes its profile before the
/// signal ends it, so llvm-cov counts what the input covered (it was lost, and the bench's
/// ground truth read the outcome only a crash reaches as untaken).
#[test]
fn a_crashing_input_s_coverage_counts_in_a_coverage_build() {
    let dir = tempfile::tempdir().unwrap();
    let (_, r) = run(FIXTURE, "deref", dir.path(), &[]);
    assert_eq!(r["branches_covered"], r["branches_total"]);
    let profile = dir.path().join("p%p.profraw");
    let cmd = tests_c_build_command(dir.path());
    let exe = dir.path().join("tests-cov");
    let c = Command::new(&cmd[0])
        .arg("-o")
        .arg(&exe)
        .args(&cmd[3..])
        .args(["-fprofile-instr-generate", "-fcoverage-mapping"])
        .current_dir(root())
        .output()
        .unwrap();
    assert!(c.status.success(), "{}", String::from_utf8_lossy(&c.stderr));
    let o = Command::new(&exe)
        .env("LLVM_PROFILE_FILE", &profile)
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stdout));
    let raws: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "profraw"))
        .collect();
    let data = dir.path().join("t.profdata");
    let m = Command::new("llvm-profdata-22")
        .arg("merge")
        .arg("-o")
        .arg(&data)
        .args(&raws)
        .output()
        .unwrap();
    assert!(m.status.success(), "{}", String::from_utf8_lossy(&m.stderr));
    let f = Command::new("llvm-cov-22")
        .arg("report")
        .arg(&exe)
        .arg(format!("-instr-profile={}", data.display()))
        .arg("--show-functions")
        .arg("--show-branch-summary")
        .arg(path(FIXTURE))
        .output()
        .unwrap();
    let funcs = String::from_utf8_lossy(&f.stdout).to_string();
    let line = funcs
        .lines()
        .find(|l| l.trim_start().starts_with("deref "))
        .unwrap_or_else(|| panic!("no deref row:\n{funcs}"));
    let cols: Vec<&str> = line.split_whitespace().collect();
    // Name Regions Miss Cover Lines Miss Cover Branches Miss Cover
    assert_eq!(
        cols.get(8),
        Some(&"0"),
        "deref's branches not all covered:\n{funcs}"
    );
}

/// A source's own `index`, `sleep` and `time` (a freestanding habit) clashed with the system
/// headers tests.c includes before it: tests.c did not compile (and evotest exited 0), and with
/// `--global index` the harness did not either.
#[test]
fn a_source_s_own_names_that_libc_declares_do_not_break_tests_c_or_the_harness() {
    let src = "tests/fixtures/freestanding.c";
    for extra in [&[][..], &["--global", "index"][..]] {
        let dir = tempfile::tempdir().unwrap();
        let mut args = vec!["--max-execs", "3000"];
        args.extend_from_slice(extra);
        let (o, r) = run(src, "add_sample", dir.path(), &args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        if !extra.is_empty() {
            // with the ring position an input, every outcome is reachable
            assert_eq!(r["branches_covered"], r["branches_total"], "{r:#}");
        }
        let text = std::fs::read_to_string(dir.path().join("tests.c")).unwrap();
        assert!(text.contains("#define index evotest_src_index"), "{text}");
        assert!(!text.contains("plain build failed"), "{text}");
        for std in [&[][..], &["-std=c99"][..]] {
            let (said, ok) = build_and_run(dir.path(), std);
            assert!(
                ok && said.contains(" passed, 0 failed"),
                "{extra:?} {std:?}: {said}"
            );
        }
    }
}

/// A source that defines functions the evotest runtime calls from the C library (`write`,
/// `memcpy`) keeps them to itself: the target starts, the function named `write` is tested, and
/// tests.c builds and passes. (The target did not start: the runtime wrote through the source's
/// `write`, and an instrumented `memcpy` called itself through the probes.)
#[test]
fn a_source_defining_write_and_memcpy_is_tested_with_the_c_library_s_own() {
    let dir = tempfile::tempdir().unwrap();
    let (o, r) = run(
        "tests/fixtures/freestanding_io.c",
        "write",
        dir.path(),
        &["--max-execs", "3000"],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(r["branches_covered"], r["branches_total"], "{r:#}");
    let (said, ok) = build_and_run(dir.path(), &[]);
    assert!(ok && said.contains(" passed, 0 failed"), "{said}");
}

/// A function that reads standard input gets a note saying it reads an empty one, and its
/// tests.c reads an empty one too, whatever stdin it is run with (it failed with input piped in).
#[test]
fn a_function_reading_stdin_is_noted_and_its_tests_read_an_empty_one() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let (o, r) = run(
        "tests/fixtures/console.c",
        "console_cmd",
        dir.path(),
        &["--max-execs", "2000"],
    );
    let notes = r["notes"].to_string();
    assert!(notes.contains("reads standard input (getchar)"), "{notes}");
    assert!(o.status.success());
    let (said, ok) = build_and_run(dir.path(), &[]);
    assert!(ok, "{said}");
    let mut child = Command::new(dir.path().join("tests-extra"))
        .current_dir(dir.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // the tests read their own empty standard input, so they may be done before this is
    // written: a broken pipe then is the behaviour under test, not a failure
    if let Err(e) = child.stdin.take().unwrap().write_all(b"rrrr\n") {
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
    }
    let out = child.wait_with_output().unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && said.contains(" passed, 0 failed"),
        "{said}"
    );
}
