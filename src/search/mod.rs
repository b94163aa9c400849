//! Search algorithms.
//!
//! Every algorithm implements [`Search`] and talks to the program only through a
//! [`SearchContext`]: it asks for inputs to be evaluated and reads fitness values of goals. The
//! context keeps the budget, the archive (collateral coverage counts), the best input seen for
//! each goal (so a search can start from it), and the goals given up as probably infeasible.
//!
//! Adding an algorithm means adding a file with a type implementing [`Search`] and one line in
//! [`ALGORITHMS`].

pub mod avm;
pub mod bjga;
pub mod ga;
pub mod mhga;
pub mod random;

use crate::archive::{Archive, TestCase};
use crate::exec::{ExitKind, Executor, RetVal};
use crate::fitness::Goal;
use crate::input::{Domain, Input};
use crate::trace::Trace;
use anyhow::Result;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// A search algorithm.
pub trait Search {
    /// Search until every goal is covered or given up, or the budget is spent.
    fn run(&mut self, cx: &mut SearchContext) -> Result<()>;
}

/// An algorithm that works on one goal at a time (AVM, GA). [`drive`] schedules goals for it,
/// and the chaining approach uses it to search for each event sequence.
pub trait GoalSearch {
    /// One attempt on goal `goal` (a real goal, or an auxiliary one such as an event sequence):
    /// returns when the goal's fitness reaches 0, when the attempt runs out of patience, or when
    /// the budget is spent.
    fn attempt(&mut self, cx: &mut SearchContext, goal: usize) -> Result<()>;
}

/// When to use the chaining approach (seed 002) on a goal.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Chaining {
    /// Never.
    Off,
    /// When plain search stalls on the goal (it is about to be set aside as suspected
    /// infeasible).
    #[default]
    Auto,
    /// As soon as one plain attempt fails (as in the paper: if the initial search fails).
    On,
}

/// Fitness function of path goals for population-based algorithms (seed 001).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum PathFitness {
    /// (unmatched path length) + d/(d+1) at the deviating decision; independent of the
    /// population ([`crate::fitness::path`]).
    #[default]
    Stationary,
    /// Bueno & Jino's NC − EP/MEP, relative to the population (seed 001 §6.3); used by `bjga`.
    BuenoJino,
}

/// Order in which the chaining tree is explored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum ChainOrder {
    /// Level by level.
    #[default]
    Bfs,
    /// Deepest first (each child of a failed sequence before its siblings).
    Dfs,
    /// Most promising first: the open sequence whose fitness on its parent's best execution is
    /// lowest (computed from the parent's trace, so ranking costs no executions).
    Best,
}

/// The driver of single-goal algorithms: schedule goals (closest first), attempt each, run the
/// chaining approach on goals that stall (per [`SearchConfig::chaining`]), and set aside those that
/// still make no progress.
pub fn drive(cx: &mut SearchContext, search: &mut dyn GoalSearch) -> Result<()> {
    if cx.domain.genes.is_empty() {
        if !cx.finished() {
            cx.evaluate(&Input { values: vec![] })?;
        }
        return Ok(());
    }
    let mut scheduler = GoalScheduler::default();
    // goals chained since they last stalled: chained again after a revival (with doubled patience)
    let mut chained: std::collections::HashMap<usize, u64> = std::collections::HashMap::new();
    while !cx.finished() {
        let Some(goal) = scheduler.next(cx) else { break };
        let before = cx.best(goal).map(|b| b.0);
        search.attempt(cx, goal)?;
        let (improved, stalled) = scheduler.attempted(cx, goal, before);
        let chain_now = match cx.config.chaining {
            Chaining::Off => false,
            Chaining::Auto => stalled,
            Chaining::On => !improved,
        };
        let fresh = chained.get(&goal) != Some(&cx.config.patience);
        if chain_now && fresh && !cx.is_covered(goal) && cx.chain.is_some() && !cx.out_of_budget() {
            chained.insert(goal, cx.config.patience);
            crate::chaining::driver::pursue(cx, search, goal)?;
        }
        if stalled && !cx.is_covered(goal) && !cx.out_of_budget() {
            cx.give_up(goal);
        }
    }
    Ok(())
}

/// Tunables shared by the algorithms, with their defaults and sources.
#[derive(Clone, Debug, Serialize)]
pub struct SearchConfig {
    /// GA population size. Default 50, EvoSuite's `population`.
    pub population: usize,
    /// An attempt on one goal ends after this many evaluations without improving the goal's best
    /// fitness. Default 1000.
    pub patience: u64,
    /// A goal is set aside as suspected infeasible after this many attempts in a row that did not
    /// improve its best fitness. Default 3.
    pub give_up_after: u32,
    /// When every open goal is set aside: stop (`true`), or revive them all with doubled patience
    /// and go on while budget remains (`false`, the default, as EvoSuite and the fuzzers spend their
    /// whole budget). Goals still uncovered at the end that were ever set aside are reported as
    /// suspected infeasible either way.
    pub stop_when_stalled: bool,
    /// When to use the chaining approach. Default `auto`.
    pub chaining: Chaining,
    /// Depth limit of the chaining tree. Default 5, as in seed 002.
    pub chain_depth: usize,
    /// Exploration order of the chaining tree. Default breadth-first.
    pub chain_order: ChainOrder,
    /// Most event sequences tried per goal. Default 50.
    pub chain_sequences: usize,
    /// Fitness of path goals in population-based algorithms. Default stationary.
    pub path_fitness: PathFitness,
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            population: 50,
            patience: 1000,
            give_up_after: 3,
            stop_when_stalled: false,
            chaining: Chaining::Auto,
            chain_depth: 5,
            chain_order: ChainOrder::Bfs,
            chain_sequences: 50,
            path_fitness: PathFitness::Stationary,
        }
    }
}

/// Registration of one algorithm: name, one-line description, constructor.
pub struct AlgorithmSpec {
    pub name: &'static str,
    pub about: &'static str,
    pub build: fn(&SearchConfig) -> Box<dyn Search>,
}

/// All algorithms, in the order `--help` lists them. The first is the default.
pub const ALGORITHMS: &[AlgorithmSpec] = &[avm::SPEC, ga::SPEC, random::SPEC, mhga::SPEC_200, mhga::SPEC_50, bjga::SPEC];

/// Look an algorithm up by name.
pub fn algorithm(name: &str) -> Option<&'static AlgorithmSpec> {
    ALGORITHMS.iter().find(|a| a.name == name)
}

/// The budget of a search: executions and/or wall time.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct Budget {
    pub max_execs: Option<u64>,
    #[serde(serialize_with = "ser_opt_secs")]
    pub max_time: Option<Duration>,
}

fn ser_opt_secs<S: serde::Serializer>(d: &Option<Duration>, s: S) -> std::result::Result<S::Ok, S::Error> {
    match d {
        Some(d) => s.serialize_some(&d.as_secs_f64()),
        None => s.serialize_none(),
    }
}

/// What a monitor is told about progress.
#[derive(Clone, Debug)]
pub struct Status {
    pub executions: u64,
    pub covered: usize,
    pub goals: usize,
    pub elapsed: Duration,
    pub faults: usize,
}

/// Receives progress (LibAFL's `Monitor`); the CLI shows it with indicatif.
pub trait Monitor {
    fn update(&mut self, status: &Status);
}

/// A monitor that shows nothing.
pub struct Silent;
impl Monitor for Silent {
    fn update(&mut self, _: &Status) {}
}

/// One evaluated input.
#[derive(Clone, Debug)]
pub struct Evaluation {
    pub input: Input,
    pub exit: ExitKind,
    pub ret: Option<RetVal>,
    pub trace: Trace,
    /// 1-based execution number.
    pub exec: u64,
}

/// Everything an algorithm may use. See module docs.
pub struct SearchContext<'a> {
    pub domain: &'a Domain,
    pub goals: &'a [Box<dyn Goal>],
    pub rng: ChaCha8Rng,
    pub config: SearchConfig,
    pub archive: Archive,
    executor: &'a mut dyn Executor,
    monitor: &'a mut dyn Monitor,
    interrupt: &'a AtomicBool,
    budget: Budget,
    start: Instant,
    execs: u64,
    best: Vec<Option<(f64, Input)>>,
    /// Set aside now (not searched until revived).
    given_up: Vec<bool>,
    /// Ever set aside.
    suspected: Vec<bool>,
    last_report: Instant,
    cache: EvalCache,
    /// Auxiliary goals (event sequences), numbered after the real goals, and their bests.
    aux: Vec<Box<dyn Goal>>,
    aux_best: Vec<Option<(f64, Input)>>,
    /// The chaining approach's view of the program, when available.
    pub chain: Option<std::sync::Arc<crate::chaining::Chain>>,
    /// What the chaining approach did, per goal it was used on.
    pub chain_reports: Vec<crate::chaining::driver::ChainReport>,
    ordered: bool,
    /// Inputs an algorithm should put in its initial population (taken by the first that does):
    /// the solutions base's inputs of similar paths (seed 001 §8).
    pub seeds: Vec<Input>,
    /// When set, the path every execution takes through this function is logged (for the
    /// solutions base); needs the ordered trace.
    pub path_log: Option<PathLog>,
}

/// The distinct paths executions took through one function, with the first input of each.
pub struct PathLog {
    pub decisions: std::sync::Arc<crate::path::Decisions>,
    seen: std::collections::HashSet<Vec<crate::path::Step>>,
    /// Paths not yet taken by the caller (see [`PathLog::drain`]).
    fresh: Vec<(Input, Vec<crate::path::Step>)>,
}

impl PathLog {
    pub fn new(decisions: std::sync::Arc<crate::path::Decisions>) -> PathLog {
        PathLog { decisions, seen: Default::default(), fresh: Vec::new() }
    }

    /// Log the path of one execution.
    pub fn log(&mut self, input: &Input, trace: &Trace) {
        let p = crate::path::executed(&trace.events, &self.decisions);
        if !trace.events_overflow && self.seen.insert(p.clone()) {
            self.fresh.push((input.clone(), p));
        }
    }

    /// The paths logged since the last call, with their first inputs.
    pub fn drain(&mut self) -> Vec<(Input, Vec<crate::path::Step>)> {
        std::mem::take(&mut self.fresh)
    }
}

/// Recently evaluated inputs and their results, so that an input the search proposes again
/// (AVM revisits its previous point after a pattern move overshoots; a hang would cost a whole
/// timeout) is not executed again. FIFO, bounded by [`CACHE_BYTES`] of traces.
#[derive(Default)]
struct EvalCache {
    map: HashMap<Input, Evaluation>,
    order: VecDeque<Input>,
    capacity: usize,
    hits: u64,
}

/// Memory the evaluation cache may use for traces.
pub const CACHE_BYTES: usize = 32 << 20;

impl EvalCache {
    fn get(&mut self, input: &Input) -> Option<Evaluation> {
        let e = self.map.get(input).cloned();
        if e.is_some() {
            self.hits += 1;
        }
        e
    }

    fn put(&mut self, ev: &Evaluation) {
        if self.capacity == 0 {
            let bytes = 64
                + ev.trace.sites.len() * 8
                + ev.trace.dist.len() * 8
                + ev.trace.events.len() * std::mem::size_of::<evotest_abi::shm::Event>()
                + ev.input.values.len() * 32;
            self.capacity = (CACHE_BYTES / bytes).max(16);
        }
        if self.map.len() >= self.capacity {
            if let Some(old) = self.order.pop_front() {
                self.map.remove(&old);
            }
        }
        if self.map.insert(ev.input.clone(), ev.clone()).is_none() {
            self.order.push_back(ev.input.clone());
        }
    }
}

impl<'a> SearchContext<'a> {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        domain: &'a Domain,
        goals: &'a [Box<dyn Goal>],
        rng: ChaCha8Rng,
        config: SearchConfig,
        budget: Budget,
        executor: &'a mut dyn Executor,
        monitor: &'a mut dyn Monitor,
        interrupt: &'a AtomicBool,
    ) -> Self {
        let n = goals.len();
        SearchContext {
            domain,
            goals,
            rng,
            config,
            archive: Archive::new(n),
            executor,
            monitor,
            interrupt,
            budget,
            start: Instant::now(),
            execs: 0,
            best: vec![None; n],
            given_up: vec![false; n],
            suspected: vec![false; n],
            last_report: Instant::now(),
            cache: EvalCache::default(),
            aux: Vec::new(),
            aux_best: Vec::new(),
            chain: None,
            chain_reports: Vec::new(),
            ordered: false,
            seeds: Vec::new(),
            path_log: None,
        }
    }

    /// Goal `goal` (real or auxiliary).
    pub fn goal(&self, goal: usize) -> &dyn Goal {
        match goal.checked_sub(self.goals.len()) {
            None => self.goals[goal].as_ref(),
            Some(a) => self.aux[a].as_ref(),
        }
    }

    /// Add an auxiliary goal; returns its goal index (after the real goals).
    pub fn add_aux(&mut self, goal: Box<dyn Goal>) -> usize {
        self.aux.push(goal);
        self.aux_best.push(None);
        self.goals.len() + self.aux.len() - 1
    }

    /// Remove the most recently added auxiliary goal.
    pub fn pop_aux(&mut self) {
        self.aux.pop();
        self.aux_best.pop();
    }

    /// Record the ordered trace in the following executions (the chaining approach needs it).
    /// The evaluation cache is cleared, since its traces were recorded the other way.
    pub fn set_ordered_trace(&mut self, on: bool) {
        if self.ordered != on {
            self.ordered = on;
            self.executor.set_ordered_trace(on);
            self.cache = EvalCache::default();
        }
    }

    /// Evaluations answered from the cache instead of executing (not counted as executions).
    pub fn cache_hits(&self) -> u64 {
        self.cache.hits
    }

    /// Executions so far.
    pub fn executions(&self) -> u64 {
        self.execs
    }

    /// Wall time since the search started.
    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// Whether the budget is spent or the user interrupted.
    pub fn out_of_budget(&self) -> bool {
        self.budget.max_execs.is_some_and(|m| self.execs >= m)
            || self.budget.max_time.is_some_and(|t| self.start.elapsed() >= t)
            || self.interrupt.load(Ordering::Relaxed)
    }

    /// Whether the search should stop: out of budget, or every goal covered or (when stopping on
    /// stagnation) set aside.
    pub fn finished(&self) -> bool {
        self.out_of_budget()
            || self.archive.n_covered() == self.goals.len()
            || (self.config.stop_when_stalled && self.open_goals().is_empty())
    }

    /// Whether `goal` is covered: in the archive for a real goal, at fitness 0 for an auxiliary one.
    pub fn is_covered(&self, goal: usize) -> bool {
        match goal.checked_sub(self.goals.len()) {
            None => self.archive.is_covered(goal),
            Some(a) => self.aux_best[a].as_ref().is_some_and(|b| b.0 == 0.0),
        }
    }

    pub fn is_given_up(&self, goal: usize) -> bool {
        self.given_up[goal]
    }

    /// Goals neither covered nor set aside, in goal order. When every uncovered goal is set aside
    /// and [`SearchConfig::stop_when_stalled`] is off, they are all revived first, with doubled
    /// patience (so the search spends its whole budget).
    pub fn open_goals(&self) -> Vec<usize> {
        (0..self.goals.len()).filter(|&g| !self.archive.is_covered(g) && !self.given_up[g]).collect()
    }

    /// Revive every set-aside goal with doubled patience, unless stopping when stalled. Returns
    /// whether any goal was revived.
    pub fn revive(&mut self) -> bool {
        if self.config.stop_when_stalled || self.out_of_budget() {
            return false;
        }
        let mut any = false;
        for g in 0..self.goals.len() {
            if self.given_up[g] && !self.archive.is_covered(g) {
                self.given_up[g] = false;
                any = true;
            }
        }
        if any {
            self.config.patience = self.config.patience.saturating_mul(2);
        }
        any
    }

    /// Set `goal` aside as suspected infeasible: it is not searched for until revived.
    pub fn give_up(&mut self, goal: usize) {
        self.given_up[goal] = true;
        self.suspected[goal] = true;
    }

    /// Goals still uncovered that were ever set aside: the suspected infeasible ones.
    pub fn given_up(&self) -> Vec<usize> {
        (0..self.goals.len()).filter(|&g| self.suspected[g] && !self.archive.is_covered(g)).collect()
    }

    /// Best (lowest) fitness seen for `goal` (real or auxiliary), and the input that achieved it.
    pub fn best(&self, goal: usize) -> Option<&(f64, Input)> {
        match goal.checked_sub(self.goals.len()) {
            None => self.best[goal].as_ref(),
            Some(a) => self.aux_best[a].as_ref(),
        }
    }

    /// Fitness of an evaluation for `goal` (real or auxiliary).
    pub fn fitness(&self, goal: usize, ev: &Evaluation) -> f64 {
        match goal.checked_sub(self.goals.len()) {
            None => self.goals[goal].fitness(&ev.trace),
            Some(a) => self.aux[a].fitness(&ev.trace),
        }
    }

    /// Normalise `input` into the domain, run it, and update the archive, per-goal bests and
    /// faults. Callers should check [`SearchContext::finished`] first; this always runs, unless the
    /// same input was evaluated recently, in which case the cached result is returned and nothing
    /// is executed.
    ///
    /// Errors: only when the executor breaks.
    pub fn evaluate(&mut self, input: &Input) -> Result<Evaluation> {
        let input = Input {
            values: input.values.iter().enumerate().map(|(i, v)| self.domain.normalise(i, *v)).collect(),
        };
        if let Some(ev) = self.cache.get(&input) {
            self.update_aux(&ev);
            return Ok(ev);
        }
        let bytes = self.domain.encode(&input);
        let ex = self.executor.run(&bytes)?;
        self.execs += 1;
        let exec = self.execs;
        let mut covers_new = Vec::new();
        let mut covers_all = Vec::new();
        for (g, goal) in self.goals.iter().enumerate() {
            let f = goal.fitness(&ex.trace);
            if f == 0.0 {
                covers_all.push(g);
                if !self.archive.is_covered(g) {
                    covers_new.push(g);
                    self.best[g] = Some((0.0, input.clone()));
                }
            } else if !self.archive.is_covered(g) && self.best[g].as_ref().is_none_or(|(b, _)| f < *b) {
                self.best[g] = Some((f, input.clone()));
            }
        }
        let test = TestCase {
            input: input.clone(),
            bytes,
            exit: ex.exit,
            ret: ex.ret,
            exec,
            at: self.start.elapsed(),
            covers_new: covers_new.clone(),
            covers_all,
        };
        if ex.exit.is_fault() {
            self.archive.add_fault(test.clone());
        }
        self.archive.add_test(test);
        if !covers_new.is_empty() || self.last_report.elapsed() >= Duration::from_millis(100) {
            self.last_report = Instant::now();
            let status = self.status();
            self.monitor.update(&status);
        }
        let ev = Evaluation { input, exit: ex.exit, ret: ex.ret, trace: ex.trace, exec };
        if let Some(log) = self.path_log.as_mut() {
            if self.ordered {
                log.log(&ev.input, &ev.trace);
            }
        }
        self.update_aux(&ev);
        self.cache.put(&ev);
        Ok(ev)
    }

    fn update_aux(&mut self, ev: &Evaluation) {
        for (a, goal) in self.aux.iter().enumerate() {
            let f = goal.fitness(&ev.trace);
            if self.aux_best[a].as_ref().is_none_or(|(b, _)| f < *b) {
                self.aux_best[a] = Some((f, ev.input.clone()));
            }
        }
    }

    /// Current progress.
    pub fn status(&self) -> Status {
        Status {
            executions: self.execs,
            covered: self.archive.n_covered(),
            goals: self.goals.len(),
            elapsed: self.start.elapsed(),
            faults: self.archive.faults.len(),
        }
    }

    /// A random input from the domain.
    pub fn random_input(&mut self) -> Input {
        self.domain.sample(&mut self.rng)
    }
}

/// Round-robin scheduling of goals for algorithms that work on one goal at a time (AVM, GA).
///
/// Each round visits the open goals, closest first (lowest best fitness), so that easy goals and
/// the collateral coverage they bring come early. An attempt that does not improve a goal's best
/// fitness counts against it; after `give_up_after` such attempts in a row the goal is given up.
#[derive(Default)]
pub struct GoalScheduler {
    queue: Vec<usize>,
    stale: Vec<u32>,
}

impl GoalScheduler {
    /// The next open goal to attempt, or `None` when none is left.
    pub fn next(&mut self, cx: &mut SearchContext) -> Option<usize> {
        if self.stale.len() != cx.goals.len() {
            self.stale = vec![0; cx.goals.len()];
        }
        loop {
            if self.queue.is_empty() {
                let mut open = cx.open_goals();
                if open.is_empty() && cx.revive() {
                    self.stale.iter_mut().for_each(|s| *s = 0);
                    open = cx.open_goals();
                }
                if open.is_empty() {
                    return None;
                }
                open.sort_by(|&a, &b| {
                    let fa = cx.best(a).map_or(f64::INFINITY, |b| b.0);
                    let fb = cx.best(b).map_or(f64::INFINITY, |b| b.0);
                    fb.total_cmp(&fa).then(b.cmp(&a))
                });
                self.queue = open; // popped from the back: closest first
            }
            let g = self.queue.pop()?;
            if !cx.is_covered(g) && !cx.is_given_up(g) {
                return Some(g);
            }
        }
    }

    /// Report how an attempt on `goal` went (best fitness before and after). Returns whether it
    /// improved, and whether the goal has now stalled (`give_up_after` fruitless attempts in a row).
    pub fn attempted(&mut self, cx: &mut SearchContext, goal: usize, before: Option<f64>) -> (bool, bool) {
        let after = cx.best(goal).map(|b| b.0);
        let improved = match (before, after) {
            (_, Some(0.0)) => true,
            (Some(b), Some(a)) => a < b,
            (None, Some(_)) => true,
            _ => false,
        };
        if cx.is_covered(goal) || improved {
            self.stale[goal] = 0;
            (true, false)
        } else {
            self.stale[goal] += 1;
            (false, self.stale[goal] >= cx.config.give_up_after)
        }
    }
}
