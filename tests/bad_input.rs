//! Bad input gets a one-line error and a non-zero exit, never a panic.

mod common;

use common::*;

fn fail(args: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let o = evotest()
        .args(args)
        .arg("--out")
        .arg(dir.path())
        .output()
        .unwrap();
    assert_one_line_error(&o)
}

#[test]
fn a_missing_file() {
    let e = fail(&["run", "examples/no_such_file.c", "-f", "f"]);
    assert!(e.contains("no_such_file.c: no such file"), "{e}");
}

#[test]
fn c_that_does_not_compile_shows_clangs_message() {
    let e = fail(&["run", "tests/fixtures/bad_syntax.c", "-f", "broken"]);
    assert!(e.contains("does not compile"), "{e}");
    assert!(
        e.contains("undeclared_variable"),
        "clang's message is missing: {e}"
    );
}

#[test]
fn an_unknown_function_lists_the_defined_ones() {
    let e = fail(&["run", "examples/triangle.c", "-f", "no_such_function"]);
    assert!(e.contains("`no_such_function` not found"), "{e}");
    assert!(e.contains("defined: triangle"), "{e}");
}

#[test]
fn an_unsupported_parameter_type_names_the_parameter_and_type() {
    let e = fail(&["run", "tests/fixtures/unsupported.c", "-f", "owned_by"]);
    assert!(e.contains("parameter `it`"), "{e}");
    assert!(
        e.contains("`struct item` cannot be built member by member (pointer member `owner`)"),
        "{e}"
    );
}

#[test]
fn llvm_not_installed() {
    let dir = tempfile::tempdir().unwrap();
    let o = evotest()
        .env("EVOTEST_CLANG", "/nonexistent/llvm-22/bin/clang")
        .args(["run", "examples/triangle.c", "-f", "triangle", "--out"])
        .arg(dir.path())
        .output()
        .unwrap();
    let e = assert_one_line_error(&o);
    assert!(e.contains("LLVM 22"), "{e}");
    assert!(e.contains("make setup"), "{e}");
}

#[test]
fn a_range_for_an_unknown_parameter_or_outside_the_type() {
    let e = fail(&[
        "run",
        "examples/triangle.c",
        "-f",
        "triangle",
        "--range",
        "z=1..2",
    ]);
    assert!(
        e.contains("no such parameter") && e.contains("a, b, c"),
        "{e}"
    );
    let e = fail(&[
        "run",
        "examples/triangle.c",
        "-f",
        "triangle",
        "--range",
        "a=0..99999999999",
    ]);
    assert!(e.contains("within"), "{e}");
    let e = fail(&[
        "run",
        "examples/triangle.c",
        "-f",
        "triangle",
        "--range",
        "a",
    ]);
    assert!(e.contains("NAME=LO..HI"), "{e}");
    // a member a structure parameter does not have: named, with the members it has
    let e = fail(&[
        "run",
        "tests/fixtures/null_guards.c",
        "-f",
        "describe",
        "--range",
        "it.nothere=0..3",
    ]);
    assert!(
        e.contains("`it` has no such member") && e.contains("it.qty, it.price"),
        "{e}"
    );
}

/// Under --api, arguments are drawn per type: shape and range options, which name parameters,
/// are refused (they were ignored, even for names that no function has).
#[test]
fn parameter_options_are_refused_with_api() {
    for opt in [
        &["--string", "s=16"][..],
        &["--range", "nothere=0..3"],
        &["--array", "a=4"],
    ] {
        let mut args = vec!["run", "examples/api/strmap.c", "--api"];
        args.extend_from_slice(opt);
        let e = fail(&args);
        assert!(
            e.contains("do not apply with --api") && e.contains("strings of up to 16 characters"),
            "{opt:?}: {e}"
        );
    }
}

#[test]
fn an_unknown_algorithm() {
    let e = fail(&[
        "run",
        "examples/triangle.c",
        "-f",
        "triangle",
        "--algorithm",
        "magic",
    ]);
    assert!(
        e.contains("unknown algorithm `magic`") && e.contains("avm"),
        "{e}"
    );
}

#[test]
fn a_directory_is_not_called_a_missing_file() {
    let e = fail(&["run", "examples", "-f", "f"]);
    assert!(e.contains("is a directory"), "{e}");
}

#[test]
fn an_empty_source_says_it_defines_no_function() {
    let e = fail(&["run", "tests/fixtures/empty.c", "-f", "f"]);
    assert!(
        e.contains("`f` not found") && e.contains("defined: none"),
        "{e}"
    );
}

#[test]
fn absurd_durations_and_limits_are_one_line_errors() {
    for args in [
        vec!["--max-time", "1e300"],
        vec!["--timeout", "18446744073709551615s"],
        vec!["--timeout", "0.5ms"],
        vec!["--timeout", "1e-12"],
        vec!["--patience", "0"],
        vec!["--give-up-after", "0"],
    ] {
        let mut a = vec!["run", "examples/triangle.c", "-f", "triangle"];
        a.extend(args.iter());
        let dir = tempfile::tempdir().unwrap();
        let o = evotest()
            .args(&a)
            .arg("--out")
            .arg(dir.path())
            .output()
            .unwrap();
        assert!(!o.status.success(), "{args:?} was accepted");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(
            err.lines().filter(|l| l.starts_with("error")).count() == 1,
            "{args:?}: {err}"
        );
    }
}

#[test]
fn without_function_the_one_function_is_tested_and_several_are_listed() {
    // one function besides main: it is the one tested
    let dir = tempfile::tempdir().unwrap();
    let o = evotest()
        .args(["run", "examples/triangle.c", "--max-execs", "2000", "--out"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let r = read_json(&dir.path().join("report.json"));
    assert_eq!(r["function"], "triangle", "{r}");
    // several: a one-line error that lists them
    let e = fail(&["run", "tests/fixtures/shapes.c"]);
    assert!(
        e.contains("give --function NAME") && e.contains("matrix") && e.contains("arr"),
        "{e}"
    );
    let e = fail(&["run", "tests/fixtures/empty.c"]);
    assert!(e.contains("no function to test"), "{e}");
    let e = fail(&["run", "--crate", "tests/fixtures"]);
    assert!(e.contains("--crate needs --function"), "{e}");
}

#[test]
fn a_parameter_the_abi_splits_is_refused_in_one_line() {
    let e = fail(&["run", "tests/fixtures/unsupported.c", "-f", "in_disc"]);
    assert!(
        e.contains("parameter `z` of `in_disc` is passed in parts") && e.contains("_Complex"),
        "{e}"
    );
}

/// Refused before the target is built, so that an earlier run's results stay as they were.
#[test]
fn sequence_algorithms_without_api_and_a_population_of_one_are_refused() {
    for a in ["seq", "randoop", "godel"] {
        let e = fail(&["run", "examples/triangle.c", "-f", "triangle", "-a", a]);
        assert!(
            e.contains(&format!(
                "-a {a}: it builds call sequences; use it with --api"
            )),
            "{e}"
        );
    }
    let e = fail(&[
        "run",
        "examples/triangle.c",
        "-f",
        "triangle",
        "--population",
        "1",
    ]);
    assert!(
        e.contains("--population 1: a population needs at least 2"),
        "{e}"
    );
}

/// A header given as the source (a header-only library): one line that says so, for `run` and
/// `sites` (clang made a precompiled header of it, and the error was "target0.o is not an
/// object file: Unknown file magic").
#[test]
fn a_header_as_the_source_is_refused_as_a_header() {
    let e = fail(&["run", "tests/fixtures/header_only.h", "-f", "clamp3"]);
    assert!(
        e.contains("header_only.h: is a header") && !e.contains("object file"),
        "{e}"
    );
    let o = evotest()
        .args(["sites", "tests/fixtures/header_only.h"])
        .output()
        .unwrap();
    let e = assert_one_line_error(&o);
    assert!(e.contains("header_only.h: is a header"), "{e}");
}

/// A programs file with a key no program has (`range` for `ranges`) is an error that names it:
/// the key was ignored, and the program ran over its parameters' whole ranges.
#[test]
fn a_programs_file_with_an_unknown_key_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("p.toml");
    std::fs::write(
        &f,
        format!(
            "[[program]]\nname = \"tri\"\nfile = \"{}\"\nfunction = \"triangle\"\nfeasible = 22\nrange = [\"a=1..10\"]\n",
            path("examples/triangle.c").display()
        ),
    )
    .unwrap();
    let o = evotest()
        .args(["bench", "--programs"])
        .arg(&f)
        .args(["--tools", "avm", "--runs", "1", "--out"])
        .arg(dir.path().join("out"))
        .output()
        .unwrap();
    let e = assert_one_line_error(&o);
    assert!(
        e.contains("unknown key `range`") && e.contains("ranges"),
        "{e}"
    );
}

/// A directory where the harness goes (`evotest fuzz CORPUS`) is named as a directory, not as a
/// missing file.
#[test]
fn a_directory_given_as_the_harness_is_named_as_such() {
    let dir = tempfile::tempdir().unwrap();
    let o = evotest()
        .arg("fuzz")
        .arg(dir.path())
        .arg(dir.path().join("corpus"))
        .output()
        .unwrap();
    // (after the seed line every fuzzing run prints first)
    assert!(!o.status.success(), "{o:?}");
    let err = String::from_utf8_lossy(&o.stderr);
    let e = err.lines().last().unwrap_or_default();
    assert!(
        e.starts_with("error: ")
            && e.contains("is a directory")
            && e.contains("executable to fuzz"),
        "{err}"
    );
}

#[test]
fn a_static_local_named_as_a_global_is_said_to_be_one() {
    // it said "the sources define no mutable global variable `calls` (… read: none)", though
    // the function reads it
    for name in ["calls", "counter.calls"] {
        let e = fail(&[
            "run",
            "tests/fixtures/static_local.c",
            "-f",
            "counter",
            "--global",
            name,
        ]);
        assert!(
            e.contains("`calls` is a static variable inside function `counter`"),
            "{e}"
        );
    }
}

#[test]
fn static_functions_of_one_name_in_two_sources_are_refused_by_name() {
    // it ended in "linking the harness failed: multiple definition of `helper'"
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.c"), dir.path().join("b.c"));
    std::fs::write(
        &a,
        "static int helper(int x) { if (x == 5) return 1; return 0; }\nint fa(int x) { return helper(x); }\n",
    )
    .unwrap();
    std::fs::write(
        &b,
        "static int helper(int x) { if (x == 9) return 2; return 0; }\nint fb(int x) { return helper(x + 1); }\n",
    )
    .unwrap();
    let e = fail(&[
        "run",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "-f",
        "helper",
    ]);
    assert!(e.contains("`helper` is defined in 2 sources"), "{e}");
    assert!(e.contains("a.c") && e.contains("b.c"), "{e}");
}

/// A source named `-x.c` was passed to clang as an option ("does not compile"); one whose name
/// holds a `"` gave a `tests.c` that did not compile, with exit 0.
#[test]
fn source_names_clang_or_an_include_would_misread() {
    let d = tempfile::tempdir().unwrap();
    let dashed = d.path().join("-tri.c");
    std::fs::copy(path("examples/triangle.c"), &dashed).unwrap();
    let o = evotest()
        .current_dir(d.path())
        .args([
            "run",
            "-f",
            "triangle",
            "--max-execs",
            "5000",
            "-q",
            "--out",
            "o",
            "--",
        ])
        .arg("-tri.c")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(d.path().join("o/tests.c").is_file());
    let quoted = d.path().join("tr\"i.c");
    std::fs::copy(path("examples/triangle.c"), &quoted).unwrap();
    let e = fail(&["run", quoted.to_str().unwrap(), "-f", "triangle"]);
    assert!(e.contains("double quote"), "{e}");
}

/// A global read by the function but defined in a source without functions (register
/// definitions) is refused with the reason and what to do: the error said the sources define no
/// such variable and that the function reads none.
#[test]
fn a_global_of_a_source_without_functions_is_refused_with_the_reason() {
    let e = fail(&[
        "run",
        "tests/fixtures/adc.c",
        "tests/fixtures/regdefs.c",
        "-f",
        "adc_read",
        "--global",
        "ADC_SR",
    ]);
    assert!(e.contains("`adc_read` reads `ADC_SR`"), "{e}");
    assert!(e.contains("define one function in it"), "{e}");
}
