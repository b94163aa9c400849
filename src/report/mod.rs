//! Reporting a run: the console table ([`console`]), `report.json` and `suite.json` ([`json`]),
//! fault reproducers, and the frontend's standalone test file. Each file output is a
//! [`Reporter`] of a [`Suite`]; [`write_all`] writes every one.

pub mod console;
pub mod journal;
pub mod json;
pub mod progress;

use crate::exec::ExitKind;
use crate::frontend::{TestEntry, TestFile};
use crate::suite::Suite;
use anyhow::{Context, Result};
use std::path::PathBuf;

pub use crate::util::{thousands, write_atomic};

/// One output of a run.
pub trait Reporter {
    /// Write this output for `suite`; returns the files written.
    fn report(&self, suite: &Suite) -> Result<Vec<PathBuf>>;
}

/// The state of one goal cell of a report row at the end of a run.
#[derive(Clone, Debug)]
pub struct CellState {
    pub label: String,
    pub goal: Option<usize>,
    /// Execution at which it was first covered.
    pub first_exec: Option<u64>,
    /// Index into `archive.tests` of the first covering test.
    pub test: Option<usize>,
    pub suspected_infeasible: bool,
}

/// The cells of row `r` of `suite`, with their coverage.
pub fn cells(suite: &Suite, r: usize) -> Vec<CellState> {
    suite.rows[r]
        .cells
        .iter()
        .map(|c| CellState {
            label: c.label.clone(),
            goal: c.goal,
            first_exec: c.goal.and_then(|g| suite.archive.first_exec(g)),
            test: c.goal.and_then(|g| suite.archive.covered_by[g]),
            suspected_infeasible: c.goal.is_some_and(|g| suite.given_up.contains(&g)),
        })
        .collect()
}

/// Goals and covered goals of the decisions (rows of kind `decision` or `case`) and of the
/// conditions (kind `condition`) of a condition-decision run, or `None` for a criterion without
/// such rows.
pub fn part_counts(suite: &Suite) -> Option<[(usize, usize); 2]> {
    let mut counts = [(0, 0); 2];
    let mut any = false;
    for (i, r) in suite.rows.iter().enumerate() {
        let part = match r.kind.as_str() {
            "decision" | "case" => 0,
            "condition" => 1,
            _ => continue,
        };
        any = true;
        for c in cells(suite, i).iter().filter(|c| c.goal.is_some()) {
            counts[part].0 += 1;
            counts[part].1 += c.first_exec.is_some() as usize;
        }
    }
    any.then_some(counts)
}

/// The frontend's standalone test file (`tests.c` for a C function), with every kept test and
/// every fault.
pub struct TestFileReporter;

impl Reporter for TestFileReporter {
    fn report(&self, suite: &Suite) -> Result<Vec<PathBuf>> {
        let cases: Vec<TestEntry> = suite
            .archive
            .tests
            .iter()
            .map(|t| ("test", t))
            // a fault that is also a kept test (it covered goals first) is written once, as the test
            .chain(
                suite
                    .archive
                    .faults
                    .iter()
                    .filter(|f| {
                        // a slow input's timeout is a duration tests.c cannot assert elsewhere
                        !f.slow
                            && !suite
                                .archive
                                .tests
                                .iter()
                                .any(|t| t.input.bytes == f.input.bytes)
                    })
                    .map(|t| ("fault", t)),
            )
            .enumerate()
            .map(|(i, (kind, t))| TestEntry {
                name: format!("{kind}_{}", i + 1),
                case: t,
                covers: t.covers_all.iter().map(|&g| suite.goal_short(g)).collect(),
            })
            .collect();
        let i = &suite.info;
        let mut header = vec![format!(
            "Source: {}   Search: {}, seed {}   Coverage: {}/{} {} goals",
            i.sources_display(),
            i.algorithm,
            i.seed,
            suite.archive.n_covered(),
            suite.goals.len(),
            i.criterion
        )];
        // goals that only a run the file cannot replay covered (a runaway loop stopped at the
        // limit of branch events, a stopped run): the file's own tests reach fewer
        let replayable = |t: &crate::archive::TestCase| {
            !matches!(t.exit, ExitKind::StepLimit | ExitKind::Stopped) && suite.frontend.replays(t)
        };
        let mut by_replayed = vec![false; suite.goals.len()];
        for t in cases.iter().map(|e| e.case).filter(|t| replayable(t)) {
            for &g in &t.covers_all {
                if let Some(b) = by_replayed.get_mut(g) {
                    *b = true;
                }
            }
        }
        let unreplayed: Vec<String> = (0..suite.goals.len())
            .filter(|&g| suite.archive.is_covered(g) && !by_replayed[g])
            .map(|g| suite.goal_short(g))
            .collect();
        if !unreplayed.is_empty() {
            header.push(format!(
                "Covered only by runs not replayed here (the limit of branch events, a stopped run, a global the file cannot set): {} of them, {}",
                unreplayed.len(),
                unreplayed.join(", ")
            ));
        }
        let slow = suite.archive.faults.iter().filter(|f| f.slow).count();
        if slow > 0 {
            header.push(format!(
                "Not here: {slow} fault{} of the search's timeout ({:?}) that end{} given more time (a duration is no test on another machine); their reproducers are in faults/",
                if slow == 1 { "" } else { "s" },
                i.timeout,
                if slow == 1 { "s" } else { "" }
            ));
        }
        if let Some([(dt, dc), (ct, cc)]) = part_counts(suite) {
            header.push(format!(
                "Decision outcomes: {dc}/{dt} covered   Condition outcomes: {cc}/{ct} covered"
            ));
            for (r, row) in suite.rows.iter().enumerate() {
                let cs = cells(suite, r);
                let what: Vec<String> = cs
                    .iter()
                    .filter(|c| c.goal.is_some())
                    .map(|c| {
                        format!(
                            "{} {}",
                            c.label,
                            if c.first_exec.is_some() {
                                "covered"
                            } else {
                                "NOT covered"
                            }
                        )
                    })
                    .collect();
                header.push(format!(
                    "  {:>9} L{}:{}  {}: {}",
                    row.kind,
                    row.line,
                    row.col,
                    row.text,
                    what.join(", ")
                ));
            }
        }
        let path = i.out_dir.join("tests.c");
        let file = TestFile {
            header,
            path,
            cases,
            hang_seconds: crate::exec::hang_limit(i.timeout).as_secs() as u32,
            memory_limit: i.memory_limit,
            file_limit: i.file_limit,
            fresh_results_differ: suite.verification.as_ref().is_some_and(|v| v.changed > 0),
        };
        match suite.frontend.test_file(&file) {
            Some((name, text)) => {
                let p = i.out_dir.join(name);
                write_atomic(&p, text.as_bytes())?;
                Ok(vec![p])
            }
            None => Ok(vec![]),
        }
    }
}

/// Files an earlier run may have left in an output directory (the solutions base is not one: it
/// is meant to outlive runs).
pub const RESULT_FILES: &[&str] = &[
    "tests.c",
    "tests.cpp",
    "tests.rs",
    "suite.json",
    "report.json",
    "paths.json",
    "faults",
    journal::FILE_NAME,
    journal::RESUMED_NAME,
];

/// The results of an earlier run, set aside in `DIR/.evotest-previous` while a new run starts,
/// so that they never mix with the new run's and so that a run that ends in an error before it
/// has results of its own (a compile error, an unknown function, a bad option the target
/// reveals) leaves them as they were: dropped without [`PreviousResults::discard`], it puts them
/// back.
pub struct PreviousResults {
    dir: PathBuf,
    aside: Option<PathBuf>,
}

/// The directory [`PreviousResults`] keeps an earlier run's results in while a new run starts.
const ASIDE_DIR: &str = ".evotest-previous";

impl PreviousResults {
    /// Move the results an earlier run left in `dir` ([`RESULT_FILES`]) aside. A directory set
    /// aside by a run that was killed is removed first (that run had replaced those results).
    ///
    /// Errors: a result cannot be moved.
    pub fn set_aside(dir: &std::path::Path) -> Result<PreviousResults> {
        let aside = dir.join(ASIDE_DIR);
        if aside.exists() {
            std::fs::remove_dir_all(&aside)
                .with_context(|| format!("cannot remove {}", aside.display()))?;
        }
        let mut moved = false;
        for f in RESULT_FILES {
            let p = dir.join(f);
            if p.symlink_metadata().is_ok() {
                if !moved {
                    std::fs::create_dir_all(&aside)
                        .with_context(|| format!("cannot create {}", aside.display()))?;
                    moved = true;
                }
                std::fs::rename(&p, aside.join(f))
                    .with_context(|| format!("cannot move {} aside", p.display()))?;
            }
        }
        Ok(PreviousResults {
            dir: dir.to_path_buf(),
            aside: moved.then_some(aside),
        })
    }

    /// The new run has results: remove the earlier ones for good. Returns whether there were any.
    pub fn discard(mut self) -> bool {
        match self.aside.take() {
            Some(a) => {
                let _ = std::fs::remove_dir_all(a);
                true
            }
            None => false,
        }
    }
}

impl Drop for PreviousResults {
    fn drop(&mut self) {
        let Some(aside) = self.aside.take() else {
            return;
        };
        // a run that failed after it journaled an input keeps what it found (see [`journal`])
        let found = std::fs::metadata(self.dir.join(journal::FILE_NAME)).is_ok_and(|m| m.len() > 0)
            || self.dir.join("faults").exists();
        if found {
            let _ = std::fs::remove_dir_all(&aside);
            return;
        }
        let _ = clear_previous(&self.dir);
        for f in RESULT_FILES {
            let p = aside.join(f);
            if p.symlink_metadata().is_ok() {
                let _ = std::fs::rename(&p, self.dir.join(f));
            }
        }
        let _ = std::fs::remove_dir(&aside);
    }
}

/// Remove the results of an earlier run from `dir`, so that they never mix with this run's.
/// Returns whether there were any.
///
/// Errors: a result cannot be removed.
pub fn clear_previous(dir: &std::path::Path) -> Result<bool> {
    let mut any = false;
    for f in RESULT_FILES {
        let p = dir.join(f);
        if p.is_dir() {
            std::fs::remove_dir_all(&p)
                .with_context(|| format!("cannot remove {}", p.display()))?;
            any = true;
        } else if p.exists() {
            std::fs::remove_file(&p).with_context(|| format!("cannot remove {}", p.display()))?;
            any = true;
        }
    }
    Ok(any)
}

/// Write the test file, `suite.json`, `report.json` and fault reproducers into the output
/// directory. Returns the files written.
///
/// Errors: the output directory is not writable.
pub fn write_all(suite: &Suite) -> Result<Vec<PathBuf>> {
    let d = &suite.info.out_dir;
    std::fs::create_dir_all(d).with_context(|| format!("cannot create {}", d.display()))?;
    // faults first, so that the files that name them never point at missing ones
    let faults = json::FaultFiles.report(suite)?;
    let mut files = Vec::new();
    let reporters: [&dyn Reporter; 3] = [&TestFileReporter, &json::SuiteJson, &json::ReportJson];
    for r in reporters {
        files.extend(r.report(suite)?);
    }
    files.extend(faults);
    Ok(files)
}
