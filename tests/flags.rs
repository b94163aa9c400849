//! Conditions on what a helper function returns (function-assigned flags; Wappler, Baresel &
//! Wegener 2007): `if (is_magic(x))`, `if (in_band(a) && !in_band(b))`, `if (valid_id(id))` with
//! `valid_id` calling another helper, a helper that is a `switch`, and results kept in a local
//! before the test (`int ok = is_code(x); if (!ok)`), and a validation loop called for three
//! fields of a string (`isodate`). The pass gives each
//! helper whose result is a truth value a frame, and its caller's probe takes the
//! helper's flag distance (`passes/src/flags.rs`). Each function of tests/fixtures/flags.c runs
//! from both starts, three seeds each, and must be covered well within the cap.
//!
//! Without the flag distances (`EVOTEST_NO_RETURN_DISTANCES=1`), `returned_compares` stayed at
//! 8–9 of 10 outcomes in 30,000 executions in all six runs (`is_magic(x)` true set aside as
//! suspected infeasible); with them, 393–843 executions. `nested` from the biased start went
//! from 977–1,554 to 54–348 executions (five seeds).

mod common;

const FIXTURE: &str = "tests/fixtures/flags.c";

fn covers_everything(function: &str, cap: &str) {
    common::covers_everything(FIXTURE, function, cap);
}

/// A compare returned as an int, a conjunction returned, and a negated conjunction over two
/// inputs (`x * 3 + 7 == 3703708` has no branch of its own: only the flag distance guides it).
#[test]
fn returned_compares_guide_their_callers_conditions() {
    covers_everything("returned_compares", "20000");
}

/// A `bool` helper on doubles called twice, one call true and the other false.
#[test]
fn a_bool_helper_called_twice_is_covered() {
    covers_everything("band", "20000");
}

/// Results kept in locals (an `int` and a `bool`) and tested later: the local's shadow carries
/// the flag distance from the store to the test.
#[test]
fn results_kept_in_locals_guide_their_tests() {
    covers_everything("stored", "20000");
}

/// Early returns, a helper calling a helper, and a `switch` helper.
#[test]
fn nested_helpers_and_switch_helpers_are_covered() {
    covers_everything("nested", "20000");
}

/// Helpers returning `size_t` and `long long` truth values inside another helper: the pass used
/// to emit a `zext` to a narrower type there, which LLVM's backend refused at every -O level.
/// The fixture builds with `evotest-cc` at -O0, -O1 and -O2, and is covered.
#[test]
fn helpers_with_wide_truth_values_build_and_are_covered() {
    let dir = tempfile::tempdir().unwrap();
    for opt in ["-O0", "-O1", "-O2"] {
        let out = std::process::Command::new(common::evotest_cc())
            .args([opt, "-c", FIXTURE, "-o"])
            .arg(dir.path().join("flags.o"))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "evotest-cc {opt}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    covers_everything("wide", "20000");
}

/// A helper with a loop (`digits`, a validation loop returning 0 at the first non-digit) called
/// for the year, month and day of one string: its frame gives each call's flag distance, where
/// the sites of its compares keep only the minimum over the three calls. Before flag functions
/// could have loops (2026-12-02), the runs from seeds 1–3 took 363 to 192,695 executions and
/// seed 0 from the uniform start stayed at 17 of 46 outcomes in 200,000; after, 167–221 over
/// seeds 0–3 and both starts.
#[test]
fn a_helper_with_a_loop_called_for_several_fields_is_covered() {
    common::covers_everything_with(
        FIXTURE,
        "isodate",
        "20000",
        &["0", "1", "2", "3"],
        &["--string", "s=12"],
    );
}
