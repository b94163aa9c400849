//! `report.json` (the run's figures), `suite.json` (inputs and what they cover) and the fault
//! reproducers in `faults/`.

use super::{cells, write_atomic, Reporter};
use crate::archive::TestCase;
use crate::suite::Suite;
use anyhow::Result;
use serde_json::{json, Value as Json};
use std::path::PathBuf;

/// `report.json`.
pub struct ReportJson;
/// `suite.json`.
pub struct SuiteJson;
/// `faults/<kind>-<n>.input`: the bytes of each kept fault's input, replayable with
/// `build/target FILE`.
pub struct FaultFiles;

/// The report as JSON (also what `--json` prints).
pub fn report_value(run: &Suite) -> Json {
    let total = run.goals.len();
    let covered = run.archive.n_covered();
    let secs = run.elapsed.as_secs_f64();
    let rows: Vec<Json> = run
        .rows
        .iter()
        .enumerate()
        .map(|(i, r)| {
            json!({
                "id": r.id,
                "function": r.function,
                "file": r.file,
                "line": r.line,
                "col": r.col,
                "kind": r.kind,
                "condition": r.text,
                "outcomes": cells(run, i).iter().map(|o| json!({
                    "label": o.label,
                    "goal": o.goal.is_some(),
                    "covered": o.first_exec.is_some(),
                    "first_execution": o.first_exec,
                    "test": o.test.map(|t| t + 1),
                    "suspected_infeasible": o.suspected_infeasible,
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    let o = &run.info;
    let parts = super::part_counts(run).map(|[(dt, dc), (ct, cc)]| {
        json!({
            "decision_outcomes_total": dt,
            "decision_outcomes_covered": dc,
            "condition_outcomes_total": ct,
            "condition_outcomes_covered": cc,
        })
    });
    json!({
        "evotest_version": env!("CARGO_PKG_VERSION"),
        "condition_decision": parts,
        "sources": o.sources,
        "function": o.function,
        "prototype": run.frontend.describe(),
        "algorithm": o.algorithm,
        "criterion": o.criterion,
        "seed": o.seed,
        "budget": o.budget,
        "timeout_seconds": o.timeout.as_secs_f64(),
        "branches_total": total,
        "branches_covered": covered,
        "branches_infeasible_suspected": run.given_up.len(),
        "full_coverage_at_execution": run.full_coverage_exec(),
        "executions": run.executions,
        "cache_hits": run.cache_hits,
        "seconds": secs,
        "exec_per_sec": if secs > 0.0 { run.executions as f64 / secs } else { 0.0 },
        "tests": run.archive.tests.len(),
        "faults": run.archive.fault_counts,
        "fault_reproducers": run.archive.faults.len(),
        "fork_server_restarts": run.fork_server_restarts,
        "inputs_per_process": run.inputs_per_process,
        "interrupted": run.interrupted,
        "exhausted": run.exhausted,
        "verification": run.verification,
        "error": run.error,
        "chaining": run.chain_reports,
        "notes": run.notes,
        "sites": rows,
    })
}

fn test_value(run: &Suite, id: usize, t: &TestCase, file: Option<String>) -> Json {
    let mut v = json!({
        "id": id,
        "execution": t.exec,
        "inputs": run.frontend.json(&t.input),
        "input_hex": crate::util::hex(&t.input.bytes),
        "exit": t.exit,
        "return": t.ret,
        "covers": t.covers_all.iter().map(|&g| run.goals[g].describe(&run.program)).collect::<Vec<_>>(),
        "covers_first": t.covers_new.iter().map(|&g| run.goals[g].describe(&run.program)).collect::<Vec<_>>(),
        "file": file,
        "message": if t.exit.is_fault() { run.frontend.fault_message(t).or_else(|| t.message.clone()) } else { None },
    });
    if let (Some(c), Some(crate::exec::RetVal::Void)) = (run.frontend.unrecorded_return(), &t.ret) {
        // a returned pointer: not recorded here (tests.c reads it from its own build), not void
        v["return"] = json!({ "type": "not recorded", "c_type": c });
    }
    if t.slow {
        // not a test of tests.c (see TestCase::slow)
        v["slow"] = json!(true);
    }
    v
}

/// Relative path of the reproducer of fault `i`.
pub fn fault_file(run: &Suite, i: usize) -> String {
    let f = &run.archive.faults[i];
    format!("faults/{}-{}.input", f.exit.name(), i + 1)
}

impl Reporter for SuiteJson {
    fn report(&self, run: &Suite) -> Result<Vec<PathBuf>> {
        let o = &run.info;
        let v = json!({
            "function": o.function,
            "prototype": run.frontend.describe(),
            "sources": o.sources,
            "params": run.frontend.params_json(),
            "tests": run.archive.tests.iter().enumerate().map(|(i, t)| test_value(run, i + 1, t, None)).collect::<Vec<_>>(),
            "faults": run.archive.faults.iter().enumerate()
                .map(|(i, t)| test_value(run, i + 1, t, Some(fault_file(run, i)))).collect::<Vec<_>>(),
        });
        let p = o.out_dir.join("suite.json");
        write_atomic(&p, serde_json::to_string_pretty(&v)?.as_bytes())?;
        Ok(vec![p])
    }
}

impl Reporter for ReportJson {
    fn report(&self, run: &Suite) -> Result<Vec<PathBuf>> {
        let v = report_value(run);
        let p = run.info.out_dir.join("report.json");
        write_atomic(&p, serde_json::to_string_pretty(&v)?.as_bytes())?;
        Ok(vec![p])
    }
}

impl Reporter for FaultFiles {
    fn report(&self, run: &Suite) -> Result<Vec<PathBuf>> {
        let dir = run.info.out_dir.join("faults");
        // reproducers written during the search (the journal's) are replaced by the final ones
        if dir.is_dir() {
            std::fs::remove_dir_all(&dir)?;
        }
        if run.archive.faults.is_empty() {
            return Ok(vec![]);
        }
        std::fs::create_dir_all(&dir)?;
        for (i, f) in run.archive.faults.iter().enumerate() {
            write_atomic(&run.info.out_dir.join(fault_file(run, i)), &f.input.bytes)?;
        }
        Ok(vec![dir])
    }
}
