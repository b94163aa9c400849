//! Searching for paths, one at a time, in the order given (Bueno & Jino 2002, §4): for each path, the
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
//!
//! The paths are the goals of a [`PathCriterion`]; [`suite`] gathers the per-path results into
//! the [`Suite`] every reporter reads.

use super::run_algorithm;
use crate::archive::{Archive, TestCase};
use crate::exec::{ExitKind, RetVal};
use crate::fitness::path::{PathCriterion, PathFitness};
use crate::fitness::{Criterion, Goal};
use crate::input::{InitMode, Input};
use crate::observe::Observer;
use crate::path::base::{PathLog, SolutionsBase};
use crate::path::{path_text, Decisions, Step};
use crate::program::Program;
use crate::search::{self, Budget, SearchConfig, SearchContext};
use crate::suite::{RunInfo, Suite};
use crate::target::Target;
use anyhow::Result;
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
    /// Fitness for population-based selection.
    pub fitness: PathFitness,
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
    Covered {
        input: Input,
        reused: bool,
        exit: ExitKind,
        ret: Option<RetVal>,
    },
    /// The search stagnated: probably infeasible, because of the decision `suspect` (which the
    /// closest execution could not take after matching `matched` decisions).
    ProbablyInfeasible {
        suspect: Option<Step>,
        suspect_text: String,
        matched: usize,
        closest: Option<Input>,
    },
    /// The budget ran out first.
    Exhausted {
        suspect: Option<Step>,
        suspect_text: String,
        matched: usize,
        closest: Option<Input>,
    },
    /// The closest execution ended in a fault (crash, hang, exit, …) after matching `matched`
    /// decisions, before the path could be completed: `input` reproduces it.
    Fault {
        exit: ExitKind,
        suspect: Option<Step>,
        suspect_text: String,
        matched: usize,
        input: Input,
    },
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
    /// Evaluations answered from the evaluation cache.
    pub cache_hits: u64,
    pub seconds: f64,
    /// Inputs of similar paths taken from the solutions base, and the longest common prefix among
    /// them.
    pub seeded: usize,
    pub best_similarity: usize,
    /// Paths recorded in the solutions base during this search.
    pub new_paths: usize,
    /// The covering (or closest) input, by parameter.
    pub inputs: Option<serde_json::Value>,
    /// Distinct faults the search for this path met.
    #[serde(skip)]
    pub faults: Vec<TestCase>,
}

impl PathResult {
    pub fn covered(&self) -> bool {
        matches!(self.outcome, PathOutcome::Covered { .. })
    }
}

/// The decisions of the function under test of `target`.
///
/// Errors: the function is not in the program.
pub fn decisions(target: &Target) -> Result<Arc<Decisions>> {
    Ok(Arc::new(Decisions::of(
        &target.program,
        target.function_index()?,
    )))
}

/// Text of a suspect decision: `examples/quotient.c:44:14 `w != d` → false`.
pub fn step_description(program: &Program, s: Step) -> String {
    program.sites[s.site as usize].describe(s.k)
}

/// Search for `steps` on `target`, using and updating `base`. Each path is searched with
/// `stop_when_stalled` (a path that stalls is reported probably infeasible) and without
/// chaining.
///
/// Errors: only when the executor breaks.
pub fn search_path(
    target: &mut Target,
    decisions: &Arc<Decisions>,
    steps: &[Step],
    opts: &PathSearch,
    base: &mut SolutionsBase,
    observer: &mut dyn Observer,
    interrupt: &AtomicBool,
) -> Result<PathResult> {
    let t0 = Instant::now();
    let program = target.program.clone();
    let criterion = PathCriterion {
        decisions: decisions.clone(),
        paths: vec![steps.to_vec()],
        prefix: opts.prefix,
        form: opts.fitness,
    };
    let goal = criterion.goal(&program, 0);
    let goals: Vec<Box<dyn Goal>> = vec![Box::new(goal.clone())];
    let spec = search::algorithm_or_error(&opts.algorithm)?;
    let config = SearchConfig {
        stop_when_stalled: true,
        ..opts.config.clone()
    };
    let algo = (spec.build)(&config);
    let mut domain = target.frontend.domain().clone();
    domain.init = opts.init;
    let rng = rand_chacha::ChaCha8Rng::seed_from_u64(opts.seed);
    let mut log = PathLog::new(decisions.clone());
    let mut cx = SearchContext::new(
        &domain,
        &goals,
        rng,
        config,
        opts.budget,
        target.executor.as_mut(),
        interrupt,
    );
    cx.set_site_outcomes(target.program.site_outcomes());
    cx.observe(observer);
    cx.observe(&mut log);

    let mut reused = false;
    let mut seeded = 0;
    let mut best_similarity = 0;
    if opts.reuse {
        let stored = if opts.prefix {
            base.with_prefix(steps).cloned()
        } else {
            base.exact(steps).cloned()
        };
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
        if let Err(e) = run_algorithm(&mut cx, algo, None) {
            error = Some(e);
        }
    }
    let executions = cx.executions();
    let outcome = if let Some(t) = cx.archive().covered_by[0].map(|i| cx.archive().tests[i].clone())
    {
        PathOutcome::Covered {
            input: t.input,
            reused,
            exit: t.exit,
            ret: t.ret,
        }
    } else {
        let closest = cx.best(0).map(|b| b.1.clone());
        let ev = match &closest {
            Some(x) if error.is_none() => Some(cx.evaluate(x)?),
            _ => None,
        };
        let m = ev.as_ref().map(|ev| goal.matching(&ev.trace));
        let suspect = m.and_then(|m| goal.suspect(&m));
        let suspect_text = suspect
            .map(|s| step_description(&program, s))
            .unwrap_or_default();
        let matched = m.map_or(0, |m| m.matched);
        let ended = matches!(
            m.map(|m| m.deviation),
            Some(crate::fitness::path::Deviation::Ended)
        );
        if let (Some(ev), true) = (ev.filter(|e| e.exit.is_fault()), ended) {
            PathOutcome::Fault {
                exit: ev.exit,
                suspect,
                suspect_text,
                matched,
                input: ev.input,
            }
        } else if cx.given_up().is_empty() {
            PathOutcome::Exhausted {
                suspect,
                suspect_text,
                matched,
                closest,
            }
        } else {
            PathOutcome::ProbablyInfeasible {
                suspect,
                suspect_text,
                matched,
                closest,
            }
        }
    };
    let cache_hits = cx.cache_hits();
    let faults = cx.archive().faults.clone();
    drop(cx);
    let mut new_paths = 0;
    for (x, p) in log.drain() {
        new_paths += base.record(&x, &p) as usize;
    }
    if let Some(e) = error {
        return Err(e);
    }
    let inputs = match &outcome {
        PathOutcome::Covered { input, .. } => Some(target.frontend.json(input)),
        PathOutcome::ProbablyInfeasible { closest, .. }
        | PathOutcome::Exhausted { closest, .. } => {
            closest.as_ref().map(|x| target.frontend.json(x))
        }
        PathOutcome::Fault { input, .. } => Some(target.frontend.json(input)),
    };
    Ok(PathResult {
        inputs,
        faults,
        path: path_text(&program, steps),
        steps: steps.to_vec(),
        length: steps.len(),
        loop_iterations: crate::path::loop_iterations(steps),
        outcome,
        executions,
        cache_hits,
        seconds: t0.elapsed().as_secs_f64(),
        seeded,
        best_similarity,
        new_paths,
    })
}

/// The suite of a path run: the paths are the goals of a [`PathCriterion`], and each covered
/// path's input is the test that covers it.
pub fn suite(
    target: &Target,
    decisions: &Arc<Decisions>,
    info: RunInfo,
    ps: &PathSearch,
    results: &[PathResult],
    elapsed: Duration,
) -> Suite {
    let criterion = PathCriterion {
        decisions: decisions.clone(),
        paths: results.iter().map(|r| r.steps.clone()).collect(),
        prefix: ps.prefix,
        form: ps.fitness,
    };
    let goals: Vec<Box<dyn Goal>> = (0..results.len())
        .map(|i| Box::new(criterion.goal(&target.program, i)) as Box<dyn Goal>)
        .collect();
    let mut archive = Archive::new(results.len());
    let mut execs_before = 0;
    for (i, r) in results.iter().enumerate() {
        if let PathOutcome::Covered {
            input, exit, ret, ..
        } = &r.outcome
        {
            archive.add_test(TestCase {
                input: input.clone(),
                exit: *exit,
                ret: *ret,
                exec: execs_before + r.executions,
                at: Duration::ZERO,
                covers_new: vec![i],
                covers_all: vec![i],
                message: None,
                slow: false,
            });
        }
        for f in &r.faults {
            archive.add_fault(TestCase {
                exec: execs_before + f.exec,
                covers_new: vec![],
                covers_all: vec![],
                ..f.clone()
            });
        }
        execs_before += r.executions;
    }
    let given_up = results
        .iter()
        .enumerate()
        .filter(|(_, r)| matches!(r.outcome, PathOutcome::ProbablyInfeasible { .. }))
        .map(|(i, _)| i)
        .collect();
    let rows = criterion.rows(&target.program, &goals);
    Suite {
        info,
        program: target.program.clone(),
        frontend: target.frontend.clone(),
        goals,
        rows,
        archive,
        given_up,
        executions: results.iter().map(|r| r.executions).sum(),
        cache_hits: results.iter().map(|r| r.cache_hits).sum(),
        elapsed,
        exe: target.exe.clone(),
        notes: vec![],
        error: None,
        interrupted: false,
        exhausted: false,
        verification: None,
        fork_server_restarts: target.executor.restarts(),
        inputs_per_process: target.executor.inputs_per_process(),
        chain_reports: vec![],
    }
}
