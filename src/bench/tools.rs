//! The tools a benchmark compares. Each implements [`Tool`]; adding one means adding a type here
//! (or in a file of its own) and a line in [`by_name`].

use super::{BenchProgram, RunRecord};
use crate::campaign::{self, RunOptions, Target};
use crate::search::{self, Silent};
use anyhow::{bail, Result};
use std::sync::atomic::AtomicBool;

/// A tool under benchmark.
pub trait Tool {
    /// Column name.
    fn name(&self) -> String;
    /// One run on `program` (built as `target`) with `opts`' seed and budget.
    fn run(&self, program: &BenchProgram, target: &mut Target, opts: &RunOptions) -> Result<RunRecord>;
}

/// evotest with one search algorithm.
pub struct Evotest {
    pub algorithm: String,
}

impl Tool for Evotest {
    fn name(&self) -> String {
        self.algorithm.clone()
    }

    fn run(&self, program: &BenchProgram, target: &mut Target, opts: &RunOptions) -> Result<RunRecord> {
        let mut o = opts.clone();
        o.algorithm = self.algorithm.clone();
        let stop = AtomicBool::new(false);
        let r = campaign::search(target, &o, &mut Silent, &stop)?;
        if let Some(e) = &r.error {
            bail!("{} on {}: {e}", self.algorithm, program.name);
        }
        let reached = r.archive.coverage_reached(program.feasible);
        Ok(RunRecord {
            program: program.name.clone(),
            tool: self.name(),
            run: 0,
            seed: o.seed,
            success: reached.is_some(),
            executions_to_full: reached.map(|(e, _)| e),
            seconds_to_full: reached.map(|(_, t)| t.as_secs_f64()),
            executions: r.executions,
            seconds: r.elapsed.as_secs_f64(),
            covered: r.archive.n_covered(),
            total: r.goals.len(),
            feasible: program.feasible,
        })
    }
}

/// The tool called `name`.
pub fn by_name(name: &str) -> Result<Box<dyn Tool>> {
    if search::algorithm(name).is_some() {
        return Ok(Box::new(Evotest { algorithm: name.to_string() }));
    }
    let algos: Vec<&str> = search::ALGORITHMS.iter().map(|a| a.name).collect();
    bail!("unknown benchmark tool `{name}` (available: {})", algos.join(", "))
}
