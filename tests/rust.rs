//! End-to-end tests of Rust targets (`evotest run --crate DIR -f PATH`): the ports of triangle,
//! tritype and expint in examples/rust/ reach full coverage of their feasible goals, the generated
//! `tests.rs` passes `cargo test` in (a copy of) the crate, a panic is found and reproduced by a
//! `#[should_panic]` test, `--rust-checks target` makes the compiler's checks goals, tuple,
//! struct, array and 128-bit parameters are built part by part, string equality is guided by a
//! branch distance, and bad input gives one-line errors.

mod common;

use common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A copy of `examples/rust/<name>` (without build outputs) in `dir`.
fn crate_copy(name: &str, dir: &Path) -> PathBuf {
    let src = path(&format!("examples/rust/{name}"));
    let dst = dir.join(name);
    copy_tree(&src, &dst);
    dst
}

fn copy_tree(src: &Path, dst: &Path) {
    std::fs::create_dir_all(dst).unwrap();
    for e in std::fs::read_dir(src).unwrap() {
        let e = e.unwrap();
        let name = e.file_name();
        if name == "target" || name == "out" || name == "tests" {
            continue;
        }
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &dst.join(&name));
        } else {
            std::fs::copy(e.path(), dst.join(&name)).unwrap();
        }
    }
}

/// `evotest run --crate KRATE -f FUNCTION --out OUT ARGS…`.
fn run_crate(krate: &Path, function: &str, out: &Path, args: &[&str]) -> Output {
    evotest()
        .arg("run")
        .arg("--crate")
        .arg(krate)
        .args(["-f", function, "--out"])
        .arg(out)
        .args(args)
        .output()
        .expect("run evotest")
}

/// As [`run_crate`], which must succeed; returns report.json.
fn run_ok(krate: &Path, function: &str, out: &Path, args: &[&str]) -> Value {
    let o = run_crate(krate, function, out, args);
    assert!(
        o.status.success(),
        "evotest run --crate {} -f {function} {args:?} failed:\n{}{}",
        krate.display(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    read_json(&out.join("report.json"))
}

/// Copy `out/tests.rs` into `krate/tests/NAME.rs` and run `cargo test` there; returns its output,
/// which must report success.
fn cargo_test(krate: &Path, outs: &[(&Path, &str)]) -> String {
    std::fs::create_dir_all(krate.join("tests")).unwrap();
    for (out, name) in outs {
        std::fs::copy(
            out.join("tests.rs"),
            krate.join("tests").join(format!("{name}.rs")),
        )
        .unwrap();
    }
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let o = Command::new(cargo)
        .args(["test", "--tests", "--manifest-path"])
        .arg(krate.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(krate.join("target"))
        .env_remove("RUSTFLAGS")
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(o.status.success(), "cargo test failed:\n{text}");
    assert!(
        text.lines()
            .any(|l| l.starts_with("test ") && l.ends_with(" ... ok")),
        "no test ran:\n{text}"
    );
    text
}

/// Run a subject, check full coverage of `total` goals, then its tests.rs under cargo test.
fn subject(name: &str, function: &str, args: &[&str], total: u64) {
    let dir = tempfile::tempdir().unwrap();
    let krate = crate_copy(name, dir.path());
    let out = dir.path().join("out");
    let mut a = vec!["--seed", "1", "--max-execs", "20000", "--max-time", "0"];
    a.extend_from_slice(args);
    let r = run_ok(&krate, function, &out, &a);
    assert_eq!(r["branches_total"], total, "{name}: {r}");
    assert_eq!(
        r["branches_covered"],
        total,
        "{name}: uncovered {:?}",
        uncovered(&r)
    );
    // reports name the function by its Rust path
    assert!(
        r["sites"][0]["function"]
            .as_str()
            .unwrap()
            .starts_with(&format!("{name}::")),
        "{}",
        r["sites"][0]
    );
    assert_eq!(
        r["prototype"].as_str().unwrap().split('(').next().unwrap(),
        format!("fn {name}::{function}")
    );
    let text = cargo_test(&krate, &[(&out, "evotest")]);
    assert!(text.contains("test result: ok"), "{text}");
}

#[test]
fn rust_triangle_full_coverage_and_tests_rs_passes_cargo_test() {
    subject("triangle", "triangle", &[], 22);
}

#[test]
fn rust_tritype_full_coverage_and_tests_rs_passes_cargo_test() {
    subject(
        "tritype",
        "tritype",
        &[
            "--range", "a=1..100", "--range", "b=1..100", "--range", "c=1..100",
        ],
        16,
    );
}

#[test]
fn rust_expint_full_coverage_and_tests_rs_passes_cargo_test() {
    subject("expint", "expint", &[], 30);
}

#[test]
fn rust_panic_is_found_and_reproduced_with_should_panic() {
    // with --rust-checks target the overflow check of `n - 1` is a goal: its failing outcome is
    // the panic for n = i32::MIN
    let dir = tempfile::tempdir().unwrap();
    let krate = crate_copy("expint", dir.path());
    let out = dir.path().join("out");
    let r = run_ok(
        &krate,
        "expint",
        &out,
        &[
            "--rust-checks",
            "target",
            "--max-execs",
            "5000",
            "--max-time",
            "0",
        ],
    );
    assert!(r["branches_total"].as_u64().unwrap() > 30, "{r}");
    assert!(
        r["notes"][0].as_str().unwrap().contains("are goals"),
        "{}",
        r["notes"]
    );
    let overflow = r["sites"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["condition"] == "overflow(n - 1)")
        .unwrap_or_else(|| panic!("no overflow(n - 1) site: {}", r["sites"]));
    assert_eq!(overflow["outcomes"][0]["covered"], true, "{overflow}");
    assert!(
        r["faults"]["crash"].as_u64().unwrap() >= 1,
        "{}",
        r["faults"]
    );
    let t = std::fs::read_to_string(out.join("tests.rs")).unwrap();
    assert!(
        t.contains("#[should_panic(expected = \"attempt to subtract with overflow\")]"),
        "{t}"
    );
    assert!(t.contains("expint::expint(i32::MIN, "), "{t}");
    // the crashing input covered a goal: it is written once, as that test, not again as a fault
    assert_eq!(
        t.lines()
            .filter(|l| l.starts_with("#[should_panic"))
            .count(),
        1,
        "{t}"
    );
    cargo_test(&krate, &[(&out, "evotest")]);
}

/// A panic whose payload is not a string has no message to expect: `#[should_panic]` alone (with
/// `expected = "Box<dyn Any>"` the generated test failed under cargo test).
#[test]
fn a_panic_without_a_message_is_a_plain_should_panic_test() {
    let dir = tempfile::tempdir().unwrap();
    let krate = crate_copy("samples", dir.path());
    let out = dir.path().join("out");
    let r = run_ok(
        &krate,
        "kinds::odd_payload",
        &out,
        &["--seed", "1", "--max-execs", "5000", "--max-time", "0"],
    );
    assert_eq!(
        r["branches_covered"],
        r["branches_total"],
        "{:?}",
        uncovered(&r)
    );
    let t = std::fs::read_to_string(out.join("tests.rs")).unwrap();
    assert!(
        t.contains("#[should_panic]\nfn ") && !t.contains("Box<dyn Any>\")]"),
        "{t}"
    );
    cargo_test(&krate, &[(&out, "evotest")]);
}

#[test]
fn rust_checks_target_adds_the_check_outcomes_as_goals() {
    let dir = tempfile::tempdir().unwrap();
    let krate = crate_copy("triangle", dir.path());
    let out = dir.path().join("out");
    let r = run_ok(
        &krate,
        "triangle",
        &out,
        &[
            "--rust-checks",
            "target",
            "--max-execs",
            "3000",
            "--max-time",
            "0",
        ],
    );
    // 11 sites of the C version and 3 overflow checks of `sa + sb` etc., which cannot fail
    assert_eq!(r["branches_total"], 28);
    assert_eq!(r["branches_covered"], 25, "{:?}", uncovered(&r));
    assert!(
        uncovered(&r)
            .iter()
            .all(|(_, c, l)| c.starts_with("overflow(") && l == "true"),
        "{:?}",
        uncovered(&r)
    );
}

#[test]
fn rust_strings_slices_chars_and_bools() {
    let dir = tempfile::tempdir().unwrap();
    let krate = crate_copy("samples", dir.path());
    let mut outs = vec![];
    for (f, total) in [
        ("kinds::strs", 2),
        ("kinds::slices", 6),
        ("kinds::flag_char", 4),
        ("kinds::lifetimes", 2),
        ("kinds::unsafe_fn", 2),
    ] {
        let out = dir.path().join(f.replace("::", "_"));
        let r = run_ok(
            &krate,
            f,
            &out,
            &["--seed", "2", "--max-execs", "20000", "--max-time", "0"],
        );
        assert_eq!(r["branches_total"], total, "{f}");
        assert_eq!(
            r["branches_covered"],
            total,
            "{f}: uncovered {:?}",
            uncovered(&r)
        );
        outs.push((out, f.replace("::", "_")));
    }
    let outs: Vec<(&Path, &str)> = outs
        .iter()
        .map(|(o, n)| (o.as_path(), n.as_str()))
        .collect();
    cargo_test(&krate, &outs);
}

#[test]
fn rust_bad_input_gives_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let krate = crate_copy("samples", dir.path());
    let out = dir.path().join("out");
    let check = |o: Output, wants: &[&str]| {
        let err = String::from_utf8_lossy(&o.stderr).trim().to_string();
        assert!(!o.status.success(), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        for w in wants {
            assert!(err.contains(w), "{err} lacks {w}");
        }
    };
    check(
        run_crate(&krate, "kinds::options", &out, &[]),
        &["parameter `o`", "Option<u32>"],
    );
    check(
        run_crate(&krate, "kinds::nope", &out, &[]),
        &["`kinds::nope` not found", "samples::kinds::strs"],
    );
    check(
        run_crate(&krate, "kinds::generic", &out, &[]),
        &["is generic"],
    );
    // generic and never instantiated, so absent from the bitcode: said so, not "not found"
    check(
        run_crate(&krate, "kinds::never_called", &out, &[]),
        &["`kinds::never_called` is generic"],
    );
    check(
        run_crate(&krate, "kinds::with_impl", &out, &[]),
        &["`kinds::with_impl` is generic"],
    );
    // private: refused from its source, not by rustc with the harness's internal path
    check(
        run_crate(&krate, "kinds::private_helper", &out, &[]),
        &["`kinds::private_helper` is not `pub`"],
    );
    check(
        run_crate(&dir.path().join("nothing"), "f", &out, &[]),
        &["no Cargo.toml"],
    );
}

#[test]
fn cargo_fuzz_target_is_built_and_fuzzed_and_its_panic_is_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    let krate = crate_copy("fuzzshape", dir.path());
    let corpus = dir.path().join("corpus");
    let artifacts = dir.path().join("artifacts/");
    let o = evotest()
        .arg("fuzz")
        .arg("--cargo-fuzz")
        .arg(&krate)
        .arg("fuzz_parse")
        .arg(&corpus)
        // guidance on (the default): std's parsing code and libfuzzer-sys's are instrumented too,
        // but they stay out of the frontier, so that the directed attempts go to the user's
        // branches (with them in, the crash came at run 47,298 of seed 1; havoc alone finds it at
        // run 24,864)
        .args(["-runs=30000", "-seed=1", "-timeout=5", "-q", "--json"])
        .arg(format!("-artifact_prefix={}", artifacts.display()))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    // exit status 1: a new unique crash (the fuzz target's `panic!("negative q")`)
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("fuzz_parse.rs:7"),
        "the crash signature names the panicking line: {err}"
    );
    let crashes: Vec<_> = std::fs::read_dir(&artifacts)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with("crash-"))
        .collect();
    assert!(!crashes.is_empty(), "{err}");
    // the crash reproduces through the built executable, as with libFuzzer
    let exe = krate.join("target/evotest/fuzz_parse");
    let min = crashes
        .iter()
        .map(|e| e.path())
        .min_by_key(|p| std::fs::metadata(p).unwrap().len())
        .unwrap();
    let r = Command::new(&exe).arg(&min).output().unwrap();
    assert!(!r.status.success());
    assert!(
        String::from_utf8_lossy(&r.stderr).contains("negative q"),
        "{}",
        String::from_utf8_lossy(&r.stderr)
    );
    assert!(std::fs::read_dir(&corpus).unwrap().count() > 1);
    // the guidance steered, on the user's code only; coverage counts every branch
    let s: Value = serde_json::from_slice(&o.stdout).unwrap();
    let g = &s["guidance"];
    assert_eq!(g["enabled"], true, "{g:#}");
    let directed = ["execs_i2s", "execs_influence", "execs_avm"]
        .iter()
        .map(|k| g[k].as_u64().unwrap())
        .sum::<u64>();
    assert!(directed > 0, "{g:#}");
    let left_out = g["sites_left_out"].as_u64().unwrap();
    assert!(
        left_out > 0 && g["frontier_left_out"].as_u64().unwrap() > 0,
        "std's branches are left out: {g:#}"
    );
    // every site has two outcomes or more: the left-out sites' outcomes are in the total
    assert!(
        s["outcomes_total"].as_u64().unwrap() >= 2 * (left_out + 1),
        "all branches counted: {s:#}"
    );
    assert!(
        err.contains("branch sites out of scope"),
        "the final stats say what was left out: {err}"
    );

    // --instrument_crates: a registry crate of the build is instrumented too (its branches join
    // the coverage), a name that is no crate of the build is refused in one line
    let total = s["outcomes_total"].as_u64().unwrap();
    let fuzz = |extra: &[&str]| {
        evotest()
            .arg("fuzz")
            .arg("--cargo-fuzz")
            .arg(&krate)
            .arg("fuzz_parse")
            .arg(dir.path().join("corpus2"))
            .args(["-runs=200", "-seed=1", "-q", "--json"])
            // a crash found here is written under the temporary directory, not the working one
            .arg(format!("-artifact_prefix={}", artifacts.display()))
            .args(extra)
            .output()
            .unwrap()
    };
    let o = fuzz(&["--instrument_crates", "arbitrary"]);
    // exit 1 is the crash found (input-to-state on every compare finds it within these 200 runs)
    assert!(
        matches!(o.status.code(), Some(0) | Some(1)),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let s2: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(
        s2["outcomes_total"].as_u64().unwrap() > total,
        "arbitrary's branches are counted: {} vs {total}",
        s2["outcomes_total"]
    );
    // `all`: every crate built for the target; `libc`, built for `cc` (a build script's
    // dependency, on the host only), has no bitcode for the target and is left alone
    let o = fuzz(&["--instrument_crates", "all"]);
    assert!(
        matches!(o.status.code(), Some(0) | Some(1)),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let s3: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(s3["outcomes_total"].as_u64().unwrap() >= total, "{s3:#}");
    let o = fuzz(&["--instrument_crates", "no_such_crate"]);
    let err = String::from_utf8_lossy(&o.stderr).trim().to_string();
    assert!(!o.status.success(), "{err}");
    // after the build's progress line, one error line
    let errors: Vec<&str> = err.lines().filter(|l| l.starts_with("error")).collect();
    assert!(
        errors.len() == 1
            && errors[0].contains("`no_such_crate` is not a crate of fuzz target `fuzz_parse`"),
        "{err}"
    );
}

/// Bytes compared in helpers that return the compare (`fuzzshape::sniff`: `starts_with(b"qoif")`,
/// `&h[0..4] == b"RIFF" && &h[8..12] == b"WEBP"`, as imagesize's `matches` functions; then
/// `fuzzshape::is_echo`, a `starts_with` of bytes computed from the input, which no constant of
/// the program holds). At opt-level 0 rustc called std's shared instance of `starts_with`, which
/// is not instrumented, and a compare a function returns was logged nowhere: no run reached the
/// panic in 20,000 executions (the magic values came from the program's constants). The
/// cargo-fuzz route now builds at opt-level 2 (instances of the crate's own) and logs compares
/// that are no branch's condition: the panic at about 3,500.
#[test]
fn cargo_fuzz_bytes_compared_in_helpers_are_found() {
    let dir = tempfile::tempdir().unwrap();
    let krate = crate_copy("fuzzshape", dir.path());
    let artifacts = dir.path().join("artifacts/");
    let o = evotest()
        .arg("fuzz")
        .arg("--cargo-fuzz")
        .arg(&krate)
        .arg("fuzz_sniff")
        .arg(dir.path().join("corpus"))
        .args(["-runs=20000", "-seed=1", "-q", "--json", "--stop_on_crash"])
        .arg(format!("-artifact_prefix={}", artifacts.display()))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(
        o.status.code(),
        Some(1),
        "no crash in 20,000 executions: {err}"
    );
    let crash = std::fs::read_dir(&artifacts)
        .unwrap()
        .filter_map(|e| e.ok())
        .find(|e| e.file_name().to_string_lossy().starts_with("crash-"))
        .map(|e| std::fs::read(e.path()).unwrap())
        .unwrap_or_else(|| panic!("no crash artifact: {err}"));
    let echo: Vec<u8> = crash[12..16].iter().map(|b| b ^ 0x5a).collect();
    assert!(
        &crash[0..4] == b"RIFF" && &crash[8..12] == b"WEBP" && crash[16..].starts_with(&echo),
        "{crash:02x?}"
    );
}

#[test]
fn rust_tuples_structs_arrays_and_wide_integers_are_built_and_tested() {
    let dir = tempfile::tempdir().unwrap();
    let krate = crate_copy("records", dir.path());
    let mut outs = vec![];
    for (f, total, args) in [
        ("geo::quadrant", 6, &[][..]),
        ("geo::classify", 10, &["--string", "s.label=6"][..]),
        ("locate", 6, &["--range", "r=-100..100"][..]),
        ("find", 8, &["--array", "ids=3"][..]),
        ("turn", 4, &["--range", "t=-50..50"][..]),
        ("wide", 4, &[][..]),
        ("nested", 6, &[][..]),
    ] {
        let out = dir.path().join(f.replace("::", "_"));
        let mut a = vec!["--seed", "1", "--max-execs", "20000", "--max-time", "0"];
        a.extend_from_slice(args);
        let r = run_ok(&krate, f, &out, &a);
        assert_eq!(r["branches_total"], total, "{f}: {:?}", r["sites"]);
        assert_eq!(
            r["branches_covered"],
            total,
            "{f}: uncovered {:?}",
            uncovered(&r)
        );
        outs.push((out, f.replace("::", "_")));
    }
    // the parts are fields named by path, and the suite builds the values with literals
    let suite = read_json(&outs[1].0.join("suite.json"));
    let inputs = suite.to_string();
    assert!(
        inputs.contains("\"from\"") && inputs.contains("\"label\""),
        "{inputs}"
    );
    let t = std::fs::read_to_string(outs[1].0.join("tests.rs")).unwrap();
    assert!(
        t.contains("&records::geo::Segment { from: records::geo::Point { x: "),
        "{t}"
    );
    let t = std::fs::read_to_string(outs[5].0.join("tests.rs")).unwrap();
    assert!(t.contains("i128, ") && t.contains("u128)"), "{t}");
    let outs: Vec<(&Path, &str)> = outs
        .iter()
        .map(|(o, n)| (o.as_path(), n.as_str()))
        .collect();
    cargo_test(&krate, &outs);
    // a struct with a private field cannot be built from outside the crate
    let o = run_crate(&krate, "sealed", &dir.path().join("sealed"), &[]);
    let err = String::from_utf8_lossy(&o.stderr).trim().to_string();
    assert!(!o.status.success() && err.lines().count() == 1, "{err}");
    assert!(
        err.contains("parameter `s`")
            && err.contains("field `hidden` of struct `Sealed` is not `pub`"),
        "{err}"
    );
}

#[test]
fn rust_string_equality_starts_with_and_ends_with_are_guided() {
    // Without a distance for these calls (the branch sees only the `bool` a std function
    // returned), none of the string outcomes but the first is found in 20,000 executions (seed 1:
    // command 2/4, route 3/10, accept 2/4, signature 2/4). With it, a few hundred suffice.
    let dir = tempfile::tempdir().unwrap();
    let krate = crate_copy("strings", dir.path());
    let mut outs = vec![];
    for (f, total) in [
        ("command", 4),
        ("route", 10),
        ("accept", 4),
        ("signature", 4),
    ] {
        let out = dir.path().join(f);
        let r = run_ok(
            &krate,
            f,
            &out,
            &["--seed", "1", "--max-execs", "500", "--max-time", "0"],
        );
        assert_eq!(r["branches_total"], total, "{f}");
        assert_eq!(
            r["branches_covered"],
            total,
            "{f}: uncovered {:?}",
            uncovered(&r)
        );
        // the condition reads as written
        let conds: Vec<&str> = r["sites"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|s| s["condition"].as_str())
            .collect();
        let want = match f {
            "command" => "s == \"launch\"",
            "route" => "verb == \"DELETE\"",
            "accept" => "\"PATCH\" == ",
            _ => ".starts_with(\"GIF8\")",
        };
        assert!(conds.iter().any(|c| c.contains(want)), "{f}: {conds:?}");
        outs.push((out, f.to_string()));
    }
    let outs: Vec<(&Path, &str)> = outs
        .iter()
        .map(|(o, n)| (o.as_path(), n.as_str()))
        .collect();
    cargo_test(&krate, &outs);
}

/// A crate that is a member of a workspace: cargo names its sources from the workspace's root
/// (`triangle/src/lib.rs`), which evotest looked for under the crate (`…/triangle/triangle/…`).
#[test]
fn a_workspace_member_crate_is_tested() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let krate = crate_copy("triangle", &ws);
    let manifest = krate.join("Cargo.toml");
    let own = std::fs::read_to_string(&manifest)
        .unwrap()
        .replace("[workspace]\n", "");
    std::fs::write(&manifest, own).unwrap();
    std::fs::write(
        ws.join("Cargo.toml"),
        "[workspace]\nmembers = [\"triangle\"]\nresolver = \"2\"\n",
    )
    .unwrap();
    let out = dir.path().join("out");
    let r = run_ok(
        &krate,
        "triangle",
        &out,
        &["--seed", "1", "--max-execs", "20000", "--max-time", "0"],
    );
    assert_eq!(
        r["branches_covered"],
        r["branches_total"],
        "uncovered {:?}",
        uncovered(&r)
    );
    // its tests run with cargo, in the workspace
    let text = cargo_test(&krate, &[(&out, "evotest")]);
    assert!(text.contains("test result: ok"), "{text}");
}

/// `a == "lit"` on `&str` is a call of `<&A as PartialEq<&B>>::eq`; when another crate of the
/// build already has that instance, rustc (-O0 shares generics) calls the other crate's copy,
/// which has no debug info here. The compare is still read as a string compare, from the
/// arguments' declared types or a temporary fat pointer beside a literal (it was a boolean
/// condition: 1,782 executions for `t == "https"`, and `u.scheme() == "https"` in a crate on
/// `url` was "suspected infeasible").
#[test]
fn string_equality_through_another_crate_s_instance_is_guided() {
    let dir = tempfile::tempdir().unwrap();
    let write = |rel: &str, text: &str| {
        let p = dir.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    write(
        "dep1/Cargo.toml",
        "[package]\nname = \"dep1\"\nversion = \"0.1.0\"\nedition = \"2021\"\n[workspace]\n",
    );
    write(
        "dep1/src/lib.rs",
        "pub fn is_z(a: &str) -> bool { a == \"zz\" }\n",
    );
    write(
        "streq/Cargo.toml",
        "[package]\nname = \"streq\"\nversion = \"0.1.0\"\nedition = \"2021\"\n[workspace]\n[dependencies]\ndep1 = { path = \"../dep1\" }\n",
    );
    write(
        "streq/src/lib.rs",
        "pub fn uses_dep(s: &str) -> bool { dep1::is_z(s) }\n\
         pub fn inner(s: &str) -> u32 {\n    let t: &str = s.get(1..6).unwrap_or(\"\");\n    if t == \"https\" { 1 } else { 0 }\n}\n\
         fn tail(s: &str) -> &str { s.get(2..).unwrap_or(\"\") }\n\
         pub fn temp(s: &str) -> u32 {\n    if tail(s) == \"https\" { 1 } else { 0 }\n}\n",
    );
    let krate = dir.path().join("streq");
    for f in ["inner", "temp"] {
        let r = run_ok(
            &krate,
            f,
            &dir.path().join(format!("out-{f}")),
            &["--seed", "1", "--max-execs", "500", "--max-time", "0"],
        );
        assert_eq!(
            r["branches_covered"],
            r["branches_total"],
            "{f}: uncovered {:?}",
            uncovered(&r)
        );
    }
}

/// A `bool` result is shown as `true`/`false` on the console, as in tests.rs (it was `= 0`).
#[test]
fn a_bool_result_is_shown_as_a_bool() {
    let dir = tempfile::tempdir().unwrap();
    let krate = crate_copy("samples", dir.path());
    let o = run_crate(
        &krate,
        "kinds::floats",
        &dir.path().join("out"),
        &["--seed", "1", "--max-execs", "2000", "--max-time", "0"],
    );
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let results: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("samples::kinds::floats(") && l.contains(") = "))
        .filter_map(|l| l.rsplit(") = ").next())
        .collect();
    assert!(
        !results.is_empty() && results.iter().all(|r| *r == "true" || *r == "false"),
        "{text}"
    );
}

/// An equality with a constant on an unsigned Rust integer reads as the source wrote it: `a ==
/// 200` for `a: u8`, not `a == -56` (Rust compares the i8 bit pattern directly, where C's
/// promotion to int kept the value).
#[test]
fn unsigned_constants_in_rust_conditions_read_unsigned() {
    let dir = tempfile::tempdir().unwrap();
    let krate = dir.path().join("ru8");
    std::fs::create_dir_all(krate.join("src")).unwrap();
    std::fs::write(
        krate.join("Cargo.toml"),
        "[package]\nname = \"ru8\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[lib]\npath = \"src/lib.rs\"\n",
    )
    .unwrap();
    std::fs::write(
        krate.join("src/lib.rs"),
        "pub fn f(a: u8, b: u16) -> u8 { if a == 200 { 7 } else if b == 40000 { 1 } else { 0 } }\n",
    )
    .unwrap();
    let out = dir.path().join("out");
    let r = run_ok(&krate, "f", &out, &["--max-execs", "2000", "--seed", "1"]);
    let conds: Vec<String> = r["sites"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["condition"].as_str().unwrap().to_string())
        .collect();
    assert!(conds.iter().any(|c| c == "a == 200"), "{conds:?}");
    assert!(conds.iter().any(|c| c == "b == 40000"), "{conds:?}");
    assert_eq!(r["branches_covered"], r["branches_total"], "{conds:?}");
}
