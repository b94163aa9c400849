//! Path coverage (Bueno & Jino 2002): each goal is one path of the function under test
//! ([`crate::path`]), a sequence of decisions; an execution covers it when the decisions it took
//! are exactly those (or begin with them, for a prefix target). [`PathCriterion`] holds the paths
//! a user asked for.
//!
//! Two fitness functions, both computed from the execution's ordered trace:
//!
//! * **Stationary** (evotest's default, minimised, [`PathGoal::stationary`]):
//!   `(L − m) + d/(d+1)`, where L is the path's length, m the number of its decisions the
//!   execution matched before deviating, and d the branch distance (Korel/Tracey, K = 1) at the
//!   deviating decision to the outcome the path wanted; 0 exactly when the path was taken. It is
//!   the approach-level-plus-normalised-distance shape of McMinn & Holcombe (2004, Eq. 1) and EvoSuite's
//!   `d/(d+1)`, with the approach level replaced by the unmatched length of the path, and it does
//!   not depend on the rest of the population, so every algorithm (AVM, GA, random) can use it.
//! * **Bueno & Jino** (2002, §6.3, maximised, [`bueno_jino`]): `Ft = NC − EP/MEP`, where NC
//!   counts the nodes the executed and the desired path share from the entry (here the entry plus
//!   the matched decisions), EP is Table 1's predicate function of the deviating predicate
//!   ([`ep`]), and MEP is the largest EP among the individuals of the current population that
//!   deviated at the same node. It depends on the population, so only population-based
//!   algorithms use it (`--fitness bueno-jino`, the `bjga` algorithm), through
//!   [`super::RelativeFitness`].
//!
//! Compound predicates: evotest compiles at -O0, where `&&` and `||` become separate branches,
//! so every decision of a path is one atomic predicate and a deviation happens at exactly one of
//! them. Table 1's rules for compound predicates (AND: the sum of the conditions' EPs; OR: the
//! least) are implemented by [`ep_and`] and [`ep_or`]; with atomic decisions they reduce to the
//! single predicate's EP.

use super::{Analysis, Criterion, Goal, RelativeFitness, Row, RowCell, Summary};
use crate::fitness::normalise;
use crate::path::{path_text, Decisions, Step};
use crate::program::Program;
use crate::trace::{Trace, EVENT_DEF};
use evotest_abi::meta::SiteKind;
use evotest_abi::pred::Rel;
use evotest_abi::K;
use std::sync::Arc;

/// Table 1's k1: avoids division by zero in the EP of `E1 ≠ E2` (`1/(E1 − E2 + k1)`, which is
/// `1/k1` when the predicate is violated).
pub const K1: f64 = 1.0;
/// Table 1's k2: the fixed penalty for violating a boolean predicate ("currently 100").
pub const K2: f64 = 100.0;

/// Which row of Table 1 gives the EP of a decision, for the relation the path wants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EpKind {
    /// `E1 < E2`, `E1 > E2`: EP = |E1 − E2| when violated (E1 ≥ E2 for `<`).
    Strict,
    /// `E1 ≤ E2`, `E1 ≥ E2`: EP = |E1 − E2|.
    NonStrict,
    /// `E1 = E2` (and string equality, §6.3: Σ of character differences): EP = |E1 − E2|.
    Eq,
    /// `E1 ≠ E2`: EP = 1/k1 when violated.
    Ne,
    /// A boolean (not a compare): EP = k2 when violated.
    Bool,
    /// A `switch` (§7, "dependent on the desired path"): EP = |value − wanted case|, or 1/k1 when
    /// the default is wanted and a case was taken.
    Switch,
}

/// Table 1's predicate function EP of a violated decision, from the Korel/Tracey branch distance
/// `d` (K = 1) to the wanted outcome: for a strict relation the distance carries an extra K,
/// which EP does not; for ≤, ≥, = it is |E1 − E2| itself; ≠ and booleans have fixed values.
pub fn ep(kind: EpKind, d: f64) -> f64 {
    match kind {
        EpKind::Strict => (d - K).max(0.0),
        EpKind::NonStrict | EpKind::Eq | EpKind::Switch => d,
        EpKind::Ne => 1.0 / K1,
        EpKind::Bool => K2,
    }
}

/// EP of a conjunction: the sum of the conditions' EPs (Bueno & Jino 2002, §6.3, after Gallagher &
/// Narasimhan).
pub fn ep_and(eps: &[f64]) -> f64 {
    eps.iter().sum()
}

/// EP of a disjunction: the least of the conditions' EPs.
pub fn ep_or(eps: &[f64]) -> f64 {
    eps.iter().copied().fold(f64::INFINITY, f64::min)
}

/// How an execution's path compares with the goal's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Deviation {
    /// It took the path (exactly, or as a prefix for a prefix target).
    None,
    /// At decision `step` (0-based) it took another outcome; `d` is the branch distance to the
    /// wanted one.
    At { step: usize, d: f64 },
    /// The execution stopped (crash, hang, step limit) before decision `matched`.
    Ended,
    /// The next decision was at another site than the path names (only for paths that were not
    /// checked against the CFG).
    Elsewhere,
    /// It took every decision of the path and then more (an exact target).
    Extra,
}

/// [`Deviation`] and the number of decisions matched before it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PathMatch {
    pub matched: usize,
    pub deviation: Deviation,
}

/// The distance to the wanted outcome of one step.
#[derive(Clone, Copy, Debug)]
struct Wanted {
    /// For a switch: `Some(case value)`, or `None` for the default.
    case: Option<i64>,
    switch: bool,
    ep: EpKind,
}

/// Fitness function of path goals for population-based algorithms.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum PathFitness {
    /// (unmatched path length) + d/(d+1) at the deviating decision; independent of the
    /// population.
    #[default]
    Stationary,
    /// Bueno & Jino's NC − EP/MEP, relative to the population (2002, §6.3); used by `bjga`.
    BuenoJino,
}

/// One path to cover. See module docs.
#[derive(Clone, Debug)]
pub struct PathGoal {
    pub steps: Vec<Step>,
    /// Covered when the execution's path begins with `steps` (otherwise: equals it).
    pub prefix: bool,
    pub decisions: Arc<Decisions>,
    /// Whether population-based selection uses the population-relative fitness.
    pub form: PathFitness,
    wanted: Vec<Wanted>,
}

fn negate(r: Rel) -> Rel {
    match r {
        Rel::Eq => Rel::Ne,
        Rel::Ne => Rel::Eq,
        Rel::Lt => Rel::Ge,
        Rel::Ge => Rel::Lt,
        Rel::Le => Rel::Gt,
        Rel::Gt => Rel::Le,
    }
}

impl PathGoal {
    /// The goal of taking `steps` (decisions of `decisions.function`).
    pub fn new(
        program: &Program,
        decisions: Arc<Decisions>,
        steps: Vec<Step>,
        prefix: bool,
    ) -> PathGoal {
        let wanted = steps
            .iter()
            .map(|s| {
                let site = &program.sites[s.site as usize];
                if site.meta.kind == SiteKind::Switch {
                    let case =
                        s.k.checked_sub(1)
                            .and_then(|c| site.meta.case_values.get(c as usize).copied());
                    return Wanted {
                        case,
                        switch: true,
                        ep: EpKind::Switch,
                    };
                }
                let ep = match site.meta.pred.and_then(|p| p.rel()) {
                    None => EpKind::Bool,
                    Some(rel) => match if s.k == 0 { rel } else { negate(rel) } {
                        Rel::Lt | Rel::Gt => EpKind::Strict,
                        Rel::Le | Rel::Ge => EpKind::NonStrict,
                        Rel::Eq => EpKind::Eq,
                        Rel::Ne => EpKind::Ne,
                    },
                };
                Wanted {
                    case: None,
                    switch: false,
                    ep,
                }
            })
            .collect();
        PathGoal {
            steps,
            prefix,
            decisions,
            form: PathFitness::Stationary,
            wanted,
        }
    }

    /// The same goal with fitness form `form` for population-based selection.
    pub fn with_fitness(mut self, form: PathFitness) -> PathGoal {
        self.form = form;
        self
    }

    /// Compare the execution's path (from `trace.events`, which must be recorded) with the goal's.
    pub fn matching(&self, trace: &Trace) -> PathMatch {
        let mut m = 0usize;
        for e in trace
            .events
            .iter()
            .filter(|e| e.id & EVENT_DEF == 0 && self.decisions.contains(e.id))
        {
            if m == self.steps.len() {
                return if self.prefix {
                    PathMatch {
                        matched: m,
                        deviation: Deviation::None,
                    }
                } else {
                    PathMatch {
                        matched: m,
                        deviation: Deviation::Extra,
                    }
                };
            }
            let want = self.steps[m];
            if e.id != want.site {
                return PathMatch {
                    matched: m,
                    deviation: Deviation::Elsewhere,
                };
            }
            if e.outcome != want.k {
                let w = self.wanted[m];
                let d = if w.switch {
                    match w.case {
                        Some(c) => (e.alt - c as f64).abs(),
                        None => K,
                    }
                } else {
                    e.alt
                };
                return PathMatch {
                    matched: m,
                    deviation: Deviation::At { step: m, d },
                };
            }
            m += 1;
        }
        if m == self.steps.len() {
            PathMatch {
                matched: m,
                deviation: Deviation::None,
            }
        } else {
            PathMatch {
                matched: m,
                deviation: Deviation::Ended,
            }
        }
    }

    /// The stationary fitness of a match (minimised; 0 iff covered). See module docs.
    pub fn stationary(&self, m: &PathMatch) -> f64 {
        let unmatched = (self.steps.len() - m.matched) as f64;
        match m.deviation {
            Deviation::None => 0.0,
            Deviation::At { d, .. } => unmatched + normalise(d),
            Deviation::Ended | Deviation::Elsewhere => unmatched + 1.0,
            Deviation::Extra => 1.0,
        }
    }

    /// Table 1's EP at the deviation (`None` when the path was taken; executions that stopped
    /// early or went elsewhere get `f64::INFINITY`, the worst).
    pub fn ep(&self, m: &PathMatch) -> Option<f64> {
        match m.deviation {
            Deviation::None => None,
            Deviation::At { step, d } => Some(ep(self.wanted[step].ep, d)),
            _ => Some(f64::INFINITY),
        }
    }

    /// The decision the execution should have taken but did not: the suspect predicate when the
    /// path is probably infeasible.
    pub fn suspect(&self, m: &PathMatch) -> Option<Step> {
        match m.deviation {
            Deviation::None => None,
            _ => self.steps.get(m.matched).copied(),
        }
    }

    /// The path's length (decisions).
    pub fn len(&self) -> usize {
        self.steps.len()
    }

    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }
}

/// Bueno & Jino's fitness `Ft = NC − EP/MEP` (maximised) of each member of a population, from
/// their matches with `goal` (Bueno & Jino 2002, §6.3). NC = 1 + matched decisions (the entry node counts,
/// so NC ranges from 1 to L + 1; a taken path scores L + 1). MEP is computed per deviation node:
/// the largest finite EP among the members that deviated there; EP/MEP is 0 when MEP is 0, and
/// 1 (the worst at that node) for members that stopped early or went elsewhere.
pub fn bueno_jino(goal: &PathGoal, matches: &[PathMatch]) -> Vec<f64> {
    let mut mep: std::collections::HashMap<usize, f64> = std::collections::HashMap::new();
    let eps: Vec<Option<f64>> = matches.iter().map(|m| goal.ep(m)).collect();
    for (m, e) in matches.iter().zip(&eps) {
        if let (Deviation::At { step, .. }, Some(e)) = (m.deviation, e) {
            let x = mep.entry(step).or_insert(0.0);
            *x = x.max(*e);
        }
    }
    matches
        .iter()
        .zip(&eps)
        .map(|(m, e)| {
            let nc = 1.0 + m.matched as f64;
            match (m.deviation, e) {
                (Deviation::None, _) => nc,
                (Deviation::At { step, .. }, Some(e)) => {
                    let max = mep.get(&step).copied().unwrap_or(0.0);
                    if max > 0.0 {
                        nc - e / max
                    } else {
                        nc
                    }
                }
                _ => nc - 1.0,
            }
        })
        .collect()
}

impl Goal for PathGoal {
    fn fitness(&self, trace: &Trace) -> f64 {
        self.stationary(&self.matching(trace))
    }

    fn describe(&self, program: &Program) -> String {
        format!(
            "{}path of {} decisions: {}",
            if self.prefix { "prefix " } else { "" },
            self.steps.len(),
            path_text(program, &self.steps)
        )
    }

    fn short(&self, program: &Program) -> String {
        format!("path {}", path_text(program, &self.steps))
    }

    fn needs_ordered_trace(&self) -> bool {
        true
    }

    fn relative(&self) -> Option<&dyn RelativeFitness> {
        (self.form == PathFitness::BuenoJino).then_some(self as &dyn RelativeFitness)
    }
}

impl RelativeFitness for PathGoal {
    fn summary(&self, trace: &Trace) -> Summary {
        std::sync::Arc::new(self.matching(trace))
    }

    /// Bueno & Jino's `NC − EP/MEP` of each member ([`bueno_jino`]), clamped at 0.
    fn scores(&self, members: &[&Summary]) -> Vec<f64> {
        let matches: Vec<PathMatch> = members
            .iter()
            .map(|m| {
                m.downcast_ref::<PathMatch>().copied().unwrap_or(PathMatch {
                    matched: 0,
                    deviation: Deviation::Ended,
                })
            })
            .collect();
        bueno_jino(self, &matches)
            .into_iter()
            .map(|x| x.max(0.0))
            .collect()
    }
}

/// Path coverage of given paths (`evotest path`): one goal per path, in order.
pub struct PathCriterion {
    pub decisions: Arc<Decisions>,
    pub paths: Vec<Vec<Step>>,
    pub prefix: bool,
    pub form: PathFitness,
}

impl PathCriterion {
    /// The goal of path `i`.
    pub fn goal(&self, program: &Program, i: usize) -> PathGoal {
        PathGoal::new(
            program,
            self.decisions.clone(),
            self.paths[i].clone(),
            self.prefix,
        )
        .with_fitness(self.form)
    }
}

impl Criterion for PathCriterion {
    fn name(&self) -> &'static str {
        "path"
    }

    fn goals(
        &self,
        program: &Program,
        _analysis: &Analysis,
        _scope: &[usize],
    ) -> Vec<Box<dyn Goal>> {
        (0..self.paths.len())
            .map(|i| Box::new(self.goal(program, i)) as Box<dyn Goal>)
            .collect()
    }

    /// One row per path, numbered from 1, with one cell: taken.
    fn rows(&self, program: &Program, goals: &[Box<dyn Goal>]) -> Vec<Row> {
        let f = &program.functions[self.decisions.function];
        (0..goals.len().min(self.paths.len()))
            .map(|i| Row {
                id: i as u32 + 1,
                function: f.display_name().to_string(),
                file: f.meta.file.clone(),
                line: f.meta.line,
                col: 0,
                kind: "path".into(),
                text: path_text(program, &self.paths[i]),
                cells: vec![RowCell {
                    label: "taken".into(),
                    goal: Some(i),
                }],
            })
            .collect()
    }
}

#[cfg(test)]
mod tests;
