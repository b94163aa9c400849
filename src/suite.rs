//! What a run produced: the test suite (the archive), the goals and their report rows, and the
//! figures of the search. Branch-coverage runs and path runs (the `campaign` module) both produce
//! a [`Suite`], and every reporter (the `report` module) reads one.

use crate::archive::Archive;
use crate::chaining::ChainReport;
use crate::fitness::{Goal, Row};
use crate::frontend::Frontend;
use crate::program::Program;
use crate::search::Budget;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// How the run was set up, for reports.
#[derive(Clone, Debug)]
pub struct RunInfo {
    pub sources: Vec<PathBuf>,
    pub function: String,
    pub algorithm: String,
    pub criterion: String,
    pub seed: u64,
    pub budget: Budget,
    /// Per-execution timeout.
    pub timeout: Duration,
    /// Per-execution resident-memory limit in bytes (0 = none).
    pub memory_limit: u64,
    /// Largest file a target may write, in bytes (0 = none).
    pub file_limit: u64,
    /// Where the outputs go.
    pub out_dir: PathBuf,
}

impl RunInfo {
    /// The sources, space-separated.
    pub fn sources_display(&self) -> String {
        self.sources
            .iter()
            .map(|s| s.display().to_string())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// What the check of a suite in fresh processes did (see the campaign's `verify`).
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Verification {
    /// Kept inputs run again in a fresh process.
    pub replayed: usize,
    /// Of those, how many ended differently (exit, returned value or goals covered).
    pub changed: usize,
    /// Goals covered during the search that no fresh run covers.
    pub lost_goals: usize,
    /// Faults whose fresh run ended the same way and said the same as a fault kept before them
    /// (the same failed assertion, exception or sanitizer summary): one reproducer is kept.
    pub same_message: usize,
}

/// See module docs.
pub struct Suite {
    pub info: RunInfo,
    pub program: Program,
    pub frontend: Arc<dyn Frontend>,
    pub goals: Vec<Box<dyn Goal>>,
    /// The criterion's report rows of `goals`.
    pub rows: Vec<Row>,
    pub archive: Archive,
    /// Goals given up as suspected infeasible.
    pub given_up: Vec<usize>,
    pub executions: u64,
    /// Evaluations answered from the evaluation cache (not executed).
    pub cache_hits: u64,
    pub elapsed: Duration,
    /// The instrumented executable that ran the inputs.
    pub exe: PathBuf,
    /// Set when the search stopped on an error (the executor broke); the results so far are kept.
    pub error: Option<String>,
    pub interrupted: bool,
    /// The search ended early because its algorithm proposed no input it had not evaluated
    /// before (a domain too small for the budget).
    pub exhausted: bool,
    /// The check of the suite in fresh processes, if it ran.
    pub verification: Option<Verification>,
    pub fork_server_restarts: u32,
    /// How many inputs one target process ran at most (1: a fork per input).
    pub inputs_per_process: u32,
    /// What the chaining approach did, per goal it was used on.
    pub chain_reports: Vec<ChainReport>,
    /// Remarks for the reports (e.g. the compiler-inserted checks a Rust run left out of its
    /// goals), one line each.
    pub notes: Vec<String>,
}

impl Suite {
    /// Execution at which the last goal was covered, if every goal is covered.
    pub fn full_coverage_exec(&self) -> Option<u64> {
        let mut last = 0;
        for g in 0..self.goals.len() {
            last = last.max(self.archive.first_exec(g)?);
        }
        Some(last)
    }

    /// `goal`'s short label (for listings and test-file comments).
    pub fn goal_short(&self, goal: usize) -> String {
        self.goals[goal].short(&self.program)
    }
}
