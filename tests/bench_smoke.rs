//! A smoke test of the benchmark machinery, so that it cannot rot: one program, one run, tiny
//! caps, every tool (evotest's algorithms, libFuzzer and AFL++), results, plot and ground truth.

mod common;

use common::*;

#[test]
fn bench_runs_every_tool_and_writes_its_results() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("results");
    let work = dir.path().join("work");
    let o = evotest()
        .args([
            "bench",
            "--only",
            "triangle",
            "--runs",
            "1",
            "--max-execs",
            "3000",
            "--max-time",
            "3s",
            "--tools",
            "avm,ga,random,avm+uniform,libfuzzer,afl",
            "--name",
            "smoke",
        ])
        .arg("--out")
        .arg(&out)
        .arg("--work")
        .arg(&work)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    let j = read_json(&out.join("smoke.json"));
    let cells = j["cells"].as_array().unwrap();
    let tools: Vec<&str> = cells.iter().map(|c| c["tool"].as_str().unwrap()).collect();
    assert_eq!(
        tools,
        vec!["avm", "ga", "random", "avm+uniform", "libfuzzer", "afl"]
    );
    for c in cells {
        assert_eq!(c["total"], 22, "{c}");
        // every tool covers something (the starting input alone covers a few outcomes)
        assert!(c["mc"].as_u64().unwrap() >= 2, "{c}");
    }
    // the default algorithm reaches full coverage well within the cap
    assert_eq!(cells[0]["sr"], 1.0, "{}", cells[0]);
    // the peers ran and were observed (executions counted)
    let recs = j["records"].as_array().unwrap();
    for t in ["libfuzzer", "afl"] {
        let r = recs.iter().find(|r| r["tool"] == t).unwrap();
        assert!(r["executions"].as_u64().unwrap() > 0, "{r}");
    }
    // a run short of full coverage names the goals it left uncovered, in the JSON and the report
    let md = std::fs::read_to_string(out.join("smoke.md")).unwrap();
    for r in recs {
        let missed = r["missed"].as_array().map(Vec::len).unwrap_or(0) as u64;
        if r["success"] == true {
            assert_eq!(missed, 0, "{r}");
        } else {
            assert_eq!(
                missed,
                r["total"].as_u64().unwrap() - r["covered"].as_u64().unwrap(),
                "{r}"
            );
            let label = r["missed"][0].as_str().unwrap();
            assert!(
                label.starts_with('L') && (label.ends_with(":T") || label.ends_with(":F")),
                "{r}"
            );
            assert!(
                md.contains("Runs that missed full feasible coverage")
                    && md.contains(&format!("`{label}`")),
                "{md}"
            );
        }
    }
    // ground truth: the union of all suites covers the claimed 22, and llvm-cov agrees
    assert_eq!(
        j["ground_truth"][0]["verdict"], "confirmed",
        "{}",
        j["ground_truth"]
    );
    assert!(
        md.contains("| triangle |") && md.contains("Ground truth"),
        "{md}"
    );
    let svg = std::fs::read_to_string(out.join("smoke-triangle.svg")).unwrap();
    assert!(
        svg.contains("<svg") && svg.contains("libfuzzer"),
        "plot lacks the peers"
    );
}

/// `evotest fuzz` as a benchmark tool, on the raw-bytes harnesses of bench/fuzz-sbst.toml from an
/// all-zero seed: measured by replaying its new-coverage log through evotest's own binary.
#[test]
fn bench_measures_evotest_fuzz_on_raw_bytes_harnesses() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("results");
    let work = dir.path().join("work");
    let o = evotest()
        .args([
            // an execution cap far above what the runs need: the fuzz runs' directed stages then
            // count executions, not seconds, so a loaded machine does not change them
            "bench",
            "--programs",
            "bench/fuzz-sbst.toml",
            "--only",
            "triangle,check_isbn,expint",
            "--runs",
            "1",
            "--max-execs",
            "100000000",
            "--max-time",
            "30s",
            "--tools",
            "fuzz,fuzz+i2s,fuzz+noguide",
            "--peer-encoding",
            "bytes",
            "--fuzzer-seed",
            "zero",
            "--name",
            "fz",
        ])
        .arg("--out")
        .arg(&out)
        .arg("--work")
        .arg(&work)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    let j = read_json(&out.join("fz.json"));
    let recs = j["records"].as_array().unwrap();
    let rec = |p: &str, t: &str| {
        recs.iter()
            .find(|r| r["program"] == p && r["tool"] == t)
            .unwrap()
            .clone()
    };
    for t in ["fuzz", "fuzz+i2s", "fuzz+noguide"] {
        // every mode covers triangle's 22 outcomes; the run is stopped there
        let r = rec("triangle", t);
        assert_eq!(r["success"], true, "{r}");
        let full = r["executions_to_full"].as_u64().unwrap();
        assert!(
            full >= 1 && r["executions"].as_u64().unwrap() >= full,
            "{r}"
        );
        assert!(
            r["seconds"].as_f64().unwrap() < 25.0,
            "not stopped at full coverage: {r}"
        );
        // check_isbn's string is read as raw bytes: it covers most of its 30 outcomes
        let r = rec("check_isbn", t);
        assert!(r["covered"].as_u64().unwrap() >= 20, "{r}");
    }
    // expint calls `exp` and `log`: its harness links the math library, as the peers' do
    let r = rec("expint", "fuzz");
    assert!(r["covered"].as_u64().unwrap() >= 20, "{r}");
    // guidance: triangle's equalities of raw 32-bit ints by input-to-state, havoc needs thousands
    let guided = rec("triangle", "fuzz+i2s")["executions_to_full"]
        .as_u64()
        .unwrap();
    let havoc = rec("triangle", "fuzz+noguide")["executions_to_full"]
        .as_u64()
        .unwrap();
    assert!(
        guided < 1000 && guided < havoc,
        "i2s {guided}, havoc {havoc}"
    );
    // the harnesses read raw bytes: a string up to its first NUL, no length field
    let h = std::fs::read_to_string(work.join("check_isbn/fuzz/harness.c")).unwrap();
    assert!(
        h.contains("strnlen")
            && h.contains("LLVMFuzzerTestOneInput")
            && !h.contains("__evotest_observe"),
        "{h}"
    );
    assert_eq!(
        j["ground_truth"][0]["verdict"], "confirmed",
        "{}",
        j["ground_truth"]
    );
    let md = std::fs::read_to_string(out.join("fz.md")).unwrap();
    assert!(
        md.contains("all-zero input") && md.contains("| fuzz | fuzz+i2s | fuzz+noguide |"),
        "{md}"
    );
}
