//! Searching for paths, one at a time, in the order given (seed 001 §4): for each path, the
//! solutions base is consulted first (an input that already took it answers at once; inputs of
//! similar paths seed the search), then the algorithm searches with the path's fitness until the
//! path is taken, the budget for the path is spent, or the search stagnates, in which case the
//! path is reported **probably infeasible** with the predicate suspected of causing it: the
//! decision at which the closest execution deviated. Every path an execution takes is recorded in
//! the base, for the paths that follow and for later runs.
//!
//! Stagnation (the infeasibility heuristic): an attempt ends after `patience` evaluations without
//! improving the path's best fitness, and the path is given up after `give_up_after` such attempts
//! in a row ([`crate::search::drive`] with `stop_when_stalled`). Bueno & Jino (ASE 2000) monitor
//! the GA's progress the same way; the suspect is the deviating predicate of the best individual.
//! A path given up is never counted as covered.

use super::base::SolutionsBase;
use super::{path_text, Decisions, Step};
use crate::archive::{Archive, TestCase};
use crate::campaign::{RunResult, Target};
use crate::exec::{ExitKind, RetVal};
use crate::fitness::path::PathGoal;
use crate::fitness::Goal;
use crate::input::{InitMode, Input};
use crate::program::Program;
use crate::search::{self, Budget, Chaining, Monitor, PathLog, SearchConfig, SearchContext};
use anyhow::{anyhow, Result};
use rand::SeedableRng;
use serde::Serialize;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Default patience of a path search: evaluations (executions and cache hits) without improving the path's best fitness
/// that end one attempt. Higher than branch coverage's 1000, because a path's last decisions
/// (tritype's a² = b² + c²) can take AVM several restarts.
pub const PATIENCE: u64 = 2000;
/// Default number of fruitless attempts in a row after which a path is reported probably
/// infeasible: `PATIENCE × GIVE_UP_AFTER` = 40,000 evaluations without progress (fewer
/// executions: inputs proposed again are answered from the evaluation cache). expint's
/// "continued fraction, 2 iterations" path (bench/paths.toml) needs it: its last decision sits on
/// a plateau (`del` rounds to exactly 1.0f for most n) that only a random restart with a small n
/// leaves. At 5, 6 of 40 seeds gave that feasible path up; at 10, seed 5007 still did (after 7,781
/// executions; it is covered after 9,867); at 20, 120 of 120 seeds covered it.
pub const GIVE_UP_AFTER: u32 = 20;

/// How to search for each path.
#[derive(Clone, Debug)]
pub struct PathSearch {
    pub algorithm: String,
    pub config: SearchConfig,
    /// Budget per path.
    pub budget: Budget,
    pub seed: u64,
    pub init: InitMode,
    /// Use the solutions base (exact matches and similar paths).
    pub reuse: bool,
    /// Smin: least common-prefix length (decisions) for a stored input to seed the search.
    pub min_similarity: usize,
    /// Targets are prefixes (covered by any execution whose path begins with them).
    pub prefix: bool,
}

/// How the search for one path ended.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum PathOutcome {
    /// Taken by `input`, found in the solutions base (`reused`) or by the search.
    Covered { input: Input, reused: bool, exit: ExitKind, ret: Option<RetVal> },
    /// The search stagnated: probably infeasible, because of the decision `suspect` (which the
    /// closest execution could not take after matching `matched` decisions).
    ProbablyInfeasible { suspect: Option<Step>, suspect_text: String, matched: usize, closest: Option<Input> },
    /// The budget ran out first.
    Exhausted { suspect: Option<Step>, suspect_text: String, matched: usize, closest: Option<Input> },
}

/// What happened to one path.
#[derive(Clone, Debug, Serialize)]
pub struct PathResult {
    /// The path as `LINE:COL:LABEL` steps.
    pub path: String,
    pub steps: Vec<Step>,
    pub length: usize,
    /// Revisited decisions (loop iterations).
    pub loop_iterations: usize,
    #[serde(flatten)]
    pub outcome: PathOutcome,
    /// Executions spent on this path (including evaluating stored inputs).
    pub executions: u64,
    pub seconds: f64,
    /// Inputs of similar paths taken from the solutions base, and the longest common prefix among
    /// them.
    pub seeded: usize,
    pub best_similarity: usize,
    /// Paths recorded in the solutions base during this search.
    pub new_paths: usize,
}

impl PathResult {
    pub fn covered(&self) -> bool {
        matches!(self.outcome, PathOutcome::Covered { .. })
    }
}

/// The decisions of `function` in `target`.
pub fn decisions(program: &Program, function: &str) -> Result<Arc<Decisions>> {
    let wanted = if function == "main" { evotest_abi::names::RENAMED_MAIN } else { function };
    let (fi, _) = program.function(wanted).ok_or_else(|| anyhow!("function `{function}` not in the target"))?;
    Ok(Arc::new(Decisions::of(program, fi)))
}

/// Text of a suspect decision: `examples/quotient.c:44:14 `w != d` → false`.
pub fn step_description(program: &Program, s: Step) -> String {
    let site = &program.sites[s.site as usize];
    let label = site.meta.outcome_labels.get(s.k as usize).map(String::as_str).unwrap_or("?");
    format!("{}:{}:{} `{}` → {}", site.meta.file, site.meta.line, site.meta.col, site.meta.cond, label)
}

/// Search for `steps` on `target`, using and updating `base`.
///
/// Errors: only when the executor breaks.
pub fn search_path(
    target: &mut Target,
    decisions: &Arc<Decisions>,
    steps: &[Step],
    opts: &PathSearch,
    base: &mut SolutionsBase,
    monitor: &mut dyn Monitor,
    interrupt: &AtomicBool,
) -> Result<PathResult> {
    let t0 = Instant::now();
    let program = target.program.clone();
    let goal = PathGoal::new(&program, decisions.clone(), steps.to_vec(), opts.prefix);
    let goals: Vec<Box<dyn Goal>> = vec![Box::new(goal.clone())];
    let spec = search::algorithm(&opts.algorithm).ok_or_else(|| anyhow!("unknown algorithm `{}`", opts.algorithm))?;
    let mut config = opts.config.clone();
    config.stop_when_stalled = true;
    config.chaining = Chaining::Off;
    let mut algo = (spec.build)(&config);
    let mut domain = target.domain.clone();
    domain.init = opts.init;
    let rng = rand_chacha::ChaCha8Rng::seed_from_u64(opts.seed);
    let mut cx = SearchContext::new(&domain, &goals, rng, config, opts.budget, &mut target.executor, monitor, interrupt);
    cx.set_ordered_trace(true);
    cx.path_log = Some(PathLog::new(decisions.clone()));

    let mut reused = false;
    let mut seeded = 0;
    let mut best_similarity = 0;
    if opts.reuse {
        let stored = if opts.prefix { base.with_prefix(steps).cloned() } else { base.exact(steps).cloned() };
        if let Some(x) = stored {
            cx.evaluate(&x)?;
            reused = cx.is_covered(0);
        }
        if !reused {
            let n = (cx.config.population / 2).max(1);
            let similar = base.similar(steps, opts.min_similarity, n);
            best_similarity = similar.first().map_or(0, |s| s.0);
            seeded = similar.len();
            for (_, x) in &similar {
                if cx.finished() {
                    break;
                }
                cx.evaluate(x)?;
            }
            cx.seeds = similar.into_iter().map(|s| s.1).collect();
        }
    }
    let mut error = None;
    if !cx.finished() {
        if let Err(e) = algo.run(&mut cx) {
            error = Some(e);
        }
    }
    let executions = cx.executions();
    let outcome = if let Some(t) = cx.archive.covered_by[0].map(|i| cx.archive.tests[i].clone()) {
        PathOutcome::Covered { input: t.input, reused, exit: t.exit, ret: t.ret }
    } else {
        let closest = cx.best(0).map(|b| b.1.clone());
        let m = match &closest {
            Some(x) if error.is_none() => Some(goal.matching(&cx.evaluate(x)?.trace)),
            _ => None,
        };
        let suspect = m.and_then(|m| goal.suspect(&m));
        let suspect_text = suspect.map(|s| step_description(&program, s)).unwrap_or_default();
        let matched = m.map_or(0, |m| m.matched);
        if cx.given_up().is_empty() {
            PathOutcome::Exhausted { suspect, suspect_text, matched, closest }
        } else {
            PathOutcome::ProbablyInfeasible { suspect, suspect_text, matched, closest }
        }
    };
    let fresh = cx.path_log.as_mut().map(|l| l.drain()).unwrap_or_default();
    cx.set_ordered_trace(false);
    drop(cx);
    let mut new_paths = 0;
    for (x, p) in fresh {
        new_paths += base.record(&x, &p) as usize;
    }
    if let Some(e) = error {
        return Err(e);
    }
    Ok(PathResult {
        path: path_text(&program, steps),
        steps: steps.to_vec(),
        length: steps.len(),
        loop_iterations: super::loop_iterations(steps),
        outcome,
        executions,
        seconds: t0.elapsed().as_secs_f64(),
        seeded,
        best_similarity,
        new_paths,
    })
}

/// A [`RunResult`] holding one test per covered path, so that the ordinary reporters (tests.c)
/// can write the suite of a path run.
pub fn as_run_result(target: &Target, opts: &crate::campaign::RunOptions, results: &[PathResult], elapsed: Duration) -> RunResult {
    let decisions = decisions(&target.program, &opts.function).ok();
    let mut goals: Vec<Box<dyn Goal>> = Vec::new();
    let mut archive = Archive::new(results.len());
    for (i, r) in results.iter().enumerate() {
        if let Some(d) = &decisions {
            goals.push(Box::new(PathGoal::new(&target.program, d.clone(), r.steps.clone(), false)));
        }
        if let PathOutcome::Covered { input, exit, ret, .. } = &r.outcome {
            archive.add_test(TestCase {
                input: input.clone(),
                bytes: target.domain.encode(input),
                exit: *exit,
                ret: *ret,
                exec: r.executions,
                at: Duration::ZERO,
                covers_new: vec![i],
                covers_all: vec![i],
            });
        }
    }
    let given_up = results
        .iter()
        .enumerate()
        .filter(|(_, r)| matches!(r.outcome, PathOutcome::ProbablyInfeasible { .. }))
        .map(|(i, _)| i)
        .collect();
    RunResult {
        options: opts.clone(),
        program: target.program.clone(),
        signature: target.signature.clone(),
        domain: target.domain.clone(),
        goals,
        archive,
        given_up,
        executions: results.iter().map(|r| r.executions).sum(),
        cache_hits: 0,
        elapsed,
        exe: target.exe.clone(),
        error: None,
        interrupted: false,
        fork_server_restarts: 0,
        inputs_per_process: target.executor.inputs_per_process(),
        chain_reports: vec![],
    }
}
