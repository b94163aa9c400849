//! C constructs that real sources have and that once went wrong: a `static` function nothing
//! calls, clang's inline `va_arg`, and paths with spaces in `tests.c`'s build command.

mod common;

use common::*;
use std::process::Command;

/// clang emits no code for a `static` function that nothing calls; evotest compiles again with
/// every declaration emitted and tests it.
#[test]
fn a_static_function_nothing_calls_is_found() {
    let dir = tempfile::tempdir().unwrap();
    let (_, r) = run(
        "tests/fixtures/unsupported.c",
        "unused_helper",
        dir.path(),
        &["--seed", "1", "--max-execs", "2000"],
    );
    assert_eq!(r["branches_total"], 2, "{r:#}");
    assert_eq!(r["branches_covered"], 2, "{:?}", uncovered(&r));
}

/// The compare inside clang's expansion of `va_arg` (`gp_offset <= 40`) is no site: its
/// outcomes depend on how many arguments the caller passed in registers.
#[test]
fn the_compare_inside_va_arg_is_no_site() {
    let o = evotest()
        .args(["sites", "tests/fixtures/unsupported.c"])
        .current_dir(root())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success());
    let block: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.contains("sum_args("))
        .skip(1)
        .take_while(|l| l.starts_with(' '))
        .collect();
    assert!(!block.is_empty(), "{text}");
    assert!(
        block
            .iter()
            .all(|l| !l.contains("gp_offset") || l.contains("def ")),
        "{text}"
    );
    assert!(text.contains("int sum_args(int n, ...)"), "{text}");
}

/// The build command in `tests.c`'s header is quoted for a shell: with spaces in the paths it
/// still builds the tests when pasted.
#[test]
fn the_tests_c_build_command_survives_spaces_in_paths() {
    let dir = tempfile::tempdir().unwrap();
    let src_dir = dir.path().join("my sources");
    std::fs::create_dir_all(&src_dir).unwrap();
    std::fs::copy(
        root().join("examples/triangle.c"),
        src_dir.join("tri angle.c"),
    )
    .unwrap();
    let out = dir.path().join("out dir");
    let o = evotest()
        .current_dir(dir.path())
        .args([
            "run",
            "my sources/tri angle.c",
            "-f",
            "triangle",
            "--max-execs",
            "3000",
            "-q",
            "--out",
            "out dir",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(out.join("tests.c")).unwrap();
    let line = text
        .lines()
        .map(|l| l.trim_start_matches(" *").trim())
        .find(|l| l.starts_with("clang-22 -o tests "))
        .expect("a build command");
    let words = shlex::split(line.split(" && ").next().unwrap()).expect("a shell command");
    assert!(words.iter().any(|w| w == "out dir/tests.c"), "{line}");
    let c = Command::new(&words[0])
        .args(&words[1..])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(
        c.status.success(),
        "{line}: {}",
        String::from_utf8_lossy(&c.stderr)
    );
    assert!(dir.path().join("tests").is_file());
}

/// A function called only through a pointer (a table of handlers the function under test reads,
/// a callback it passes) is in the run's scope: its branches are goals and get covered. Before,
/// only direct calls were followed, and such a run reported 100% of the outcomes it knew, with
/// the callees' branches left out. A function whose address nothing in scope takes stays out.
#[test]
fn functions_called_through_pointers_are_goals() {
    let dir = tempfile::tempdir().unwrap();
    let (_, r) = run(
        "tests/fixtures/fn_pointers.c",
        "apply_op",
        dir.path(),
        &["--seed", "1", "--max-execs", "20000"],
    );
    assert!(r["error"].is_null(), "{r:#}");
    assert_eq!(r["branches_total"], 8, "{r:#}");
    assert_eq!(r["branches_covered"], 8, "{:?}", uncovered(&r));
}

/// A `--target` at a site of a function the function under test does not reach is refused with
/// a one-line error that says so, not that the outcome does not exist.
#[test]
fn a_target_outside_the_scope_is_named_as_such() {
    let dir = tempfile::tempdir().unwrap();
    let o = evotest()
        .args([
            "run",
            "tests/fixtures/fn_pointers.c",
            "-f",
            "apply_op",
            "--target",
            "28:true",
            "--max-execs",
            "100",
            "--out",
        ])
        .arg(dir.path())
        .current_dir(root())
        .output()
        .unwrap();
    assert!(!o.status.success());
    let line = assert_one_line_error(&o);
    assert!(
        line.contains("`unreached`") && line.contains("does not reach"),
        "{line}"
    );
}

/// Under `-ffast-math` a NaN input makes the program's behaviour undefined, and the optimiser
/// folded a compare the other way than its probe saw it: the suite claimed `s != b` true for an
/// input whose call returned 0.0, and its `tests.c` (built with the same flags) would disagree
/// with any such input. Float inputs are finite under such flags (a note says so), every test's
/// recorded result is what the program returns, and the pass keeps the probe and the branch in
/// agreement (no `nnan`/`ninf`/`nofpclass` left in instrumented code).
#[test]
fn fast_math_gets_finite_inputs_and_claims_only_what_ran() {
    let dir = tempfile::tempdir().unwrap();
    let (o, r) = run(
        "tests/fixtures/fast_math.c",
        "fm",
        dir.path(),
        &[
            "--cflag=-O1",
            "--cflag=-ffast-math",
            "--max-execs",
            "3000",
            "--seed",
            "1",
        ],
    );
    let console = String::from_utf8_lossy(&o.stdout);
    assert!(
        console.contains("floating-point inputs are finite"),
        "{console}"
    );
    let suite = read_json(&dir.path().join("suite.json"));
    for t in suite["tests"].as_array().unwrap() {
        for v in t["inputs"].as_object().unwrap().values() {
            assert!(v.is_number(), "a non-finite input {v} in {t}");
        }
    }
    assert_eq!(r["branches_covered"], 3, "{:?}", uncovered(&r));
    let t = compile_and_run_tests_c(dir.path(), "tests/fixtures/fast_math.c");
    assert!(t.trim().ends_with("passed, 0 failed"), "{t}");
    // the pass: the instrumented IR keeps no assumption of finite values
    let ir = std::process::Command::new(env!("CARGO_BIN_EXE_evotest-cc"))
        .args(["-O0", "-ffast-math", "-c", "-S", "-emit-llvm", "-o", "-"])
        .arg(path("tests/fixtures/fast_math.c"))
        .output()
        .unwrap();
    let ir = String::from_utf8_lossy(&ir.stdout);
    assert!(ir.contains("define") && ir.contains("fcmp"), "{ir}");
    assert!(
        !ir.contains("nofpclass")
            && !ir.contains("nnan")
            && !ir.contains("\"no-nans-fp-math\"=\"true\""),
        "{ir}"
    );
    assert!(!ir.contains("fcmp fast"), "{ir}");
}

/// A function defined without a prototype (K&R) is called with its parameters promoted, as its
/// code reads them: the harness declared `int kr(char c, float f)` and passed a `float` the
/// function read as a `double`, so `f > 2.5` and `f < -100.0` were set aside as infeasible and
/// the recorded results were wrong (tests.c failed).
#[test]
fn a_k_and_r_definition_gets_its_promoted_arguments() {
    let dir = tempfile::tempdir().unwrap();
    let (_, r) = run(
        "tests/fixtures/kr.c",
        "kr",
        dir.path(),
        &["--max-execs", "5000", "--seed", "1"],
    );
    assert_eq!(
        r["branches_covered"],
        r["branches_total"],
        "{:?}",
        uncovered(&r)
    );
    let t = compile_and_run_tests_c(dir.path(), "tests/fixtures/kr.c");
    assert!(t.trim().ends_with("passed, 0 failed"), "{t}");
}

/// A computed goto's labels are no goals; a note says so and where the jump is.
#[test]
fn a_computed_goto_is_named_in_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let (_, r) = run(
        "tests/fixtures/computed_goto.c",
        "vm_run",
        dir.path(),
        &["--max-execs", "500"],
    );
    let notes = r["notes"].to_string();
    assert!(
        notes.contains("computed goto: `vm_run` (L9) jumps to a label's address"),
        "{notes}"
    );
}

/// A thread-local global that the function writes is state a persistent child cannot restore:
/// each input gets a process of its own (so `calls == 2` stays uncovered, as in a fresh
/// process), the condition names the variable, and `--global` on it is refused in one line.
#[test]
fn a_thread_local_global_gets_a_process_per_input_and_is_no_input() {
    let dir = tempfile::tempdir().unwrap();
    let (_, r) = run(
        "tests/fixtures/thread_local.c",
        "tls_count",
        dir.path(),
        &["--seed", "1", "--max-execs", "300"],
    );
    assert_eq!(r["inputs_per_process"], 1, "{r:#}");
    let conds = r["sites"].to_string();
    assert!(conds.contains("calls == 2"), "{conds}");
    assert!(!conds.contains("threadlocal"), "{conds}");
    assert!(
        !r["notes"].to_string().contains("ended differently"),
        "{:#}",
        r["notes"]
    );
    let o = evotest()
        .args(["run", "tests/fixtures/thread_local.c", "-f", "tls_count"])
        .args(["--global", "calls", "--max-execs", "10", "--out"])
        .arg(dir.path().join("g"))
        .current_dir(root())
        .output()
        .unwrap();
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("`calls` is thread-local"), "{err}");
}

/// The NaN checks clang puts around a `_Complex` multiply (calling `__muldc3`) are no sites:
/// the function's own two decisions are all there is, and both are covered.
#[test]
fn the_nan_checks_of_a_complex_multiply_are_no_sites() {
    let dir = tempfile::tempdir().unwrap();
    let (_, r) = run(
        "tests/fixtures/complex_mul.c",
        "mandel",
        dir.path(),
        &["--seed", "1", "--max-execs", "5000"],
    );
    assert_eq!(r["branches_total"], 4, "{:#}", r["sites"]);
    assert_eq!(r["branches_covered"], 4, "{:?}", uncovered(&r));
}

/// `likely`/`unlikely` (`__builtin_expect(!!(c), v)`) hide no compare: the site is the compare
/// inside, with its distances, negated where a `!` stands in between, with and without
/// optimisation (which is when clang emits `llvm.expect`); every outcome is covered at once.
#[test]
fn branch_hints_keep_the_compare_s_distance() {
    for opt in ["-O0", "-O2"] {
        let dir = tempfile::tempdir().unwrap();
        let (_, r) = run(
            "tests/fixtures/expect_hints.c",
            "hinted",
            dir.path(),
            &["--seed", "1", "--max-execs", "2000", "--cflag", opt],
        );
        let sites = r["sites"].to_string();
        assert!(!sites.contains("expect("), "{opt}: {sites}");
        assert!(sites.contains("== 74565"), "{opt}: {sites}");
        assert_eq!(r["branches_total"], 8, "{opt}: {sites}");
        assert_eq!(r["branches_covered"], 8, "{opt}: {:?}", uncovered(&r));
    }
}
