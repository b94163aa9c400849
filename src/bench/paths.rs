//! `evotest bench-paths`: Bueno & Jino's path-testing experiment (Bueno & Jino 2002, §9) on the target paths
//! listed in `bench/paths.toml`, reproduced and compared.
//!
//! For each program × mode × attempt, the program's paths are searched for in the listed order,
//! each with the program's execution cap; with reuse, one solutions base grows over the attempt's
//! paths (fresh for every attempt, so an attempt never reuses its own earlier answers to the same
//! path). Per program and mode it reports **AE**, the mean executions per path over all paths and
//! attempts with failures counted at the cap (the paper's Table 3), and the success rate; overall,
//! the success rate and the executions per attempt, beside the paper's figures.
//!
//! Modes:
//! * `bj-reuse`: the paper's mode \[i\]: its GA (`bjga`, NC − EP/MEP, population 80) with reuse;
//! * `bj`: mode \[ii\]: the same GA from a random population;
//! * `random`: mode \[iii\]: random inputs;
//! * `avm-reuse`: evotest's default (AVM, stationary fitness, reuse);
//! * `avm`: AVM without reuse.
//!
//! All modes draw their initial values uniformly (as the paper's GA and random generator do). The
//! paper's modes search every path up to the cap; evotest's use the default infeasibility
//! heuristic of `evotest path`, so a feasible path given up as probably infeasible is a failure
//! counted at the cap.

use crate::campaign::path::{self as driver, PathSearch, GIVE_UP_AFTER, PATIENCE};
use crate::fitness::path::PathFitness;
use crate::input::InitMode;
use crate::observe::Silent;
use crate::path::base::{program_key, SolutionsBase};
use crate::path::{check, parse};
use crate::search::{Budget, SearchConfig};
use crate::target::{self, Target};
use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// One target path of a program.
#[derive(Clone, Debug, Deserialize, Serialize)]
pub struct PathEntry {
    /// The path, as `evotest path --path` reads it.
    pub spec: String,
    /// Shown in the results (e.g. "right-angled; paper: 2,135 executions").
    #[serde(default)]
    pub note: String,
}

/// One program of `bench/paths.toml`.
#[derive(Clone, Debug, Deserialize, Serialize)]
pub struct PathProgram {
    pub name: String,
    #[serde(flatten)]
    pub subject: super::Subject,
    /// Execution cap per path (the paper: 100,000 for find, tritype, expint; 45,000 otherwise).
    pub cap: u64,
    /// Per-execution branch-event limit (default: evotest's).
    #[serde(default)]
    pub max_branch_events: Option<u32>,
    /// The paper's AE per mode (`i`, `ii`, `iii`).
    #[serde(default)]
    pub paper: BTreeMap<String, f64>,
    pub path: Vec<PathEntry>,
}

/// Read `bench/paths.toml`.
pub fn load(path: &Path) -> Result<Vec<PathProgram>> {
    super::read_programs(path)
}

/// The modes, with a description each.
pub const MODES: &[(&str, &str)] = &[
    ("bj-reuse", "[i] Bueno & Jino's (2002) GA (bjga: binary genes, roulette, NC − EP/MEP, population 80) with reuse of past inputs"),
    ("bj", "[ii] the same GA from a random population"),
    ("random", "[iii] random inputs"),
    ("avm-reuse", "evotest's default: AVM, stationary fitness, reuse of past inputs"),
    ("avm", "AVM, stationary fitness, no reuse"),
];

/// The search of a mode.
fn mode_search(mode: &str, cap: u64, max_time: Duration) -> Result<PathSearch> {
    let (algorithm, fitness, population, reuse) = match mode {
        "bj-reuse" => (
            "bjga",
            PathFitness::BuenoJino,
            crate::search::bjga::POPULATION,
            true,
        ),
        "bj" => (
            "bjga",
            PathFitness::BuenoJino,
            crate::search::bjga::POPULATION,
            false,
        ),
        "random" => (
            "random",
            PathFitness::Stationary,
            SearchConfig::default().population,
            false,
        ),
        "avm-reuse" => (
            "avm",
            PathFitness::Stationary,
            SearchConfig::default().population,
            true,
        ),
        "avm" => (
            "avm",
            PathFitness::Stationary,
            SearchConfig::default().population,
            false,
        ),
        _ => {
            let names: Vec<&str> = MODES.iter().map(|m| m.0).collect();
            bail!("unknown mode `{mode}` (modes: {})", names.join(", "))
        }
    };
    // The paper's modes run every search to the cap (its Table 3 counts failures at the cap);
    // evotest's modes keep the default infeasibility heuristic, so giving up on one of these
    // feasible paths counts as a failure at the cap.
    let give_up_after = if algorithm == "bjga" {
        u32::MAX
    } else {
        GIVE_UP_AFTER
    };
    Ok(PathSearch {
        algorithm: algorithm.to_string(),
        config: SearchConfig {
            population,
            patience: PATIENCE,
            give_up_after,
            ..SearchConfig::default()
        },
        fitness,
        budget: Budget {
            max_execs: Some(cap),
            max_time: Some(max_time),
        },
        seed: 0,
        init: InitMode::Uniform,
        reuse,
        min_similarity: 1,
        prefix: false,
    })
}

/// What to run.
#[derive(Clone, Debug)]
pub struct PathsBenchOptions {
    pub programs: Vec<PathProgram>,
    pub modes: Vec<String>,
    pub attempts: u32,
    pub seed_base: u64,
    /// Wall-time cap per path (a safety net; the paper's caps are in executions).
    pub max_time: Duration,
    pub name: String,
    pub out: PathBuf,
    pub work: PathBuf,
    pub quiet: bool,
}

/// One search for one path.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PathRecord {
    pub program: String,
    pub mode: String,
    pub attempt: u32,
    /// Index into the program's paths.
    pub path: usize,
    pub seed: u64,
    pub success: bool,
    /// Executions spent (the cap when the search failed).
    pub executions: u64,
    pub seconds: f64,
    /// Answered from the solutions base.
    pub reused: bool,
    /// The search gave up (probably infeasible) before the cap.
    pub gave_up: bool,
    /// Revisited decisions of the path (loop iterations).
    #[serde(default)]
    pub loop_iterations: usize,
}

/// AE and success of one program × mode.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PathCell {
    pub program: String,
    pub mode: String,
    /// Mean executions per path, failures at the cap.
    pub ae: f64,
    pub success_rate: f64,
    pub searches: usize,
}

fn build(p: &PathProgram, work: &Path, root: &Path) -> Result<Target> {
    let out = work.join(format!("paths-{}", p.name));
    let mut o = p.subject.options(root, out)?;
    if let Some(m) = p.max_branch_events {
        o.max_branch_events = m;
    }
    target::build(&o).with_context(|| format!("building {}", p.name))
}

/// Run the benchmark; writes `<out>/<name>.md` and `.json`.
pub fn run(
    opts: &PathsBenchOptions,
    root: &Path,
    command: &str,
) -> Result<(Vec<PathRecord>, Vec<PathCell>)> {
    for m in &opts.modes {
        mode_search(m, 1, opts.max_time)?;
    }
    let interrupt = AtomicBool::new(false);
    let mut records = Vec::new();
    for p in &opts.programs {
        let mut target = build(p, &opts.work, root)?;
        let decisions = driver::decisions(&target)?;
        let function = target.options.function.clone();
        let mut paths = Vec::new();
        for (i, e) in p.path.iter().enumerate() {
            let steps = parse(&target.program, &decisions, &e.spec)
                .with_context(|| format!("{} path {}", p.name, i + 1))?;
            check(&target.program, &decisions, &steps, false)
                .with_context(|| format!("{} path {}", p.name, i + 1))?;
            paths.push(steps);
        }
        let key = program_key(&target.program, &function, target.frontend.domain());
        for mode in &opts.modes {
            let ps = mode_search(mode, p.cap, opts.max_time)?;
            for attempt in 0..opts.attempts {
                let mut base = SolutionsBase::in_memory(&key, &function);
                for (j, steps) in paths.iter().enumerate() {
                    let seed = opts.seed_base + attempt as u64 * 1000 + j as u64;
                    let mut s = ps.clone();
                    s.seed = seed;
                    let r = driver::search_path(
                        &mut target,
                        &decisions,
                        steps,
                        &s,
                        &mut base,
                        &mut Silent,
                        &interrupt,
                    )?;
                    let success = r.covered();
                    let rec = PathRecord {
                        program: p.name.clone(),
                        mode: mode.clone(),
                        attempt,
                        path: j,
                        seed,
                        success,
                        executions: if success {
                            r.executions
                        } else {
                            p.cap.max(r.executions)
                        },
                        seconds: r.seconds,
                        reused: matches!(
                            r.outcome,
                            driver::PathOutcome::Covered { reused: true, .. }
                        ),
                        gave_up: matches!(
                            r.outcome,
                            driver::PathOutcome::ProbablyInfeasible { .. }
                        ),
                        loop_iterations: r.loop_iterations,
                    };
                    if !opts.quiet && !success {
                        eprintln!(
                            "{:<10} {:<10} attempt {:>2} path {:>2}: not covered ({} executions{})",
                            p.name,
                            mode,
                            attempt + 1,
                            j + 1,
                            r.executions,
                            if rec.gave_up {
                                ", gave up as probably infeasible"
                            } else {
                                ""
                            }
                        );
                    }
                    records.push(rec);
                }
            }
            let cell = cell(&records, &p.name, mode);
            if !opts.quiet {
                eprintln!(
                    "{:<10} {:<10} AE {:>9.1}  success {:>5.1}%",
                    p.name,
                    mode,
                    cell.as_ref().map_or(0.0, |c| c.ae),
                    cell.as_ref().map_or(0.0, |c| 100.0 * c.success_rate)
                );
            }
        }
    }
    let mut cells = Vec::new();
    for p in &opts.programs {
        for m in &opts.modes {
            if let Some(c) = cell(&records, &p.name, m) {
                cells.push(c);
            }
        }
    }
    std::fs::create_dir_all(&opts.out)
        .with_context(|| format!("cannot create {}", opts.out.display()))?;
    let md = markdown(opts, &records, &cells, command);
    crate::util::write_atomic(&opts.out.join(format!("{}.md", opts.name)), md.as_bytes())?;
    let json = serde_json::json!({ "command": command, "programs": opts.programs, "modes": opts.modes, "attempts": opts.attempts, "cells": cells, "records": records });
    crate::util::write_atomic(
        &opts.out.join(format!("{}.json", opts.name)),
        serde_json::to_string_pretty(&json)?.as_bytes(),
    )?;
    Ok((records, cells))
}

fn cell(records: &[PathRecord], program: &str, mode: &str) -> Option<PathCell> {
    cell_of(records, program, mode, |_| true)
}

/// The cell of `program` × `mode` over the records `keep` accepts (`None` if there are none).
fn cell_of(
    records: &[PathRecord],
    program: &str,
    mode: &str,
    keep: impl Fn(&PathRecord) -> bool,
) -> Option<PathCell> {
    let rs: Vec<&PathRecord> = records
        .iter()
        .filter(|r| r.program == program && r.mode == mode && keep(r))
        .collect();
    if rs.is_empty() {
        return None;
    }
    let n = rs.len() as f64;
    Some(PathCell {
        program: program.to_string(),
        mode: mode.to_string(),
        ae: rs.iter().map(|r| r.executions as f64).sum::<f64>() / n,
        success_rate: rs.iter().filter(|r| r.success).count() as f64 / n,
        searches: rs.len(),
    })
}

fn fmt_cell(c: Option<&PathCell>) -> String {
    match c {
        None => "–".into(),
        Some(c) if c.success_rate < 1.0 => format!("{:.1} ({:.0}%)", c.ae, 100.0 * c.success_rate),
        Some(c) => format!("{:.1}", c.ae),
    }
}

/// The results table, with the paper's Table 3 beside it.
pub fn markdown(
    opts: &PathsBenchOptions,
    records: &[PathRecord],
    cells: &[PathCell],
    command: &str,
) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# Path testing: {}\n", opts.name);
    let _ = writeln!(s, "Command: `{command}`\n");
    let _ = writeln!(
        s,
        "AE = mean executions per path over all paths and {} attempts, failures counted at the cap (Bueno & Jino's (2002) Table 3 measure); \
         a success rate below 100% is given in parentheses. Paper columns: Bueno & Jino (2002) Table 3.\n",
        opts.attempts
    );
    let _ = writeln!(s, "Modes:");
    for m in &opts.modes {
        let about = MODES.iter().find(|x| x.0 == m).map_or("", |x| x.1);
        let _ = writeln!(s, "* `{m}`: {about}");
    }
    let _ = writeln!(s);
    let mut header =
        "| program | paths (with loops) | cap | paper [i] | paper [ii] | paper [iii] |".to_string();
    let mut rule = "|---|---|---|---|---|---|".to_string();
    for m in &opts.modes {
        let _ = write!(header, " {m} |");
        rule.push_str("---|");
    }
    let _ = writeln!(s, "{header}\n{rule}");
    for p in &opts.programs {
        let loops = (0..p.path.len())
            .filter(|&i| {
                records
                    .iter()
                    .any(|r| r.program == p.name && r.path == i && r.loop_iterations > 0)
            })
            .count();
        let paper = |k: &str| {
            p.paper
                .get(k)
                .map_or("–".to_string(), |v| format!("{v:.1}"))
        };
        let _ = write!(
            s,
            "| {} | {} ({loops}) | {} | {} | {} | {} |",
            p.name,
            p.path.len(),
            p.cap,
            paper("i"),
            paper("ii"),
            paper("iii")
        );
        for m in &opts.modes {
            let c = cells.iter().find(|c| c.program == p.name && &c.mode == m);
            let _ = write!(s, " {} |", fmt_cell(c));
        }
        let _ = writeln!(s);
    }
    // overall
    let _ = write!(
        s,
        "| **overall success** | {} | | 100% | 98.2% | 70.0% |",
        opts.programs.iter().map(|p| p.path.len()).sum::<usize>()
    );
    for m in &opts.modes {
        let rs: Vec<&PathRecord> = records.iter().filter(|r| &r.mode == m).collect();
        let sr = if rs.is_empty() {
            0.0
        } else {
            100.0 * rs.iter().filter(|r| r.success).count() as f64 / rs.len() as f64
        };
        let _ = write!(s, " {sr:.1}% |");
    }
    let _ = writeln!(s);
    let _ = write!(
        s,
        "| **executions per attempt** | | | 2,360.4 | 5,119.2 | 22,849.1 |"
    );
    for m in &opts.modes {
        let rs: Vec<&PathRecord> = records.iter().filter(|r| &r.mode == m).collect();
        let ae = if rs.is_empty() {
            0.0
        } else {
            rs.iter().map(|r| r.executions as f64).sum::<f64>() / rs.len() as f64
        };
        let _ = write!(s, " {ae:.1} |");
    }
    let _ = writeln!(s, "\n");
    // noted paths
    let noted: Vec<(&PathProgram, usize, &PathEntry)> = opts
        .programs
        .iter()
        .flat_map(|p| {
            p.path
                .iter()
                .enumerate()
                .filter(|(_, e)| !e.note.is_empty())
                .map(move |(i, e)| (p, i, e))
        })
        .collect();
    if !noted.is_empty() {
        let _ = writeln!(s, "Mean executions on single paths:\n");
        let mut header = "| program | path | note |".to_string();
        let mut rule = "|---|---|---|".to_string();
        for m in &opts.modes {
            let _ = write!(header, " {m} |");
            rule.push_str("---|");
        }
        let _ = writeln!(s, "{header}\n{rule}");
        for (p, i, e) in noted {
            let _ = write!(s, "| {} | {} | {} |", p.name, i + 1, e.note);
            for m in &opts.modes {
                let c = cell_of(records, &p.name, m, |r| r.path == i);
                let _ = write!(s, " {} |", fmt_cell(c.as_ref()));
            }
            let _ = writeln!(s);
        }
        let _ = writeln!(s);
    }
    s
}
