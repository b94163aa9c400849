//! C++ functions under `evotest run`: found by their source-level names, linked with the C++
//! runtime, and replayed by a `tests.cpp` built with clang++.

mod common;

use common::*;
use std::process::Command;

/// Build `tests.cpp` in `out` with the command its header documents and run it; its last line.
fn run_tests_cpp(out: &std::path::Path) -> String {
    let text = std::fs::read_to_string(out.join("tests.cpp")).expect("tests.cpp");
    let line = text
        .lines()
        .map(|l| l.trim_start_matches(" *").trim())
        .find(|l| l.starts_with("clang++-22 -o tests "))
        .expect("a build command");
    let cmd: Vec<&str> = line
        .split(" && ")
        .next()
        .unwrap()
        .split_whitespace()
        .collect();
    let exe = out.join("tests-bin");
    let c = Command::new(cmd[0])
        .arg("-o")
        .arg(&exe)
        .args(&cmd[3..])
        .current_dir(root())
        .output()
        .unwrap();
    assert!(
        c.status.success(),
        "tests.cpp does not build: {}",
        String::from_utf8_lossy(&c.stderr)
    );
    let o = Command::new(&exe).output().unwrap();
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .last()
        .unwrap_or("")
        .to_string()
}

/// Run `evotest run` on the fixture's function `name` into `dir`; it must reach full coverage and
/// write a `tests.cpp` (no `tests.c`) that builds and passes. Returns the text of `tests.cpp`.
fn full_and_tests_cpp_pass(name: &str, dir: &std::path::Path, seed: &str) -> String {
    let (_, r) = run("tests/fixtures/cxx.cpp", name, dir, &["--seed", seed]);
    assert_eq!(
        r["branches_covered"],
        r["branches_total"],
        "{name}: {:?}",
        uncovered(&r)
    );
    assert!(!dir.join("tests.c").exists());
    assert!(run_tests_cpp(dir).ends_with("passed, 0 failed"));
    std::fs::read_to_string(dir.join("tests.cpp")).unwrap()
}

#[test]
fn a_namespaced_function_by_its_qualified_or_plain_name() {
    for name in ["geo::classify", "classify"] {
        let dir = tempfile::tempdir().unwrap();
        let text = full_and_tests_cpp_pass(name, dir.path(), "1");
        assert!(
            text.contains("= geo::classify("),
            "calls it by its qualified name"
        );
    }
}

#[test]
fn an_overload_is_chosen_by_its_linkage_name() {
    let dir = tempfile::tempdir().unwrap();
    let out = evotest()
        .args(["run", "tests/fixtures/cxx.cpp", "-f", "over", "--out"])
        .arg(dir.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("_Z4overi") && err.contains("_Z4overd") && err.contains("int over(double)"),
        "{err}"
    );
    let text = full_and_tests_cpp_pass("_Z4overd", dir.path(), "2");
    assert!(
        text.contains("static_cast<int (*)(double)>(&over)("),
        "{text}"
    );
}

#[test]
fn a_function_that_needs_the_cxx_runtime_links() {
    let dir = tempfile::tempdir().unwrap();
    let (_, r) = run(
        "tests/fixtures/cxx.cpp",
        "digits",
        dir.path(),
        &["--seed", "3", "--max-execs", "20000"],
    );
    assert!(r["error"].is_null(), "{}", r["error"]);
    // its own two outcomes at least (the rest are std::string's, instantiated in the same unit)
    assert!(r["tests"].as_u64().unwrap() >= 2, "{}", r["tests"]);
    assert!(r["branches_covered"].as_u64().unwrap() >= 2);
    assert!(run_tests_cpp(dir.path()).ends_with("passed, 0 failed"));
}

/// Reports name a C++ function and the functions its conditions call by their qualified names,
/// not their symbols (`_ZN3geo4nearEi`, `_ZN3geoL2sqEi`).
#[test]
fn reports_show_qualified_names() {
    let dir = tempfile::tempdir().unwrap();
    let (_, r) = run(
        "tests/fixtures/cxx.cpp",
        "geo::near",
        dir.path(),
        &["--seed", "1", "--max-execs", "2000"],
    );
    assert_eq!(r["prototype"], "int geo::near(int x)", "{r:#}");
    let site = &r["sites"][0];
    assert_eq!(site["function"], "geo::near", "{site:#}");
    assert_eq!(site["condition"], "geo::sq(x) == 49", "{site:#}");
}

/// C++ references (`const T &`, `T &`, `T &&`) to scalars and to structures and classes in a
/// namespace, and a member function with its object as an input: each is built as one object,
/// whose address the harness passes; `tests.cpp` passes the object (or calls the method on it).
#[test]
fn references_structures_and_member_functions() {
    for (name, call) in [
        ("area", "= area(evotest_v0)"),
        (
            "bump",
            "= bump(*evotest_v0_s.evotest_v, *evotest_v1_s.evotest_v)",
        ),
        (
            "consume",
            "= consume(static_cast<struct geo::Pt&&>(evotest_v0))",
        ),
        ("Acc::add", "= (&evotest_v0)->add("),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let text = full_and_tests_cpp_pass(name, dir.path(), "1");
        assert!(text.contains(call), "{name}: {text}");
    }
}

/// Classes a `tests.cpp` could not initialise member by member, and `std::string`, are refused
/// in one line that names the function by its source name.
#[test]
fn classes_that_cannot_be_built_are_refused_in_one_line() {
    for (name, says) in [
        ("sealed", "private or protected data members"),
        ("counted", "a constructor of its own"),
        ("text", "`std::string` parameters are not supported yet"),
        ("virtual_area", "a class with virtual functions"),
        // by value it said "(it can through a pointer or a reference)", which are refused too
        ("vector_sum", "is a C++ library type"),
        ("vector_size", "is a C++ library type"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let o = evotest()
            .args(["run", "tests/fixtures/cxx.cpp", "-f", name, "--out"])
            .arg(dir.path())
            .output()
            .unwrap();
        let err = assert_one_line_error(&o);
        assert!(
            err.contains(says) && err.contains(&format!("of `{name}`")),
            "{name}: {err}"
        );
    }
}

/// Enumeration parameters (`enum class` and a plain `enum`): C++ converts no integer to an
/// enumeration implicitly, so `tests.cpp` casts each value (before, `color_code(7, 1)` did not
/// compile).
#[test]
fn enumeration_parameters_are_cast_in_tests_cpp() {
    let dir = tempfile::tempdir().unwrap();
    let text = full_and_tests_cpp_pass("color_code", dir.path(), "1");
    assert!(text.contains("color_code((enum Color)("), "{text}");
    assert!(text.contains(", (enum Mode)("), "{text}");
}

/// Enumerations through a reference, an rvalue reference, a pointer and a structure member: the
/// tests build integer storage, which `tests.cpp` casts to each declared type (before, only a
/// value parameter was cast: `level_ref(*v)` did not compile, nor `{ .level = 1 }`).
#[test]
fn enumerations_behind_references_pointers_and_members_are_cast_in_tests_cpp() {
    for (name, cast) in [
        ("level_ref", "(const enum dev::Level &)("),
        ("mode_ref", "(enum Mode &)("),
        ("level_rref", "(enum dev::Level &&)("),
        ("setting_on", ".level = (enum dev::Level)"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let text = full_and_tests_cpp_pass(name, dir.path(), "1");
        assert!(text.contains(cast), "{name}: {text}");
    }
    let dir = tempfile::tempdir().unwrap();
    let (_, r) = run(
        "tests/fixtures/cxx.cpp",
        "level_ptr",
        dir.path(),
        &["--seed", "1", "--array", "l=1"],
    );
    assert_eq!(r["branches_covered"], r["branches_total"]);
    assert!(run_tests_cpp(dir.path()).ends_with("passed, 0 failed"));
    let text = std::fs::read_to_string(dir.path().join("tests.cpp")).unwrap();
    assert!(
        text.contains("level_ptr((const enum dev::Level *)("),
        "{text}"
    );
}

/// An uncaught exception is a crash (`SIGABRT`) whose report names the exception's type and
/// `what()`, and the console names a C++ function by its source name, not its linkage name.
#[test]
fn an_uncaught_exception_is_reported_with_its_type_and_what() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("thrower.cpp");
    std::fs::write(
        &src,
        "#include <stdexcept>\nnamespace calc {\nint check(int x) {\n  if (x == 1234) throw std::runtime_error(\"bad value\");\n  return x > 0;\n}\n}\n",
    )
    .unwrap();
    let out = dir.path().join("out");
    let o = evotest()
        .args(["run"])
        .arg(&src)
        .args(["-f", "calc::check", "--seed", "1", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    let console = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{console}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        console.contains("uncaught exception 'std::runtime_error': bad value"),
        "{console}"
    );
    assert!(
        console.contains("calc::check(x=1234) -> crash"),
        "{console}"
    );
    assert!(!console.contains("_ZN4calc"), "{console}");
    let suite = read_json(&out.join("suite.json"));
    assert_eq!(
        suite["faults"][0]["message"],
        "uncaught exception 'std::runtime_error': bad value"
    );
    assert!(run_tests_cpp(&out).ends_with("passed, 0 failed"));
    // tests.cpp checks the exception's type and what(), not only the SIGABRT: the source
    // changed to throw another type (or another message) fails that test
    for changed in [
        "std::logic_error(\"bad value\")",
        "std::runtime_error(\"other\")",
    ] {
        let text = std::fs::read_to_string(&src).unwrap();
        std::fs::write(
            &src,
            text.replace("std::runtime_error(\"bad value\")", changed),
        )
        .unwrap();
        let last = run_tests_cpp(&out);
        assert!(last.ends_with("1 failed"), "{changed}: {last}");
        std::fs::write(&src, text).unwrap();
    }
}

/// A landing pad's dispatch on the exception's type (`catch (const std::exception &)`: a compare
/// with `llvm.eh.typeid.for`) is no branch of the source: a function whose source branches are
/// all covered has full coverage (its "no clause matches" outcome was a goal set aside as
/// suspected infeasible: 3 of 4, 75%), as llvm-cov counts.
#[test]
fn a_catch_clause_s_type_dispatch_is_no_goal() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("catcher.cpp");
    std::fs::write(
        &src,
        "#include <stdexcept>\nint catcher(int x) {\n  try {\n    if (x == 42) throw std::runtime_error(\"inner\");\n    return 0;\n  } catch (const std::exception &) {\n    return -1;\n  } catch (int) {\n    return -2;\n  }\n}\n",
    )
    .unwrap();
    let out = dir.path().join("out");
    let (_, r) = run(
        src.to_str().unwrap(),
        "catcher",
        &out,
        &["--seed", "1", "--max-execs", "5000"],
    );
    assert_eq!(r["branches_total"], 2, "{:?}", uncovered(&r));
    assert_eq!(r["branches_covered"], 2);
    assert!(run_tests_cpp(&out).ends_with("passed, 0 failed"));
}

/// A function template's instances are named by their own names (`clampit<int>`) and, when one
/// is meant, by the template's (`clampit`); two instances under the template's name are listed
/// (it said "not found" while listing both as defined).
#[test]
fn a_template_s_name_finds_its_instances() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("t.cpp");
    std::fs::write(
        &src,
        "template <typename T> T clampit(T v, T lo, T hi) { if (v < lo) return lo; if (v > hi) return hi; return v; }\ntemplate int clampit<int>(int, int, int);\ntemplate double clampit<double>(double, double, double);\n",
    )
    .unwrap();
    let o = evotest()
        .args(["run"])
        .arg(&src)
        .args(["-f", "clampit", "--max-execs", "2000", "--out"])
        .arg(dir.path().join("o1"))
        .output()
        .unwrap();
    let e = assert_one_line_error(&o);
    assert!(
        e.contains("`clampit` names 2 functions") && e.contains("clampit<int>(int, int, int)"),
        "{e}"
    );
    let out = dir.path().join("o2");
    let (_, r) = run(
        src.to_str().unwrap(),
        "clampit<double>",
        &out,
        &["--max-execs", "5000", "--seed", "1"],
    );
    assert_eq!(r["branches_covered"], r["branches_total"]);
    assert!(run_tests_cpp(&out).ends_with("passed, 0 failed"));
}

/// A reference to an array (`int (&a)[4]`, `const int (&m)[2][3]`, `int (&&a)[2]`) is one array:
/// no `--array` (it asked for `--array a=ROWS`, then refused one as "a reference to one
/// object"), and `tests.cpp` passes the array itself.
#[test]
fn references_to_arrays_are_one_array_each() {
    for (name, call) in [
        ("array_ref", "array_ref(*evotest_v0)"),
        ("matrix_ref", "matrix_ref(*evotest_v0)"),
        (
            "array_rref",
            "array_rref(static_cast<int(&&)[2]>(*evotest_v0))",
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let text = full_and_tests_cpp_pass(name, dir.path(), "1");
        assert!(text.contains(call), "{name}: {text}");
    }
}

/// `std::string u(user); if (u == "admin")`: the literal a call takes (libstdc++'s `operator==`,
/// which compares it where no probe sees) is in the string pool, and the branches of libstdc++'s
/// own code instantiated in the source are no goals (the run showed 5 of 8 outcomes, the
/// literal's and two of `basic_string`'s set aside as suspected infeasible).
#[test]
fn a_std_string_compared_with_a_literal_is_matched_and_library_branches_are_no_goals() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("login.cpp");
    std::fs::write(
        &src,
        "#include <string>\nint login(const char *user) {\n    std::string u(user);\n    if (u == \"admin\") return 1;\n    return 0;\n}\n",
    )
    .unwrap();
    let out = dir.path().join("out");
    let (_, r) = run(
        src.to_str().unwrap(),
        "login",
        &out,
        &["--max-execs", "50000", "--seed", "1"],
    );
    assert_eq!(r["branches_total"], 2, "{:?}", uncovered(&r));
    assert_eq!(r["branches_covered"], 2, "{:?}", uncovered(&r));
    assert!(run_tests_cpp(&out).ends_with("passed, 0 failed"));
}

/// Overloads of a member function defined in its class and called nowhere (clang emits neither):
/// `evotest sites` lists them, and `-f` with their name lists both, as for other overloads (it
/// said the file "defines no function", and "not found (defined: none)").
#[test]
fn uncalled_inline_overloads_are_listed() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("ovl.cpp");
    std::fs::write(
        &src,
        "namespace shapes {\nstruct Circle {\n    double r;\n    int cmp(int k) const { if (k > r) return 1; return 0; }\n    int cmp(double k) const { if (k < r) return 2; return 3; }\n};\n}\n",
    )
    .unwrap();
    let o = evotest().arg("sites").arg(&src).output().unwrap();
    let listing = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success());
    assert!(
        listing.contains("[_ZNK6shapes6Circle3cmpEi]")
            && listing.contains("[_ZNK6shapes6Circle3cmpEd]"),
        "{listing}"
    );
    let o = evotest()
        .args(["run"])
        .arg(&src)
        .args(["-f", "shapes::Circle::cmp", "--out"])
        .arg(dir.path().join("o"))
        .output()
        .unwrap();
    let e = assert_one_line_error(&o);
    assert!(
        e.contains("names 2 functions") && e.contains("_ZNK6shapes6Circle3cmpEd"),
        "{e}"
    );
    let out = dir.path().join("o2");
    let (_, r) = run(
        src.to_str().unwrap(),
        "_ZNK6shapes6Circle3cmpEd",
        &out,
        &["--seed", "1", "--max-execs", "5000"],
    );
    assert_eq!(r["branches_covered"], r["branches_total"]);
}
