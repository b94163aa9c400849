//! Helpers for the end-to-end tests: run the `evotest` binary, read its JSON outputs.
#![allow(dead_code)]

use serde_json::Value;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Path of a file under the repository root.
pub fn path(rel: &str) -> PathBuf {
    root().join(rel)
}

/// The evotest binary, checking that the pass and runtime were built next to it.
pub fn evotest() -> Command {
    let exe = PathBuf::from(env!("CARGO_BIN_EXE_evotest"));
    let dir = exe.parent().unwrap();
    for f in ["libevotest_pass.so", "libevotest_rt.a"] {
        assert!(
            dir.join(f).is_file(),
            "{} missing: run `cargo build --workspace` (or `make test`) before `cargo test`",
            dir.join(f).display()
        );
    }
    let mut c = Command::new(exe);
    c.current_dir(root());
    c
}

/// Run `evotest COMMAND FILE -f FUNCTION --out OUT ARGS…`, which must succeed, and return its
/// output and the JSON file `json` it wrote in OUT.
pub fn invoke(
    command: &str,
    file: &str,
    function: &str,
    out: &Path,
    args: &[&str],
    json: &str,
) -> (Output, Value) {
    let o = evotest()
        .args([command, file, "-f", function, "--out"])
        .arg(out)
        .args(args)
        .output()
        .expect("run evotest");
    assert!(
        o.status.success(),
        "evotest {command} {file} -f {function} {args:?} failed:\n{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    let report = read_json(&out.join(json));
    (o, report)
}

/// Run `evotest run FILE -f FUNCTION --out OUT ARGS…` and return (output, report.json).
pub fn run(file: &str, function: &str, out: &Path, args: &[&str]) -> (Output, Value) {
    invoke("run", file, function, out, args, "report.json")
}

/// Run `evotest path FILE -f FUNCTION --out OUT ARGS…` and return paths.json.
pub fn path_run(file: &str, function: &str, out: &Path, args: &[&str]) -> Value {
    invoke("path", file, function, out, args, "paths.json").1
}

pub fn read_json(p: &Path) -> Value {
    let text = std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    serde_json::from_str(&text).unwrap()
}

/// Uncovered outcomes of a report as `(line, condition, label)`.
pub fn uncovered(report: &Value) -> Vec<(u64, String, String)> {
    let mut v = Vec::new();
    for s in report["sites"].as_array().unwrap() {
        for o in s["outcomes"].as_array().unwrap() {
            if o["goal"] == true && !o["covered"].as_bool().unwrap() {
                v.push((
                    s["line"].as_u64().unwrap(),
                    s["condition"].as_str().unwrap().to_string(),
                    o["label"].as_str().unwrap().to_string(),
                ));
            }
        }
    }
    v
}

/// Compile `tests.c` from `out` with plain clang-22, by the command its header documents, and run
/// it; `source` must be part of that build (included or linked). Returns the program's stdout;
/// panics if it does not compile or does not pass.
pub fn compile_and_run_tests_c(out: &Path, source: &str) -> String {
    compile_and_run_tests_c_with(out, &[source])
}

/// The build command documented in the header of `tests.c` in `out` (without `&& ./tests`).
pub fn tests_c_build_command(out: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(out.join("tests.c")).expect("tests.c");
    let line = text
        .lines()
        .map(|l| l.trim_start_matches(" *").trim())
        .find(|l| l.starts_with("clang-22 -o tests "))
        .unwrap_or_else(|| {
            panic!(
                "tests.c documents no build command:\n{}",
                &text[..text.len().min(1500)]
            )
        });
    line.split(" && ")
        .next()
        .unwrap()
        .split_whitespace()
        .map(String::from)
        .collect()
}

/// The steps the header of `tests.c` in `out` documents before its build command (`clang-22 -c
/// … &&` lines: another source with a `main`, compiled with it renamed).
pub fn tests_c_build_steps(out: &Path) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(out.join("tests.c")).expect("tests.c");
    text.lines()
        .map(|l| l.trim_start_matches(" *").trim())
        .filter(|l| l.starts_with("clang-22 -c ") && l.ends_with(" &&"))
        .map(|l| {
            l.trim_end_matches(" &&")
                .split_whitespace()
                .map(String::from)
                .collect()
        })
        .collect()
}

/// Build `tests.c` in `out` by its documented command with `extra` flags (which must succeed)
/// into `exe_name` beside it, and run it in `out`: its standard output, and whether it passed
/// (for a suite run against a changed source, or under a sanitizer or dialect of a user's).
pub fn build_and_run_tests_c(out: &Path, exe_name: &str, extra: &[&str]) -> (String, bool) {
    let cmd = tests_c_build_command(out);
    let exe = out.join(exe_name);
    let c = Command::new(&cmd[0])
        .arg("-o")
        .arg(&exe)
        .args(&cmd[3..])
        .args(extra)
        .current_dir(root())
        .output()
        .unwrap();
    assert!(
        c.status.success(),
        "tests.c does not build with {extra:?}:\n{}",
        String::from_utf8_lossy(&c.stderr)
    );
    let o = Command::new(&exe).current_dir(out).output().unwrap();
    (
        String::from_utf8_lossy(&o.stdout).to_string(),
        o.status.success(),
    )
}

/// As [`compile_and_run_tests_c`], with several sources.
pub fn compile_and_run_tests_c_with(out: &Path, sources: &[&str]) -> String {
    let text = std::fs::read_to_string(out.join("tests.c")).expect("tests.c");
    for step in tests_c_build_steps(out) {
        let c = Command::new(&step[0])
            .args(&step[1..])
            .current_dir(root())
            .output()
            .expect("clang-22");
        assert!(
            c.status.success(),
            "a step of tests.c's documented build fails {step:?}:\n{}",
            String::from_utf8_lossy(&c.stderr)
        );
    }
    let cmd = tests_c_build_command(out);
    for s in sources {
        let name = Path::new(s)
            .file_name()
            .unwrap()
            .to_string_lossy()
            .to_string();
        let stem = Path::new(s)
            .file_stem()
            .unwrap()
            .to_string_lossy()
            .to_string();
        assert!(
            cmd.iter()
                .any(|a| a.ends_with(&name) || a.ends_with(&format!("tests-{stem}.o")))
                || text
                    .lines()
                    .any(|l| l.starts_with("#include") && l.contains(&name)),
            "{s} is neither linked nor included by tests.c ({cmd:?})"
        );
    }
    let exe = out.join("tests-bin");
    // the documented `-o tests`, written where this test can own it
    let c = Command::new(&cmd[0])
        .arg("-o")
        .arg(&exe)
        .args(&cmd[3..])
        .current_dir(root())
        .output()
        .expect("clang-22");
    assert!(
        c.status.success(),
        "tests.c does not compile with its documented command {cmd:?}:\n{}",
        String::from_utf8_lossy(&c.stderr)
    );
    // in a process group of its own, killed afterwards (a tested function may fork a process
    // that lives on), and with its output in a file (such a process would keep a pipe open);
    // in the output directory, where the files a tested function writes land (not the checkout)
    let log = out.join("tests-bin.out");
    let mut child = Command::new(&exe)
        .current_dir(out)
        .stdout(std::fs::File::create(&log).unwrap())
        .stderr(std::process::Stdio::null())
        .process_group(0)
        .spawn()
        .unwrap();
    let status = child.wait().unwrap();
    unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
    let stdout = std::fs::read_to_string(&log).unwrap();
    assert!(status.success(), "tests.c failed:\n{stdout}");
    stdout
}

/// Assert that a failed run printed exactly one line, starting with `error:`, and no panic.
pub fn assert_one_line_error(o: &Output) -> String {
    assert!(!o.status.success(), "expected failure, got success");
    assert_eq!(o.status.code(), Some(2), "expected exit status 2");
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert!(!err.contains("panicked"), "panic: {err}");
    let lines: Vec<&str> = err.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "expected one line on stderr, got:\n{err}");
    assert!(lines[0].starts_with("error: "), "{}", lines[0]);
    lines[0].to_string()
}

/// Run `function` of `fixture` from the biased and the uniform start, seeds 1–3, with a cap of
/// `cap` executions each, and assert full coverage in every run (every outcome of the fixture's
/// functions is feasible).
pub fn covers_everything(fixture: &str, function: &str, cap: &str) {
    covers_everything_with(fixture, function, cap, &["1", "2", "3"], &[]);
}

/// [`covers_everything`] over `seeds`, with `extra` arguments (ranges, shapes) for every run.
pub fn covers_everything_with(
    fixture: &str,
    function: &str,
    cap: &str,
    seeds: &[&str],
    extra: &[&str],
) {
    for init in ["biased", "uniform"] {
        for &seed in seeds {
            let dir = tempfile::tempdir().unwrap();
            let mut args = vec![
                "--init",
                init,
                "--seed",
                seed,
                "--max-execs",
                cap,
                "--max-time",
                "0",
            ];
            args.extend_from_slice(extra);
            let (_, r) = run(fixture, function, dir.path(), &args);
            assert!(
                r["error"].is_null(),
                "{function} --init {init} --seed {seed}: error {}",
                r["error"]
            );
            assert_eq!(
                r["branches_covered"],
                r["branches_total"],
                "{function} --init {init} --seed {seed}: uncovered {:?}",
                uncovered(&r)
            );
        }
    }
}

/// `evotest-cc`, next to the `evotest` under test.
pub fn evotest_cc() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_evotest")).with_file_name("evotest-cc")
}

/// Build the libFuzzer-style harness `source` with `evotest-cc -O1 -fsanitize=fuzzer` into
/// `dir/h`.
pub fn build_fuzz_harness(dir: &Path, source: &str) -> PathBuf {
    build_fuzz_harness_env(dir, source, &[])
}

/// [`build_fuzz_harness`] with the variables `env` set for the compiler (the pass's options).
pub fn build_fuzz_harness_env(dir: &Path, source: &str, env: &[(&str, &str)]) -> PathBuf {
    let src = dir.join("h.c");
    std::fs::write(&src, source).unwrap();
    let exe = dir.join("h");
    let o = Command::new(evotest_cc())
        .envs(env.iter().copied())
        .arg("-O1")
        .arg("-fsanitize=fuzzer")
        .arg(&src)
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "evotest-cc failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    exe
}
