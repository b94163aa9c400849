//! The chaining approach as a decorator of a [`GoalSearch`] (McMinn & Holcombe 2004, §5): when
//! plain search stalls on a goal, take its best input, build event sequences from the problem
//! node's data dependencies, and run a separate search for each sequence (the inner
//! [`GoalSearch`]: AVM, GA or the paper's EA), expanding the chaining tree from failed sequences
//! until the goal is covered, the tree is exhausted at its depth limit, or the budget runs out.
//! [`crate::search::drive`] knows nothing of it: it calls [`GoalSearch::after_attempt`], where the
//! decorator decides to chain.

use super::{initial, Chain, Sequence, SequenceGoal};
use crate::input::Input;
use crate::search::{Attempt, GoalSearch, SearchContext};
use anyhow::Result;
use serde::Serialize;
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;

/// When to use the chaining approach on a goal.
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

/// Settings of the chaining approach, with their defaults and sources.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct ChainConfig {
    /// When to chain. Default `auto`.
    pub mode: Chaining,
    /// Depth limit of the chaining tree. Default 5, as in McMinn & Holcombe (2004).
    pub depth: usize,
    /// Exploration order of the chaining tree. Default breadth-first.
    pub order: ChainOrder,
    /// Most event sequences tried per goal. Default 50.
    pub max_sequences: usize,
}

impl Default for ChainConfig {
    fn default() -> Self {
        ChainConfig {
            mode: Chaining::Auto,
            depth: 5,
            order: ChainOrder::Bfs,
            max_sequences: 50,
        }
    }
}

/// One event sequence tried for a goal.
#[derive(Clone, Debug, Serialize)]
pub struct SequenceReport {
    /// `⟨(L31 flag = 1, {flag}), (L38 flag != 0 → true, ∅)⟩`.
    pub sequence: String,
    /// Depth in the chaining tree (the initial sequence is 0).
    pub depth: usize,
    /// Executions spent on it.
    pub executions: u64,
    /// Best sequence fitness reached (McMinn & Holcombe 2004, Eq. 2; 0 = executed).
    pub best_fitness: f64,
    /// Whether the goal was covered while searching for it.
    pub succeeded: bool,
}

/// What the chaining approach did for one goal.
#[derive(Clone, Debug, Serialize)]
pub struct ChainReport {
    /// Index of the goal.
    pub goal: usize,
    pub target: String,
    pub order: ChainOrder,
    pub sequences: Vec<SequenceReport>,
    pub covered: bool,
    /// Executions spent in chaining for this goal, in all.
    pub executions: u64,
    /// Whether the ordered trace overflowed in the execution a sequence was built from (the
    /// tree may then miss events).
    pub trace_overflow: bool,
    /// Whether the chaining tree's root had no child: no definition of a variable the target's
    /// branch uses (nor a problem node before it) to add, in the execution it started from.
    pub no_definitions: bool,
}

/// A [`GoalSearch`] with the chaining approach around it. See module docs.
pub struct Chained<'s> {
    inner: &'s mut dyn GoalSearch,
    chain: Arc<Chain>,
    config: ChainConfig,
    /// Goals chained since they last stalled, with the patience then: chained again after a
    /// revival (with doubled patience).
    chained: HashMap<usize, u64>,
    /// What was done, per goal chained.
    pub reports: Vec<ChainReport>,
}

impl<'s> Chained<'s> {
    pub fn new(
        inner: &'s mut dyn GoalSearch,
        chain: Arc<Chain>,
        config: ChainConfig,
    ) -> Chained<'s> {
        Chained {
            inner,
            chain,
            config,
            chained: HashMap::new(),
            reports: Vec::new(),
        }
    }
}

impl GoalSearch for Chained<'_> {
    fn attempt(&mut self, cx: &mut SearchContext, goal: usize) -> Result<()> {
        self.inner.attempt(cx, goal)
    }

    fn after_attempt(&mut self, cx: &mut SearchContext, goal: usize, a: Attempt) -> Result<()> {
        self.inner.after_attempt(cx, goal, a)?;
        let now = match self.config.mode {
            Chaining::Off => false,
            Chaining::Auto => a.stalled,
            Chaining::On => !a.improved,
        };
        let fresh = self.chained.get(&goal) != Some(&cx.config.patience);
        if now && fresh && !cx.is_covered(goal) && !cx.out_of_budget() {
            self.chained.insert(goal, cx.config.patience);
            let r = pursue(cx, &mut *self.inner, &self.chain, &self.config, goal)?;
            self.reports.extend(r);
        }
        Ok(())
    }
}

/// Run the chaining approach on `goal` with `search` as the per-sequence search. Returns what it
/// did (`None` for a goal that is not a branch outcome).
///
/// Errors: only when the executor breaks.
pub fn pursue(
    cx: &mut SearchContext,
    search: &mut dyn GoalSearch,
    chain: &Arc<Chain>,
    config: &ChainConfig,
    goal: usize,
) -> Result<Option<ChainReport>> {
    let Some((site, k)) = cx.goal(goal).target_outcome() else {
        return Ok(None);
    };
    if cx.out_of_budget() {
        // the attempt before it spent the budget: not even the best input's ordered trace
        return Ok(None);
    }
    let target = cx.goal(goal).describe(chain.program());
    let (depth_limit, order, max_sequences) = (config.depth, config.order, config.max_sequences);
    cx.set_ordered_trace(true);
    let start = cx.executions();
    let mut report = ChainReport {
        goal,
        target,
        order,
        sequences: vec![],
        covered: false,
        executions: 0,
        trace_overflow: false,
        no_definitions: false,
    };

    let result = (|| -> Result<()> {
        let seed: Input = match cx.best(goal) {
            Some((_, x)) => x.clone(),
            None => cx.random_input(),
        };
        let ev = cx.evaluate(&seed)?;
        report.trace_overflow |= ev.trace.events_overflow;
        let root = initial(site, k);
        let mut seen: HashSet<Sequence> = HashSet::from([root.clone()]);
        let mut frontier: VecDeque<(Sequence, usize, Input)> = VecDeque::new();
        let push = |frontier: &mut VecDeque<(Sequence, usize, Input)>,
                    kids: Vec<Sequence>,
                    depth: usize,
                    x: &Input,
                    events: &[crate::trace::Event]| {
            match order {
                ChainOrder::Bfs => kids
                    .into_iter()
                    .for_each(|s| frontier.push_back((s, depth, x.clone()))),
                // depth-first: the first child is explored next
                ChainOrder::Dfs => kids
                    .into_iter()
                    .rev()
                    .for_each(|s| frontier.push_front((s, depth, x.clone()))),
                ChainOrder::Best => {
                    kids.into_iter()
                        .for_each(|s| frontier.push_back((s, depth, x.clone())));
                    let key = |s: &Sequence| chain.fitness(s, events).0;
                    let mut v: Vec<_> = frontier.drain(..).map(|e| (key(&e.0), e)).collect();
                    v.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1 .1.cmp(&b.1 .1)));
                    frontier.extend(v.into_iter().map(|(_, e)| e));
                }
            }
        };
        push(
            &mut frontier,
            chain.expand(&root, &ev.trace.events),
            1,
            &ev.input,
            &ev.trace.events,
        );
        report.no_definitions = frontier.is_empty();
        while let Some((seq, depth, from)) = frontier.pop_front() {
            if cx.is_covered(goal) || cx.out_of_budget() || report.sequences.len() >= max_sequences
            {
                break;
            }
            if !seen.insert(seq.clone()) {
                continue;
            }
            let before = cx.executions();
            let aux = cx.add_aux(Box::new(SequenceGoal {
                chain: chain.clone(),
                seq: seq.clone(),
            }));
            // start from the input the parent sequence got closest with
            cx.evaluate(&from)?;
            if !cx.is_covered(aux) && !cx.is_covered(goal) {
                search.attempt(cx, aux)?;
            }
            let (best_fitness, best) = cx
                .best(aux)
                .map(|(f, x)| (*f, x.clone()))
                .unwrap_or((f64::INFINITY, from.clone()));
            cx.pop_aux();
            let succeeded = cx.is_covered(goal);
            report.sequences.push(SequenceReport {
                sequence: chain.describe(&seq),
                depth,
                executions: cx.executions() - before,
                best_fitness,
                succeeded,
            });
            if succeeded {
                break;
            }
            // (its ordered trace may have left the evaluation cache: with the budget spent, not
            // run again; the loop ends next)
            if depth < depth_limit && !cx.out_of_budget() {
                let ev = cx.evaluate(&best)?;
                report.trace_overflow |= ev.trace.events_overflow;
                let kids: Vec<Sequence> = chain
                    .expand(&seq, &ev.trace.events)
                    .into_iter()
                    .filter(|s| !seen.contains(s))
                    .collect();
                push(&mut frontier, kids, depth + 1, &best, &ev.trace.events);
            }
        }
        Ok(())
    })();
    cx.set_ordered_trace(false);
    report.covered = cx.is_covered(goal);
    report.executions = cx.executions() - start;
    result.map(|()| Some(report))
}
