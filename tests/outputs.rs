//! Output oracles in `tests.c`: what a call leaves in its non-`const` pointer parameters, global
//! inputs and a returned structure is compared after the call, so a suite fails on a change of
//! the function's effects and not only of its result (`src/frontend/function/outputs.rs`).

mod common;

use common::*;

const FIXTURE: &str = "tests/fixtures/outputs.c";

/// Run `function` of a copy of the fixture in a directory of its own, check that `tests.c`
/// passes on it and compares `expect` (a failure label), then replace the copy by the mutant
/// `from` → `to` and return what `tests.c` prints when built and run against it.
fn killed_by_outputs(function: &str, args: &[&str], expect: &str, from: &str, to: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("outputs.c");
    let text = std::fs::read_to_string(path(FIXTURE)).unwrap();
    std::fs::write(&src, &text).unwrap();
    let out = dir.path().join("out");
    let (_, r) = run(src.to_str().unwrap(), function, &out, args);
    assert_eq!(r["branches_covered"], r["branches_total"], "{function}");
    let tests = std::fs::read_to_string(out.join("tests.c")).unwrap();
    assert!(
        tests.contains(&format!("\"{expect}\"")),
        "{function}: tests.c does not compare {expect}:\n{tests}"
    );
    let passed = compile_and_run_tests_c(&out, src.to_str().unwrap());
    assert!(passed.trim().ends_with("passed, 0 failed"), "{passed}");
    assert!(text.contains(from), "{from}");
    std::fs::write(&src, text.replacen(from, to, 1)).unwrap();
    let (said, passed) = build_and_run_tests_c(&out, "mutant-tests", &[]);
    assert!(!passed, "{function}: the mutant {to:?} passed:\n{said}");
    said
}

#[test]
fn an_array_written_in_place_is_compared() {
    let said = killed_by_outputs("scale", &[], "a", "a[i] += 1", "a[i] += 2");
    assert!(
        said.contains("FAIL test_") && said.contains(": a["),
        "{said}"
    );
}

#[test]
fn a_structure_written_through_a_pointer_is_compared() {
    let said = killed_by_outputs("clamp", &[], "p->y", "p->y = 100", "p->y = 99");
    assert!(said.contains("p->y is 99, expected 100"), "{said}");
}

#[test]
fn a_returned_structure_is_compared() {
    let said = killed_by_outputs("middle", &[], "result.x", "b.x / 2;", "b.x / 3;");
    assert!(said.contains("result.x is"), "{said}");
}

#[test]
fn a_string_changed_in_place_is_compared() {
    let said = killed_by_outputs("upcase", &[], "s", "*s - 32", "*s - 31");
    assert!(said.contains(": s["), "{said}");
}

#[test]
fn a_global_input_written_is_compared() {
    let said = killed_by_outputs(
        "add",
        &["--global", "total"],
        "total",
        "total -= 1",
        "total -= 2",
    );
    assert!(said.contains("total is"), "{said}");
}

#[test]
fn a_pointer_to_const_is_not_an_output() {
    let dir = tempfile::tempdir().unwrap();
    run(FIXTURE, "length", dir.path(), &[]);
    let tests = std::fs::read_to_string(dir.path().join("tests.c")).unwrap();
    assert!(
        !tests.contains("evotest_check_output_bytes(\"test_"),
        "{tests}"
    );
    let out = compile_and_run_tests_c(dir.path(), FIXTURE);
    assert!(out.trim().ends_with("passed, 0 failed"), "{out}");
}

#[test]
fn a_returned_string_is_compared() {
    let said = killed_by_outputs(
        "skip_blanks",
        &[],
        "result",
        "while (*s == ' ')",
        "while (*s == '\\t')",
    );
    assert!(said.contains("result"), "{said}");
    // suite.json says the pointer is not recorded there (it said `void`)
    let dir = tempfile::tempdir().unwrap();
    run(FIXTURE, "skip_blanks", dir.path(), &[]);
    let suite = read_json(&dir.path().join("suite.json"));
    let ret = &suite["tests"][0]["return"];
    assert_eq!(ret["type"], "not recorded", "{ret}");
    assert_eq!(ret["c_type"], "const char *", "{ret}");
}

/// A string member is a writable array in `tests.c`, as the harness's allocation is: a function
/// that writes through it (in-place normalisation) passes, where a string literal in read-only
/// memory made the first test die of SIGSEGV (a robustness check, 2026-12-01).
#[test]
fn a_string_member_written_through_is_writable_in_tests_c() {
    let dir = tempfile::tempdir().unwrap();
    let (_, r) = run(FIXTURE, "header_norm", dir.path(), &["--seed", "1"]);
    assert_eq!(r["branches_covered"], r["branches_total"]);
    let out = compile_and_run_tests_c(dir.path(), FIXTURE);
    assert!(out.trim().ends_with("passed, 0 failed"), "{out}");
}
