//! End-to-end tests: compile with the pass, search through the fork server, check the suite.

mod common;

use common::*;
use std::process::Command;

#[test]
fn triangle_reaches_full_coverage_within_20000_executions_for_5_seeds() {
    for seed in 1..=5 {
        let dir = tempfile::tempdir().unwrap();
        let (_, r) = run(
            "examples/triangle.c",
            "triangle",
            dir.path(),
            &[
                "--seed",
                &seed.to_string(),
                "--max-execs",
                "20000",
                "--max-time",
                "0",
            ],
        );
        assert_eq!(r["branches_total"], 22, "seed {seed}");
        assert_eq!(
            r["branches_covered"],
            22,
            "seed {seed}: uncovered {:?}",
            uncovered(&r)
        );
        let at = r["full_coverage_at_execution"].as_u64().unwrap();
        assert!(at <= 20_000, "seed {seed}: full coverage only at {at}");
    }
}

#[test]
fn triangle_tests_c_compiles_with_the_source_and_passes() {
    let dir = tempfile::tempdir().unwrap();
    let (_, r) = run(
        "examples/triangle.c",
        "triangle",
        dir.path(),
        &["--seed", "3"],
    );
    let n_tests = r["tests"].as_u64().unwrap();
    let out = compile_and_run_tests_c(dir.path(), "examples/triangle.c");
    assert_eq!(out.trim(), format!("{n_tests} passed, 0 failed"));
    // and it really checks something: a wrong expectation makes it fail
    let t = std::fs::read_to_string(dir.path().join("tests.c")).unwrap();
    let broken = t.replacen(
        "evotest_check_int(\"test_1\", (long long)evotest_r, ",
        "evotest_check_int(\"test_1\", (long long)evotest_r, 100 + ",
        1,
    );
    assert_ne!(t, broken);
    std::fs::write(dir.path().join("tests.c"), broken).unwrap();
    let exe = dir.path().join("broken");
    // tests.c includes the source it tests
    let c = Command::new("clang-22")
        .arg("-o")
        .arg(&exe)
        .arg(dir.path().join("tests.c"))
        .status()
        .unwrap();
    assert!(c.success());
    let o = Command::new(&exe).output().unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stdout).contains("FAIL test_1"));
}

#[test]
fn expint_reaches_all_feasible_outcomes_over_the_full_float_range() {
    let dir = tempfile::tempdir().unwrap();
    let (_, r) = run(
        "examples/expint.c",
        "expint",
        dir.path(),
        &["--seed", "1", "--max-time", "0"],
    );
    // 15 sites; all 30 outcomes are feasible when x may be huge, +inf or NaN (see the header)
    assert_eq!(r["branches_total"], 30);
    assert_eq!(r["branches_covered"], 30, "uncovered {:?}", uncovered(&r));
    let out = compile_and_run_tests_c(dir.path(), "examples/expint.c");
    assert!(out.trim().ends_with("passed, 0 failed"), "{out}");
}

#[test]
fn expint_with_finite_x_covers_28_and_suspects_the_two_loop_exhaustions() {
    let dir = tempfile::tempdir().unwrap();
    let (_, r) = run(
        "examples/expint.c",
        "expint",
        dir.path(),
        &[
            "--seed",
            "2",
            "--range",
            "x=-10..1e30",
            "--max-time",
            "0",
            "--patience",
            "300",
            "--stop-when-stalled",
        ],
    );
    assert_eq!(r["branches_covered"], 28, "uncovered {:?}", uncovered(&r));
    let mut u = uncovered(&r);
    u.sort();
    assert_eq!(
        u,
        vec![
            (52, "i <= 100".to_string(), "false".to_string()),
            (67, "i <= 100".to_string(), "false".to_string())
        ]
    );
    assert_eq!(r["branches_infeasible_suspected"], 2);
}

#[test]
fn the_same_seed_gives_the_same_suite() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    for d in [&a, &b] {
        run(
            "examples/expint.c",
            "expint",
            d.path(),
            &["--seed", "11", "--max-time", "0"],
        );
    }
    let sa = read_json(&a.path().join("suite.json"));
    let sb = read_json(&b.path().join("suite.json"));
    assert_eq!(sa["tests"], sb["tests"]);
    assert!(!sa["tests"].as_array().unwrap().is_empty());
}

#[test]
fn a_segfaulting_target_is_recorded_with_a_reproducer() {
    let dir = tempfile::tempdir().unwrap();
    let (_, r) = run(
        "tests/fixtures/faults.c",
        "crashy",
        dir.path(),
        &["--seed", "1"],
    );
    assert_eq!(r["branches_covered"], r["branches_total"]);
    assert!(r["faults"]["crash"].as_u64().unwrap() >= 1);
    let repro = dir.path().join("faults/crash-1.input");
    assert!(repro.is_file());
    // The reproducer crashes the instrumented target again, with SIGSEGV.
    let st = Command::new(dir.path().join("build/target"))
        .arg(&repro)
        .status()
        .unwrap();
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(st.signal(), Some(libc::SIGSEGV));
    // suite.json names the fault; tests.c expects the crash and passes.
    let suite = read_json(&dir.path().join("suite.json"));
    assert_eq!(suite["faults"][0]["exit"]["kind"], "crash");
    assert_eq!(suite["faults"][0]["inputs"]["a"], 1234);
    let out = compile_and_run_tests_c(dir.path(), "tests/fixtures/faults.c");
    assert!(out.trim().ends_with("passed, 0 failed"), "{out}");
}

#[test]
fn a_hanging_target_is_recorded_with_a_reproducer() {
    let dir = tempfile::tempdir().unwrap();
    let (_, r) = run(
        "tests/fixtures/faults.c",
        "hangy",
        dir.path(),
        &["--seed", "1", "--timeout", "200ms"],
    );
    assert_eq!(r["branches_covered"], r["branches_total"]);
    assert!(r["faults"]["timeout"].as_u64().unwrap() >= 1);
    let repro = dir.path().join("faults/timeout-1.input");
    assert!(repro.is_file());
    let suite = read_json(&dir.path().join("suite.json"));
    assert_eq!(suite["faults"][0]["inputs"]["a"], 77);
    assert_eq!(suite["faults"][0]["exit"]["kind"], "timeout");
}

#[test]
fn an_exiting_target_is_recorded_with_its_status() {
    let dir = tempfile::tempdir().unwrap();
    let (_, r) = run(
        "tests/fixtures/faults.c",
        "exity",
        dir.path(),
        &["--seed", "1"],
    );
    assert_eq!(r["branches_covered"], r["branches_total"]);
    let suite = read_json(&dir.path().join("suite.json"));
    assert_eq!(
        suite["faults"][0]["exit"],
        serde_json::json!({"kind": "exit", "code": 3})
    );
    let out = compile_and_run_tests_c(dir.path(), "tests/fixtures/faults.c");
    assert!(out.trim().ends_with("passed, 0 failed"), "{out}");
}

#[test]
fn json_flag_prints_the_report_on_stdout() {
    let dir = tempfile::tempdir().unwrap();
    let json_run = |extra: &[&str], out: &std::path::Path| {
        let o = evotest()
            .args(["run", "examples/triangle.c", "-f", "triangle", "--json"])
            .args(extra)
            .arg("--out")
            .arg(out)
            .output()
            .unwrap();
        assert!(o.status.success());
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("stdout is JSON");
        (v, String::from_utf8_lossy(&o.stderr).to_string())
    };
    let (v, _) = json_run(&[], dir.path());
    for k in [
        "branches_total",
        "branches_covered",
        "branches_infeasible_suspected",
        "executions",
        "seconds",
    ] {
        assert!(v.get(k).is_some(), "missing {k}");
    }
    // with -q, standard error holds the summary line alone (it held the whole table)
    let (_, err) = json_run(&["-q"], &dir.path().join("q"));
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.starts_with("covered "), "{err}");
}

#[test]
fn the_console_table_lists_every_site_and_what_each_test_covers() {
    let dir = tempfile::tempdir().unwrap();
    let (o, _) = run(
        "examples/triangle.c",
        "triangle",
        dir.path(),
        &["--seed", "1"],
    );
    let out = String::from_utf8_lossy(&o.stdout);
    for cond in ["a <= 0", "sa + sb <= sc", "a == c"] {
        assert!(out.contains(cond), "missing {cond} in\n{out}");
    }
    assert!(
        out.contains("covered 22/22 branch outcomes (100.0%)"),
        "{out}"
    );
    assert!(out.contains("covers"), "{out}");
}

#[test]
fn persistent_and_fork_per_input_give_the_same_suite() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    let (_, ra) = run(
        "examples/triangle.c",
        "triangle",
        a.path(),
        &["--seed", "5", "--persistent", "1"],
    );
    let (_, rb) = run(
        "examples/triangle.c",
        "triangle",
        b.path(),
        &["--seed", "5", "--persistent", "500"],
    );
    assert_eq!(ra["inputs_per_process"], 1);
    assert_eq!(rb["inputs_per_process"], 500);
    assert_eq!(
        read_json(&a.path().join("suite.json"))["tests"],
        read_json(&b.path().join("suite.json"))["tests"]
    );
    assert_eq!(ra["executions"], rb["executions"]);
}

/// A function that writes global variables runs in persistent mode with its globals restored
/// before each input: every kind of global state a C function keeps (a counter, a function-local
/// `static`, an array, a structure, a pointer to memory allocated on first use) starts each input
/// as in a fresh process, so no outcome that needs an earlier input's state is ever taken, and the
/// check in fresh processes changes nothing.
#[test]
fn global_state_is_restored_before_each_input() {
    let dir = tempfile::tempdir().unwrap();
    let (_, r) = run(
        "tests/fixtures/stateful_kinds.c",
        "kinds",
        dir.path(),
        &["--max-execs", "3000", "--stop-when-stalled"],
    );
    assert_eq!(r["inputs_per_process"], 1000, "persistent mode");
    let mut u = uncovered(&r);
    u.sort();
    let want: Vec<(u64, String, String)> = [
        (18, "calls > 1", "true"),
        (20, "local > 1", "true"),
        (22, "table[a & 3] != 0", "true"),
        (25, "st.seen != 0", "true"),
        (29, "lazy == NULL", "false"),
        (34, "*lazy != 0", "true"),
        (37, "leaked != 0", "true"),
    ]
    .iter()
    .map(|(l, c, o)| (*l, c.to_string(), o.to_string()))
    .collect();
    assert_eq!(
        u, want,
        "only the outcomes that need leaked state are uncovered"
    );
    assert_eq!(r["verification"]["changed"], 0, "{}", r["verification"]);
    let out = compile_and_run_tests_c(dir.path(), "tests/fixtures/stateful_kinds.c");
    assert!(out.trim().ends_with("passed, 0 failed"), "{out}");
}

#[test]
fn a_module_with_its_own_constructor_gets_a_process_per_input() {
    let dir = tempfile::tempdir().unwrap();
    let (_, r) = run(
        "tests/fixtures/stateful_ctor.c",
        "stateful_ctor",
        dir.path(),
        &["--max-execs", "3000", "--stop-when-stalled"],
    );
    assert_eq!(r["inputs_per_process"], 1);
    // `calls > 1` can only be true if state leaked from an earlier input
    let u = uncovered(&r);
    assert_eq!(
        u,
        vec![(18, "calls > 1".to_string(), "true".to_string())],
        "{u:?}"
    );
    // forced to share a process, the state leaks and the search sees `calls > 1` taken; the check
    // of the suite in fresh processes finds that no input takes it on its own, so the suite does
    // not claim it, and its tests.c passes
    let dir = tempfile::tempdir().unwrap();
    let (o, r) = run(
        "tests/fixtures/stateful_ctor.c",
        "stateful_ctor",
        dir.path(),
        &[
            "--max-execs",
            "300",
            "--persistent",
            "100",
            "--stop-when-stalled",
        ],
    );
    assert!(
        uncovered(&r).contains(&(18, "calls > 1".to_string(), "true".to_string())),
        "{:?}",
        uncovered(&r)
    );
    assert!(
        r["verification"]["changed"].as_u64().unwrap() >= 1,
        "{}",
        r["verification"]
    );
    assert!(
        r["verification"]["lost_goals"].as_u64().unwrap() >= 1,
        "{}",
        r["verification"]
    );
    assert!(String::from_utf8_lossy(&o.stdout).contains("--persistent 1"));
    let out = compile_and_run_tests_c(dir.path(), "tests/fixtures/stateful_ctor.c");
    assert!(out.trim().ends_with("passed, 0 failed"), "{out}");
}

/// A goal inside a callee that the search never enters at first gets the approach level and
/// branch distance of the caller's branch that guards the call (an interprocedural ladder):
/// plain AVM from a uniform start then covers it at once; with an intraprocedural ladder its
/// fitness was flat and 3,000 executions did not cover it.
#[test]
fn a_goal_in_a_callee_is_guided_through_the_callers_branch() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "--algorithm",
        "avm",
        "--chaining",
        "off",
        "--init",
        "uniform",
        "--target",
        "5:true",
        "--max-execs",
        "3000",
        "--seed",
        "1",
    ];
    let (_, r) = run("tests/fixtures/callee.c", "outer", dir.path(), &args);
    assert_eq!(r["branches_total"], 1);
    assert_eq!(
        r["branches_covered"], 1,
        "the callee's goal was not covered"
    );
    assert!(
        r["executions"].as_u64().unwrap() < 500,
        "{}",
        r["executions"]
    );
}

/// A `long double` compare is recorded by the outcome the program takes, not by its operands
/// narrowed to doubles: with inputs searched as doubles, `x == 0.1L` never holds (a double 0.1
/// is not 0.1L), and `x * x > 1e400L` holds for x = 1e201 (beyond a double's range, not beyond
/// x87's). Both used to be recorded the other way round.
#[test]
fn long_double_compares_record_the_outcome_taken() {
    let d = tempfile::tempdir().unwrap();
    let fixture = "tests/fixtures/long_double.c";
    let (_, r) = run(
        fixture,
        "ld_eq",
        d.path(),
        &["--seed", "1", "--max-execs", "3000", "--max-time", "0"],
    );
    assert_eq!(r["branches_covered"], 1, "{r:#}");
    let un = uncovered(&r);
    assert_eq!(un.len(), 1, "{un:?}");
    assert_eq!(
        (un[0].1.as_str(), un[0].2.as_str()),
        ("x == 0.1L", "true"),
        "{un:?}"
    );
    let out = compile_and_run_tests_c(d.path(), fixture);
    assert!(out.trim().ends_with("passed, 0 failed"), "{out}");

    let d = tempfile::tempdir().unwrap();
    let (_, r) = run(
        fixture,
        "ld_sq",
        d.path(),
        &[
            "--seed",
            "1",
            "--max-execs",
            "2000",
            "--max-time",
            "0",
            "--range",
            "x=1e201..1e202",
        ],
    );
    let un = uncovered(&r);
    assert_eq!(un.len(), 1, "{un:?}");
    assert_eq!(
        (un[0].1.as_str(), un[0].2.as_str()),
        ("x * x > 1e400L", "false"),
        "{un:?}"
    );
}

/// tests.c includes the source, so its own identifiers must not be names a source's macros take
/// (`#define g 9.81` broke the guard bytes' member `g`).
#[test]
fn tests_c_builds_beside_a_source_s_short_macros() {
    let d = tempfile::tempdir().unwrap();
    let fixture = "tests/fixtures/macros.c";
    let (_, r) = run(
        fixture,
        "first_above",
        d.path(),
        &["--seed", "1", "--max-execs", "5000", "--max-time", "0"],
    );
    assert_eq!(r["branches_covered"], r["branches_total"], "{r:#}");
    let out = compile_and_run_tests_c(d.path(), fixture);
    assert!(out.trim().ends_with("passed, 0 failed"), "{out}");
}

/// A `char *` that the function hands to `strlen` is a C string even beside an integer named like
/// a length (it was taken as a buffer without a NUL, read as a string up to the guard bytes'
/// closing 0): the same result in the search and in tests.c, and no read past what tests.c
/// allocated (AddressSanitizer used to report one). `strlen(s) > 20` is not credited through
/// the guard bytes: it needs a longer string than the default 16 characters.
#[test]
fn a_char_buffer_read_as_a_string_stays_within_its_guard() {
    let d = tempfile::tempdir().unwrap();
    let fixture = "tests/fixtures/strlen_buffer.c";
    let (_, r) = run(
        fixture,
        "repeat_fits",
        d.path(),
        &["--seed", "1", "--max-execs", "20000", "--max-time", "0"],
    );
    assert_eq!(r["branches_covered"], r["branches_total"], "{r:#}");
    let exe = d.path().join("tests-asan");
    let c = std::process::Command::new("clang-22")
        .args(["-fsanitize=address", "-g", "-o"])
        .arg(&exe)
        .arg(d.path().join("tests.c"))
        .arg("-lm")
        .output()
        .unwrap();
    assert!(c.status.success(), "{}", String::from_utf8_lossy(&c.stderr));
    let t = std::process::Command::new(&exe).output().unwrap();
    let out = String::from_utf8_lossy(&t.stdout);
    assert!(
        t.status.success() && out.trim().ends_with("passed, 0 failed"),
        "{out}{}",
        String::from_utf8_lossy(&t.stderr)
    );
    let suite = read_json(&d.path().join("suite.json"));
    assert_eq!(
        suite["params"][0]["shape"],
        serde_json::json!({"string": 16})
    );

    let d = tempfile::tempdir().unwrap();
    let (_, r) = run(
        fixture,
        "longname",
        d.path(),
        &["--seed", "1", "--max-execs", "20000", "--max-time", "0"],
    );
    let missed = uncovered(&r);
    assert_eq!(missed.len(), 1, "{missed:?}");
    assert!(missed[0].1.contains("strlen"), "{missed:?}");
    let d = tempfile::tempdir().unwrap();
    let (_, r) = run(
        fixture,
        "longname",
        d.path(),
        &["--seed", "1", "--max-execs", "20000", "--string", "s=24"],
    );
    assert_eq!(r["branches_covered"], r["branches_total"], "{r:#}");
}

/// `strstr` compared with NULL and `strcasecmp` compared with 0 are string compares (their
/// constants harvested, distances over the bytes, operands substituted): both outcomes of each
/// within 1,000 executions, with either start. They used to be a pointer compare and an integer
/// compare of the return value, and 2 of the 4 outcomes stayed uncovered in 20,000.
#[test]
fn substring_searches_and_case_insensitive_compares_are_string_compares() {
    for init in ["biased", "uniform"] {
        let d = tempfile::tempdir().unwrap();
        let (_, r) = run(
            "tests/fixtures/searches.c",
            "classify",
            d.path(),
            &[
                "--seed",
                "1",
                "--max-execs",
                "1000",
                "--max-time",
                "0",
                "--init",
                init,
            ],
        );
        assert_eq!(r["branches_covered"], 4, "{init}: {:?}", uncovered(&r));
        let conds: Vec<&str> = r["sites"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["condition"].as_str().unwrap())
            .collect();
        assert!(
            conds.iter().any(|c| c.contains("strstr"))
                && conds.iter().any(|c| c.contains("strcasecmp")),
            "{conds:?}"
        );
    }
}

/// A pointer parameter the function compares with NULL may be NULL (a string, a structure, a
/// buffer with its length); one it dereferences unchecked never is. The NULL outcomes used to be
/// left as suspected infeasible after the whole budget.
#[test]
fn pointers_the_function_checks_for_null_are_sometimes_null() {
    let fixture = "tests/fixtures/null_guards.c";
    let d = tempfile::tempdir().unwrap();
    let (_, r) = run(
        fixture,
        "describe",
        d.path(),
        &["--seed", "1", "--max-execs", "5000", "--max-time", "0"],
    );
    assert_eq!(
        r["branches_covered"],
        r["branches_total"],
        "{:?}",
        uncovered(&r)
    );
    let out = compile_and_run_tests_c(d.path(), fixture);
    assert!(out.trim().ends_with("passed, 0 failed"), "{out}");
    let tests = std::fs::read_to_string(d.path().join("tests.c")).unwrap();
    assert!(tests.contains("describe(NULL,"), "{tests}");
    // `--range P:null=1..3` rules NULL out
    let d = tempfile::tempdir().unwrap();
    let (_, r) = run(
        fixture,
        "describe",
        d.path(),
        &[
            "--seed",
            "1",
            "--max-execs",
            "2000",
            "--max-time",
            "0",
            "--range",
            "label:null=1..3",
        ],
    );
    let un = uncovered(&r);
    assert!(
        un.iter().any(|u| u.1 == "label == NULL" && u.2 == "true"),
        "{un:?}"
    );

    let d = tempfile::tempdir().unwrap();
    let (_, r) = run(
        fixture,
        "peek",
        d.path(),
        &["--seed", "1", "--max-execs", "3000", "--max-time", "0"],
    );
    assert_eq!(r["branches_covered"], 2, "{r:#}");
    assert!(
        r["faults"].as_object().is_none_or(|f| f.is_empty()),
        "{}",
        r["faults"]
    );
}

/// A function without a branch has no goal; its suite is still one test, which checks the
/// function's result (it used to be empty: tests.c ran no test at all).
#[test]
fn a_function_without_a_branch_gets_a_test_of_its_result() {
    let d = tempfile::tempdir().unwrap();
    let fixture = "tests/fixtures/branchless.c";
    let (o, r) = run(
        fixture,
        "scale",
        d.path(),
        &["--seed", "1", "--max-execs", "100", "--max-time", "0"],
    );
    assert_eq!(r["branches_total"], 0, "{r:#}");
    // not "covered 0/0 (100.0%)": there was nothing to cover, and the summary says where it looked
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("no branch outcomes to cover: `scale` and the functions it calls directly"),
        "{text}"
    );
    let out = compile_and_run_tests_c(d.path(), fixture);
    assert_eq!(out.trim(), "1 passed, 0 failed");
    let suite = read_json(&d.path().join("suite.json"));
    assert_eq!(suite["tests"].as_array().unwrap().len(), 1, "{suite:#}");
}

/// `const void *` with a length beside it is a buffer of bytes (it used to be refused, even with
/// `--buffer`).
#[test]
fn a_void_pointer_and_its_size_are_a_buffer_of_bytes() {
    let d = tempfile::tempdir().unwrap();
    let fixture = "tests/fixtures/void_buffer.c";
    let (_, r) = run(
        fixture,
        "parse_header",
        d.path(),
        &["--seed", "1", "--max-execs", "20000", "--max-time", "0"],
    );
    assert!(r["error"].is_null(), "{}", r["error"]);
    assert_eq!(
        r["branches_covered"],
        r["branches_total"],
        "{:?}",
        uncovered(&r)
    );
    let out = compile_and_run_tests_c(d.path(), fixture);
    assert!(out.trim().ends_with("passed, 0 failed"), "{out}");
}

/// A number the C library parses out of a string parameter (`sscanf`) is compared after the
/// parse: input-to-state finds the compared value's decimal text in the string and writes the
/// other operand there. All 6 outcomes (3 of 6 in 100,000 executions before, random testing too).
#[test]
fn numbers_parsed_from_a_string_are_replaced_in_their_text() {
    let d = tempfile::tempdir().unwrap();
    let (_, r) = run(
        "tests/fixtures/searches.c",
        "parse_pair",
        d.path(),
        &["--seed", "1", "--max-execs", "100000", "--max-time", "0"],
    );
    assert_eq!(r["branches_covered"], 6, "{:?}", uncovered(&r));
}

/// The search trace (`EVOTEST_TRACE_SEARCH`, a developer's tool): one line per execution on
/// standard error, numbered 1, 2, … without a gap, each with the label of the search that
/// proposed the input (the default portfolio's `avm goal N`, `explore random`, …), and every
/// outcome the run covered listed as new on exactly one line; a cache answer prints a `cache`
/// line. Off, nothing is printed.
#[test]
fn the_search_trace_prints_every_execution_with_the_search_that_proposed_it() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "examples/triangle.c",
        "-f",
        "triangle",
        "--seed",
        "1",
        "--max-execs",
        "300",
        "-q",
        "--json",
        "--out",
    ];
    let o = evotest()
        .env("EVOTEST_TRACE_SEARCH", "1")
        .arg("run")
        .args(args)
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    let lines: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("evotest-trace exec="))
        .collect();
    assert_eq!(lines.len() as u64, report["executions"].as_u64().unwrap());
    // an evaluation answered from the cache prints a line of its own, without a number
    let cached = err
        .lines()
        .filter(|l| l.starts_with("evotest-trace cache by=\""))
        .count();
    assert_eq!(
        cached as u64,
        report["cache_hits"].as_u64().unwrap(),
        "{err}"
    );
    let mut covered = Vec::new();
    for (n, l) in lines.iter().enumerate() {
        assert!(
            l.starts_with(&format!("evotest-trace exec={} by=\"", n + 1)),
            "{l}"
        );
        let new = &l[l.find("new=[").unwrap() + 5..l.len() - 1];
        covered.extend(
            new.split(", ")
                .filter(|g| !g.is_empty())
                .map(|g| g.parse::<u32>().unwrap()),
        );
    }
    assert!(lines.iter().any(|l| l.contains("by=\"avm goal ")), "{err}");
    let n = covered.len();
    covered.sort();
    covered.dedup();
    assert_eq!(covered.len(), n, "an outcome listed as new twice");
    assert_eq!(n as u64, report["branches_covered"].as_u64().unwrap());
    let dir = tempfile::tempdir().unwrap();
    let o = evotest()
        .arg("run")
        .args(args)
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&o.stderr).contains("evotest-trace"));
}

/// Compares of 128-bit integers get a distance from their whole values (they were truncated to
/// their low 64 bits, so `v == 12345` had distance 0 whenever the low half matched: the goal was
/// set aside as suspected infeasible after 100,000 executions; the sites were not even integer
/// compares to the probes).
#[test]
fn compares_of_128_bit_integers_are_guided_by_their_whole_values() {
    let dir = tempfile::tempdir().unwrap();
    let (_, r) = run(
        "tests/fixtures/wide_eq.c",
        "wide_eq",
        dir.path(),
        &["--seed", "1", "--max-execs", "20000"],
    );
    assert_eq!(
        r["branches_covered"],
        r["branches_total"],
        "{:?}",
        uncovered(&r)
    );
    let conds: Vec<String> = r["sites"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["condition"].as_str().unwrap().to_string())
        .collect();
    assert!(conds.iter().any(|c| c == "v == 12345"), "{conds:?}");
}

/// Build `tests.c` in `out` with `extra` flags into `exe` (the documented command, `-o` replaced)
/// and run it in `out` with `env`; its standard output.
fn build_and_run_tests_c(
    out: &std::path::Path,
    exe: &str,
    extra: &[&str],
    env: &[(&str, &str)],
) -> String {
    let cmd = tests_c_build_command(out);
    let exe = out.join(exe);
    let c = Command::new(&cmd[0])
        .args(extra)
        .arg("-o")
        .arg(&exe)
        .args(&cmd[3..])
        .current_dir(root())
        .output()
        .unwrap();
    assert!(c.status.success(), "{}", String::from_utf8_lossy(&c.stderr));
    let o = Command::new(&exe)
        .current_dir(out)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A suite whose tests each run in a child process (the code calls `srand`): a regression in one
/// branch fails that branch's test and no other (each child used to inherit the parent's count
/// of failures, so every test after the first failure failed too, with no message), and a build
/// of `tests.c` with clang's coverage records what the children ran (they end with `_exit`,
/// which skipped the profile's exit handler: llvm-cov showed 0%).
#[test]
fn isolated_tests_fail_one_by_one_and_their_coverage_is_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("isolated_tests.c");
    let text = std::fs::read_to_string(path("tests/fixtures/isolated_tests.c")).unwrap();
    std::fs::write(&src, &text).unwrap();
    let out = dir.path().join("out");
    let (_, r) = run(
        src.to_str().unwrap(),
        "isolated_tests",
        &out,
        &["--max-execs", "5000", "--seed", "1"],
    );
    assert_eq!(r["branches_covered"], r["branches_total"]);
    let tests_c = std::fs::read_to_string(out.join("tests.c")).unwrap();
    assert!(
        tests_c.contains("evotest_isolated(\""),
        "tests do not run in children"
    );
    let n = tests_c.matches("evotest_isolated(\"").count();
    let first = build_and_run_tests_c(&out, "tests-ok", &[], &[]);
    assert!(first.contains(&format!("{n} passed, 0 failed")), "{first}");

    // coverage of the children's runs (every branch of the fixture is covered by the suite)
    let raw = out.join("cov-%p.profraw");
    build_and_run_tests_c(
        &out,
        "tests-cov",
        &["-fprofile-instr-generate", "-fcoverage-mapping"],
        &[("LLVM_PROFILE_FILE", raw.to_str().unwrap())],
    );
    let raws: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "profraw"))
        .collect();
    assert!(!raws.is_empty());
    let prof = out.join("cov.profdata");
    assert!(Command::new("llvm-profdata-22")
        .arg("merge")
        .arg("-o")
        .arg(&prof)
        .args(&raws)
        .status()
        .unwrap()
        .success());
    let report = Command::new("llvm-cov-22")
        .arg("report")
        .arg(out.join("tests-cov"))
        .arg(format!("-instr-profile={}", prof.display()))
        .arg(&src)
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&report.stdout);
    let total = report
        .lines()
        .find(|l| l.starts_with("TOTAL"))
        .unwrap_or_default();
    // the branch columns are the last three: count, missed, cover
    assert!(total.trim_end().ends_with("100.00%"), "{report}");

    // one branch changed: only the test that takes it fails
    std::fs::write(&src, text.replace("return 1;", "return 10;")).unwrap();
    let second = build_and_run_tests_c(&out, "tests-changed", &[], &[]);
    assert_eq!(second.matches("FAIL ").count(), 1, "{second}");
    assert!(
        second.contains(&format!("{} passed, 1 failed", n - 1)),
        "{second}"
    );
}

/// `strtol`'s overflow (`errno == ERANGE`) needs 19 digits in a row, which printable characters
/// at random do not give: it stayed "suspected infeasible" after the hint's `--string s=24`
/// (seeds 1-3, 50,000 executions each). The string pool of a function that hands a string to a
/// number parser holds the texts of the integer types' edges now.
#[test]
fn a_number_parser_s_overflow_is_reached_from_the_edges_texts() {
    let d = tempfile::tempdir().unwrap();
    let (_, r) = run(
        "tests/fixtures/to_long.c",
        "to_long",
        d.path(),
        &["--string", "s=24", "--seed", "1", "--max-execs", "5000"],
    );
    assert_eq!(
        r["branches_covered"],
        r["branches_total"],
        "{:?}",
        uncovered(&r)
    );
}
