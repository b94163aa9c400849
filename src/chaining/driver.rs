//! The hybrid of seed 002 §5: when plain search fails on a goal, take its best input, build event
//! sequences from the problem node's data dependencies, and run a separate search for each
//! sequence (the inner [`GoalSearch`]: AVM, GA or the paper's GA), expanding the chaining tree
//! from failed sequences until the goal is covered, the tree is exhausted at its depth limit, or
//! the budget runs out.

use super::{initial, Sequence, SequenceGoal};
use crate::input::Input;
use crate::search::{ChainOrder, GoalSearch, SearchContext};
use anyhow::Result;
use serde::Serialize;
use std::collections::{HashSet, VecDeque};

/// One event sequence tried for a goal.
#[derive(Clone, Debug, Serialize)]
pub struct SequenceReport {
    /// `⟨(L31 flag = 1, {flag}), (L38 flag != 0 → true, ∅)⟩`.
    pub sequence: String,
    /// Depth in the chaining tree (the initial sequence is 0).
    pub depth: usize,
    /// Executions spent on it.
    pub executions: u64,
    /// Best sequence fitness reached (seed 002 Eq. 2; 0 = executed).
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
}

/// Run the chaining approach on `goal` with `search` as the per-sequence search. Records a
/// [`ChainReport`] in the context.
pub fn pursue(cx: &mut SearchContext, search: &mut dyn GoalSearch, goal: usize) -> Result<()> {
    let Some(chain) = cx.chain.clone() else { return Ok(()) };
    let Some((site, _, k)) = cx.goals[goal].branch() else { return Ok(()) };
    let target = cx.goals[goal].describe(chain.program());
    let (depth_limit, order, max_sequences) = (cx.config.chain_depth, cx.config.chain_order, cx.config.chain_sequences);
    cx.set_ordered_trace(true);
    let start = cx.executions();
    let mut report =
        ChainReport { goal, target, order, sequences: vec![], covered: false, executions: 0, trace_overflow: false };

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
                ChainOrder::Bfs => kids.into_iter().for_each(|s| frontier.push_back((s, depth, x.clone()))),
                // depth-first: the first child is explored next
                ChainOrder::Dfs => kids.into_iter().rev().for_each(|s| frontier.push_front((s, depth, x.clone()))),
                ChainOrder::Best => {
                    kids.into_iter().for_each(|s| frontier.push_back((s, depth, x.clone())));
                    let key = |s: &Sequence| chain.fitness(s, events).0;
                    let mut v: Vec<_> = frontier.drain(..).map(|e| (key(&e.0), e)).collect();
                    v.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1 .1.cmp(&b.1 .1)));
                    frontier.extend(v.into_iter().map(|(_, e)| e));
                }
            }
        };
        push(&mut frontier, chain.expand(&root, &ev.trace.events), 1, &ev.input, &ev.trace.events);
        while let Some((seq, depth, from)) = frontier.pop_front() {
            if cx.is_covered(goal) || cx.out_of_budget() || report.sequences.len() >= max_sequences {
                break;
            }
            if !seen.insert(seq.clone()) {
                continue;
            }
            let before = cx.executions();
            let aux = cx.add_aux(Box::new(SequenceGoal { chain: chain.clone(), seq: seq.clone() }));
            // start from the input the parent sequence got closest with
            cx.evaluate(&from)?;
            if !cx.is_covered(aux) && !cx.is_covered(goal) {
                search.attempt(cx, aux)?;
            }
            let (best_fitness, best) = cx.best(aux).map(|(f, x)| (*f, x.clone())).unwrap_or((f64::INFINITY, from.clone()));
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
            if depth < depth_limit {
                let ev = cx.evaluate(&best)?;
                report.trace_overflow |= ev.trace.events_overflow;
                let kids: Vec<Sequence> = chain.expand(&seq, &ev.trace.events).into_iter().filter(|s| !seen.contains(s)).collect();
                push(&mut frontier, kids, depth + 1, &best, &ev.trace.events);
            }
        }
        Ok(())
    })();
    cx.set_ordered_trace(false);
    report.covered = cx.is_covered(goal);
    report.executions = cx.executions() - start;
    cx.chain_reports.push(report);
    result
}
