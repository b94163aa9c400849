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
            "bench", "--only", "triangle", "--runs", "1", "--max-execs", "3000", "--max-time", "3s",
            "--tools", "avm,ga,random,avm+uniform,libfuzzer,afl", "--name", "smoke",
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
    assert_eq!(tools, vec!["avm", "ga", "random", "avm+uniform", "libfuzzer", "afl"]);
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
    // ground truth: the union of all suites covers the claimed 22, and llvm-cov agrees
    assert_eq!(j["ground_truth"][0]["verdict"], "confirmed", "{}", j["ground_truth"]);
    let md = std::fs::read_to_string(out.join("smoke.md")).unwrap();
    assert!(md.contains("| triangle |") && md.contains("Ground truth"), "{md}");
    let svg = std::fs::read_to_string(out.join("smoke-triangle.svg")).unwrap();
    assert!(svg.contains("<svg") && svg.contains("libfuzzer"), "plot lacks the peers");
}
