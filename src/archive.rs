//! The archive: for each goal, the first input that covered it (collateral coverage counts), and
//! the faults (crashes, timeouts, exits) seen, with their inputs. Everything a run finds ends up
//! here, and everything here is written out.

use crate::exec::{ExitKind, RetVal};
use crate::input::Input;
use serde::Serialize;
use std::collections::HashSet;

/// An executed input kept by the archive.
#[derive(Clone, Debug, Serialize)]
pub struct TestCase {
    /// The input (its bytes, as the harness reads them).
    pub input: Input,
    pub exit: ExitKind,
    pub ret: Option<RetVal>,
    /// 1-based index of the execution that ran it.
    pub exec: u64,
    /// Wall time since the search started, when it ran.
    #[serde(skip)]
    pub at: std::time::Duration,
    /// Goals this input covered first.
    pub covers_new: Vec<usize>,
    /// All goals this input covers.
    pub covers_all: Vec<usize>,
    /// For a fault, what the target said when it was run again alone before the suite was
    /// written, in one line (`a.c:4: Assertion `y != 7' failed.`, an uncaught C++ exception's
    /// type and `what()`, a sanitizer's summary); `None` for other inputs, or when it said
    /// nothing evotest recognises (see `campaign::verify`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// A timeout that recurred alone in a fresh process under the search's own `--timeout`, but
    /// ends given the suite's longer hang limit ([`crate::exec::hang_limit`]): a fault of the
    /// time limit the user set (a watchdog, a deadline), kept with its reproducer, but no test
    /// of `tests.c` (which cannot assert a duration on another machine).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub slow: bool,
}

/// Most distinct faults kept per exit kind (crash signal, timeout, exit code).
pub const MAX_FAULTS_PER_KIND: usize = 10;

/// See module docs.
#[derive(Debug, Default)]
pub struct Archive {
    /// By goal: index into `tests` of the first covering input.
    pub covered_by: Vec<Option<usize>>,
    /// Inputs that covered at least one goal first, in order of discovery.
    pub tests: Vec<TestCase>,
    /// Distinct faults: first inputs per (exit kind, coverage signature), capped per kind.
    pub faults: Vec<TestCase>,
    fault_keys: HashSet<(ExitKind, Vec<usize>)>,
    /// Total faulting executions by kind name.
    pub fault_counts: std::collections::BTreeMap<String, u64>,
}

impl Archive {
    pub fn new(n_goals: usize) -> Archive {
        Archive {
            covered_by: vec![None; n_goals],
            ..Default::default()
        }
    }

    pub fn is_covered(&self, goal: usize) -> bool {
        self.covered_by[goal].is_some()
    }

    pub fn n_covered(&self) -> usize {
        self.covered_by.iter().filter(|c| c.is_some()).count()
    }

    /// Execution at which `goal` was first covered.
    pub fn first_exec(&self, goal: usize) -> Option<u64> {
        self.covered_by[goal].map(|t| self.tests[t].exec)
    }

    /// The execution and time at which `k` goals were covered (the k-th first coverage), if ever.
    pub fn coverage_reached(&self, k: usize) -> Option<(u64, std::time::Duration)> {
        if k == 0 {
            return Some((0, std::time::Duration::ZERO));
        }
        let mut firsts: Vec<(u64, std::time::Duration)> = self
            .covered_by
            .iter()
            .flatten()
            .map(|&t| (self.tests[t].exec, self.tests[t].at))
            .collect();
        firsts.sort();
        firsts.get(k - 1).copied()
    }

    /// Keep `test` if it covers something first (`test.covers_new` non-empty), or, when there is
    /// no goal at all (a function without a branch), if it is the first test and ended
    /// normally: a suite then still checks the function's result. Returns its index.
    pub fn add_test(&mut self, test: TestCase) -> Option<usize> {
        let only_test =
            self.covered_by.is_empty() && self.tests.is_empty() && !test.exit.is_fault();
        if test.covers_new.is_empty() && !only_test {
            return None;
        }
        let idx = self.tests.len();
        for &g in &test.covers_new {
            if self.covered_by[g].is_none() {
                self.covered_by[g] = Some(idx);
            }
        }
        self.tests.push(test);
        Some(idx)
    }

    /// Record a faulting execution; keeps it if its (kind, coverage) is new and the kind's cap is
    /// not reached. Returns whether it was kept.
    pub fn add_fault(&mut self, test: TestCase) -> bool {
        *self
            .fault_counts
            .entry(test.exit.name().to_string())
            .or_default() += 1;
        let key = (test.exit, test.covers_all.clone());
        if self.fault_keys.contains(&key) {
            return false;
        }
        let same_kind = self.faults.iter().filter(|f| f.exit == test.exit).count();
        if same_kind >= MAX_FAULTS_PER_KIND {
            return false;
        }
        self.fault_keys.insert(key);
        self.faults.push(test);
        true
    }
}
