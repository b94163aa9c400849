//! `report.json` (the run's figures), `suite.json` (inputs and what they cover) and the fault
//! reproducers in `faults/`.

use super::{full_coverage_exec, site_rows, write_atomic, Reporter};
use crate::archive::TestCase;
use crate::campaign::RunResult;
use crate::input::{Range, Shape};
use anyhow::Result;
use serde_json::{json, Value as Json};

/// `report.json`.
pub struct ReportJson;
/// `suite.json`.
pub struct SuiteJson;
/// `faults/<kind>-<n>.input`: the encoded input of each kept fault, replayable with
/// `build/target FILE`.
pub struct FaultFiles;

/// The report as JSON (also what `--json` prints).
pub fn report_value(run: &RunResult) -> Json {
    let rows = site_rows(run);
    let total = run.goals.len();
    let covered = run.archive.n_covered();
    let secs = run.elapsed.as_secs_f64();
    let sites: Vec<Json> = rows
        .iter()
        .map(|r| {
            json!({
                "id": r.site.id,
                "function": run.program.functions[r.site.function].meta.name,
                "file": r.site.meta.file,
                "line": r.site.meta.line,
                "col": r.site.meta.col,
                "kind": r.site.meta.kind,
                "condition": r.site.meta.cond,
                "outcomes": r.outcomes.iter().map(|o| json!({
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
    json!({
        "evotest_version": env!("CARGO_PKG_VERSION"),
        "sources": run.options.sources,
        "function": run.options.function,
        "prototype": run.signature.prototype,
        "algorithm": run.options.algorithm,
        "criterion": run.options.criterion,
        "seed": run.options.seed,
        "budget": run.options.budget,
        "timeout_seconds": run.options.timeout.as_secs_f64(),
        "branches_total": total,
        "branches_covered": covered,
        "branches_infeasible_suspected": run.given_up.len(),
        "full_coverage_at_execution": full_coverage_exec(run),
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
        "error": run.error,
        "chaining": run.chain_reports,
        "sites": sites,
    })
}

fn test_value(run: &RunResult, id: usize, t: &TestCase, file: Option<String>) -> Json {
    let inputs: serde_json::Map<String, Json> =
        run.domain.params.iter().map(|p| (p.name.clone(), p.json(&run.domain, &t.input))).collect();
    let hex: String = t.bytes.iter().map(|b| format!("{b:02x}")).collect();
    json!({
        "id": id,
        "execution": t.exec,
        "inputs": inputs,
        "input_hex": hex,
        "exit": t.exit,
        "return": t.ret,
        "covers": t.covers_all.iter().map(|&g| run.goals[g].describe(&run.program)).collect::<Vec<_>>(),
        "covers_first": t.covers_new.iter().map(|&g| run.goals[g].describe(&run.program)).collect::<Vec<_>>(),
        "file": file,
    })
}

/// Relative path of the reproducer of fault `i`.
pub fn fault_file(run: &RunResult, i: usize) -> String {
    let f = &run.archive.faults[i];
    format!("faults/{}-{}.input", f.exit.name(), i + 1)
}

impl Reporter for SuiteJson {
    fn report(&self, run: &RunResult) -> Result<()> {
        let range = |g: &crate::input::Gene| -> Result<Json, serde_json::Error> {
            Ok(match g.range {
                Range::Int { lo, hi } => json!([serde_json::to_value(lo)?, serde_json::to_value(hi)?]),
                Range::Float { lo, hi } => json!([lo, hi]),
            })
        };
        let params: Vec<Json> = run
            .domain
            .params
            .iter()
            .map(|p| {
                let g = &run.domain.genes;
                let (shape, r) = match &p.shape {
                    Shape::Scalar { gene } => (json!("scalar"), range(&g[*gene])?),
                    Shape::Array { first, len } => (json!({"array": len}), range(&g[*first])?),
                    Shape::String { max, first, .. } => (json!({"string": max}), range(&g[*first])?),
                    Shape::Buffer { max, first, .. } => (json!({"buffer": max}), range(&g[*first])?),
                    Shape::LengthOf { buffer } => (json!({"length_of": run.domain.params[*buffer].name}), Json::Null),
                };
                Ok(json!({"name": p.name, "type": p.declared, "c_type": p.c_type, "shape": shape, "range": r}))
            })
            .collect::<Result<_, serde_json::Error>>()?;
        let v = json!({
            "function": run.options.function,
            "prototype": run.signature.prototype,
            "sources": run.options.sources,
            "params": params,
            "tests": run.archive.tests.iter().enumerate().map(|(i, t)| test_value(run, i + 1, t, None)).collect::<Vec<_>>(),
            "faults": run.archive.faults.iter().enumerate()
                .map(|(i, t)| test_value(run, i + 1, t, Some(fault_file(run, i)))).collect::<Vec<_>>(),
        });
        write_atomic(&run.options.out_dir.join("suite.json"), serde_json::to_string_pretty(&v)?.as_bytes())
    }
}

impl Reporter for ReportJson {
    fn report(&self, run: &RunResult) -> Result<()> {
        let v = report_value(run);
        write_atomic(&run.options.out_dir.join("report.json"), serde_json::to_string_pretty(&v)?.as_bytes())
    }
}

impl Reporter for FaultFiles {
    fn report(&self, run: &RunResult) -> Result<()> {
        if run.archive.faults.is_empty() {
            return Ok(());
        }
        let dir = run.options.out_dir.join("faults");
        std::fs::create_dir_all(&dir)?;
        for (i, f) in run.archive.faults.iter().enumerate() {
            write_atomic(&run.options.out_dir.join(fault_file(run, i)), &f.bytes)?;
        }
        Ok(())
    }
}
