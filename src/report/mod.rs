//! Reporting a run: the console table ([`console`]), `report.json` and `suite.json` ([`json`]),
//! fault reproducers, and the standalone C test file ([`ctests`]). Each output is a
//! [`Reporter`]; [`write_all`] writes every file output.

pub mod console;
pub mod ctests;
pub mod json;
pub mod progress;

use crate::campaign::RunResult;
use crate::program::Site;
use anyhow::{Context, Result};
use std::path::PathBuf;

/// One output of a run.
pub trait Reporter {
    /// Write this output for `run`.
    fn report(&self, run: &RunResult) -> Result<()>;
}

/// The state of one branch outcome at the end of a run.
#[derive(Clone, Debug)]
pub struct OutcomeCell {
    pub label: String,
    pub goal: Option<usize>,
    /// Execution at which it was first covered.
    pub first_exec: Option<u64>,
    /// Index into `archive.tests` of the first covering test.
    pub test: Option<usize>,
    pub suspected_infeasible: bool,
}

/// One branch site and its outcomes.
pub struct SiteRow<'a> {
    pub site: &'a Site,
    pub outcomes: Vec<OutcomeCell>,
}

/// Rows for every site, in site order.
pub fn site_rows(run: &RunResult) -> Vec<SiteRow<'_>> {
    let mut goal_of = std::collections::HashMap::new();
    for (g, goal) in run.goals.iter().enumerate() {
        if let Some((_, o, _)) = goal.branch() {
            goal_of.insert(o, g);
        }
    }
    run.program
        .sites
        .iter()
        .filter(|site| site.outcomes().any(|o| goal_of.contains_key(&o)))
        .map(|site| {
            let outcomes = site
                .outcomes()
                .enumerate()
                .map(|(k, o)| {
                    let goal = goal_of.get(&o).copied();
                    OutcomeCell {
                        label: site.meta.outcome_labels.get(k).cloned().unwrap_or_else(|| format!("#{k}")),
                        goal,
                        first_exec: goal.and_then(|g| run.archive.first_exec(g)),
                        test: goal.and_then(|g| run.archive.covered_by[g]),
                        suspected_infeasible: goal.is_some_and(|g| run.given_up.contains(&g)),
                    }
                })
                .collect();
            SiteRow { site, outcomes }
        })
        .collect()
}

/// Execution at which the last goal was covered, if every goal is covered.
pub fn full_coverage_exec(run: &RunResult) -> Option<u64> {
    let mut last = 0;
    for g in 0..run.goals.len() {
        last = last.max(run.archive.first_exec(g)?);
    }
    Some(last)
}

/// Short label of a goal for test listings: `L14 a <= 0:T`.
pub fn goal_short(run: &RunResult, g: usize) -> String {
    match run.goals[g].branch() {
        Some((s, _, k)) => {
            let site = &run.program.sites[s as usize];
            let label = site.meta.outcome_labels.get(k as usize).map(String::as_str).unwrap_or("?");
            let l = match label {
                "true" => "T",
                "false" => "F",
                other => other,
            };
            format!("L{} {}:{}", site.meta.line, site.meta.cond, l)
        }
        None => run.goals[g].describe(&run.program),
    }
}

/// Paths of the files written for a run.
pub struct Written {
    pub files: Vec<PathBuf>,
}

/// Write `tests.c`, `suite.json`, `report.json` and fault reproducers into the output directory.
pub fn write_all(run: &RunResult) -> Result<Written> {
    std::fs::create_dir_all(&run.options.out_dir)
        .with_context(|| format!("cannot create {}", run.options.out_dir.display()))?;
    json::FaultFiles.report(run)?;
    ctests::TestsC.report(run)?;
    json::SuiteJson.report(run)?;
    json::ReportJson.report(run)?;
    let d = &run.options.out_dir;
    let mut files = vec![d.join("tests.c"), d.join("suite.json"), d.join("report.json")];
    if !run.archive.faults.is_empty() {
        files.push(d.join("faults"));
    }
    Ok(Written { files })
}

/// Write `bytes` to `path` atomically (temporary file, then rename), so that a killed run never
/// leaves a half-written file.
pub fn write_atomic(path: &std::path::Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().unwrap_or(std::path::Path::new("."));
    let mut tmp = tempfile::NamedTempFile::new_in(dir).with_context(|| format!("cannot write in {}", dir.display()))?;
    std::io::Write::write_all(&mut tmp, bytes)?;
    // A temporary file is created 0600; give the result the mode a plain write would (0644), or
    // keep the mode of the file it replaces.
    let mode = std::fs::metadata(path).map(|m| std::os::unix::fs::PermissionsExt::mode(&m.permissions())).unwrap_or(0o644);
    std::fs::set_permissions(tmp.path(), std::os::unix::fs::PermissionsExt::from_mode(mode))
        .with_context(|| format!("cannot write {}", path.display()))?;
    tmp.as_file().sync_all().with_context(|| format!("cannot write {}", path.display()))?;
    tmp.persist(path).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}
