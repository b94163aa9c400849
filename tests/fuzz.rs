//! End-to-end tests of fuzzing (issue 12): harnesses built with `evotest-cc`/`evotest-cxx` from
//! `tests/fixtures/fuzz/`, fuzzed with `evotest fuzz`, and their reproducers run by hand.

mod common;

use common::*;
use serde_json::Value;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn cc() -> Command {
    Command::new(env!("CARGO_BIN_EXE_evotest-cc"))
}

fn cxx() -> Command {
    Command::new(env!("CARGO_BIN_EXE_evotest-cxx"))
}

/// Build fixture `name` with `compiler` and `flags` into `dir/out`.
fn build(compiler: Command, name: &str, flags: &[&str], dir: &Path, out: &str) -> PathBuf {
    let exe = dir.join(out);
    let mut c = compiler;
    let o = c
        .args(flags)
        .arg(path(&format!("tests/fixtures/fuzz/{name}")))
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "building {name} failed:\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    exe
}

/// A libFuzzer harness of fixture `name`, built as OSS-Fuzz does (`-fsanitize=fuzzer`).
fn harness(name: &str, dir: &Path) -> PathBuf {
    build(
        cc(),
        name,
        &["-g", "-O1", "-fsanitize=fuzzer"],
        dir,
        "harness",
    )
}

/// Run `evotest fuzz ARGS… --json -q` in `dir`; returns the output and the summary.
fn fuzz(dir: &Path, args: &[&str]) -> (Output, Value) {
    fuzz_env(dir, args, &[])
}

/// [`fuzz`] with variables `env` set for evotest and its target.
fn fuzz_env(dir: &Path, args: &[&str], env: &[(&str, &Path)]) -> (Output, Value) {
    // before any `--` (the target's arguments)
    let at = args.iter().position(|a| *a == "--").unwrap_or(args.len());
    let mut c = evotest();
    c.envs(env.iter().copied());
    let o = c
        .current_dir(dir)
        .arg("fuzz")
        .args(&args[..at])
        .args(["--json", "-q"])
        .args(&args[at..])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout).to_string();
    let v: Value = serde_json::from_str(&text).unwrap_or_else(|e| {
        panic!(
            "evotest fuzz {args:?}: no JSON summary ({e}):\n{text}\n{}",
            String::from_utf8_lossy(&o.stderr)
        )
    });
    (o, v)
}

fn files(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|r| {
            r.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| !n.starts_with('.'))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

#[test]
fn magic_value_crash_is_found_deduplicated_minimised_and_reproduced() {
    let d = tempfile::tempdir().unwrap();
    let h = harness("magic.c", d.path());
    let (o, s) = fuzz(
        d.path(),
        &[
            "harness",
            "corpus",
            "-seed=1",
            "-runs=60000",
            "-artifact_prefix=art/",
            "-exact_artifact_path=the-crash",
        ],
    );
    assert_eq!(
        o.status.code(),
        Some(1),
        "a run that found a crash exits 1:\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(s["unique_crashes"], 1, "{s:#}");
    assert!(
        s["crashes_total"].as_u64().unwrap() >= 2,
        "many crashing inputs, one unique crash: {s:#}"
    );
    let c = &s["crashes"][0];
    assert_eq!(c["kind"], "SIGSEGV");
    assert!(
        c["signature"].as_str().unwrap().contains("crash_here"),
        "{c:#}"
    );
    assert_eq!(c["minimized"], true);
    let art = d.path().join(c["artifact"].as_str().unwrap());
    assert_eq!(
        std::fs::read(&art).unwrap(),
        b"BUG!",
        "the minimised reproducer"
    );
    assert!(art
        .file_name()
        .unwrap()
        .to_string_lossy()
        .starts_with("crash-"));
    // -exact_artifact_path: the same bytes at exactly that path, the artifact kept as well
    assert_eq!(std::fs::read(d.path().join("the-crash")).unwrap(), b"BUG!");
    // the harness alone reproduces it, as a libFuzzer binary does
    let r = Command::new(&h).arg(&art).output().unwrap();
    assert_eq!(
        r.status.signal(),
        Some(libc::SIGSEGV),
        "{}",
        String::from_utf8_lossy(&r.stderr)
    );
    // corpus files are named by SHA-1 and run cleanly
    let corpus = files(&d.path().join("corpus"));
    assert!(
        corpus.len() >= 3 && corpus.iter().all(|n| n.len() == 40),
        "{corpus:?}"
    );
    let r = Command::new(&h)
        .arg(d.path().join("corpus"))
        .output()
        .unwrap();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    // stats
    let stats = read_json(&d.path().join("corpus/.evotest/main/fuzzer_stats.json"));
    assert_eq!(stats["done"], true, "{stats:#}");
    assert!(stats["execs_done"].as_u64().unwrap() >= 60000);
    assert!(d.path().join("corpus/.evotest/main/coverage.svg").is_file());
    assert!(
        std::fs::read_to_string(d.path().join("corpus/.evotest/main/coverage.csv"))
            .unwrap()
            .lines()
            .count()
            >= 2
    );
}

/// Two assertions in one function have the same stack; their locations make them two unique
/// crashes, each with its artifact, and a kept corpus still reports the second one when only
/// the first was recorded before (it used to exit 0 and keep no artifact).
#[test]
fn two_assertions_in_one_function_are_two_crashes() {
    let d = tempfile::tempdir().unwrap();
    harness("asserts.c", d.path());
    for (dir, bytes) in [("a", b"A"), ("b", b"B")] {
        std::fs::create_dir_all(d.path().join(dir)).unwrap();
        std::fs::write(d.path().join(dir).join("seed"), bytes).unwrap();
    }
    // the first bug alone, then both on the same corpus
    let (o, s) = fuzz(
        d.path(),
        &[
            "harness",
            "corpus",
            "a",
            "-runs=0",
            "-artifact_prefix=art1/",
        ],
    );
    assert_eq!(
        (o.status.code(), &s["unique_crashes"]),
        (Some(1), &serde_json::json!(1)),
        "{s:#}"
    );
    let (o, s) = fuzz(
        d.path(),
        &[
            "harness",
            "corpus",
            "a",
            "b",
            "-runs=0",
            "-artifact_prefix=art2/",
        ],
    );
    assert_eq!(o.status.code(), Some(1), "a new unique crash: {s:#}");
    let sigs: Vec<&str> = s["crashes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["signature"].as_str().unwrap())
        .collect();
    assert!(sigs.iter().any(|g| g.contains("asserts.c:9")), "{sigs:?}");
    assert_eq!(
        files(&d.path().join("art2")).len(),
        1,
        "the second bug's artifact"
    );
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("Assertion `c != 'B'' failed."),
        "the message is shown:\n{stderr}"
    );
}

/// An input that crashes after 0.3 s outlives the 0.1 s suspect limit of a fresh run: in-process
/// triage, -minimize_crash and -merge judge it at the whole timeout (the crash was dropped as a
/// hang that "did not recur", and -merge left the slow normal input's coverage out).
#[test]
fn slow_crashes_and_slow_inputs_are_judged_at_the_whole_timeout() {
    let d = tempfile::tempdir().unwrap();
    harness("slow.c", d.path());
    for (dir, bytes) in [("crash", &b"SLOWX"[..]), ("ok", &b"SLOW!"[..])] {
        std::fs::create_dir_all(d.path().join(dir)).unwrap();
        std::fs::write(d.path().join(dir).join("seed"), bytes).unwrap();
    }
    let (o, s) = fuzz(
        d.path(),
        &[
            "harness",
            "c1",
            "crash",
            "-runs=50",
            "-seed=1",
            "-timeout=5",
            "--in_process",
            "-artifact_prefix=art/",
        ],
    );
    assert_eq!(
        (o.status.code(), &s["unique_crashes"]),
        (Some(1), &serde_json::json!(1)),
        "{s:#}"
    );
    let o = evotest()
        .current_dir(d.path())
        .args([
            "fuzz",
            "harness",
            "-minimize_crash=1",
            "-timeout=5",
            "crash/seed",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("CRASH_MIN: crash/seed (SIGSEGV"), "{err}");
    let o = evotest()
        .current_dir(d.path())
        .args(["fuzz", "-merge=1", "-timeout=5", "harness", "merged", "ok"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        o.status.success() && err.contains("1 new files added to merged"),
        "{err}"
    );
}

/// A harness whose first call in every process takes 0.6 s (its set-up), with a 0.3 s timeout:
/// the first execution in a fresh process may take `FIRST_RUN_TIMEOUT_FACTOR` times the timeout,
/// so neither mode reports a timeout, the seed stays in the corpus and the run covers
/// everything. Before, every fresh fork-server child's first input timed out (the run stayed at
/// a few outcomes), and an in-process run stopped with its seed written as a timeout.
#[test]
fn a_slow_first_call_in_each_process_is_no_timeout() {
    let d = tempfile::tempdir().unwrap();
    harness("slow_first.c", d.path());
    std::fs::create_dir_all(d.path().join("seeds")).unwrap();
    std::fs::write(d.path().join("seeds").join("s"), b"OX").unwrap();
    for (k, mode) in ["--persistent=500", "--in_process"].into_iter().enumerate() {
        let corpus = format!("c{k}");
        let (o, s) = fuzz(
            d.path(),
            &[
                "harness",
                &corpus,
                "seeds",
                "-runs=2000",
                "-seed=1",
                "-timeout=0.3",
                mode,
            ],
        );
        assert!(
            o.status.success(),
            "{mode}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert_eq!(s["timeouts_total"], 0, "{mode}: {s:#}");
        assert_eq!(s["outcomes_covered"], s["outcomes_total"], "{mode}: {s:#}");
        assert!(
            files(&d.path().join(&corpus)).len() >= 2,
            "{mode}: {:?}",
            files(&d.path().join(&corpus))
        );
    }
}

#[test]
fn the_same_seed_gives_the_same_run() {
    let d = tempfile::tempdir().unwrap();
    harness("magic.c", d.path());
    let (_, a) = fuzz(d.path(), &["harness", "a", "-seed=7", "-runs=3000"]);
    let (_, b) = fuzz(d.path(), &["harness", "b", "-seed=7", "-runs=3000"]);
    assert_eq!(files(&d.path().join("a")), files(&d.path().join("b")));
    assert_eq!(a["executions"], b["executions"]);
}

/// Mutants of a known hang are dropped at the suspect limit (10 times the slowest execution, at
/// least 100 ms), not at the whole timeout: with a 2 s timeout, 12 s give many more timed-out
/// executions than the 6 that whole timeouts would allow (20 here; 4 before). The one kept as
/// an artifact was confirmed at the whole timeout. (The 64 MB limit makes the harness's slow
/// 1 GB inputs out-of-memory results, not the slowest normal execution.)
#[test]
fn known_hangs_cost_a_fraction_of_the_timeout() {
    let d = tempfile::tempdir().unwrap();
    harness("hang.c", d.path());
    let seeds = d.path().join("seeds");
    std::fs::create_dir_all(&seeds).unwrap();
    std::fs::write(seeds.join("h"), b"Hxx").unwrap();
    std::fs::write(seeds.join("a"), b"abc").unwrap();
    let (_, s) = fuzz(
        d.path(),
        &[
            "harness",
            "corpus",
            "seeds",
            "-seed=1",
            "-max_total_time=12",
            "-timeout=2",
            "-rss_limit_mb=64",
            "-artifact_prefix=art/",
        ],
    );
    let total = s["timeouts_total"].as_u64().unwrap();
    assert!(total >= 10, "{total} timed-out executions in 12 s: {s:#}");
    let kept = s["timeouts"].as_array().unwrap();
    assert!(!kept.is_empty() && kept.len() <= 2, "{s:#}");
    assert_eq!(
        std::fs::read(d.path().join(kept[0].as_str().unwrap())).unwrap()[0],
        b'H'
    );
}

#[test]
fn hangs_and_out_of_memory_are_classified() {
    let d = tempfile::tempdir().unwrap();
    harness("hang.c", d.path());
    // every hang costs its 1 s timeout: a time cap as well as -runs (nothing below depends on the
    // guide's credit, which a time cap makes count seconds)
    let (o, s) = fuzz(
        d.path(),
        &[
            "harness",
            "corpus",
            "-seed=2",
            "-runs=4000",
            "-max_total_time=90",
            "-timeout=1",
            "-rss_limit_mb=64",
            "-artifact_prefix=art/",
        ],
    );
    // no crash; a timeout kept: libFuzzer's exit code for it
    assert_eq!(
        o.status.code(),
        Some(70),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(s["unique_crashes"], 0, "{s:#}");
    let first_bytes = |key: &str, prefix: &str| -> Vec<u8> {
        s[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| d.path().join(p.as_str().unwrap()))
            .inspect(|p| {
                assert!(
                    p.file_name().unwrap().to_string_lossy().starts_with(prefix),
                    "{}",
                    p.display()
                )
            })
            .map(|p| std::fs::read(p).unwrap()[0])
            .collect()
    };
    assert!(first_bytes("timeouts", "timeout-").contains(&b'H'), "{s:#}");
    assert!(first_bytes("ooms", "oom-").contains(&b'M'), "{s:#}");
    // every execution that timed out is counted, kept or not
    assert!(
        s["timeouts_total"].as_u64().unwrap() >= s["timeouts"].as_array().unwrap().len() as u64,
        "{s:#}"
    );
    assert!(
        s["ooms_total"].as_u64().unwrap() >= s["ooms"].as_array().unwrap().len() as u64,
        "{s:#}"
    );
}

#[test]
fn whole_programs_reading_stdin_or_a_file_are_fuzzed() {
    let d = tempfile::tempdir().unwrap();
    let p = build(cc(), "stdin_prog.c", &["-g", "-O1"], d.path(), "stdin_prog");
    // still an ordinary program
    let mut c = Command::new(&p)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    c.stdin.take().unwrap().write_all(b"hello").unwrap();
    let out = c.wait_with_output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "read 5 bytes\n");
    let (_, s) = fuzz(
        d.path(),
        &[
            "stdin_prog",
            "c1",
            "-seed=1",
            "-runs=20000",
            "--stop-on-crash",
        ],
    );
    assert_eq!(s["delivery"], "stdin");
    assert_eq!(s["unique_crashes"], 1, "{s:#}");
    assert_eq!(s["crashes"][0]["kind"], "SIGABRT");
    assert!(first_crash(d.path(), &s).starts_with(b"XYZ"));

    // the program changes directory before it opens its input, and the corpus directory is
    // relative: the input file's path must be absolute (it was not, and nothing was read)
    build(cc(), "file_prog.c", &["-g", "-O1"], d.path(), "file_prog");
    let (_, s) = fuzz(
        d.path(),
        &[
            "file_prog",
            "c2",
            "-seed=1",
            "-runs=20000",
            "--stop-on-crash",
            "--",
            "@@",
        ],
    );
    assert_eq!(s["delivery"], "file");
    assert_eq!(s["unique_crashes"], 1, "{s:#}");
    assert!(first_crash(d.path(), &s).starts_with(b"FILE"));
    let art = d.path().join(s["crashes"][0]["artifact"].as_str().unwrap());
    let r = Command::new(d.path().join("file_prog"))
        .arg(&art)
        .output()
        .unwrap();
    assert_eq!(r.status.signal(), Some(libc::SIGABRT));
    // `@@` inside an argument is replaced too, as AFL++ does (it was passed as it was, and the
    // program was fuzzed through standard input it never read)
    let (_, s) = fuzz(
        d.path(),
        &[
            "file_prog",
            "c3",
            "-seed=1",
            "-runs=20000",
            "--stop-on-crash",
            "--",
            "--in=@@",
        ],
    );
    assert_eq!(s["delivery"], "file");
    assert_eq!(s["unique_crashes"], 1, "{s:#}");
    // --input_extension names the file as AFL++'s -e does: the program reads a .txt file as text
    std::fs::create_dir(d.path().join("text")).unwrap();
    std::fs::write(d.path().join("text/t"), b"TEXT").unwrap();
    let (_, s) = fuzz(
        d.path(),
        &["file_prog", "c4", "text", "-runs=0", "--", "@@"],
    );
    assert_eq!(s["unique_crashes"], 0, "{s:#}");
    let (_, s) = fuzz(
        d.path(),
        &[
            "file_prog",
            "c5",
            "text",
            "-runs=0",
            "--input_extension=txt",
            "--",
            "@@",
        ],
    );
    assert_eq!(s["unique_crashes"], 1, "{s:#}");
    assert!(first_crash(d.path(), &s).starts_with(b"TEXT"), "{s:#}");
}

/// A whole program's non-zero exit is a crash only for a report of a sanitizer it is built
/// with: a program without one that echoes its input in an error message is not crashing when
/// the input holds a sanitizer report's text (found on yajl's json_verify, whose parse error
/// echoes the input: `{"a": runtime error: }` was a unique crash).
#[test]
fn report_text_from_a_program_without_sanitizers_is_not_a_crash() {
    let d = tempfile::tempdir().unwrap();
    build(cc(), "echo_error.c", &["-g", "-O1"], d.path(), "echo_error");
    let report = b"==1==ERROR: AddressSanitizer: heap-buffer-overflow\nSUMMARY: AddressSanitizer: heap-buffer-overflow x\n";
    seed_dir(
        d.path(),
        &[("ub", b"{\"a\": runtime error: }"), ("asan", report)],
    );
    let (o, s) = fuzz(d.path(), &["echo_error", "corpus", "seeds", "-runs=0"]);
    assert_eq!(s["unique_crashes"], 0, "{s:#}");
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// A crash after more than a megabyte of standard error keeps its stack (evotest keeps the
/// first and the last half megabyte): two crash sites are two unique crashes, each with its
/// function (with the first megabyte only, both were "SIGABRT, no stack" and one was lost).
#[test]
fn a_crash_after_megabytes_of_standard_error_keeps_its_stack() {
    let d = tempfile::tempdir().unwrap();
    build(cc(), "noisy_crash.c", &["-g", "-O1"], d.path(), "noisy");
    seed_dir(d.path(), &[("a", b"AAAA"), ("b", b"BBBB")]);
    let (_, s) = fuzz(
        d.path(),
        &[
            "noisy",
            "corpus",
            "seeds",
            "-runs=0",
            "-artifact_prefix=art/",
        ],
    );
    assert_eq!(s["unique_crashes"], 2, "{s:#}");
    let frames: Vec<String> = s["crashes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["frames"].to_string())
        .collect();
    assert!(
        frames.iter().any(|f| f.contains("crash_a"))
            && frames.iter().any(|f| f.contains("crash_b")),
        "{frames:?}"
    );
}

#[test]
fn a_cxx_harness_is_fuzzed() {
    let d = tempfile::tempdir().unwrap();
    let h = build(
        cxx(),
        "cxx_harness.cc",
        &["-g", "-O1", "-fsanitize=fuzzer"],
        d.path(),
        "harness",
    );
    let (_, s) = fuzz(
        d.path(),
        &[
            "harness",
            "corpus",
            "-seed=1",
            "-runs=40000",
            "--stop-on-crash",
        ],
    );
    assert_eq!(s["unique_crashes"], 1, "{s:#}");
    let c = &s["crashes"][0];
    assert_eq!(c["kind"], "SIGABRT");
    let frames = c["frames"].to_string();
    assert!(frames.contains("LLVMFuzzerTestOneInput"), "{frames}");
    let art = d.path().join(c["artifact"].as_str().unwrap());
    assert!(std::fs::read(&art).unwrap().starts_with(b"CXX"));
    assert_eq!(
        Command::new(&h).arg(&art).output().unwrap().status.signal(),
        Some(libc::SIGABRT)
    );
}

#[test]
fn a_harness_linked_with_an_instrumented_shared_library_is_fuzzed() {
    // as `CC=evotest-cc ./configure && make` builds a library by default: shared
    let d = tempfile::tempdir().unwrap();
    build(
        cc(),
        "shlib_lib.c",
        &["-g", "-O1", "-fPIC", "-shared"],
        d.path(),
        "libshlib.so",
    );
    let rpath = format!("-Wl,-rpath,{}", d.path().display());
    let libdir = format!("-L{}", d.path().display());
    let h = {
        let mut c = cc();
        c.args(["-g", "-O1", "-fsanitize=fuzzer"])
            .arg(path("tests/fixtures/fuzz/shlib_harness.c"))
            .args([libdir.as_str(), "-lshlib", rpath.as_str()]);
        let exe = d.path().join("harness");
        let o = c.arg("-o").arg(&exe).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        exe
    };
    for mode in [&[][..], &["--in_process"][..]] {
        let corpus = if mode.is_empty() { "corpus" } else { "corpus2" };
        let mut args = vec![
            "harness",
            corpus,
            "-seed=1",
            "-runs=40000",
            "--stop-on-crash",
        ];
        args.extend_from_slice(mode);
        let (o, s) = fuzz(d.path(), &args);
        assert!(
            s["unique_crashes"] == 1,
            "{mode:?}: {s:#}\n{}",
            String::from_utf8_lossy(&o.stderr)
        );
        // the library's outcomes are among the outcomes: more than the harness's own
        assert!(s["outcomes_total"].as_u64().unwrap() >= 10, "{s:#}");
        assert!(first_crash(d.path(), &s).starts_with(b"LIB!"));
    }
    assert!(h.exists());
    // with an uninstrumented copy of the library first in LD_LIBRARY_PATH (the system's copy of
    // a library a project also builds), the run says which copy is loaded and where the
    // instrumented one is
    let sys = d.path().join("sys");
    std::fs::create_dir(&sys).unwrap();
    build(
        Command::new("clang-22"),
        "shlib_lib.c",
        &["-g", "-O1", "-fPIC", "-shared"],
        &sys,
        "libshlib.so",
    );
    let o = evotest()
        .current_dir(d.path())
        .env("LD_LIBRARY_PATH", &sys)
        .args(["fuzz", "harness", "corpus3", "-runs=10"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    let want = format!(
        "{} is loaded without evotest's instrumentation; an instrumented copy is {}",
        sys.join("libshlib.so").display(),
        d.path().join("libshlib.so").display()
    );
    assert!(err.contains(&want), "{err}");
    // and with no copy the loader finds: its own message, not a guess at the runtime (it said
    // "did not start as a fork server (exit status: 127); is it linked with the evotest runtime?")
    std::fs::rename(d.path().join("libshlib.so"), d.path().join("moved.so")).unwrap();
    let o = evotest()
        .current_dir(d.path())
        .env_remove("LD_LIBRARY_PATH")
        .args(["fuzz", "harness", "corpus4", "-runs=10"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("did not start: ")
            && err.contains("error while loading shared libraries: libshlib.so")
            && err.contains("LD_LIBRARY_PATH"),
        "{err}"
    );
}

#[test]
fn an_asan_heap_overflow_is_reported_with_its_frames() {
    let d = tempfile::tempdir().unwrap();
    let h = build(
        cc(),
        "asan_overflow.c",
        &["-g", "-O1", "-fsanitize=address,fuzzer"],
        d.path(),
        "harness",
    );
    let (_, s) = fuzz(
        d.path(),
        &[
            "harness",
            "corpus",
            "-seed=1",
            "-runs=40000",
            "--stop-on-crash",
        ],
    );
    assert_eq!(s["unique_crashes"], 1, "{s:#}");
    let c = &s["crashes"][0];
    assert_eq!(c["kind"], "heap-buffer-overflow", "{c:#}");
    assert_eq!(c["sanitizer"], "AddressSanitizer");
    let frames: Vec<String> = c["frames"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap().to_string())
        .collect();
    let copy = frames
        .iter()
        .position(|f| f.starts_with("copy_name") && f.contains("asan_overflow.c:"));
    let entry = frames
        .iter()
        .position(|f| f.starts_with("LLVMFuzzerTestOneInput"));
    assert!(copy.is_some() && copy < entry, "frames: {frames:#?}");
    assert!(c["signature"].as_str().unwrap().contains("copy_name"));
    // the reproducer, run by hand, gets AddressSanitizer's report
    let art = d.path().join(c["artifact"].as_str().unwrap());
    let r = Command::new(&h).arg(&art).output().unwrap();
    assert!(!r.status.success());
    assert!(String::from_utf8_lossy(&r.stderr).contains("heap-buffer-overflow"));
}

/// An `abort()` in a harness built with AddressSanitizer, run by hand on the input: the stack is
/// printed with function names and source lines, as libFuzzer's handler prints it (ASan leaves
/// SIGABRT alone; evotest's handler printed addresses only), and the process still dies by the
/// signal.
#[test]
fn an_abort_run_by_hand_under_asan_prints_a_symbolised_stack() {
    let d = tempfile::tempdir().unwrap();
    let h = build(
        cc(),
        "asserts.c",
        &["-g", "-O1", "-fsanitize=address,fuzzer"],
        d.path(),
        "harness",
    );
    std::fs::write(d.path().join("a"), b"A").unwrap();
    let r = Command::new(&h).arg(d.path().join("a")).output().unwrap();
    let err = String::from_utf8_lossy(&r.stderr);
    assert_eq!(r.status.signal(), Some(libc::SIGABRT), "{err}");
    assert!(err.contains("deadly signal 6"), "{err}");
    assert!(
        err.contains("in check")
            && err.contains("asserts.c:")
            && err.contains("in LLVMFuzzerTestOneInput"),
        "{err}"
    );
}

/// A memory leak is a crash of its own, `leak-<sha1>`, as with libFuzzer's -detect_leaks=1; an
/// input that frees what it allocates is not; -detect_leaks=0 turns the check off.
#[test]
fn a_memory_leak_is_reported_as_libfuzzer_does() {
    let d = tempfile::tempdir().unwrap();
    build(
        cc(),
        "leak.c",
        &["-g", "-O1", "-fsanitize=address,fuzzer"],
        d.path(),
        "harness",
    );
    for (dir, bytes) in [("leaky", &b"LEAK"[..]), ("clean", &b"LEAX"[..])] {
        std::fs::create_dir_all(d.path().join(dir)).unwrap();
        std::fs::write(d.path().join(dir).join("seed"), bytes).unwrap();
    }
    let (o, s) = fuzz(d.path(), &["harness", "c1", "clean", "-runs=0"]);
    assert_eq!(
        (o.status.code(), &s["unique_crashes"]),
        (Some(0), &serde_json::json!(0)),
        "{s:#}"
    );
    let (o, s) = fuzz(
        d.path(),
        &["harness", "c2", "leaky", "-runs=0", "-artifact_prefix=art/"],
    );
    assert_eq!(
        (o.status.code(), &s["unique_crashes"]),
        (Some(1), &serde_json::json!(1)),
        "{s:#}"
    );
    let c = &s["crashes"][0];
    assert_eq!(
        (&c["kind"], &c["sanitizer"]),
        (
            &serde_json::json!("memory-leak"),
            &serde_json::json!("LeakSanitizer")
        ),
        "{c:#}"
    );
    assert!(
        c["artifact"].as_str().unwrap().starts_with("art/leak-"),
        "{c:#}"
    );
    assert!(
        c["signature"]
            .as_str()
            .unwrap()
            .contains("LLVMFuzzerTestOneInput"),
        "{c:#}"
    );
    let (_, s) = fuzz(
        d.path(),
        &["harness", "c3", "leaky", "-runs=0", "-detect_leaks=0"],
    );
    assert_eq!(s["unique_crashes"], 0, "{s:#}");
    // in-process, leaks go unchecked: a warning says so, not silence with exit 0
    let (o, _) = fuzz(
        d.path(),
        &["harness", "c4", "clean", "-runs=10", "--in_process"],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("warning: memory leaks are not checked with --in_process"),
        "{err}"
    );
    let (o, _) = fuzz(
        d.path(),
        &[
            "harness",
            "c5",
            "clean",
            "-runs=10",
            "--in_process",
            "-detect_leaks=0",
        ],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("memory leaks are not checked"), "{err}");
}

#[test]
fn jobs_share_one_corpus_directory() {
    let d = tempfile::tempdir().unwrap();
    harness("magic.c", d.path());
    // without guidance: with it, both workers solve magic.c in a few dozen executions by the same
    // input-to-state steps, write the same files, and have nothing to exchange
    let (run_out, s) = fuzz(
        d.path(),
        &[
            "harness",
            "corpus",
            "-seed=1",
            "-j",
            "2",
            "-max_total_time=6",
            "-sync_interval=0.3",
            "-artifact_prefix=art/",
            "--guidance=off",
        ],
    );
    assert_eq!(s["workers"], 2);
    let w = s["worker_stats"].as_array().unwrap();
    assert_eq!(w.len(), 1, "{s:#}");
    assert_eq!(w[0]["worker"], "worker-1");
    assert!(w[0]["execs_done"].as_u64().unwrap() > 0);
    let main = read_json(&d.path().join("corpus/.evotest/main/fuzzer_stats.json"));
    // each ran inputs the other wrote
    let synced = main["corpus_synced"].as_u64().unwrap() + w[0]["corpus_synced"].as_u64().unwrap();
    assert!(
        synced > 0,
        "no input crossed between the workers: {main:#} {w:#?}"
    );
    assert!(s["executions"].as_u64().unwrap() > main["execs_done"].as_u64().unwrap());
    // the summary's coverage is the union of the workers' (at least what the shared corpus
    // covers when merged), not the larger of the two
    let o = evotest()
        .current_dir(d.path())
        .args(["fuzz", "harness", "-merge=1", "merged", "corpus", "--json"])
        .output()
        .unwrap();
    let m: Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stderr)));
    assert!(
        s["outcomes_covered"].as_u64() >= m["outcomes_after"].as_u64(),
        "{s:#} {m:#}"
    );
    // one crash, found by either, recorded once, and announced once on the console whichever
    // found it (worker-1's was announced nowhere but in the summary)
    assert_eq!(s["unique_crashes"], 1, "{s:#}");
    let err = String::from_utf8_lossy(&run_out.stderr);
    assert_eq!(
        err.matches("==evotest== unique crash #").count()
            + err
                .matches("==evotest== unique crash found by worker-1")
                .count(),
        1,
        "{err}"
    );
    assert_eq!(
        files(&d.path().join("art"))
            .iter()
            .filter(|n| n.starts_with("crash-"))
            .count(),
        1
    );
}

#[test]
fn kill_9_loses_no_corpus_entry_and_no_crash() {
    let d = tempfile::tempdir().unwrap();
    harness("magic.c", d.path());
    let mut child = evotest()
        .current_dir(d.path())
        .args([
            "fuzz",
            "harness",
            "corpus",
            "-seed=3",
            "-max_total_time=120",
            "-artifact_prefix=art/",
            "-q",
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    let art = d.path().join("art");
    while files(&art).iter().all(|n| !n.starts_with("crash-")) {
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "no crash found within 60 s"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(300));
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let corpus_before = files(&d.path().join("corpus"));
    let crashes_before: Vec<String> = files(&art)
        .into_iter()
        .filter(|n| n.starts_with("crash-"))
        .collect();
    assert!(!corpus_before.is_empty());
    // without input reduction, which replaces an entry's file by a shorter one's by design (the
    // kill's moment decides the corpus, and so whether the restart finds one to shorten)
    let (_, s) = fuzz(
        d.path(),
        &[
            "harness",
            "corpus",
            "-seed=4",
            "-runs=2000",
            "-artifact_prefix=art/",
            "-reduce_inputs=0",
        ],
    );
    let corpus_after = files(&d.path().join("corpus"));
    for f in &corpus_before {
        assert!(corpus_after.contains(f), "corpus entry {f} lost");
    }
    assert!(s["corpus_count"].as_u64().unwrap() as usize >= corpus_before.len());
    // every entry was written whole: each is a file named by the SHA-1 of its content
    for f in &corpus_after {
        let data = std::fs::read(d.path().join("corpus").join(f)).unwrap();
        let o = Command::new("sha1sum")
            .arg(d.path().join("corpus").join(f))
            .output()
            .unwrap();
        assert!(
            String::from_utf8_lossy(&o.stdout).starts_with(f.as_str()),
            "{f}: {} bytes, not its SHA-1",
            data.len()
        );
    }
    // the crash is still there and still known
    assert!(s["unique_crashes"].as_u64().unwrap() >= 1, "{s:#}");
    let after: Vec<String> = files(&art);
    assert!(
        crashes_before.iter().all(|c| after.contains(c)) || s["crashes"][0]["minimized"] == true,
        "{crashes_before:?} -> {after:?}"
    );
    assert!(after.iter().any(|n| n.starts_with("crash-")));
}

/// A UBSan report the binary was compiled to recover from (plain `-fsanitize=undefined`) is no
/// crash, as under libFuzzer: the code behind it is fuzzed (`v == "DOG!"` needs the report's
/// input first). It was a crash, whose artifact exited 0 when the harness ran it. With
/// `UBSAN_OPTIONS=halt_on_error=1` it is one.
#[test]
fn recoverable_ubsan_reports_are_recovered_from_as_libfuzzer_does() {
    let d = tempfile::tempdir().unwrap();
    build(
        cc(),
        "ub_recover.c",
        &["-g", "-O1", "-fsanitize=fuzzer,undefined"],
        d.path(),
        "harness",
    );
    let (o, s) = fuzz(
        d.path(),
        &[
            "harness",
            "corpus",
            "-seed=1",
            "-runs=30000",
            "-artifact_prefix=art/",
        ],
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(s["unique_crashes"], 0, "{s:#}");
    assert_eq!(
        s["outcomes_covered"], s["outcomes_total"],
        "the branch behind the report: {s:#}"
    );
    let halt = d.path().join("halt");
    std::fs::create_dir(&halt).unwrap();
    let o = evotest()
        .current_dir(d.path())
        .env("UBSAN_OPTIONS", "halt_on_error=1")
        .args([
            "fuzz",
            "harness",
            "corpus2",
            "-seed=1",
            "-runs=30000",
            "-artifact_prefix=halt/",
            "--json",
            "-q",
        ])
        .output()
        .unwrap();
    let s: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(s["unique_crashes"], 1, "{s:#}");
}

/// A crash file in the artifact directory that evotest did not write (libFuzzer's, named the
/// same way) is left alone: not run, not claimed as this run's crash, not minimised away (it was
/// deleted, and a crash the run never found was reported).
#[test]
fn crash_files_evotest_did_not_write_are_left_alone() {
    let d = tempfile::tempdir().unwrap();
    harness("magic.c", d.path());
    let art = d.path().join("art");
    std::fs::create_dir_all(&art).unwrap();
    let theirs = art.join("crash-fb74d0d2d6ab2a6d1b9e5e5d31d1c9ed4b6c0f1a");
    std::fs::write(&theirs, b"BUG!and more bytes").unwrap();
    let (o, s) = fuzz(
        d.path(),
        &[
            "harness",
            "corpus",
            "-seed=1",
            "-runs=1",
            "-artifact_prefix=art/",
        ],
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(s["unique_crashes"], 0, "{s:#}");
    assert_eq!(std::fs::read(&theirs).unwrap(), b"BUG!and more bytes");
    assert_eq!(
        files(&art),
        vec!["crash-fb74d0d2d6ab2a6d1b9e5e5d31d1c9ed4b6c0f1a".to_string()]
    );
}

/// Run by hand, the harness takes libFuzzer's -timeout and -rss_limit_mb (exits 70 and 71, as
/// libFuzzer's binaries do), prints the stack of a crash without a sanitizer, and -help=1 is
/// help, not a run on standard input.
#[test]
fn harness_by_hand_reproduces_hangs_and_out_of_memory_as_libfuzzer_s_does() {
    let d = tempfile::tempdir().unwrap();
    let h = harness("hang.c", d.path());
    std::fs::write(d.path().join("h"), b"H").unwrap();
    std::fs::write(d.path().join("m"), b"M").unwrap();
    let t0 = std::time::Instant::now();
    let o = Command::new(&h)
        .args(["-timeout=1", "h"])
        .current_dir(d.path())
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(70),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(t0.elapsed() < std::time::Duration::from_secs(10));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("timeout after 1 seconds"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let o = Command::new(&h)
        .args(["-rss_limit_mb=64", "m"])
        .current_dir(d.path())
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(71),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let o = Command::new(&h)
        .args(["-help=1"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(
        o.status.success() && String::from_utf8_lossy(&o.stderr).contains("usage:"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let m = harness("magic.c", d.path());
    std::fs::write(d.path().join("bug"), b"BUG!").unwrap();
    let o = Command::new(&m)
        .arg("bug")
        .current_dir(d.path())
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("deadly signal 11"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn harness_runs_files_by_hand_and_calls_initialize() {
    let d = tempfile::tempdir().unwrap();
    let h = harness("init.c", d.path());
    std::fs::write(d.path().join("ok"), b"hello").unwrap();
    std::fs::create_dir(d.path().join("dir")).unwrap();
    std::fs::write(d.path().join("dir/a"), b"x").unwrap();
    std::fs::write(d.path().join("dir/b"), b"y").unwrap();
    // files, and a directory without a fuzzing flag, are run once each
    let r = Command::new(&h)
        .args(["-runs=10", "ok", "dir/a"])
        .arg(d.path().join("dir/b"))
        .current_dir(d.path())
        .output()
        .unwrap();
    assert!(r.status.success());
    let err = String::from_utf8_lossy(&r.stderr);
    assert_eq!(err.matches("Running: ").count(), 3, "{err}");
    assert_eq!(err.matches("Executed ").count(), 3, "{err}");
    let r = Command::new(&h)
        .args(["ok"])
        .arg(d.path().join("dir"))
        .current_dir(d.path())
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&r.stderr)
            .matches("Executed ")
            .count(),
        3
    );
    std::fs::write(d.path().join("init"), b"INIT").unwrap();
    assert_eq!(
        Command::new(&h)
            .arg(d.path().join("init"))
            .output()
            .unwrap()
            .status
            .signal(),
        Some(libc::SIGABRT)
    );
    // under the engine, LLVMFuzzerInitialize runs too, and what it wrote is shown once (the
    // fork server hid it: a harness without its file made a run that looked normal)
    let (o, s) = fuzz(
        d.path(),
        &[
            "harness",
            "corpus",
            "-seed=1",
            "-runs=40000",
            "--stop-on-crash",
        ],
    );
    assert_eq!(s["unique_crashes"], 1, "{s:#}");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(
        err.matches("unable to parse file 'settings.xml'").count(),
        1,
        "{err}"
    );
    assert!(err.contains("while starting"), "{err}");
    let (o, _) = fuzz(
        d.path(),
        &[
            "harness",
            "corpus2",
            "-seed=1",
            "-runs=100",
            "-close_fd_mask=2",
        ],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !err.contains("settings.xml"),
        "-close_fd_mask=2 hides it: {err}"
    );
}

/// Run by hand where a libFuzzer binary would fuzz (-runs or -max_total_time with a corpus
/// directory, -merge, -jobs …), the harness runs `evotest fuzz` on itself with its arguments, so
/// that a project's fuzz script fuzzes (it ran each file once and passed, crash or not).
#[test]
fn a_harness_run_by_hand_to_fuzz_hands_itself_to_evotest() {
    let d = tempfile::tempdir().unwrap();
    let h = harness("magic.c", d.path());
    std::fs::create_dir(d.path().join("corpus")).unwrap();
    let evotest_bin = PathBuf::from(env!("CARGO_BIN_EXE_evotest"));
    let r = Command::new(&h)
        .args(["-runs=30000", "-seed=1", "-artifact_prefix=art/", "corpus"])
        .env("EVOTEST", &evotest_bin)
        .current_dir(d.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&r.stderr);
    assert_eq!(
        r.status.code(),
        Some(1),
        "the crash, found by fuzzing: {err}"
    );
    assert!(
        err.contains("evotest fuzz: ") && err.contains("1 unique crash"),
        "{err}"
    );
    assert!(
        !files(&d.path().join("corpus")).is_empty() && !files(&d.path().join("art")).is_empty()
    );
    // an option of the harness's own (`--special`, which libFuzzer leaves to
    // LLVMFuzzerInitialize) reaches the harness, and is no error of evotest's
    let a = build(
        cc(),
        "args.c",
        &["-g", "-O1", "-fsanitize=fuzzer"],
        d.path(),
        "args",
    );
    std::fs::create_dir(d.path().join("corpus-args")).unwrap();
    let r = Command::new(&a)
        .args([
            "--special",
            "-runs=2000",
            "-seed=1",
            "-artifact_prefix=art-args/",
            "corpus-args",
        ])
        .env("EVOTEST", &evotest_bin)
        .current_dir(d.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&r.stderr);
    assert_eq!(
        r.status.code(),
        Some(1),
        "the crash only --special makes: {err}"
    );
    assert!(err.contains("1 unique crash"), "{err}");
    // a corpus and a seed directory with -max_len, no budget (a project's `make fuzz`): fuzzed
    // until stopped, as a libFuzzer binary is
    std::fs::create_dir(d.path().join("seeds")).unwrap();
    let mut child = Command::new(&h)
        .args(["corpus", "seeds", "-max_len=64", "-artifact_prefix=art2/"])
        .env("EVOTEST", &evotest_bin)
        .current_dir(d.path())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_secs(3));
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let status = child.wait().unwrap();
    let mut err = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
    assert!(
        err.contains("evotest fuzz: ") && err.contains(" executions in "),
        "{status:?}: {err}"
    );
    // no input at all: fuzzed with a temporary corpus, as libFuzzer fuzzes with one in memory
    let r = Command::new(&h)
        .args(["-runs=500", "-seed=1"])
        .env("EVOTEST", &evotest_bin)
        .current_dir(d.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(
        matches!(r.status.code(), Some(0) | Some(1)) && err.contains("no corpus directory given"),
        "{err}"
    );
    assert!(err.contains(" executions in "), "{err}");
}

#[test]
fn merge_and_minimize_crash_do_what_libfuzzer_does() {
    let d = tempfile::tempdir().unwrap();
    let h = harness("magic.c", d.path());
    let inputs = d.path().join("in");
    std::fs::create_dir(&inputs).unwrap();
    for (i, data) in [
        &b"OK"[..],
        b"OKOK",
        b"OK!",
        b"B",
        b"BU",
        b"BUx",
        b"zz",
        b"BUG",
    ]
    .iter()
    .enumerate()
    {
        std::fs::write(inputs.join(format!("i{i}")), data).unwrap();
    }
    std::fs::write(inputs.join("crashy"), b"BUG!!").unwrap();
    let o = evotest()
        .current_dir(d.path())
        .args(["fuzz", "harness", "--merge", "out", "in", "--json"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let m: Value = serde_json::from_slice(&o.stdout).unwrap();
    let merged = files(&d.path().join("out"));
    // libFuzzer's form without the harness (`-merge=1 OUT IN`): the first directory is no
    // harness, said in one line
    let o2 = evotest()
        .current_dir(d.path())
        .args(["fuzz", "-merge=1", "out", "in"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o2.stderr);
    assert_eq!(o2.status.code(), Some(2), "{err}");
    assert!(
        err.contains("out is a directory, not a harness") && err.trim().lines().count() == 1,
        "{err}"
    );
    // smallest first: "B", then "OK" and "BU" ("zz" adds nothing to "BU"; "OK!", "BUx" and
    // "BUG" nothing to those: the magic bytes are read only when n >= 4), then "OKOK"
    assert_eq!(m["added"], 4, "{m:#}");
    assert_eq!(merged.len(), 4);
    assert_eq!(m["faulty"].as_array().unwrap().len(), 1);
    // merging again adds nothing
    let o = evotest()
        .current_dir(d.path())
        .args(["fuzz", "harness", "-merge=1", "out", "in", "--json"])
        .output()
        .unwrap();
    let m: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(m["added"], 0);

    std::fs::write(
        d.path().join("big-crash"),
        b"BUG!and a long tail of bytes that do not matter",
    )
    .unwrap();
    let o = evotest()
        .current_dir(d.path())
        .args(["fuzz", "harness", "--minimize-crash", "big-crash", "--json"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let m: Value = serde_json::from_slice(&o.stdout).unwrap();
    let out = d.path().join(m["output"].as_str().unwrap());
    assert!(out
        .file_name()
        .unwrap()
        .to_string_lossy()
        .starts_with("minimized-from-"));
    assert_eq!(std::fs::read(&out).unwrap(), b"BUG!");
    assert_eq!(
        Command::new(&h).arg(&out).output().unwrap().status.signal(),
        Some(libc::SIGSEGV)
    );
    // -exact_artifact_path names the minimised file, as ClusterFuzz's minimisation expects
    let o = evotest()
        .current_dir(d.path())
        .args([
            "fuzz",
            "harness",
            "-minimize_crash=1",
            "-exact_artifact_path=min.bin",
            "big-crash",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(std::fs::read(d.path().join("min.bin")).unwrap(), b"BUG!");
    // a file that does not crash is refused in one line
    let o = evotest()
        .current_dir(d.path())
        .args(["fuzz", "harness", "--minimize-crash", "in/i0"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("does not crash"));
}

#[test]
fn the_compiler_wrappers_build_as_oss_fuzz_scripts_do() {
    let d = tempfile::tempdir().unwrap();
    // queries pass through
    let o = cc().arg("--version").output().unwrap();
    assert!(o.status.success() && String::from_utf8_lossy(&o.stdout).contains("clang version 22"));
    // compile with fuzzer-no-link, archive, link with -fsanitize=fuzzer, as build.sh scripts do
    let obj = d.path().join("magic.o");
    let o = cc()
        .args(["-O2", "-g", "-fsanitize=fuzzer-no-link", "-c"])
        .arg(path("tests/fixtures/fuzz/magic.c"))
        .arg("-o")
        .arg(&obj)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = Command::new("ar")
        .arg("rcs")
        .arg(d.path().join("libmagic.a"))
        .arg(&obj)
        .output()
        .unwrap();
    assert!(o.status.success());
    let exe = d.path().join("harness");
    let o = cxx()
        .arg("-fsanitize=fuzzer")
        .arg(d.path().join("libmagic.a"))
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (_, s) = fuzz(d.path(), &["harness", "corpus", "-seed=1", "-runs=2000"]);
    assert_eq!(s["delivery"], "libfuzzer");
    assert!(s["outcomes_covered"].as_u64().unwrap() >= 2, "{s:#}");
    // a program's own main is kept
    let o = cc()
        .arg(path("tests/fixtures/fuzz/stdin_prog.c"))
        .arg("-o")
        .arg(d.path().join("prog"))
        .output()
        .unwrap();
    assert!(o.status.success());
    let nm = Command::new("nm")
        .arg(d.path().join("prog"))
        .output()
        .unwrap();
    let syms = String::from_utf8_lossy(&nm.stdout);
    assert!(syms.contains(" T main") && !syms.contains("__evotest_target_main"));
}

#[test]
fn bad_fuzz_input_gets_one_line_errors() {
    let d = tempfile::tempdir().unwrap();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["fuzz", "/nonexistent/harness", "corpus"],
            "no such file",
        ),
        (vec!["fuzz", "/bin/true", "corpus"], "evotest-cc"),
        (vec!["fuzz", "/bin/true"], "corpus directory"),
        (
            vec!["fuzz", "/bin/true", "corpus", "-timeout=abc"],
            "not a number",
        ),
        (
            vec!["fuzz", "/bin/true", "corpus", "-max_len=99999999999"],
            "max_len",
        ),
        (
            vec!["fuzz", "/bin/true", "corpus", "/nonexistent/seeds"],
            "no such seed",
        ),
        (
            vec!["fuzz", "/bin/true", "corpus", "--guidance=maybe"],
            "possible values: on, off",
        ),
        (
            vec!["fuzz", "/bin/true", "corpus", "-guidance=2"],
            "possible values: on, off",
        ),
        (
            vec!["fuzz", "/bin/true", "corpus", "--frontier_exclude=src:"],
            "empty pattern",
        ),
        (
            vec!["fuzz", "/bin/true", "corpus", "--in_process"],
            "evotest-cc",
        ),
    ];
    for (args, want) in cases {
        let o = evotest()
            .current_dir(d.path())
            .args(&args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert_eq!(
            err.trim()
                .lines()
                .filter(|l| l.starts_with("error"))
                .count(),
            1,
            "{args:?}: {err}"
        );
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    // a malformed dictionary names its line
    let h = harness("magic.c", d.path());
    std::fs::write(d.path().join("bad.dict"), "\"ok\"\nbroken line\n").unwrap();
    let o = evotest()
        .current_dir(d.path())
        .arg("fuzz")
        .arg(&h)
        .args(["corpus", "-dict=bad.dict"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2));
    assert!(err.contains("bad.dict:2:"), "{err}");
    // in-process fuzzing runs one worker
    let o = evotest()
        .current_dir(d.path())
        .arg("fuzz")
        .arg(&h)
        .args(["corpus", "--in_process", "-j", "2"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("--in_process runs one worker"), "{err}");
    assert_eq!(
        err.trim()
            .lines()
            .filter(|l| l.starts_with("error"))
            .count(),
        1,
        "{err}"
    );
    // a new-coverage log that cannot be created
    let o = evotest()
        .current_dir(d.path())
        .arg("fuzz")
        .arg(&h)
        .args(["corpus", "-new_coverage_log=/nonexistent/dir/log"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--new_coverage_log: cannot create /nonexistent/dir/log"),
        "{err}"
    );
    assert_eq!(
        err.trim()
            .lines()
            .filter(|l| l.starts_with("error"))
            .count(),
        1,
        "{err}"
    );
}

/// The bytes of the first crash a run's summary `s` lists (its artifact, under `dir`).
fn first_crash(dir: &Path, s: &Value) -> Vec<u8> {
    std::fs::read(dir.join(s["crashes"][0]["artifact"].as_str().unwrap())).unwrap()
}

/// [`execs_to_crash`] with guidance and without, seed `seed`: asserts that the guided run
/// crashes within `runs` executions and havoc alone does not; returns the guided run's crash.
fn crash_only_guided(dir: &Path, seed: u64, runs: u64) -> Vec<u8> {
    let (found, s) = execs_to_crash(dir, seed, runs, "on");
    found.unwrap_or_else(|| panic!("seed {seed}: no crash in {runs} executions: {s:#}"));
    let crash = first_crash(dir, &s);
    let (off, s) = execs_to_crash(dir, seed, runs, "off");
    assert_eq!(off, None, "seed {seed}: havoc alone found it: {s:#}");
    crash
}

/// Run `evotest fuzz` on the harness in `dir` until its first crash (`--stop_on_crash`, no
/// minimisation) or `runs` executions; returns the executions up to and including the crashing
/// one (`None`: no crash) and the summary. No `-max_total_time`: with `-runs` alone the guide's
/// credit counts executions, not seconds, so a run is the same on a loaded CI machine.
fn execs_to_crash(dir: &Path, seed: u64, runs: u64, guidance: &str) -> (Option<u64>, Value) {
    let corpus = format!("c-{guidance}-{seed}");
    let art = format!("art-{guidance}-{seed}/");
    let (_, s) = fuzz(
        dir,
        &[
            "harness",
            &corpus,
            &format!("-seed={seed}"),
            &format!("-runs={runs}"),
            "--stop_on_crash",
            "--no_minimize",
            &format!("--guidance={guidance}"),
            &format!("-artifact_prefix={art}"),
        ],
    );
    let found = s["crashes"]
        .as_array()
        .unwrap()
        .first()
        .map(|c| c["found_executions"].as_u64().unwrap());
    (found, s)
}

#[test]
fn input_to_state_finds_a_little_endian_word_then_a_big_endian_half_word() {
    let d = tempfile::tempdir().unwrap();
    harness("i2s_fields.c", d.path());
    for seed in 1..=3 {
        let (found, s) = execs_to_crash(d.path(), seed, 1000, "on");
        let g = &s["guidance"];
        let at = found.unwrap_or_else(|| panic!("seed {seed}: no crash in 1000 executions: {s:#}"));
        assert!(at <= 1000, "{s:#}");
        // the two compares (magic == 0xDEADBEEF, tag == 0x1234) were taken by substitution: the
        // first is a covered outcome, the second crashed
        assert!(
            g["covered_by_i2s"].as_u64().unwrap() >= 1,
            "seed {seed}: {g:#}"
        );
        assert!(
            g["execs_i2s"].as_u64().unwrap() > 0 && g["attempts_won"].as_u64().unwrap() >= 1,
            "{g:#}"
        );
        let bytes = first_crash(d.path(), &s);
        assert_eq!(
            &bytes[4..10],
            &[0xef, 0xbe, 0xad, 0xde, 0x12, 0x34],
            "the reproducer's fields"
        );
    }
}

/// The first crash of a guided run with seed `seed`, at most `runs` executions, from a corpus of
/// one input `start`: the crash's bytes as text, and the execution that found it. Panics when
/// there is none.
fn crash_from(dir: &Path, start: &[u8], seed: u64, runs: u64) -> (String, u64) {
    let corpus = dir.join(format!("c-on-{seed}"));
    std::fs::create_dir_all(&corpus).unwrap();
    std::fs::write(corpus.join("seed"), start).unwrap();
    let (found, s) = execs_to_crash(dir, seed, runs, "on");
    let at = found.unwrap_or_else(|| panic!("seed {seed}: no crash in {runs} executions: {s:#}"));
    (
        String::from_utf8_lossy(&first_crash(dir, &s)).into_owned(),
        at,
    )
}

/// A 64-bit token read as hex text (`strtoull(tok, 0, 16) == fnv1a(name)`): input-to-state
/// finds the token's value as hex digits in the input and writes the hash's there. Before hex
/// text was one of its encodings, no run reached the crash in 20,000 executions.
#[test]
fn input_to_state_rewrites_a_number_read_as_hex_text() {
    let d = tempfile::tempdir().unwrap();
    harness("hex_token.c", d.path());
    for seed in 1..=2 {
        // a seed that has the form, with a wrong token
        let (text, at) = crash_from(d.path(), b"abc:0123456789abcdef", seed, 20000);
        let (name, tok) = text.split_once(':').unwrap_or_else(|| panic!("{text}"));
        let mut h: u64 = 1469598103934665603;
        for c in name.bytes() {
            h ^= c as u64;
            h = h.wrapping_mul(1099511628211);
        }
        assert_eq!(
            u64::from_str_radix(tok.trim_end_matches('\0'), 16).ok(),
            Some(h),
            "seed {seed}, execution {at}: {text}"
        );
    }
}

/// A 32-bit field decoded from hex text, the first 8 digits of a longer run (`hex_decode.c`):
/// input-to-state finds the field's value as a window of the run at a byte pair and writes the
/// hash's digits there. Before windows were an encoding (only whole runs of digits were), no run
/// reached the crash in 20,000 executions; with them, within a few dozen.
#[test]
fn input_to_state_rewrites_a_field_decoded_from_a_run_of_hex_digits() {
    let d = tempfile::tempdir().unwrap();
    harness("hex_decode.c", d.path());
    for seed in 1..=2 {
        let (text, at) = crash_from(d.path(), b"00000000414243444546", seed, 20000);
        let bytes: Vec<u8> = (0..text.len() / 2)
            .map(|i| u8::from_str_radix(&text[2 * i..2 * i + 2], 16).unwrap_or(0))
            .collect();
        let mut h: u32 = 2166136261;
        for &c in &bytes[4..] {
            h ^= c as u32;
            h = h.wrapping_mul(16777619);
        }
        assert_eq!(
            u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]),
            h,
            "seed {seed}, execution {at}: {text}"
        );
    }
}

/// A crash behind a checksum (`checksummed.c`: a Fletcher-16 trailer over the body, then a
/// record kind and a flag byte): every candidate that writes the kind or the flag fails at the
/// checksum compare, whose failing outcome is long covered, so nothing of it is kept; the
/// directed attempt repairs the trailer (input-to-state at the checksum compare, logged in a
/// second run of the candidate) and judges the candidate on the path it was meant for. Without
/// the repair no run reached the crash in 20,000 executions; with it, in about 230.
#[test]
fn a_crash_behind_a_checksum_is_reached_by_repairing_the_trailer() {
    let d = tempfile::tempdir().unwrap();
    harness("checksummed.c", d.path());
    let mut start = b"RC".to_vec();
    start.resize(16, 0);
    for seed in 1..=2 {
        let corpus = d.path().join(format!("c-on-{seed}"));
        std::fs::create_dir_all(&corpus).unwrap();
        std::fs::write(corpus.join("seed"), &start).unwrap();
        let (found, s) = execs_to_crash(d.path(), seed, 20000, "on");
        assert!(
            found.is_some(),
            "seed {seed}: no crash in 20,000 executions: {s:#}"
        );
        assert!(s["guidance"]["repairs_won"].as_u64().unwrap() > 0, "{s:#}");
        let y = first_crash(d.path(), &s);
        let n = y.len();
        let (mut a, mut b) = (0u32, 0u32);
        for &c in &y[2..n - 2] {
            a = (a + c as u32) % 255;
            b = (b + a) % 255;
        }
        assert_eq!(
            (&y[..7], y[7], (b << 8 | a) as u16),
            (
                &b"RCHACK\x7f"[..],
                1,
                u16::from_be_bytes([y[n - 2], y[n - 1]])
            ),
            "seed {seed}: {y:02x?}"
        );
    }
}

/// Checks written as helpers that return a compare (`helper_compares.c`: `return m ==
/// 0x1122334455667788`, a big-endian 16-bit version, a double equal to 2.5): no branch compares
/// the values, so only the log of every compare, branch condition or not, gives input-to-state
/// the values to write. Before loose compares were logged, no run reached the crash in 20,000
/// executions; with them, in about 1,000 (libFuzzer with `-use_value_profile=1`: none in 3
/// million).
#[test]
fn input_to_state_reads_compares_that_helpers_return() {
    let d = tempfile::tempdir().unwrap();
    harness("helper_compares.c", d.path());
    for seed in 1..=2 {
        let corpus = d.path().join(format!("c-on-{seed}"));
        std::fs::create_dir_all(&corpus).unwrap();
        std::fs::write(corpus.join("seed"), [0u8; 20]).unwrap();
        let (found, s) = execs_to_crash(d.path(), seed, 20000, "on");
        assert!(
            found.is_some(),
            "seed {seed}: no crash in 20,000 executions: {s:#}"
        );
        let y = first_crash(d.path(), &s);
        assert_eq!(
            (
                u64::from_le_bytes(y[..8].try_into().unwrap()),
                &y[8..10],
                f64::from_le_bytes(y[12..20].try_into().unwrap())
            ),
            (0x1122334455667788, &[3u8, 2][..], 2.5),
            "seed {seed}: {y:02x?}"
        );
    }
}

/// Code points decoded from UTF-8 and compared with a table in a loop (`utf8_points.c`: U+00E9,
/// U+20AC, U+1F600), from the seed `abc`: input-to-state writes each code point's UTF-8 bytes
/// over the character compared with it, which makes the input longer each time. Before UTF-8
/// was one of its encodings, no run reached the crash in 20,000 executions.
#[test]
fn input_to_state_writes_code_points_as_utf8() {
    let d = tempfile::tempdir().unwrap();
    harness("utf8_points.c", d.path());
    for seed in 1..=2 {
        let (text, at) = crash_from(d.path(), b"abc", seed, 20000);
        assert_eq!(
            text, "\u{e9}\u{20ac}\u{1f600}",
            "seed {seed}, execution {at}"
        );
    }
}

/// An 8-byte key compared after a base64 decoder (`base64_key.c`): input-to-state finds the
/// compared bytes in the input's decoding and writes the key's base64 text there. Before base64
/// was one of its encodings, no run reached the crash in 20,000 executions; with it, in 14.
#[test]
fn input_to_state_rewrites_bytes_decoded_from_base64_text() {
    let d = tempfile::tempdir().unwrap();
    harness("base64_key.c", d.path());
    for seed in 1..=2 {
        let (text, at) = crash_from(d.path(), b"QUFBQUFBQUFBQUFB", seed, 20000);
        assert!(
            text.starts_with("f1NFU0FNRQF"),
            "seed {seed}, execution {at}: {text}"
        );
    }
}

/// A number read as text (`x=5`, strtod) that must satisfy a relation no constant states (3.7 x
/// within 1e-6 of 100; `text_number.c`): the AVM moves the number's value and rewrites its
/// text, which grows from one digit to many. Before numbers in text were fields, no run reached
/// the crash in 20,000 executions (byte moves turn 5 into another digit); with them, in about
/// 1,100. With a largest input of 5 bytes, the number's text is cut to fit and the run goes on
/// (it ended with an error when a grown input reached the logged run of a checksum repair).
#[test]
fn numbers_in_text_are_fields_whose_text_grows_with_their_value() {
    let d = tempfile::tempdir().unwrap();
    harness("text_number.c", d.path());
    for seed in 1..=2 {
        let (text, at) = crash_from(d.path(), b"x=5", seed, 20000);
        // the number strtod reads: the longest prefix after `x=` that parses
        let num = text.trim_start_matches("x=");
        let x: f64 = (1..=num.len())
            .rev()
            .filter(|&k| num.is_char_boundary(k))
            .find_map(|k| num[..k].parse().ok())
            .unwrap_or_else(|| panic!("seed {seed}, execution {at}: {text}"));
        assert!((x * 3.7 - 100.0).abs() < 1e-6, "seed {seed}: {text}");
    }
    let corpus = d.path().join("short");
    std::fs::create_dir_all(&corpus).unwrap();
    std::fs::write(corpus.join("seed"), b"x=5").unwrap();
    let (o, s) = fuzz(
        d.path(),
        &["harness", "short", "-seed=1", "-runs=3000", "-max_len=5"],
    );
    assert_eq!(
        (o.status.code(), s["executions"].as_u64()),
        (Some(0), Some(3000)),
        "{s:#}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// A number read as text with `strtod` and tested with `isnan`: input-to-state finds the
/// number's decimal text and writes `nan` there. Before floats had a text encoding, no run
/// reached the crash in 5,000 executions.
#[test]
fn input_to_state_writes_nan_over_a_number_read_as_text() {
    let d = tempfile::tempdir().unwrap();
    harness("float_text.c", d.path());
    for seed in 1..=2 {
        let (text, at) = crash_from(d.path(), b"x=0.5", seed, 5000);
        let text = text.to_lowercase();
        assert!(
            text.starts_with("x=") && text.contains("nan"),
            "seed {seed}, execution {at}: {text}"
        );
    }
}

#[test]
fn input_to_state_on_every_compare_finds_the_entries_of_lookup_tables() {
    let d = tempfile::tempdir().unwrap();
    harness("tables.c", d.path());
    // the last entry of a table of 32-bit ids and of a keyword table (strcmp), each looked up in
    // a loop: 940 to 2,314 executions on seeds 1-5; none in 30,000 when only the frontier
    // compares' first evaluations were substituted (17 of 30 outcomes); libFuzzer with value
    // profile took 95,000 to 1.1 million
    for seed in 1..=3 {
        let (found, s) = execs_to_crash(d.path(), seed, 5000, "on");
        let g = &s["guidance"];
        assert!(
            found.is_some(),
            "seed {seed}: no crash in 5,000 executions: {s:#}"
        );
        // the other table entries' switch cases were taken by it too
        assert!(
            g["covered_by_cmplog"].as_u64().unwrap() >= 8,
            "seed {seed}: {g:#}"
        );
        let bytes = first_crash(d.path(), &s);
        assert_eq!(
            &bytes[..4],
            &0x13579BDFu32.to_le_bytes(),
            "the reproducer's id"
        );
        assert!(
            bytes[4..].starts_with(b"vacuum"),
            "the reproducer's keyword: {bytes:?}"
        );
    }
    // input-to-state only (no AVM) does the same
    let (found, _) = execs_to_crash(d.path(), 1, 5000, "i2s");
    assert!(found.is_some());
}

#[test]
fn branch_distance_solves_an_arithmetic_relation_that_havoc_does_not() {
    let d = tempfile::tempdir().unwrap();
    harness("relation.c", d.path());
    // x * 6 + 4 == 2000002 over a 4-byte x: guidance within 3,000 executions (it takes 138 to
    // 249 on seeds 1–5); havoc alone finds nothing in 100,000 on seeds 1–5
    for seed in 1..=3 {
        let (found, s) = execs_to_crash(d.path(), seed, 3000, "on");
        let at = found.unwrap_or_else(|| {
            panic!("seed {seed}: guidance found no crash in 3000 executions: {s:#}")
        });
        let g = &s["guidance"];
        assert!(
            g["execs_avm"].as_u64().unwrap() > 0
                && g["distance_improvements"].as_u64().unwrap() > 5,
            "{g:#}"
        );
        // under -runs alone, with guidance, havoc's executions are full: coverage-only ones
        // would save time, which this budget does not count
        assert_eq!(s["lite"]["executions"], 0, "{:#}", s["lite"]);
        let bytes = first_crash(d.path(), &s);
        let x = u32::from_le_bytes(bytes[..4].try_into().unwrap());
        assert_eq!(
            x.wrapping_mul(6).wrapping_add(4),
            2000002,
            "seed {seed}, after {at} executions"
        );
        let (off, s) = execs_to_crash(d.path(), seed, 3000, "off");
        assert_eq!(off, None, "seed {seed}: havoc alone found it: {s:#}");
        assert_eq!(s["executions"], 3000);
        // without guidance: havoc's executions are coverage-only
        let lite = &s["lite"];
        assert!(
            lite["executions"].as_u64().unwrap() > 2000 && lite["full_executions"] == 0,
            "{lite:#}"
        );
        let g = &s["guidance"];
        assert_eq!(
            (
                g["enabled"].as_bool(),
                g["execs_avm"].as_u64(),
                g["execs_i2s"].as_u64()
            ),
            (Some(false), Some(0), Some(0)),
            "{g:#}"
        );
    }
}

#[test]
fn guidance_solves_byte_compares_faster_than_havoc() {
    let d = tempfile::tempdir().unwrap();
    harness("magic.c", d.path());
    for seed in 1..=2 {
        let (on, s) = execs_to_crash(d.path(), seed, 2000, "on");
        assert!(on.is_some(), "seed {seed}: {s:#}");
        let (off, _) = execs_to_crash(d.path(), seed, 2000, "off");
        assert_eq!(
            off, None,
            "seed {seed}: havoc alone found BUG! in 2000 executions"
        );
    }
}

#[test]
fn branches_out_of_the_guidance_scope_get_no_directed_attempts_but_count_as_coverage() {
    let d = tempfile::tempdir().unwrap();
    harness("magic.c", d.path());
    let (_, all) = fuzz(d.path(), &["harness", "all", "-seed=1", "-runs=3000"]);
    let g = &all["guidance"];
    assert!(g["attempts"].as_u64().unwrap() > 0, "{g:#}");
    assert_eq!(
        g["sites_left_out"], 0,
        "the harness is the user's code: {g:#}"
    );
    // the harness's file out of scope (the end of its path, libFuzzer spelling): the frontier is
    // empty, so no directed attempts, and its outcomes still count as coverage
    let (o, none) = fuzz(
        d.path(),
        &[
            "harness",
            "none",
            "-seed=1",
            "-runs=3000",
            "-frontier_exclude=src:magic.c",
        ],
    );
    let g = &none["guidance"];
    assert_eq!(
        (
            g["frontier"].as_u64(),
            g["attempts"].as_u64(),
            g["execs_avm"].as_u64()
        ),
        (Some(0), Some(0), Some(0)),
        "{g:#}"
    );
    assert!(
        g["sites_left_out"].as_u64().unwrap() > 0 && g["frontier_left_out"].as_u64().unwrap() > 0,
        "{g:#}"
    );
    assert_eq!(none["outcomes_total"], all["outcomes_total"]);
    assert!(none["outcomes_covered"].as_u64().unwrap() >= 2, "{none:#}");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("branch sites out of scope"), "{err}");
    // an include pattern that names the harness's function puts its branches back
    let (_, back) = fuzz(
        d.path(),
        &[
            "harness",
            "back",
            "-seed=1",
            "-runs=3000",
            "--frontier_include=fun:LLVMFuzzerTestOneInput",
        ],
    );
    assert!(
        back["guidance"]["attempts"].as_u64().unwrap() > 0,
        "{back:#}"
    );
}

#[test]
fn input_to_state_takes_a_switch_case_and_a_float_equality() {
    let d = tempfile::tempdir().unwrap();
    harness("switch_float.c", d.path());
    for seed in 1..=3 {
        let (found, s) = execs_to_crash(d.path(), seed, 1000, "on");
        assert!(
            found.is_some(),
            "seed {seed}: no crash in 1000 executions: {s:#}"
        );
        // the switch's two cases, then (after the case 0x1BADB002) the float compare's false outcome
        assert!(
            s["guidance"]["covered_by_i2s"].as_u64().unwrap() >= 2,
            "seed {seed}: {s:#}"
        );
        let bytes = first_crash(d.path(), &s);
        assert_eq!(
            u32::from_le_bytes(bytes[..4].try_into().unwrap()),
            0x1BADB002
        );
        assert_eq!(
            f64::from_le_bytes(bytes[4..12].try_into().unwrap()),
            -0.0025
        );
    }
}

#[test]
fn input_to_state_passes_a_checksum_computed_in_the_harness() {
    let d = tempfile::tempdir().unwrap();
    harness("crc.c", d.path());
    for seed in 1..=3 {
        let (found, s) = execs_to_crash(d.path(), seed, 1000, "on");
        assert!(
            found.is_some(),
            "seed {seed}: no crash in 1000 executions: {s:#}"
        );
        assert!(
            s["guidance"]["covered_by_i2s"].as_u64().unwrap() >= 1,
            "seed {seed}: {s:#}"
        );
    }
}

#[test]
fn a_stalled_distance_does_not_trap_the_fuzzer() {
    let d = tempfile::tempdir().unwrap();
    harness("stall.c", d.path());
    let (_, on) = fuzz(d.path(), &["harness", "on", "-seed=1", "-runs=20000"]);
    let (_, off) = fuzz(
        d.path(),
        &["harness", "off", "-seed=1", "-runs=20000", "--guidance=off"],
    );
    let g = &on["guidance"];
    // the hashed compare stays uncovered: its attempts stall, and havoc keeps most executions
    assert_eq!(g["frontier"], 1, "{g:#}");
    assert!(
        g["attempts"].as_u64().unwrap() > g["attempts_won"].as_u64().unwrap(),
        "{g:#}"
    );
    let havoc = g["execs_havoc"].as_u64().unwrap();
    let directed = g["execs_i2s"].as_u64().unwrap()
        + g["execs_influence"].as_u64().unwrap()
        + g["execs_avm"].as_u64().unwrap();
    assert!(
        havoc >= 10_000 && havoc >= directed,
        "havoc {havoc}, directed {directed}: {g:#}"
    );
    assert!(
        on["outcomes_covered"].as_u64() >= off["outcomes_covered"].as_u64(),
        "on {on:#}\noff {off:#}"
    );
}

#[test]
fn branch_distance_moves_a_double_to_a_root() {
    let d = tempfile::tempdir().unwrap();
    harness("float_root.c", d.path());
    // |x * x - 2| < 1e-9: guidance in 943 to 7,605 executions on seeds 1–5 (541 to 1,373 before
    // length control kept the input at 8 bytes, which makes the AVM's attempts short); havoc
    // alone finds nothing in 100,000 on seeds 1–3
    for seed in 1..=2 {
        let (found, s) = execs_to_crash(d.path(), seed, 10_000, "on");
        assert!(found.is_some(), "seed {seed}: {s:#}");
        let x = f64::from_le_bytes(first_crash(d.path(), &s)[..8].try_into().unwrap());
        assert!((x * x - 2.0).abs() < 1e-9, "{x}");
        assert!(s["guidance"]["execs_avm"].as_u64().unwrap() > 0);
        let (off, _) = execs_to_crash(d.path(), seed, 10_000, "off");
        assert_eq!(off, None, "seed {seed}: havoc alone found a root of 2");
    }
}

#[test]
fn input_to_state_replaces_strings_the_program_computes_at_run_time() {
    let d = tempfile::tempdir().unwrap();
    harness("strings.c", d.path());
    // memcmp(d, header, 16), then strcmp(rest, "xK9#qZ!vR2"), both strings built at run time:
    // with the string operand log, 11 to 17 executions on seeds 1–5 (11 to 26 before length
    // control); without it (the AVM on the
    // byte distance does it) 4,100 to 19,300; havoc alone finds nothing in 5,000
    let header: Vec<u8> = (0..16)
        .map(|i| b'A' + ((i * 7 + 0x42) % 26) as u8)
        .collect();
    for seed in 1..=3 {
        let (found, s) = execs_to_crash(d.path(), seed, 1000, "on");
        let at = found.unwrap_or_else(|| panic!("seed {seed}: no crash in 1000 executions: {s:#}"));
        let g = &s["guidance"];
        assert!(
            g["execs_i2s"].as_u64().unwrap() > 0 && g["attempts_won"].as_u64().unwrap() >= 1,
            "seed {seed}: {g:#}"
        );
        let bytes = first_crash(d.path(), &s);
        assert_eq!(
            &bytes[..16],
            &header[..],
            "seed {seed}, after {at} executions"
        );
        let rest = &bytes[16..];
        assert_eq!(
            &rest[..rest.iter().position(|&c| c == 0).unwrap_or(rest.len())],
            b"xK9#qZ!vR2",
            "seed {seed}"
        );
        let (off, s) = execs_to_crash(d.path(), seed, 1000, "off");
        assert_eq!(off, None, "seed {seed}: havoc alone found it: {s:#}");
    }
}

/// `strncasecmp` and `strcasestr` have probes of their own (distance after case folding; for the
/// search over the haystack's windows, with the outcome from the call's result) and log their
/// operands: 4 executions on seeds 1–3 (none in 20,000 when they were plain integer and pointer
/// compares).
#[test]
fn input_to_state_takes_a_case_insensitive_name_and_a_substring() {
    let d = tempfile::tempdir().unwrap();
    harness("searches.c", d.path());
    for seed in 1..=3 {
        let text =
            String::from_utf8_lossy(&crash_only_guided(d.path(), seed, 1000)).to_ascii_lowercase();
        assert!(
            text.starts_with("x-forwarded:") && text[12..].contains("magic-token"),
            "seed {seed}: {text:?}"
        );
    }
}

/// String routines whose results are kept in locals before the test (`p = strstr(h, n); if (p
/// == NULL)`, `int r = strncmp(…); if (r != 0)`), as mbedtls's PEM reader finds its header: the
/// pass follows the local back to the call, so these are string compares with distances and
/// operands. Before, they were a pointer and an integer compare: mbedtls 2.28's x509csr fuzzer
/// stayed at 68 branch outcomes in 60 s (never a PEM header; libFuzzer 229), and 234 in 30 s
/// after. Here: a crash within 2,000 executions on seeds 1–3; never by havoc alone.
#[test]
fn input_to_state_takes_string_results_kept_in_locals() {
    let d = tempfile::tempdir().unwrap();
    harness("stored.c", d.path());
    for seed in 1..=3 {
        let text = String::from_utf8_lossy(&crash_only_guided(d.path(), seed, 2000)).to_string();
        assert!(
            text.contains("-----BEGIN KEY-----token:"),
            "seed {seed}: {text:?}"
        );
    }
}

#[test]
fn input_to_state_replaces_words_compared_by_the_programs_own_routine() {
    let d = tempfile::tempdir().unwrap();
    harness("routines.c", d.path());
    // three words of 12 to 14 letters, each compared by a byte loop of the harness's own: with
    // the routine calls' operands logged, all 22 outcomes in 5,900 to 6,300 executions (seeds
    // 1–3, either mode); without them, 19 of 22 after 300,000
    for (seed, mode) in [(1, None), (2, Some("--in_process")), (3, None)] {
        let seed_arg = format!("-seed={seed}");
        let mut args = vec!["harness", "corpus", seed_arg.as_str(), "-runs=20000"];
        args.extend(mode);
        let _ = std::fs::remove_dir_all(d.path().join("corpus"));
        let (o, s) = fuzz(d.path(), &args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(s["outcomes_total"], 22, "{s:#}");
        assert_eq!(s["outcomes_covered"], 22, "seed {seed} {mode:?}: {s:#}");
    }
}

#[test]
fn the_new_coverage_log_lists_the_inputs_that_added_coverage_and_they_replay_it() {
    let d = tempfile::tempdir().unwrap();
    harness("i2s_fields.c", d.path());
    let (_, s) = fuzz(
        d.path(),
        &[
            "harness",
            "c1",
            "-seed=3",
            "-runs=3000",
            "--new_coverage_log=new.log",
            "-artifact_prefix=art1/",
        ],
    );
    let text = std::fs::read_to_string(d.path().join("new.log")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // the last line ends the run with its executions
    let end: Vec<&str> = lines.last().unwrap().split(' ').collect();
    assert_eq!(
        (end[0], end[1].parse::<u64>().unwrap()),
        ("end", s["executions"].as_u64().unwrap()),
        "{text}"
    );
    // one line per input kept, execution numbers increasing from the first (the empty input)
    let entries: Vec<(u64, Vec<u8>)> = lines[..lines.len() - 1]
        .iter()
        .map(|l| {
            let f: Vec<&str> = l.split(' ').collect();
            let bytes = (0..f[2].len() / 2)
                .map(|i| u8::from_str_radix(&f[2][2 * i..2 * i + 2], 16).unwrap())
                .collect();
            (f[0].parse().unwrap(), bytes)
        })
        .collect();
    assert_eq!(
        entries.len() as u64,
        s["corpus_new"].as_u64().unwrap(),
        "{text}"
    );
    assert_eq!(entries[0], (1, vec![]), "{text}");
    assert!(entries.windows(2).all(|w| w[0].0 < w[1].0), "{text}");
    // the logged inputs alone, as seeds, cover what the run covered (a crash's outcomes are not
    // coverage)
    let seeds = d.path().join("seeds");
    std::fs::create_dir_all(&seeds).unwrap();
    for (i, (_, b)) in entries.iter().enumerate() {
        std::fs::write(seeds.join(format!("s{i:04}")), b).unwrap();
    }
    // `-runs=0` runs the seeds and nothing more, as libFuzzer's does
    let (_, again) = fuzz(
        d.path(),
        &[
            "harness",
            "c2",
            "seeds",
            "-runs=0",
            "-artifact_prefix=art2/",
        ],
    );
    assert_eq!(again["executions"].as_u64().unwrap(), entries.len() as u64);
    // the seeds copied into the corpus are not new units (libFuzzer's new_units_added)
    assert_eq!(again["corpus_new"], 0, "{again:#}");
    assert_eq!(
        again["outcomes_covered"], s["outcomes_covered"],
        "{again:#}\n{s:#}"
    );
}

/// In-process, a worker that takes over from one a crash ended appends to the new-coverage log
/// and does not log the corpus it replays: the log still starts with the first worker's inputs
/// (it used to be re-created at every restart, the replay logged as new at its later time).
#[test]
fn the_new_coverage_log_survives_in_process_restarts() {
    let d = tempfile::tempdir().unwrap();
    harness("magic.c", d.path());
    let (_, s) = fuzz(
        d.path(),
        &[
            "harness",
            "c",
            "-seed=1",
            "-runs=20000",
            "--in_process",
            "--new_coverage_log=new.log",
            "-artifact_prefix=art/",
        ],
    );
    assert!(s["worker_restarts"].as_u64().unwrap() >= 1, "{s:#}");
    let text = std::fs::read_to_string(d.path().join("new.log")).unwrap();
    let execs: Vec<u64> = text
        .lines()
        .filter(|l| !l.starts_with("end"))
        .map(|l| l.split(' ').next().unwrap().parse().unwrap())
        .collect();
    assert!(
        execs.first().is_some_and(|&e| e <= 10),
        "the first worker's entries are gone:\n{text}"
    );
    assert!(execs.windows(2).all(|w| w[0] < w[1]), "{text}");
    assert_eq!(
        text.lines().filter(|l| l.starts_with("end")).count(),
        1,
        "{text}"
    );
}

#[test]
fn guidance_i2s_substitutes_operands_but_runs_no_avm() {
    let d = tempfile::tempdir().unwrap();
    harness("relation.c", d.path());
    // x * 6 + 4 == 2000002 needs the AVM (no operand of the compare is in the input)
    let (found, s) = execs_to_crash(d.path(), 1, 3000, "i2s");
    let g = &s["guidance"];
    assert_eq!(found, None, "{s:#}");
    // (attempts run no input of their own here: their start inputs' operand records were kept
    // from the executions that found them, and no operand is in the input)
    assert!(
        g["enabled"].as_bool().unwrap() && g["attempts"].as_u64().unwrap() > 0,
        "{g:#}"
    );
    assert_eq!(
        (g["execs_influence"].as_u64(), g["execs_avm"].as_u64()),
        (Some(0), Some(0)),
        "{g:#}"
    );
    // the same compares of i2s_fields.c as with full guidance
    harness("i2s_fields.c", d.path());
    let (found, s) = execs_to_crash(d.path(), 1, 1000, "i2s");
    assert!(found.is_some(), "{s:#}");
}

#[test]
fn in_process_mode_keeps_triages_and_goes_on_after_each_crash() {
    let d = tempfile::tempdir().unwrap();
    let h = harness("magic.c", d.path());
    // two seeds that add coverage: copied into the corpus, and not new units
    std::fs::create_dir(d.path().join("seeds")).unwrap();
    std::fs::write(d.path().join("seeds/b"), b"B").unwrap();
    std::fs::write(d.path().join("seeds/bu"), b"BU").unwrap();
    let args = [
        "harness",
        "corpus",
        "seeds",
        "-seed=1",
        "-runs=30000",
        "-artifact_prefix=art/",
        "--in_process",
    ];
    let (o, s) = fuzz(d.path(), &args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(
        o.status.code(),
        Some(1),
        "a run that found a crash exits 1:\n{err}"
    );
    // every crashing input ended a worker; each was triaged in a fresh process, one unique crash
    assert!(s["worker_restarts"].as_u64().unwrap() >= 1, "{s:#}");
    assert_eq!(s["unique_crashes"], 1, "{s:#}");
    let c = &s["crashes"][0];
    assert_eq!(c["kind"], "SIGSEGV");
    assert_eq!(c["reproduced"], true);
    assert!(
        c["signature"].as_str().unwrap().contains("crash_here"),
        "{c:#}"
    );
    assert_eq!(
        std::fs::read(d.path().join(c["artifact"].as_str().unwrap())).unwrap(),
        b"BUG!",
        "the minimised reproducer"
    );
    // the executions of all workers add up to the budget, and the coverage is the run's
    assert!(s["executions"].as_u64().unwrap() >= 30000, "{s:#}");
    assert!(s["outcomes_covered"].as_u64().unwrap() >= 10, "{s:#}");
    // the stats file the last worker wrote is the run's, not its own since its restart
    let st = read_json(&d.path().join("corpus/.evotest/main/fuzzer_stats.json"));
    assert_eq!(st["outcomes_covered"], s["outcomes_covered"], "{st:#}");
    assert_eq!(st["corpus_new"], s["corpus_new"], "{st:#}");
    // the seeds copied in are not counted after the restarts (the directory's growth was)
    assert!(
        s["corpus_new"].as_u64().unwrap() + 2 <= s["corpus_count"].as_u64().unwrap(),
        "{s:#}"
    );
    assert!(
        st["run_time_seconds"].as_f64().unwrap() + 2.0
            >= (st["last_update"].as_u64().unwrap() - st["start_time"].as_u64().unwrap()) as f64,
        "{st:#}"
    );
    // the corpus the workers wrote runs cleanly by hand; the supervisor's files are gone
    let r = Command::new(&h)
        .arg(d.path().join("corpus"))
        .output()
        .unwrap();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let state = files(&d.path().join("corpus/.evotest"));
    assert!(
        !state.iter().any(|n| n.starts_with("in-process-")),
        "{state:?}"
    );
}

/// A target whose coverage differs between processes: the outcomes an in-process worker took
/// count for the run after it dies, even when the next worker's replay of the corpus does not
/// take them again (the run reported the larger of the workers' counts, not their union).
#[test]
fn in_process_coverage_is_the_union_of_the_workers() {
    let d = tempfile::tempdir().unwrap();
    harness("nondet.c", d.path());
    let marker = d.path().join("marker");
    let (o, s) = fuzz_env(
        d.path(),
        &[
            "harness",
            "corpus",
            "-seed=1",
            "-runs=20000",
            "-artifact_prefix=art/",
            "--in_process",
        ],
        &[("NONDET_MARKER", &marker)],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(
        o.status.code(),
        Some(1),
        "a run that found a crash exits 1:\n{err}"
    );
    assert!(s["worker_restarts"].as_u64().unwrap() >= 1, "{s:#}");
    // both outcomes of each `if (first)`, the first worker's and the later ones': every outcome
    // but the crash's own `data[1] == '!'` (a crashing execution's coverage does not count, as
    // in libFuzzer); the larger of the workers' counts was 10
    assert_eq!(
        s["outcomes_covered"].as_u64().unwrap() + 1,
        s["outcomes_total"].as_u64().unwrap(),
        "{s:#}"
    );
}

/// A harness that writes to standard error on every input, under a run whose standard error is a
/// file: the in-process worker's file-size limit is for the files the harness writes, not for
/// that log (it ended the worker with SIGXFSZ once the log passed the limit, and the run failed).
#[test]
fn in_process_output_to_a_log_file_is_not_held_to_the_file_size_limit() {
    let d = tempfile::tempdir().unwrap();
    harness("chatty.c", d.path());
    let log = d.path().join("fuzz.log");
    let o = evotest()
        .current_dir(d.path())
        .args([
            "fuzz",
            "harness",
            "corpus",
            "-seed=1",
            "-runs=4000",
            "-max_file_mb=1",
            "--in_process",
            "--json",
            "-q",
        ])
        .stderr(std::fs::File::create(&log).unwrap())
        .output()
        .unwrap();
    let text = std::fs::read_to_string(&log).unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        &text[text.len().saturating_sub(2000)..]
    );
    let s: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(s["executions"].as_u64().unwrap() >= 4000, "{s:#}");
    assert_eq!(s["worker_restarts"], 0, "{s:#}");
    // more than the 1 MB limit reached the log: about 1 KB per execution
    assert!(text.len() > 3 << 20, "{} bytes", text.len());
}

#[test]
fn in_process_timeouts_and_out_of_memory_end_the_worker_and_are_kept() {
    let d = tempfile::tempdir().unwrap();
    harness("hang.c", d.path());
    let (o, s) = fuzz(
        d.path(),
        &[
            "harness",
            "corpus",
            "-seed=2",
            "-runs=3000",
            "-timeout=1",
            "-rss_limit_mb=256",
            "-artifact_prefix=art/",
            "--in_process",
        ],
    );
    // no crash; a timeout kept: libFuzzer's exit code for it
    assert_eq!(
        o.status.code(),
        Some(70),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(s["unique_crashes"], 0, "{s:#}");
    let firsts = |key: &str| -> Vec<u8> {
        s[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| std::fs::read(d.path().join(p.as_str().unwrap())).unwrap()[0])
            .collect()
    };
    assert!(firsts("timeouts").contains(&b'H'), "{s:#}");
    assert!(firsts("ooms").contains(&b'M'), "{s:#}");
    assert!(s["worker_restarts"].as_u64().unwrap() >= 2, "{s:#}");
}

/// In-process, the harness runs in the worker's process: the peak resident memory reported is
/// that process's (with the 300 MB the harness touched), not the small supervisor's.
#[test]
fn in_process_peak_memory_is_the_harness_process_s() {
    let d = tempfile::tempdir().unwrap();
    harness("big_alloc.c", d.path());
    std::fs::create_dir(d.path().join("seeds")).unwrap();
    std::fs::write(d.path().join("seeds/b"), b"B").unwrap();
    for (mode, at_least) in [(&[][..], 0), (&["--in_process"][..], 300)] {
        let corpus = format!("corpus{}", mode.len());
        let mut args = vec![
            "harness",
            corpus.as_str(),
            "seeds",
            "-seed=1",
            "-runs=50",
            "-print_final_stats=1",
        ];
        args.extend_from_slice(mode);
        let (o, s) = fuzz(d.path(), &args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{err}");
        let peak = s["peak_rss_mb"].as_u64().unwrap();
        assert!(peak >= at_least, "{mode:?}: {peak} MB\n{s:#}");
        let line = err
            .lines()
            .find(|l| l.starts_with("stat::peak_rss_mb"))
            .and_then(|l| l.split_whitespace().last());
        assert_eq!(line, Some(peak.to_string().as_str()), "{err}");
        if mode.is_empty() {
            // the fork server's targets are other processes: evotest's own memory only
            assert!(peak < 300, "{peak} MB");
        }
    }
}

#[test]
fn in_process_mode_on_a_shallow_asan_crash_reports_the_runs_coverage_and_falls_back() {
    let d = tempfile::tempdir().unwrap();
    build(
        cc(),
        "asan_overflow.c",
        &["-g", "-O1", "-fsanitize=address,fuzzer"],
        d.path(),
        "harness",
    );
    let (o, s) = fuzz(
        d.path(),
        &[
            "harness",
            "corpus",
            "-seed=1",
            "-runs=20000",
            "-artifact_prefix=art/",
            "--in_process",
        ],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert_eq!(s["unique_crashes"], 1, "{s:#}");
    assert_eq!(s["crashes"][0]["kind"], "heap-buffer-overflow", "{s:#}");
    // every crashing input ends a worker; whatever the last worker ran, the summary has the run's
    // coverage and all its executions
    assert_eq!(s["outcomes_covered"], s["outcomes_total"], "{s:#}");
    assert!(s["executions"].as_u64().unwrap() >= 20000, "{s:#}");
    // workers that die every moment make the supervisor go on with the fork server: after 8, or
    // after 3 whose start-ups (ASan's) took longer than they fuzzed
    if err.contains("going on with the fork server") {
        let r = s["worker_restarts"].as_u64().unwrap();
        assert!((3..=8).contains(&r), "{s:#}");
        // and the summary says so
        assert_eq!(s["fork_server_fallback"], true, "{s:#}");
        assert!(
            err.contains("the rest of the run used the fork server"),
            "{err}"
        );
    } else {
        assert!(s["worker_restarts"].as_u64().unwrap() >= 1, "{s:#}");
        assert_eq!(s["fork_server_fallback"], false, "{s:#}");
    }
    // without -q, each restart line names the sanitizer's report, not only the signal (SIGABRT)
    // it ended the worker with
    let o = evotest()
        .current_dir(d.path())
        .args([
            "fuzz",
            "harness",
            "corpus2",
            "-seed=1",
            "-runs=2000",
            "--in_process",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("ended the worker (AddressSanitizer: heap-buffer-overflow, "),
        "{err}"
    );
}

#[test]
fn in_process_mode_on_a_harness_with_a_slow_set_up_falls_back_soon_and_meets_no_earlier_run() {
    // each worker spends a second in LLVMFuzzerInitialize and then dies of a shallow crash: the
    // restarts cost more than the workers fuzz, so the supervisor goes on with the fork server
    // after 3 of them (when start-up counted as the workers' life, never: 117 s for 20,000
    // executions of a 3 s set-up); and the crash the later workers meet again is this run's,
    // not one "recorded by an earlier run"
    let d = tempfile::tempdir().unwrap();
    harness("slow_init.c", d.path());
    let t0 = std::time::Instant::now();
    let (o, s) = fuzz(
        d.path(),
        &[
            "harness",
            "corpus",
            "-seed=1",
            "-runs=20000",
            "--in_process",
        ],
    );
    let took = t0.elapsed();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert_eq!(s["unique_crashes"], 1, "{s:#}");
    assert_eq!(s["fork_server_fallback"], true, "{s:#}");
    assert_eq!(s["worker_restarts"], 3, "{s:#}");
    assert_eq!(s["crashes_met_again"], 0, "{s:#}");
    assert!(!err.contains("earlier run"), "{err}");
    assert!(took.as_secs() < 40, "{took:?}");
    // a second run on the same corpus meets the recorded crash: that one is an earlier run's
    let (o, s) = fuzz(d.path(), &["harness", "corpus", "-seed=2", "-runs=2000"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert_eq!(s["crashes_met_again"], 1, "{s:#}");
}

/// A directory `seeds` under `dir` holding the `files` (name, contents).
fn seed_dir(dir: &Path, files: &[(&str, &[u8])]) -> PathBuf {
    let seeds = dir.join("seeds");
    std::fs::create_dir_all(&seeds).unwrap();
    for (name, data) in files {
        std::fs::write(seeds.join(name), data).unwrap();
    }
    seeds
}

/// Sizes of the files of `dir` (not its state directory), largest first.
fn file_sizes(dir: &Path) -> Vec<u64> {
    let mut v: Vec<u64> = files(dir)
        .iter()
        .map(|n| std::fs::metadata(dir.join(n)).unwrap().len())
        .collect();
    v.sort_unstable_by(|a, b| b.cmp(a));
    v
}

/// A seed of 600 bytes whose words sit among filler bytes.
fn padded_words_seed(dir: &Path) -> PathBuf {
    let seeds = dir.join("seeds");
    std::fs::create_dir_all(&seeds).unwrap();
    let mut s = vec![b'.'; 40];
    s.extend_from_slice(b"alpha");
    s.resize(345, b'-');
    s.extend_from_slice(b"beta");
    s.resize(600, b'~');
    std::fs::write(seeds.join("long"), &s).unwrap();
    seeds
}

#[test]
fn reduce_inputs_shortens_corpus_entries_and_the_corpus_keeps_its_coverage() {
    let d = tempfile::tempdir().unwrap();
    harness("words.c", d.path());
    padded_words_seed(d.path());
    let args = [
        "harness",
        "corpus",
        "seeds",
        "-seed=3",
        "-runs=20000",
        "--guidance",
        "off",
    ];
    let (_, kept) = fuzz(
        d.path(),
        &[&args[..], &["-reduce_inputs=0", "-stats_dir=s0"]].concat(),
    );
    assert!(
        file_sizes(&d.path().join("corpus")).contains(&600),
        "without reduction the seed's copy stays: {kept:#}"
    );
    std::fs::remove_dir_all(d.path().join("corpus")).unwrap();
    let (_, s) = fuzz(d.path(), &args);
    let sizes = file_sizes(&d.path().join("corpus"));
    // the words' loop runs 128 times or more in the seed (a hit-count bucket of its own), so the
    // entry cannot go below 128 bytes; the filler around the words goes
    assert!(
        sizes[0] <= 400,
        "largest corpus file {} bytes: {sizes:?}",
        sizes[0]
    );
    let stats = read_json(&d.path().join("corpus/.evotest/main/fuzzer_stats.json"));
    assert!(stats["corpus_reduced"].as_u64().unwrap() > 0, "{stats:#}");
    assert_eq!(
        stats["corpus_bytes"].as_u64().unwrap(),
        sizes.iter().sum::<u64>(),
        "{stats:#}"
    );
    // replaying the corpus directory alone (one execution per file) covers what the run covered
    let (_, again) = fuzz(
        d.path(),
        &["harness", "corpus", "-seed=3", "-runs=0", "-stats_dir=s2"],
    );
    assert_eq!(
        again["executions"].as_u64().unwrap(),
        sizes.len() as u64,
        "{again:#}"
    );
    assert_eq!(
        again["outcomes_covered"], s["outcomes_covered"],
        "{again:#}\n{s:#}"
    );
    assert_eq!(again["features"], s["features"], "{again:#}\n{s:#}");
}

/// The longest input the harness of `lengths.c` ran, from the lengths its processes logged.
fn longest_run(log: &Path) -> u64 {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .max()
        .unwrap_or(0)
}

#[test]
fn length_control_keeps_havocs_inputs_under_a_limit_that_grows() {
    let d = tempfile::tempdir().unwrap();
    harness("lengths.c", d.path());
    let seeds = d.path().join("seeds");
    std::fs::create_dir_all(&seeds).unwrap();
    std::fs::write(seeds.join("s"), b"0123456789").unwrap();
    let run = |extra: &[&str], log: &str| {
        let _ = std::fs::remove_dir_all(d.path().join("corpus"));
        let args = [
            &[
                "harness",
                "corpus",
                "seeds",
                "-seed=5",
                "-runs=3000",
                "-max_len=4096",
                "--guidance",
                "off",
            ][..],
            extra,
        ]
        .concat();
        let (o, _) = fuzz_env(d.path(), &args, &[("LENGTHS_LOG", &d.path().join(log))]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let stats = read_json(&d.path().join("corpus/.evotest/main/fuzzer_stats.json"));
        (
            longest_run(&d.path().join(log)),
            stats["len_limit"].as_u64().unwrap(),
        )
    };
    let (longest, limit) = run(&[], "controlled");
    // the limit starts at the largest seed and grows by log2(limit) bytes at a time
    assert!((10..100).contains(&limit), "limit {limit}");
    assert!(
        (10..=limit).contains(&longest),
        "ran {longest} bytes under a limit of {limit}"
    );
    let (free, _) = run(&["-len_control=0"], "free");
    assert!(
        free > 4 * limit,
        "without length control the longest input was {free} bytes (limit {limit})"
    );
}

/// Under an execution budget alone (`-runs`) the stages share executions only, not time, so a
/// guided run is reproducible from its seed: the same stages, attempts and coverage twice.
#[test]
fn a_guided_run_under_an_execution_budget_is_reproducible() {
    let d = tempfile::tempdir().unwrap();
    // a program without a crash (crash triage's runs can differ by one from run to run)
    harness("stall.c", d.path());
    let run = |corpus: &str| {
        let (_, s) = fuzz(d.path(), &["harness", corpus, "-seed=7", "-runs=6000"]);
        let g = &s["guidance"];
        let keys = [
            "execs_havoc",
            "execs_i2s",
            "execs_influence",
            "execs_avm",
            "execs_cmplog",
            "attempts",
            "distance_improvements",
        ];
        (
            s["outcomes_covered"].clone(),
            keys.map(|k| g[k].as_u64().unwrap()),
        )
    };
    let (a, b) = (run("c1"), run("c2"));
    assert!(a.1[3] > 0, "the AVM ran: {a:?}");
    assert_eq!(a, b);
}

/// The same -seed and -runs give the same run, also where routine calls' arguments point to
/// structures that hold addresses or into uninitialised buffers (the addresses move with
/// address randomisation between the two runs; they used to become input-to-state candidates).
#[test]
fn addresses_behind_routine_arguments_leave_runs_reproducible() {
    let d = tempfile::tempdir().unwrap();
    harness("addresses.c", d.path());
    let inputs = |log: &str| -> Vec<String> {
        let text = std::fs::read_to_string(d.path().join(log)).unwrap();
        // `EXECUTION MICROSECONDS HEX`: the executions and inputs, not the times
        text.lines()
            .map(|l| {
                l.split(' ')
                    .enumerate()
                    .filter(|(i, _)| *i != 1)
                    .map(|(_, w)| w)
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect()
    };
    for (corpus, log) in [("c1", "l1"), ("c2", "l2")] {
        let (o, _) = fuzz(
            d.path(),
            &[
                "harness",
                corpus,
                "-seed=3",
                "-runs=20000",
                &format!("--new_coverage_log={log}"),
            ],
        );
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let (a, b) = (inputs("l1"), inputs("l2"));
    assert_eq!(a[..a.len() - 1], b[..b.len() - 1], "the runs differ");
}

/// Numbers in fixed-width text: from the seed `2024-07-15`, input-to-state replaces the month
/// `07` (after a `-` that is a separator) by `12`, the day by `31` and the year by `1999`, each at
/// its width, and the crash on that date is found within 300 executions (seeds 1-3 needed 88-90;
/// before, 600-610, the month and day never matched: a leading zero and a `-` before them).
#[test]
fn numbers_in_fixed_width_text_are_replaced_at_their_width() {
    let d = tempfile::tempdir().unwrap();
    harness("date_text.c", d.path());
    std::fs::create_dir(d.path().join("seeds")).unwrap();
    std::fs::write(d.path().join("seeds/date"), b"2024-07-15").unwrap();
    for seed in ["-seed=1", "-seed=2"] {
        let corpus = format!("c{seed}");
        let (_, s) = fuzz(
            d.path(),
            &[
                "harness",
                &corpus,
                "seeds",
                seed,
                "-runs=300",
                "-stop_on_crash=1",
            ],
        );
        assert_eq!(s["unique_crashes"], 1, "{seed}: {s:#}");
    }
}

/// An in-process worker that an input ends at the run's last execution: the worker after it
/// has nothing left to run, and its last status line showed an empty corpus (`corp: 0/0b`, or
/// the one empty input it replayed) while the directory held the run's corpus. It shows the
/// directory's count.
#[test]
fn the_last_status_line_after_a_late_restart_shows_the_run_s_corpus() {
    let d = tempfile::tempdir().unwrap();
    harness("nth_call_crash.c", d.path());
    let o = evotest()
        .current_dir(d.path())
        .args([
            "fuzz",
            "harness",
            "c",
            "-runs=3000",
            "-seed=1",
            "--in_process",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("in-process: inputs ended 1 worker"), "{err}");
    let files = std::fs::read_dir(d.path().join("c"))
        .unwrap()
        .flatten()
        .filter(|e| e.file_type().unwrap().is_file())
        .count();
    assert!(files >= 3, "{err}");
    let done = err.lines().find(|l| l.contains("DONE")).expect(&err);
    assert!(
        done.contains(&format!("corp: {files}/")),
        "{files} files: {err}"
    );
}

/// libFuzzer's `-only_ascii=1`: every input the run makes is ASCII text, so a harness that traps
/// on any other byte never traps, and a keyword behind a compare is still found; without the
/// flag the same run traps (the flag was ignored with a warning).
#[test]
fn only_ascii_makes_every_input_ascii_text() {
    let d = tempfile::tempdir().unwrap();
    harness("ascii_only.c", d.path());
    let (o, s) = fuzz(
        d.path(),
        &["harness", "c1", "-seed=1", "-runs=20000", "-only_ascii=1"],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(!err.contains("ignoring unknown libFuzzer flag"), "{err}");
    assert_eq!(s["unique_crashes"], 0, "{s:#}");
    let mut keyword = false;
    for f in std::fs::read_dir(d.path().join("c1")).unwrap().flatten() {
        if f.file_type().unwrap().is_file() {
            let bytes = std::fs::read(f.path()).unwrap();
            assert!(bytes.iter().all(|&b| b < 0x7f), "{bytes:?}");
            keyword |= bytes.starts_with(b"GET /");
        }
    }
    assert!(
        keyword,
        "no input in the corpus starts with the keyword: {s:#}"
    );
    let (_, s) = fuzz(
        d.path(),
        &[
            "harness",
            "c2",
            "-seed=1",
            "-runs=20000",
            "-stop_on_crash=1",
        ],
    );
    assert_eq!(
        s["unique_crashes"], 1,
        "without the flag the trap is met: {s:#}"
    );
}

/// When every CPU the run may use is taken (here: their lock files held, in a TMPDIR of the
/// test's own, as another evotest holds them), the fork server runs unbound and the run says so
/// in one warning (it said nothing, and ran at a fraction of its speed); with
/// `EVOTEST_NO_AFFINITY=1` nothing is said.
#[test]
fn a_run_with_no_free_cpu_to_bind_says_so() {
    let d = tempfile::tempdir().unwrap();
    harness("addresses.c", d.path());
    let tmp = d.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let list = status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
        .unwrap();
    let last: usize = list
        .trim()
        .split([',', '-'])
        .filter_map(|c| c.trim().parse().ok())
        .max()
        .unwrap();
    if last == 0 {
        return; // one CPU: nothing is ever bound
    }
    let _held: Vec<std::fs::File> = (0..=last)
        .map(|c| {
            let f = std::fs::File::create(tmp.join(format!("evotest-cpu-{c}.lock"))).unwrap();
            f.lock().unwrap();
            f
        })
        .collect();
    let (o, _) = fuzz_env(
        d.path(),
        &["harness", "c1", "-runs=50"],
        &[("TMPDIR", &tmp)],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("warning: no free CPU to bind to"), "{err}");
    let off = Path::new("1");
    let (o, _) = fuzz_env(
        d.path(),
        &["harness", "c2", "-runs=50"],
        &[("TMPDIR", &tmp), ("EVOTEST_NO_AFFINITY", off)],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(!err.contains("no free CPU"), "{err}");
}

/// A harness built without the pass is refused in one line, and the corpus directory the run
/// would have created is not left behind.
#[test]
fn a_harness_without_the_pass_is_refused_and_leaves_no_corpus_directory() {
    let d = tempfile::tempdir().unwrap();
    build(
        Command::new("clang-22"),
        "magic.c",
        &["-g", "-O1", "-fsanitize=fuzzer"],
        d.path(),
        "plain",
    );
    let o = evotest()
        .current_dir(d.path())
        .args(["fuzz", "plain", "fresh-corpus", "-runs=10"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("has no evotest metadata"), "{err}");
    assert!(!d.path().join("fresh-corpus").exists());
}

/// A harness that puts other files in the places of the fork server's control and status
/// descriptors: the persistent child cannot speak the protocol any more, which is no fault of the
/// input (no crash, no exit, no hang), and the run goes on with a process per input.
#[test]
fn a_harness_that_replaces_the_protocol_descriptors_invents_no_fault() {
    let d = tempfile::tempdir().unwrap();
    harness("descriptors.c", d.path());
    for (seed, first) in [("1", b"C"), ("2", b"S")] {
        let seeds = d.path().join(format!("seeds{seed}"));
        std::fs::create_dir_all(&seeds).unwrap();
        std::fs::write(seeds.join("a"), b"x").unwrap();
        std::fs::write(seeds.join("b"), first).unwrap();
        let corpus = format!("corpus{seed}");
        let (o, s) = fuzz(
            d.path(),
            &[
                "harness",
                &corpus,
                seeds.to_str().unwrap(),
                &format!("-seed={seed}"),
                "-runs=2000",
                "-timeout=1",
            ],
        );
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(
            (s["unique_crashes"].as_u64(), s["timeouts_total"].as_u64()),
            (Some(0), Some(0)),
            "{s}"
        );
        assert!(s["executions"].as_u64().unwrap() >= 2000, "{s}");
    }
}

/// A worker that dies in a coverage-only execution (a hang in havoc, here) left the shared
/// header's coverage-only flag set, and the next worker, which starts with it off and writes it
/// only when it changes, replayed the whole corpus as coverage-only executions it read as
/// covering nothing: it kept no entry (`INITED … corp: 1/0b`, htslib in 3 runs of 3) and found
/// the corpus again entry by entry. The supervisor now clears the per-run flags before each
/// worker: every restarted worker comes back with the corpus.
#[test]
fn an_in_process_worker_after_a_hang_in_havoc_replays_the_whole_corpus() {
    let d = tempfile::tempdir().unwrap();
    harness("lite_hang.c", d.path());
    let seeds = d.path().join("seeds");
    std::fs::create_dir(&seeds).unwrap();
    for k in 0u8..8 {
        // two bytes: below the hang's length
        std::fs::write(seeds.join(format!("s{k}")), [k, 1]).unwrap();
    }
    // not quiet: the status lines are what is checked
    let o = evotest()
        .current_dir(d.path())
        .args([
            "fuzz",
            "harness",
            "corpus",
            "seeds",
            "-seed=1",
            "-max_total_time=8",
        ])
        .args([
            "-timeout=1",
            "-artifact_prefix=art/",
            "--guidance",
            "off",
            "--in_process",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    // a worker started when the time was already spent replays nothing (its INITED line comes
    // right before DONE): not counted
    let lines: Vec<&str> = err.lines().collect();
    let inited: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].contains("INITED"))
        .filter(|&i| !lines.get(i + 1).is_some_and(|n| n.contains("DONE")))
        .map(|i| lines[i])
        .map(|l| {
            let c = l.split("corp: ").nth(1).unwrap();
            c.split('/').next().unwrap().parse().unwrap()
        })
        .collect();
    assert!(inited.len() >= 2, "no restart:\n{err}");
    assert!(inited[0] >= 8, "{err}");
    for n in &inited[1..] {
        assert!(
            *n >= inited[0],
            "a restarted worker kept {n} entries:\n{err}"
        );
    }
}

/// Leak detection's default follows the peers: on for a libFuzzer harness (as libFuzzer), off
/// for a whole program (as AFL++), whose leaks at exit are mostly a parser giving up without
/// freeing and whose every exit would pay LeakSanitizer's scan (before, on bc each such input
/// was a "crash" and the run exited 1, at a third of AFL++'s exec/s). `-detect_leaks=1` asks for
/// them.
#[test]
fn a_whole_program_s_leaks_at_exit_are_reported_only_when_asked_for() {
    let d = tempfile::tempdir().unwrap();
    build(
        cc(),
        "leaky_prog.c",
        &["-g", "-O1", "-fsanitize=address"],
        d.path(),
        "prog",
    );
    let seeds = d.path().join("seeds");
    std::fs::create_dir(&seeds).unwrap();
    std::fs::write(seeds.join("l"), b"Leak").unwrap();
    let (o, s) = fuzz(
        d.path(),
        &["prog", "corpus", "seeds", "-seed=1", "-runs=200"],
    );
    assert_eq!(o.status.code(), Some(0), "{s:#}");
    assert_eq!(s["unique_crashes"], 0, "{s:#}");
    let (o, s) = fuzz(
        d.path(),
        &[
            "prog",
            "corpus2",
            "seeds",
            "-seed=1",
            "-runs=200",
            "-detect_leaks=1",
        ],
    );
    assert_eq!(o.status.code(), Some(1), "{s:#}");
    assert!(s["unique_crashes"].as_u64().unwrap() >= 1, "{s:#}");
}

/// A whole program that rejects its arguments exits the same way on every seed: the run says so
/// at the start (before, it fuzzed the option parser to the end in silence, as AFL++ at least
/// warns "test case may be useless"); with arguments it accepts, no warning.
#[test]
fn seeds_that_all_end_with_the_same_error_exit_are_warned_about() {
    let d = tempfile::tempdir().unwrap();
    build(cc(), "strict_args.c", &["-g", "-O1"], d.path(), "prog");
    let seeds = d.path().join("seeds");
    std::fs::create_dir(&seeds).unwrap();
    std::fs::write(seeds.join("a"), b"ab").unwrap();
    std::fs::write(seeds.join("z"), b"zz").unwrap();
    let run = |corpus: &str, opt: &str| {
        let o = evotest()
            .current_dir(d.path())
            .args([
                "fuzz", "prog", corpus, "seeds", "-seed=1", "-runs=50", "--", opt, "@@",
            ])
            .output()
            .unwrap();
        String::from_utf8_lossy(&o.stderr).to_string()
    };
    let err = run("c1", "--bogus");
    assert!(
        err.contains(
            "warning: every seed (2) made the program exit with status 1 along the same path"
        ),
        "{err}"
    );
    let err = run("c2", "-v");
    assert!(!err.contains("every seed"), "{err}");
}

/// A harness with a function dispatched through an ifunc (`target_clones`): its resolver runs
/// while the loader relocates, so it gets no probe (a probe there started the runtime before the
/// environment was readable, and the harness "did not start as a fork server"); the run covers
/// the branches after it, in both modes.
#[test]
fn a_function_with_target_clones_does_not_stop_the_fuzzer() {
    let d = tempfile::tempdir().unwrap();
    build_fuzz_harness(
        d.path(),
        "#include <stdint.h>\n#include <stddef.h>\n__attribute__((target_clones(\"default,avx2\")))\nstatic int sum(const uint8_t *d, size_t n) { int s = 0; for (size_t i = 0; i < n; i++) s += d[i]; return s; }\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { if (n > 3 && d[0] == 'B' && d[1] == 'U') return sum(d, n) > 5; return 0; }\n",
    );
    for mode in [None, Some("--in_process")] {
        let mut args = vec!["./h", "-runs=20000", "-seed=1"];
        args.extend(mode);
        let (o, s) = fuzz(d.path(), &args);
        assert!(
            o.status.success(),
            "{mode:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        // both ways at `n > 3`, 'B' and 'U', and the loop of the clone that runs (`sum > 5` is
        // true for every input that gets there)
        assert!(
            s["outcomes_covered"].as_u64().unwrap() >= 8,
            "{mode:?}: {s:#}"
        );
    }
}

/// A seed that hangs (rob10 fault1). Alone, under `-runs=0`, it costs about one timeout, not the
/// eleven seconds it took at `-timeout=1` (its confirmation ran in a fresh process whose set-up
/// time was never measured, with ten times the timeout). When `-max_total_time` ends while it is
/// being confirmed, it is still kept (artifact, count, exit 70), and the seed run before it is in
/// the corpus: the run reported 0 timeouts and exited 0.
#[test]
fn a_hang_among_the_seeds_costs_about_one_timeout_and_is_kept_when_the_time_ends() {
    let d = tempfile::tempdir().unwrap();
    harness("hang.c", d.path());
    let hang = d.path().join("hang");
    std::fs::create_dir_all(&hang).unwrap();
    std::fs::write(hang.join("h"), b"Hx").unwrap();
    let t0 = Instant::now();
    let (o, s) = fuzz(
        d.path(),
        &[
            "harness",
            "c0",
            "hang",
            "-runs=0",
            "-timeout=1",
            "-artifact_prefix=a0/",
        ],
    );
    let took = t0.elapsed();
    assert_eq!(o.status.code(), Some(70), "{s:#}");
    assert_eq!(s["timeouts"].as_array().unwrap().len(), 1, "{s:#}");
    assert!(
        took < Duration::from_secs(6),
        "one hanging seed took {took:?}"
    );

    let seeds = seed_dir(d.path(), &[("1ok", b"ab"), ("2hang", b"Hx")]);
    let (o, s) = fuzz(
        d.path(),
        &[
            "harness",
            "c1",
            seeds.to_str().unwrap(),
            "-max_total_time=1",
            "-timeout=1",
            "-seed=1",
            "-artifact_prefix=a1/",
        ],
    );
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(70), "{s:#}\n{stderr}");
    assert!(s["timeouts_total"].as_u64().unwrap() >= 1, "{s:#}");
    let kept = s["timeouts"].as_array().unwrap();
    assert_eq!(kept.len(), 1, "{s:#}");
    let artifact = d.path().join(kept[0].as_str().unwrap());
    assert_eq!(
        std::fs::read(&artifact).unwrap(),
        b"Hx",
        "{}",
        artifact.display()
    );
    assert!(
        files(&d.path().join("c1")).contains(&sha1_of(b"ab")),
        "{:?}",
        files(&d.path().join("c1"))
    );
    assert!(s["outcomes_covered"].as_u64().unwrap() > 0, "{s:#}");
}

/// The SHA-1 of `data` in hex, as corpus files and artifacts are named.
fn sha1_of(data: &[u8]) -> String {
    use sha1::{Digest, Sha1};
    Sha1::digest(data)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A corpus directory of libFuzzer's (files named by their SHA-1, as libFuzzer and OSS-Fuzz
/// write them) keeps every file it had (rob10 fault16): input reduction replaced them by shorter
/// inputs and deleted the user's originals. Reduced versions are added as new files.
#[test]
fn files_of_an_existing_corpus_are_never_deleted_by_input_reduction() {
    let d = tempfile::tempdir().unwrap();
    build_fuzz_harness(
        d.path(),
        "#include <stddef.h>\n#include <stdint.h>\n\
         int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) {\n\
           if (n >= 4 && d[0] == 'F' && d[1] == 'U' && d[2] == 'Z' && d[3] == 'Z') return 0;\n\
           return 0;\n\
         }\n",
    );
    let corpus = d.path().join("corpus");
    std::fs::create_dir_all(&corpus).unwrap();
    let mut originals = vec![];
    for (head, fill, n) in [("FUZ", b'q', 200), ("FU", b'w', 300), ("F", b'e', 100)] {
        let mut body = head.as_bytes().to_vec();
        body.resize(head.len() + n, fill);
        let name = sha1_of(&body);
        std::fs::write(corpus.join(&name), &body).unwrap();
        originals.push((name, body));
    }
    let (o, s) = fuzz(d.path(), &["h", "corpus", "-runs=20000", "-seed=1"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stats = read_json(&corpus.join(".evotest/main/fuzzer_stats.json"));
    assert!(stats["corpus_reduced"].as_u64().unwrap() > 0, "{stats:#}");
    for (name, body) in &originals {
        assert_eq!(
            std::fs::read(corpus.join(name)).ok().as_ref(),
            Some(body),
            "{name} was deleted or changed: {:?}\n{s:#}",
            files(&corpus)
        );
    }
    // the shorter versions are there too
    assert!(
        files(&corpus).len() > originals.len(),
        "{:?}",
        files(&corpus)
    );
}

/// A crash recorded by an earlier run on the same corpus, met again (rob10 fault2): the run
/// exits 1 and the crash's artifact exists (written again when it had been removed, as a CI job
/// that caches the corpus directory but not its workspace does). The run exited 0, wrote no
/// file, and its summary named the missing one. A build without the bug, on that corpus, exits
/// 0 and names no missing file.
#[test]
fn a_known_crash_met_again_fails_the_run_and_its_artifact_exists() {
    let d = tempfile::tempdir().unwrap();
    harness("magic.c", d.path());
    let seeds = seed_dir(d.path(), &[("ok", b"OK"), ("bug", b"BUG!")]);
    let seeds = seeds.to_str().unwrap();
    let args = [
        "harness",
        "corpus",
        seeds,
        "-runs=200",
        "-seed=1",
        "-artifact_prefix=art/",
    ];
    let artifacts = |s: &Value| -> Vec<PathBuf> {
        s["crashes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| d.path().join(c["artifact"].as_str().unwrap()))
            .collect()
    };
    let (o, s) = fuzz(d.path(), &args);
    assert_eq!(o.status.code(), Some(1), "{s:#}");
    assert_eq!(s["unique_crashes"], 1, "{s:#}");
    assert!(artifacts(&s)[0].is_file(), "{s:#}");
    // the workspace is cleaned, the corpus directory (and its records) kept
    std::fs::remove_dir_all(d.path().join("art")).unwrap();
    for round in 0..2 {
        let (o, s) = fuzz(d.path(), &args);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "round {round}: {s:#}\n{stderr}");
        assert_eq!(s["unique_crashes"], 1, "{s:#}");
        assert_eq!(s["new_crashes"], 0, "{s:#}");
        assert_eq!(s["crashes_met_again"], 1, "{s:#}");
        let listed = artifacts(&s);
        assert_eq!(listed.len(), 1, "{s:#}");
        assert!(listed[0].is_file(), "round {round}: {s:#}");
        assert_eq!(std::fs::read(&listed[0]).unwrap(), b"BUG!");
        assert_eq!(files(&d.path().join("art")).len(), 1);
    }
    // the bug fixed (another build, which never crashes), its artifact gone: exit 0, and the
    // summary lists no file that does not exist
    std::fs::remove_dir_all(d.path().join("art")).unwrap();
    build(
        cc(),
        "hang.c",
        &["-g", "-O1", "-fsanitize=fuzzer"],
        d.path(),
        "fixed",
    );
    let (o, s) = fuzz(
        d.path(),
        &["fixed", "corpus", seeds, "-runs=0", "-artifact_prefix=art/"],
    );
    assert_eq!(o.status.code(), Some(0), "{s:#}");
    assert_eq!(s["crashes_met_again"], 0, "{s:#}");
    assert!(artifacts(&s).iter().all(|p| p.is_file()), "{s:#}");
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        !stderr
            .lines()
            .any(|l| l.starts_with("  crash ") && l.contains(": art/")),
        "{stderr}"
    );
}

/// A harness that calls `exit()` inside LLVMFuzzerTestOneInput: evotest reports the input as a
/// crash, and its reproducer run by hand fails as libFuzzer's does ("fuzz target exited", exit
/// status -error_exitcode, 77 by default), where it exited 0 in silence, so that a
/// "reproduce" step concluded the crash did not reproduce.
#[test]
fn exit_inside_the_harness_fails_when_its_reproducer_runs_by_hand() {
    let d = tempfile::tempdir().unwrap();
    let h = harness("exits.c", d.path());
    let (o, s) = fuzz(
        d.path(),
        &[
            "harness",
            "corpus",
            "-seed=1",
            "-runs=50000",
            "--stop_on_crash",
        ],
    );
    assert_eq!(o.status.code(), Some(1), "{s:#}");
    let kind = s["crashes"][0]["kind"].as_str().unwrap().to_string();
    assert!(kind.starts_with("exit("), "{s:#}");
    let artifact = d.path().join(s["crashes"][0]["artifact"].as_str().unwrap());
    let replay = |args: &[&str], file: &Path| {
        let r = Command::new(&h).args(args).arg(file).output().unwrap();
        (
            r.status.code(),
            String::from_utf8_lossy(&r.stderr).to_string(),
        )
    };
    let (code, err) = replay(&[], &artifact);
    assert_eq!(code, Some(77), "{kind}: {err}");
    assert_eq!(
        err.matches("ERROR: evotest: fuzz target exited").count(),
        1,
        "{err}"
    );
    // exit(0) and exit(3) alike, with libFuzzer's -error_exitcode
    for (input, flag, want) in [
        (&b"EX"[..], "-error_exitcode=9", 9),
        (b"E3", "-error_exitcode=9", 9),
        (b"E3", "-timeout=5", 77),
    ] {
        let f = d.path().join("input");
        std::fs::write(&f, input).unwrap();
        let (code, err) = replay(&[flag], &f);
        assert_eq!(code, Some(want), "{input:?} {flag}: {err}");
        assert!(err.contains("fuzz target exited"), "{err}");
    }
    // an input that returns still passes, and exit() after the inputs is no failure
    let f = d.path().join("fine");
    std::fs::write(&f, b"ok").unwrap();
    let (code, err) = replay(&[], &f);
    assert_eq!(code, Some(0), "{err}");
    assert!(!err.contains("exited"), "{err}");
}

/// Custom mutators: a harness whose LLVMFuzzerCustomMutator calls LLVMFuzzerMutate links (the
/// driver provides it; the link failed with an undefined reference), LLVMFuzzerMutate mutates
/// within the bounds it is given, and `evotest fuzz` says once, at the start, that it does not call
/// the custom mutator (it was ignored in silence). Without the mutator, the crash behind the
/// harness's checksum is still found, by the checksum repair (before it, no crash in 2,000
/// executions).
#[test]
fn custom_mutator_harnesses_link_and_evotest_warns_that_it_does_not_call_them() {
    let d = tempfile::tempdir().unwrap();
    let h = harness("custom_mutator.c", d.path());
    std::fs::write(d.path().join("selftest"), b"SELFTEST").unwrap();
    let r = Command::new(&h)
        .arg(d.path().join("selftest"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&r.stderr);
    assert_eq!(r.status.code(), Some(0), "{err}");
    assert!(err.contains("LLVMFuzzerMutate: "), "{err}");
    let (o, s) = fuzz(d.path(), &["harness", "corpus", "-seed=1", "-runs=2000"]);
    let err = String::from_utf8_lossy(&o.stderr);
    // the harness's crash sits behind the checksum its custom mutator keeps valid; the directed
    // attempts' checksum repair reaches it without the mutator (exit 1: a crash was found)
    assert_eq!(o.status.code(), Some(1), "{s:#}\n{err}");
    let y = first_crash(d.path(), &s);
    assert!(y.len() >= 7 && &y[4..7] == b"CM!", "{y:02x?}");
    assert!(s["guidance"]["repairs_won"].as_u64().unwrap() > 0, "{s:#}");
    assert_eq!(
        err.matches("defines LLVMFuzzerCustomMutator, which evotest does not call")
            .count(),
        1,
        "{err}"
    );
    // a harness without one gets no such warning
    harness("magic.c", d.path());
    let (o, _) = fuzz(d.path(), &["harness", "corpus2", "-seed=1", "-runs=100"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("LLVMFuzzerCustom"), "{err}");
}

/// libFuzzer's flag conventions: -timeout=0 is no timeout (it was refused), -error_exitcode=N is
/// a crash's exit status (it was ignored with a warning), what follows -ignore_remaining_args=1
/// goes to the harness (it was an error, and the harness run by hand took it for files), a bare
/// unknown -foo is an error that names -foo (it named '-f'), and -help=1 anywhere prints the
/// usage (the run fuzzed).
#[test]
fn libfuzzer_flag_conventions_are_followed() {
    let d = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        let o = evotest()
            .current_dir(d.path())
            .arg("fuzz")
            .args(args)
            .output()
            .unwrap();
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stdout).to_string(),
            String::from_utf8_lossy(&o.stderr).to_string(),
        )
    };
    // -timeout=0: a seed that loops forever is no timeout; the time budget ends the run
    build(
        cc(),
        "hang.c",
        &["-g", "-O1", "-fsanitize=fuzzer"],
        d.path(),
        "hang",
    );
    std::fs::create_dir(d.path().join("seeds")).unwrap();
    std::fs::write(d.path().join("seeds/h"), b"H").unwrap();
    let t0 = Instant::now();
    let (code, _, err) = run(&[
        "hang",
        "c0",
        "seeds",
        "-timeout=0",
        "-max_total_time=2",
        "-seed=1",
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert!(!err.contains("timeout-"), "{err}");
    assert!(t0.elapsed() < Duration::from_secs(60), "{err}");
    // -error_exitcode=N: a run that found a crash exits N (without it, 1)
    harness("magic.c", d.path());
    let (code, _, err) = run(&[
        "harness",
        "c1",
        "-seed=1",
        "-runs=60000",
        "--stop_on_crash",
        "-error_exitcode=42",
    ]);
    assert_eq!(code, Some(42), "{err}");
    assert!(!err.contains("unknown libFuzzer flag"), "{err}");
    // -ignore_remaining_args=1: the rest is the harness's, fuzzing or run by hand
    let h = build(
        cc(),
        "own_args.c",
        &["-g", "-O1", "-fsanitize=fuzzer"],
        d.path(),
        "own",
    );
    let (code, _, err) = run(&[
        "own",
        "c2",
        "-runs=10",
        "-ignore_remaining_args=1",
        "-foo",
        "bar",
        "-help=1",
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("own_args.c: -foo bar -help=1\n"), "{err}");
    std::fs::write(d.path().join("in"), b"x").unwrap();
    let r = Command::new(&h)
        .current_dir(d.path())
        .args(["in", "-ignore_remaining_args=1", "-foo", "bar"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&r.stderr);
    assert_eq!(r.status.code(), Some(0), "{err}");
    assert_eq!(err.matches("Running: ").count(), 1, "{err}");
    // a bare unknown flag is named whole, in one line
    let (code, _, err) = run(&["own", "c3", "-runs=10", "-foo"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.starts_with("error: unknown flag -foo "), "{err}");
    assert!(!err.contains("'-f'"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    // AFL++'s flags say what evotest takes instead (clap's tip sent `-- -i` to the target)
    for (flag, says) in [
        ("-i", "seed directories"),
        ("-t", "-timeout=SECONDS"),
        ("-x", "-dict=FILE"),
    ] {
        let (code, _, err) = run(&["own", "c5", flag, "x"]);
        assert_eq!(code, Some(2), "{err}");
        assert!(
            err.starts_with(&format!("error: {flag} is AFL++'s flag")) && err.contains(says),
            "{err}"
        );
        assert_eq!(err.trim().lines().count(), 1, "{err}");
    }
    // -help=1, wherever it is, prints the usage and fuzzes nothing
    for args in [
        &["own", "c4", "-runs=10", "-help=1"][..],
        &["-help=1"],
        &["own", "-help=1", "c4"],
    ] {
        let (code, out, err) = run(args);
        assert_eq!(code, Some(0), "{args:?}: {err}");
        assert!(out.contains("Usage: evotest fuzz"), "{args:?}: {out}");
        assert!(!err.contains("executions in"), "{args:?}: {err}");
    }
    assert!(!d.path().join("c4").exists());
}

/// An input for which the harness returns -1 ("reject", in libFuzzer's API) is not added to the
/// corpus, whatever it covers, with the fork server and in-process; a seed it rejects is not
/// copied in either. Before, such inputs were kept as any other.
#[test]
fn inputs_the_harness_rejects_stay_out_of_the_corpus() {
    let d = tempfile::tempdir().unwrap();
    harness("reject.c", d.path());
    std::fs::create_dir(d.path().join("seeds")).unwrap();
    std::fs::write(d.path().join("seeds/rj"), b"RJ-seed").unwrap();
    std::fs::write(d.path().join("seeds/r"), b"Rx").unwrap();
    for (corpus, mode) in [("c1", None), ("c2", Some("--in_process"))] {
        let _ = std::fs::remove_file(d.path().join("saw_rj"));
        let mut args = vec!["harness", corpus, "seeds", "-seed=1", "-runs=20000"];
        args.extend(mode);
        let (o, s) = fuzz(d.path(), &args);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{mode:?}: {s:#}\n{}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(
            d.path().join("saw_rj").exists(),
            "{mode:?}: no RJ input ran"
        );
        let entries = files(&d.path().join(corpus));
        assert!(!entries.is_empty(), "{mode:?}");
        for e in &entries {
            let data = std::fs::read(d.path().join(corpus).join(e)).unwrap();
            assert!(
                !data.starts_with(b"RJ"),
                "{mode:?}: {e} holds a rejected input: {data:?}"
            );
        }
        // the other inputs starting with R are kept as usual
        assert!(
            entries
                .iter()
                .any(|e| std::fs::read(d.path().join(corpus).join(e))
                    .unwrap()
                    .starts_with(b"R")),
            "{mode:?}: {entries:?}"
        );
    }
}

/// In-process, a hang that mutations keep finding ends a worker after every timeout: the time the
/// workers spent hanging does not count as their life, so the run goes on with the fork server
/// (which pays no restart) as it does for a shallow crash. It never did (each worker lived a
/// timeout and a restart, just above the limit): 22 executions per second for the whole run.
#[test]
fn in_process_mode_falls_back_to_the_fork_server_when_hangs_keep_ending_workers() {
    let d = tempfile::tempdir().unwrap();
    harness("loop_lp.c", d.path());
    let (o, s) = fuzz(
        d.path(),
        &[
            "harness",
            "corpus",
            "-seed=1",
            "-max_total_time=45",
            "--in_process",
        ],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(70), "{err}");
    assert_eq!(s["fork_server_fallback"], true, "{s:#}");
    assert!(err.contains("going on with the fork server"), "{err}");
}

/// A whole program that blocks 0.15 s on every input before its first branch: an execution past
/// the first suspect limit (0.1 s) with no coverage yet had no feature by which it could be told
/// from a known hang, so every one was dropped as a timeout unconfirmed, whatever -timeout said,
/// and nothing was covered (20 executions, 19 "timed out", 0 of 6 outcomes). It is confirmed with
/// the whole timeout now, ends normally, and sets the suspect limit.
#[test]
fn a_program_that_blocks_before_its_first_branch_is_fuzzed_not_timed_out() {
    let d = tempfile::tempdir().unwrap();
    build(
        cc(),
        "sleepy_prog.c",
        &["-g", "-O1"],
        d.path(),
        "sleepy_prog",
    );
    std::fs::create_dir(d.path().join("seeds")).unwrap();
    std::fs::write(d.path().join("seeds/a"), b"hello K").unwrap();
    let (_, s) = fuzz(
        d.path(),
        &[
            "sleepy_prog",
            "c",
            "seeds",
            "-seed=1",
            "-runs=12",
            "-timeout=5",
            "--",
            "@@",
        ],
    );
    assert_eq!(s["timeouts_total"], 0, "{s:#}");
    assert!(s["outcomes_covered"].as_u64().unwrap() >= 4, "{s:#}");
}

/// Two `abort()` calls on different lines of one function are two unique crashes, each with its
/// artifact: the signature (the top frames' functions) merged them, and the second crashing input
/// was kept nowhere, not as an artifact, not in the corpus.
#[test]
fn two_aborts_in_one_function_are_two_crashes() {
    let d = tempfile::tempdir().unwrap();
    build(
        cc(),
        "two_aborts.c",
        &["-g", "-O0", "-fsanitize=fuzzer"],
        d.path(),
        "two_aborts",
    );
    std::fs::create_dir(d.path().join("seeds")).unwrap();
    std::fs::write(d.path().join("seeds/a"), b"A!").unwrap();
    std::fs::write(d.path().join("seeds/b"), b"B!").unwrap();
    let (_, s) = fuzz(d.path(), &["two_aborts", "c", "seeds", "-runs=0"]);
    assert_eq!(s["unique_crashes"], 2, "{s:#}");
    let mut inputs: Vec<Vec<u8>> = s["crashes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| std::fs::read(d.path().join(c["artifact"].as_str().unwrap())).unwrap())
        .collect();
    inputs.sort();
    assert_eq!(inputs, vec![b"A!".to_vec(), b"B!".to_vec()], "{s:#}");
}

/// A harness whose `LLVMFuzzerInitialize` starts a thread that runs every input: a forked child
/// keeps only the forking thread, so that each input waited for ever (no diagnosis, a timeout
/// that did not reproduce, and under `--in_process` the crash filed as a timeout by the fork
/// server's triage). The target now runs its inputs itself, and says so.
#[test]
fn a_harness_whose_initialize_starts_a_thread_is_fuzzed() {
    let d = tempfile::tempdir().unwrap();
    build(
        cc(),
        "thread_pool.c",
        &["-g", "-O1", "-fsanitize=fuzzer", "-pthread"],
        d.path(),
        "harness",
    );
    for mode in [&[][..], &["--in_process"][..]] {
        let corpus = format!("c{}", mode.len());
        let mut args = vec!["harness", &corpus, "-runs=20000", "-seed=1"];
        args.extend_from_slice(mode);
        let (o, s) = fuzz(d.path(), &args);
        assert_eq!(s["unique_crashes"], 1, "{mode:?}: {s:#}");
        let crash = &s["crashes"][0];
        assert_eq!(crash["kind"], "SIGABRT", "{mode:?}: {crash:#}");
        assert_eq!(crash["reproduced"], true, "{mode:?}: {crash:#}");
        assert_eq!(s["timeouts_total"].as_u64().unwrap(), 0, "{mode:?}: {s:#}");
        assert!(
            s["outcomes_covered"].as_u64().unwrap() >= 12,
            "{mode:?}: {s:#}"
        );
        let input = std::fs::read(d.path().join(crash["artifact"].as_str().unwrap())).unwrap();
        assert_eq!(input, b"POOL", "{mode:?}");
        if mode.is_empty() {
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(
                err.contains("runs 2 threads before its first input"),
                "no notice:\n{err}"
            );
        }
    }
}

/// The empty input, run first to measure a fresh process's set-up (with ten times the timeout
/// for it), hangs: a run whose `-max_total_time` ends within that allowance kept no artifact
/// and exited 0, having run nothing. The hang is kept now (it ran past the timeout).
#[test]
fn a_hang_on_the_empty_input_is_kept_when_the_run_ends_during_it() {
    let d = tempfile::tempdir().unwrap();
    harness("empty_hang.c", d.path());
    let t0 = Instant::now();
    let (o, s) = fuzz(
        d.path(),
        &["harness", "c", "-timeout=1", "-max_total_time=3", "-seed=1"],
    );
    assert!(t0.elapsed() < Duration::from_secs(30), "{:?}", t0.elapsed());
    assert_eq!(o.status.code(), Some(70), "{s:#}");
    assert_eq!(s["timeouts_total"], 1, "{s:#}");
    let name = "timeout-da39a3ee5e6b4b0d3255bfef95601890afd80709";
    assert_eq!(std::fs::read(d.path().join(name)).unwrap(), b"", "{s:#}");
}

/// A harness whose forked child crashes (a crash it handles) and which then dies of a bug of its
/// own: the crash was filed under the child's signal and stack (its report came first), so that
/// two bugs of the harness were one unique crash and one was lost.
#[test]
fn a_harness_s_own_crash_is_told_from_its_forked_child_s() {
    let d = tempfile::tempdir().unwrap();
    harness("fork_child_crash.c", d.path());
    std::fs::create_dir(d.path().join("seeds")).unwrap();
    std::fs::write(d.path().join("seeds/x"), b"SX").unwrap();
    std::fs::write(d.path().join("seeds/y"), b"SY").unwrap();
    let (_, s) = fuzz(d.path(), &["harness", "c", "seeds", "-runs=0"]);
    assert_eq!(s["unique_crashes"], 2, "{s:#}");
    let mut kinds: Vec<&str> = s["crashes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["kind"].as_str().unwrap())
        .collect();
    kinds.sort();
    assert_eq!(kinds, ["SIGABRT", "SIGFPE"], "{s:#}");
}

/// An instrumented library opened with `dlopen` at the first input, after the trace map was
/// sized: its branches cannot be recorded, which the run did not say (with a process per input
/// the fuzzer was blind to it). It says so now, once.
#[test]
fn instrumented_code_opened_while_inputs_run_is_reported() {
    let d = tempfile::tempdir().unwrap();
    let plugin = build(
        cc(),
        "late_plugin.c",
        &["-g", "-O1", "-fPIC", "-shared"],
        d.path(),
        "plugin.so",
    );
    build(
        cc(),
        "late_plugin_host.c",
        &["-g", "-O1", "-fsanitize=fuzzer", "-ldl"],
        d.path(),
        "harness",
    );
    let (o, s) = fuzz_env(
        d.path(),
        &["harness", "c", "-runs=2000", "-seed=1"],
        &[("PLUGIN", &plugin)],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    let warning = "loaded instrumented code while it ran inputs";
    assert_eq!(err.matches(warning).count(), 1, "{err}\n{s:#}");
}

/// Under a soft limit of 128 open files (the hard one higher), no target could start: the fork
/// server's descriptors are 198 and 199 ("Bad file descriptor"). evotest raises the soft limit,
/// as AFL++ does.
#[test]
fn a_low_soft_limit_of_open_files_is_raised() {
    use std::os::unix::process::CommandExt;
    let d = tempfile::tempdir().unwrap();
    harness("lengths.c", d.path());
    let mut c = evotest();
    c.current_dir(d.path())
        .args(["fuzz", "harness", "c", "-runs=200", "-seed=1", "-q"]);
    unsafe {
        c.pre_exec(|| {
            let mut rl = libc::rlimit {
                rlim_cur: 0,
                rlim_max: 0,
            };
            libc::getrlimit(libc::RLIMIT_NOFILE, &mut rl);
            rl.rlim_cur = 128.min(rl.rlim_max);
            libc::setrlimit(libc::RLIMIT_NOFILE, &rl);
            Ok(())
        });
    }
    let o = c.output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("Bad file descriptor"), "{err}");
    assert!(err.contains("200 executions"), "{err}");
}

/// Crash minimisation removes any span, not only chunks at halving boundaries: an input whose
/// brackets must balance (`[boom,[1,2,[3]],"abc",[[x]]]`) stopped at `[boom[[]]]`, where only a
/// span across two chunks can go; libFuzzer's reaches the minimum (a robustness check,
/// 2026-12-01: nlohmann-json's `{"boom":1337}` inside 67 bytes stopped at 34).
#[test]
fn crash_minimisation_removes_spans_across_chunks() {
    let d = tempfile::tempdir().unwrap();
    build_fuzz_harness(
        d.path(),
        "#include <stdint.h>\n#include <stddef.h>\n#include <string.h>\n\
         int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) {\n\
         \x20 int depth = 0, boom = 0;\n\
         \x20 for (size_t i = 0; i < n; i++) {\n\
         \x20   if (d[i] == '[') depth++;\n\
         \x20   else if (d[i] == ']') { if (--depth < 0) return 0; }\n\
         \x20   if (i + 4 <= n && memcmp(d + i, \"boom\", 4) == 0) boom = 1;\n\
         \x20 }\n\
         \x20 if (boom && depth == 0) __builtin_trap();\n\
         \x20 return 0;\n}\n",
    );
    std::fs::write(d.path().join("big"), "[boom,[1,2,[3]],\"abc\",[[x]]]").unwrap();
    let o = evotest()
        .current_dir(d.path())
        .args([
            "fuzz",
            "h",
            "-minimize_crash=1",
            "-runs=10000",
            "-exact_artifact_path=min",
            "big",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(std::fs::read(d.path().join("min")).unwrap(), b"[boom]");
}

/// `evotest fuzz HARNESS FILE`, a libFuzzer user's `./fuzzer crash-file`: one line that says how
/// to replay the file (and to minimise it), before any seed line, and exit 2.
#[test]
fn a_file_where_the_corpus_goes_says_how_to_replay_it() {
    let d = tempfile::tempdir().unwrap();
    build_fuzz_harness(
        d.path(),
        "#include <stdint.h>\n#include <stddef.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { return 0; }\n",
    );
    std::fs::write(d.path().join("crash-1"), "x").unwrap();
    let o = evotest()
        .current_dir(d.path())
        .args(["fuzz", "h", "crash-1"])
        .output()
        .unwrap();
    let e = assert_one_line_error(&o);
    assert!(e.contains("is a file") && e.contains("h crash-1"), "{e}");
}

/// `-merge=1` names the inputs it leaves out and why, and says that a larger `-timeout` keeps
/// slow ones (a robustness check, 2026-12-01: a comparison through evotest's build lost six of
/// another fuzzer's inputs without a word).
#[test]
fn merge_names_the_inputs_it_leaves_out() {
    let d = tempfile::tempdir().unwrap();
    build_fuzz_harness(
        d.path(),
        "#include <stdint.h>\n#include <stddef.h>\n\
         int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) {\n\
         \x20 if (n == 1 && d[0] == 'C') __builtin_trap();\n\
         \x20 if (n == 1 && d[0] == 'H') for (volatile int i = 1; i; ) {}\n\
         \x20 return 0;\n}\n",
    );
    let inp = d.path().join("in");
    std::fs::create_dir(&inp).unwrap();
    std::fs::write(inp.join("crashes"), "C").unwrap();
    std::fs::write(inp.join("hangs"), "H").unwrap();
    std::fs::write(inp.join("fine"), "ok").unwrap();
    let o = evotest()
        .current_dir(d.path())
        .args(["fuzz", "-merge=1", "-timeout=1", "h", "out", "in"])
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{e}");
    assert!(e.contains("left out (crash): in/crashes"), "{e}");
    assert!(e.contains("left out (timeout): in/hangs"), "{e}");
    assert!(e.contains("a larger -timeout keeps slow ones"), "{e}");
}

/// libFuzzer's own defaults given explicitly (`-max_len=0`, `-merge=0`, `-minimize_crash=0`, as
/// scripts that spell out every flag do) fuzz as libFuzzer does; they stopped the run with exit 2.
#[test]
fn libfuzzer_defaults_given_explicitly_fuzz() {
    let d = tempfile::tempdir().unwrap();
    harness("magic.c", d.path());
    let (o, s) = fuzz(
        d.path(),
        &[
            "harness",
            "corpus",
            "-seed=1",
            "-runs=500",
            "-max_len=0",
            "-merge=0",
            "-minimize_crash=0",
        ],
    );
    assert!(
        o.status.code() != Some(2),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(s["executions"].as_u64().unwrap() >= 500, "{s:#}");
}

/// Two uncaught C++ exceptions of different types are two unique crashes, each with its
/// artifact.
#[test]
fn two_uncaught_exceptions_are_two_crashes() {
    let d = tempfile::tempdir().unwrap();
    build(
        cxx(),
        "two_exceptions.cc",
        &["-g", "-O1", "-fsanitize=fuzzer"],
        d.path(),
        "harness",
    );
    let seeds = d.path().join("seeds");
    std::fs::create_dir_all(&seeds).unwrap();
    std::fs::write(seeds.join("a"), b"XAzz").unwrap();
    std::fs::write(seeds.join("b"), b"XBzz").unwrap();
    let (_, s) = fuzz(
        d.path(),
        &["harness", "corpus", "seeds", "-seed=1", "-runs=0"],
    );
    assert_eq!(s["unique_crashes"], 2, "{s:#}");
    let messages = s["crashes"].to_string();
    assert!(
        messages.contains("runtime_error") && messages.contains("out_of_range"),
        "{messages}"
    );
}

/// `--in_process` warns that leaks go unchecked only where they would be checked: a harness
/// without LeakSanitizer gets no such warning (the driver's weak reference to LeakSanitizer's
/// entry point was taken for it).
#[test]
fn no_leak_warning_for_a_harness_without_leaksanitizer() {
    let d = tempfile::tempdir().unwrap();
    harness("magic.c", d.path());
    let (o, _) = fuzz(
        d.path(),
        &["harness", "corpus", "-seed=1", "-runs=200", "--in_process"],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("memory leaks are not checked"), "{err}");
}

/// The mutator's constants are those of the functions the harness can reach: a function of the
/// same file that nothing calls keeps its two constants to itself, and the opening line says so
/// (before, every function's constants, and no line).
#[test]
fn constants_come_from_the_functions_the_harness_can_reach() {
    let dir = tempfile::tempdir().unwrap();
    let exe = harness("unreached.c", dir.path());
    let o = evotest()
        .arg("fuzz")
        .arg(&exe)
        .arg(dir.path().join("corpus"))
        .arg("-runs=20")
        .arg("-seed=1")
        .env("EVOTEST_NO_AFFINITY", "1")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    // 4 and the three letters and 7 of `parse`, against those and 50001, 60002
    assert!(
        err.contains(
            "constants: 5 of 7 integers, 0 of 0 floats, 0 of 0 strings, from the 2 of 3 \
             instrumented functions the harness can reach"
        ),
        "{err}"
    );
}
