//! Coverage-only executions (`evotest_abi::shm::FLAG_LITE`, `Executor::set_lite`): the probes
//! count the outcomes taken in the lite map and record nothing else. What the fuzzer reads from
//! such an execution must be what a full execution gives it: the same outcomes taken and the
//! same sites, in the same hit-count buckets. The harness is built at `-O1`, so these
//! executions run the functions' coverage-only clones (`passes/src/lite.rs`).

mod common;

use evotest::exec::{outcome_sites, Coverage, Executor, ForkServer, ForkServerConfig, Stop};
use evotest::fuzz::feedback::{bucket, Feedback};
use std::path::{Path, PathBuf};

/// Every kind of probe: integer and float compares, a switch, a branch on a loaded `bool`, a
/// decision of two conditions, `strcmp`/`memcmp`, some in a loop that runs `d[0]` times (more
/// than 255 evaluations of one outcome for the largest inputs).
const HARNESS: &str = r#"
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <stdbool.h>
static volatile bool flag_on;
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) {
    if (n < 4) return 0;
    int odd = 0, k = 0;
    double x = 0.0;
    flag_on = d[2] > 100;
    for (int i = 0; i < d[0] * 2; i++) {
        if ((d[1] + i) & 1) odd++;
        switch ((d[1] + i) % 3) { case 0: k += 2; break; case 1: k -= 1; break; default: break; }
        x += 0.5;
        if (x > 3.0 && d[1] > 7) k++;
    }
    if (flag_on) k++;
    if (n >= 8 && memcmp(d + 4, "EVO!", 4) == 0) k += 5;
    char s[5] = {0};
    memcpy(s, d, n < 4 ? n : 4);
    if (strcmp(s, "ab") == 0) k--;
    if (x < -1.0 || d[3] == 'Z') odd--;
    return odd + k > 1000;
}
"#;

fn build(dir: &Path) -> PathBuf {
    common::build_fuzz_harness(dir, HARNESS)
}

/// The outcomes table the fuzzer passes to `run_coverage`: per site its first outcome and
/// number of outcomes, read from a full execution's trace shape and the program's metadata.
fn outcome_table(exe: &Path, fs: &ForkServer) -> Vec<(u32, u32)> {
    let metas = evotest::program::read_program_metadata(exe).unwrap();
    let program = evotest::program::Program::new(metas, &fs.modules()).unwrap();
    program
        .sites
        .iter()
        .map(|s| (s.outcome_base, s.meta.n_outcomes))
        .collect()
}

fn buckets(c: &Coverage) -> Vec<(u32, u8)> {
    c.sites.iter().map(|&(s, h)| (s, bucket(h))).collect()
}

#[test]
fn coverage_only_executions_read_as_full_ones() {
    let _ = common::evotest(); // checks that the pass and runtime were built
    let dir = tempfile::tempdir().unwrap();
    reads_as_full(&build(dir.path()));
}

/// The clones counting their branches with inline counters placed before optimisation
/// (`EVOTEST_LITE_MARKS=0`, the other way the pass can build them) read as full executions too.
#[test]
fn coverage_only_executions_without_marks_read_as_full_ones() {
    let _ = common::evotest();
    let dir = tempfile::tempdir().unwrap();
    reads_as_full(&common::build_fuzz_harness_env(
        dir.path(),
        HARNESS,
        &[(evotest_abi::names::ENV_PASS_LITE_MARKS, "0")],
    ));
}

/// The clones' marks become counts after optimisation, also in the LTO pre-link pipelines: no
/// call of the mark is left in the module the compiler writes, and the clone counts on the
/// branches' edges. Without marks, none is ever made.
#[test]
fn marks_are_lowered_after_optimisation() {
    let _ = common::evotest();
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("h.c");
    std::fs::write(&src, HARNESS).unwrap();
    let ir = |flags: &[&str], env: &[(&str, &str)]| {
        let out = dir.path().join("h.ll");
        let o = std::process::Command::new(common::evotest_cc())
            .envs(env.iter().copied())
            .args(flags)
            .args(["-fno-discard-value-names", "-S", "-emit-llvm", "-c"])
            .arg(&src)
            .arg("-o")
            .arg(&out)
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "evotest-cc {flags:?} failed: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        std::fs::read_to_string(&out).unwrap()
    };
    let mark = format!("@{}(", evotest_abi::names::LITE_MARK);
    for flags in [
        &["-O1"][..],
        &["-O2"],
        &["-O1", "-flto"],
        &["-O1", "-flto=thin"],
    ] {
        let ll = ir(flags, &[]);
        assert!(
            ll.contains("LLVMFuzzerTestOneInput.evotest_lite"),
            "{flags:?}: no clone"
        );
        assert!(!ll.contains(&mark), "{flags:?}: a mark was left:\n{ll}");
        // the map's address, loaded at the clone's entry, and a count on a branch's edge of its own
        assert!(
            ll.contains("%evotest.lite.map = load") && ll.contains("evotest.lite.edge:"),
            "{flags:?}: no mark was made a count on edges:\n{ll}"
        );
    }
    let ll = ir(&["-O1"], &[(evotest_abi::names::ENV_PASS_LITE_MARKS, "0")]);
    assert!(
        ll.contains("LLVMFuzzerTestOneInput.evotest_lite")
            && !ll.contains(&mark)
            && !ll.contains("evotest.lite.map")
    );
}

/// What the fuzzer reads from coverage-only executions of the harness `exe` is what it reads
/// from full ones (see the module docs).
fn reads_as_full(exe: &Path) {
    // the harness has its coverage-only clone, which these executions enter
    let bytes = std::fs::read(&exe).unwrap();
    let clone = b"LLVMFuzzerTestOneInput.evotest_lite";
    assert!(
        bytes.windows(clone.len()).any(|w| w == clone),
        "no coverage-only clone in {}",
        exe.display()
    );
    let config = ForkServerConfig {
        sites: 256,
        outcomes: 1024,
        persistent: Some(100),
        ..Default::default()
    };
    let mut fs = ForkServer::start(&exe, &config).unwrap();
    let table = outcome_table(&exe, &fs);
    assert!(table.len() >= 8, "{table:?}");
    let inputs: [&[u8]; 6] = [
        b"\x00\x00\x00\x00",
        b"ab\x00\x00",
        b"\x05\x09\xffZ",
        b"\xc8\x08\x01ZEVO!",
        b"\xff\x03\x65QEVO?",
        b"xy",
    ];
    let sites = outcome_sites(
        &table,
        table
            .iter()
            .map(|&(b, n)| (b + n) as usize)
            .max()
            .unwrap_or(0),
    );
    // what the fuzzer reads from the unlisted words agrees with the lists
    let mut fb = Feedback::with_sites(table.len(), &sites);
    let (mut full, mut lite) = (Coverage::default(), Coverage::default());
    for input in inputs {
        fs.run_coverage(input, Stop::NONE, &table, &mut full)
            .unwrap();
        assert!(!full.is_pending());
        assert!(fs.last_distance(full.outcomes[0]).is_some() || full.outcomes.is_empty());
        assert!(
            fs.set_lite(true),
            "the fork server runs coverage-only executions"
        );
        fs.run_coverage(input, Stop::NONE, &table, &mut lite)
            .unwrap();
        fs.set_lite(false);
        assert!(
            lite.is_pending(),
            "a coverage-only execution leaves its lists to the fuzzer"
        );
        let fresh = fb.is_new_else_count(&lite);
        lite.list(&sites);
        assert_eq!(fresh, Some(fb.is_new(&lite)), "new-ness of {input:?}");
        fb.add(&lite);
        assert_eq!(
            fb.is_new_else_count(&{
                fs.set_lite(true);
                let mut again = Coverage::default();
                fs.run_coverage(input, Stop::NONE, &table, &mut again)
                    .unwrap();
                fs.set_lite(false);
                again
            }),
            Some(false),
            "{input:?} again is nothing new"
        );
        let no_distance = lite
            .outcomes
            .first()
            .is_none_or(|&o| fs.last_distance(o).is_none());
        assert!(no_distance, "a coverage-only execution has no distances");
        assert_eq!(lite.outcomes, full.outcomes, "outcomes taken by {input:?}");
        assert_eq!(
            buckets(&lite),
            buckets(&full),
            "sites and hit-count buckets of {input:?}"
        );
        // and a full execution after it is whole again
        let mut again = Coverage::default();
        fs.run_coverage(input, Stop::NONE, &table, &mut again)
            .unwrap();
        assert_eq!(
            again, full,
            "full execution of {input:?} after a coverage-only one"
        );
    }
    // the long loop's sites ran more than 255 times per outcome: their buckets still agree
    fs.run_coverage(b"\xff\x01\x00\x00", Stop::NONE, &table, &mut full)
        .unwrap();
    assert!(full.sites.iter().any(|&(_, h)| h > 510), "{:?}", full.sites);
    fs.set_lite(true);
    fs.run_coverage(b"\xff\x01\x00\x00", Stop::NONE, &table, &mut lite)
        .unwrap();
    fs.set_lite(false);
    lite.list(&sites);
    assert_eq!(buckets(&lite), buckets(&full));
}

/// A function with inline asm gets no clone: the assembler would get the asm's text twice, and a
/// global label it defines would be defined twice (the build failed), an entry it adds to a
/// section would be there twice. In coverage-only executions, the harness's clone calls the
/// original, whose probes count in the lite map: what the fuzzer reads is still what a full
/// execution gives.
#[test]
fn a_function_with_inline_asm_has_no_clone_and_reads_as_full() {
    let _ = common::evotest();
    let dir = tempfile::tempdir().unwrap();
    let step = r#"
__attribute__((noinline)) int step(int v) {
    int r = 0;
    if (v > 40) r = 1;
    else if (v == 7) r = 2;
    __asm__ volatile(".globl evotest_asm_marker\nevotest_asm_marker:\n\t.pushsection evotab,\"aw\"\n\t.quad 1f\n\t.popsection\n1:" ::: "memory");
    return r;
}
int LLVMFuzzerTestOneInput("#;
    let harness = HARNESS
        .replacen("int LLVMFuzzerTestOneInput(", step, 1)
        .replacen(
            "if (flag_on) k++;",
            "if (flag_on) k++;\n    k += step(d[1]);",
            1,
        );
    assert!(harness.contains("k += step(d[1]);"));
    let exe = common::build_fuzz_harness(dir.path(), &harness);
    let bytes = std::fs::read(&exe).unwrap();
    let has = |s: &[u8]| bytes.windows(s.len()).any(|w| w == s);
    assert!(has(b"evotest_asm_marker") && !has(b"step.evotest_lite"));
    reads_as_full(&exe);
}

#[test]
fn coverage_only_is_refused_while_operands_are_logged() {
    let _ = common::evotest();
    let dir = tempfile::tempdir().unwrap();
    let exe = build(dir.path());
    let config = ForkServerConfig {
        sites: 256,
        outcomes: 1024,
        ..Default::default()
    };
    let mut fs = ForkServer::start(&exe, &config).unwrap();
    fs.log_every_compare(true);
    assert!(!fs.set_lite(true));
    fs.log_every_compare(false);
    assert!(fs.set_lite(true));
}

/// Run by hand (no engine), a target's executions are coverage-only: the word the instrumented
/// code tests, `*__evotest_flags`, holds `FLAG_LITE` once the runtime has its private map, so the
/// coverage-only clones run instead of the full probes (a regression replay ran up to ten times
/// libFuzzer's build's time: a robustness check, 2026-12-01); `EVOTEST_FULL_PROBES` keeps them.
#[test]
fn a_target_run_by_hand_runs_coverage_only() {
    let dir = tempfile::tempdir().unwrap();
    let exe = common::build_fuzz_harness(
        dir.path(),
        "#include <stdint.h>\n#include <stddef.h>\n#include <stdio.h>\n\
         extern unsigned *__evotest_flags;\n\
         int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) {\n\
         \x20 if (n > 0 && d[0] == 'x') printf(\"flags %u\\n\", *__evotest_flags);\n\
         \x20 return 0;\n}\n",
    );
    let input = dir.path().join("x");
    std::fs::write(&input, "x").unwrap();
    let flags = |full: bool| -> u32 {
        let mut c = std::process::Command::new(&exe);
        c.arg(&input);
        if full {
            c.env("EVOTEST_FULL_PROBES", "1");
        }
        let o = c.output().unwrap();
        let text = String::from_utf8_lossy(&o.stdout).to_string();
        text.lines()
            .find_map(|l| l.strip_prefix("flags "))
            .unwrap_or_else(|| panic!("{text}"))
            .trim()
            .parse()
            .unwrap()
    };
    let lite = evotest_abi::shm::FLAG_LITE;
    assert_eq!(flags(false) & lite, lite);
    assert_eq!(flags(true) & lite, 0);
}
