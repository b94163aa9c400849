//! Non-finite float constants in compares (`isinf`, `isnan`, `INFINITY`, `-INFINITY`): the pass
//! harvests +inf and -inf into the module's metadata, which must read back (JSON has no literal for
//! them; they used to be written as `null` and every command aborted with "malformed evotest
//! metadata").

mod common;

use common::*;

const FIXTURE: &str = "tests/fixtures/nonfinite.c";

#[test]
fn sites_lists_the_compares_with_infinite_constants() {
    let o = evotest()
        .args(["sites", FIXTURE])
        .output()
        .expect("run evotest");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "evotest sites failed:\n{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(out.contains("7 branch sites"), "{out}");
    assert!(out.contains("y == inf"), "{out}");
    assert!(out.contains("y == -inf"), "{out}");
    assert!(out.contains("fabs(x) == inf"), "{out}");
}

#[test]
fn run_succeeds_and_reports_every_site_of_a_program_comparing_with_infinities() {
    let dir = tempfile::tempdir().unwrap();
    let (_, r) = run(
        FIXTURE,
        "nonfinite",
        dir.path(),
        &["--seed", "1", "--max-execs", "20000", "--max-time", "0"],
    );
    assert!(r["error"].is_null(), "error: {}", r["error"]);
    // isnan: one site, probed as `fcmp uno x, x`; isinf: glibc's __builtin_isinf_sign, two
    // selects and a branch;
    // y == INFINITY, y == -INFINITY, x > 1.0: one branch each
    let sites = r["sites"].as_array().unwrap();
    assert_eq!(sites.len(), 7);
    assert_eq!(r["branches_total"], 14);
    let conds: Vec<&str> = sites
        .iter()
        .map(|s| s["condition"].as_str().unwrap())
        .collect();
    for c in [
        "isnan(x)",
        "y == inf",
        "y == -inf",
        "fabs(x) == inf",
        "x > 1.0",
    ] {
        assert!(conds.contains(&c), "no site `{c}` in {conds:?}");
    }
    // every outcome is feasible (x = NaN, x = ±inf, y = ±inf), and the infinities are among the
    // program constants and boundary values the default search starts from
    assert_eq!(r["branches_covered"], 14, "uncovered {:?}", uncovered(&r));
    let out = compile_and_run_tests_c(dir.path(), FIXTURE);
    assert!(out.trim().ends_with("passed, 0 failed"), "{out}");
}
