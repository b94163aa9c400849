//! Coverage criteria and fitness.
//!
//! A [`Criterion`] turns the analysed program into **goals**, picks the ones the user named
//! (`--target`), and lays them out as report [`Row`]s; a [`Goal`] turns one execution's trace
//! into a fitness value, minimised, 0.0 exactly when the goal is covered. Search algorithms see
//! only goals and fitness values, never branches (EvoSuite's split of `coverage/` and `ga/`), and
//! reporters see only rows and goal descriptions.
//!
//! Adding a criterion means adding a file with a type implementing [`Criterion`] and one line in
//! [`CRITERIA`].

pub mod branch;
pub mod cdc;
pub mod normalise;
pub mod path;

pub use normalise::{normalise, NORMALISE_TAIL};

use crate::cfg::Cfg;
use crate::program::{Program, SiteId};
use crate::trace::Trace;
use anyhow::{bail, Result};

/// Analyses shared by all criteria: one [`Cfg`] per function of the program (same order as
/// [`Program::functions`]).
pub struct Analysis {
    pub cfgs: Vec<Cfg>,
    /// Direct call sites of each function ([`Program::callers`]), for approach levels across
    /// calls.
    pub callers: Vec<Vec<(usize, usize)>>,
}

impl Analysis {
    /// Analyse every function.
    pub fn new(program: &Program) -> Analysis {
        let cfgs = program
            .functions
            .iter()
            .map(|f| {
                Cfg::new(
                    &f.meta
                        .blocks
                        .iter()
                        .map(|b| b.succs.clone())
                        .collect::<Vec<_>>(),
                )
            })
            .collect();
        Analysis {
            cfgs,
            callers: program.callers(),
        }
    }
}

/// What a population-relative fitness keeps of one member's execution (opaque to the search).
pub type Summary = std::sync::Arc<dyn std::any::Any + Send + Sync>;

/// A fitness that depends on the rest of the population, such as Bueno & Jino's (2002)
/// `NC − EP/MEP`. Population-based algorithms whose selection can use it ask the goal for it
/// ([`Goal::relative`]).
pub trait RelativeFitness: Send + Sync {
    /// What the relative fitness needs of one execution.
    fn summary(&self, trace: &Trace) -> Summary;
    /// Selection scores of the members (maximised, ≥ 0), from their summaries.
    fn scores(&self, members: &[&Summary]) -> Vec<f64>;
}

/// One coverage goal.
pub trait Goal: Send + Sync {
    /// Fitness of an execution for this goal: minimised, ≥ 0, and exactly 0.0 iff covered.
    fn fitness(&self, trace: &Trace) -> f64;
    /// Description for reports, e.g. `triangle.c:12:9 `a <= 0` → true`.
    fn describe(&self, program: &Program) -> String;
    /// A short label for listings and test-file comments, e.g. `L12 a <= 0:T`.
    fn short(&self, program: &Program) -> String {
        self.describe(program)
    }
    /// The branch outcome (site, outcome index) whose execution covers this goal, if there is
    /// one: what the chaining approach builds its event sequences towards.
    fn target_outcome(&self) -> Option<(SiteId, u32)> {
        None
    }
    /// The branch site whose distance this execution's fitness is measured at: the goal's own
    /// site when it ran, else the critical branch (the executed branch nearest the goal, where
    /// execution turned away from it; McMinn & Holcombe 2004). `None` when there is none or the
    /// goal is not a branch goal. Input-to-state moves read this site's operands.
    fn critical_branch(&self, _trace: &Trace) -> Option<SiteId> {
        None
    }
    /// A tie-break between executions of equal fitness (≥ 0, larger is better): how far the
    /// execution is from losing the progress its fitness counts, e.g. the normalised branch
    /// distance to the other outcome of the critical branch it satisfied
    /// ([`branch::BranchGoal::margin`]). 0 where a goal has none.
    fn margin(&self, _trace: &Trace) -> f64 {
        0.0
    }
    /// The sites whose execution can move this goal's fitness away from its value when none of
    /// them ran, each with its level (0: the goal's own site; `i + 1`: a rung of the `i`-th level
    /// of its approach-level ladder; a site's smallest), and that value: a search computes the
    /// goal's fitness only for executions that ran one of them, and then from the smallest level
    /// that ran ([`Goal::fitness_at`]). Most goals of a large program lie in code an execution
    /// never nears, and walking their ladders dominated the engine's time (78% of the samples on
    /// expat's API). `None`: computed in full for every execution.
    fn reach(&self) -> Option<(Vec<(SiteId, u32)>, f64)> {
        None
    }
    /// The fitness of an execution whose smallest level among the sites ran is `level` (see
    /// [`Goal::reach`]), when it can be had from that level alone; `None`: compute it in full.
    fn fitness_at(&self, _trace: &Trace, _level: u32) -> Option<f64> {
        None
    }
    /// Whether the fitness needs the ordered trace (the sequence of decisions), which costs a
    /// little per execution and is off otherwise.
    fn needs_ordered_trace(&self) -> bool {
        false
    }
    /// A population-relative fitness of this goal, if it has one.
    fn relative(&self) -> Option<&dyn RelativeFitness> {
        None
    }
}

/// One cell of a report row: an outcome and the goal that stands for it (`None`: not a goal,
/// e.g. an outcome outside `--target`).
#[derive(Clone, Debug)]
pub struct RowCell {
    pub label: String,
    pub goal: Option<usize>,
}

/// One row of a report: a program point (a branch site, a path) and its goals.
#[derive(Clone, Debug)]
pub struct Row {
    /// Site ID or path number.
    pub id: u32,
    /// The function it is in.
    pub function: String,
    pub file: String,
    pub line: u32,
    pub col: u32,
    /// `br`, `switch`, `select`, `path`.
    pub kind: String,
    /// The condition's source text, or the path.
    pub text: String,
    pub cells: Vec<RowCell>,
}

/// A coverage criterion: a factory of goals, the reader of the user's `--target` specs, and
/// the layout of its goals in reports.
pub trait Criterion {
    /// Name used on the command line and in reports.
    fn name(&self) -> &'static str;
    /// All goals of the program under this criterion, in the functions of `scope` (indices into
    /// [`Program::functions`]: the function under test and those it calls).
    fn goals(&self, program: &Program, analysis: &Analysis, scope: &[usize]) -> Vec<Box<dyn Goal>>;
    /// Which of `goals` the `--target` specs name (`keep[g]`).
    ///
    /// Errors (one line): a spec that does not parse or names no goal.
    fn select(
        &self,
        _program: &Program,
        _goals: &[Box<dyn Goal>],
        specs: &[String],
    ) -> Result<Vec<bool>> {
        if let Some(s) = specs.first() {
            bail!(
                "--target {s}: the {} criterion does not take targets",
                self.name()
            );
        }
        Ok(vec![true; _goals.len()])
    }
    /// The report rows of `goals` (which this criterion made, possibly filtered by
    /// [`Criterion::select`]).
    fn rows(&self, program: &Program, goals: &[Box<dyn Goal>]) -> Vec<Row>;
}

/// Registration of one criterion: name, one-line description, constructor.
pub struct CriterionSpec {
    pub name: &'static str,
    pub about: &'static str,
    pub build: fn() -> Box<dyn Criterion>,
}

/// The criteria `--criterion` can name. Path coverage ([`path::PathCriterion`]) is built from the
/// paths given to `evotest path`.
pub const CRITERIA: &[CriterionSpec] = &[
    CriterionSpec {
        name: "branch",
        about: "every outcome of every conditional branch, switch and select",
        build: || Box::new(branch::BranchCoverage),
    },
    CriterionSpec {
        name: "condition-decision",
        about: "every atomic condition and every decision takes both outcomes (Anjum & Ryan 2021)",
        build: || Box::new(cdc::ConditionDecision),
    },
];

/// Look a criterion up by name.
///
/// Errors (one line): no such criterion, listing the known ones.
pub fn criterion(name: &str) -> Result<Box<dyn Criterion>> {
    match CRITERIA.iter().find(|c| c.name == name) {
        Some(c) => Ok((c.build)()),
        None => {
            let names: Vec<_> = CRITERIA.iter().map(|c| c.name).collect();
            bail!(
                "unknown criterion `{name}` (available: {})",
                names.join(", ")
            )
        }
    }
}
