//! Coverage criteria and fitness.
//!
//! A [`Criterion`] turns the analysed program into **goals**; a [`Goal`] turns one execution's
//! trace into a fitness value, minimised, 0.0 exactly when the goal is covered. Search algorithms
//! see only goals and fitness values, never branches (EvoSuite's split of `coverage/` and `ga/`).
//!
//! Adding a criterion means adding a file with a type implementing [`Criterion`] and one line in
//! [`CRITERIA`].

pub mod branch;
pub mod path;

use crate::cfg::Cfg;
use crate::program::{OutcomeId, Program, SiteId};
use crate::trace::Trace;

/// Analyses shared by all criteria: one [`Cfg`] per function of the program (same order as
/// [`Program::functions`]).
pub struct Analysis {
    pub cfgs: Vec<Cfg>,
}

impl Analysis {
    /// Analyse every function.
    pub fn new(program: &Program) -> Analysis {
        let cfgs = program
            .functions
            .iter()
            .map(|f| Cfg::new(&f.meta.blocks.iter().map(|b| b.succs.clone()).collect::<Vec<_>>()))
            .collect();
        Analysis { cfgs }
    }
}

/// One coverage goal.
pub trait Goal: Send + Sync {
    /// Fitness of an execution for this goal: minimised, ≥ 0, and exactly 0.0 iff covered.
    fn fitness(&self, trace: &Trace) -> f64;
    /// Short description for reports, e.g. `triangle.c:12:9 a <= 0 → true`.
    fn describe(&self, program: &Program) -> String;
    /// The branch outcome this goal is about, if it is one: (site, global outcome, outcome index).
    fn branch(&self) -> Option<(SiteId, OutcomeId, u32)> {
        None
    }
    /// The path this goal is about, if it is a path goal (population-based fitness functions such
    /// as Bueno & Jino's need the details of the match, not just the fitness).
    fn as_path(&self) -> Option<&path::PathGoal> {
        None
    }
    /// Whether the fitness needs the ordered trace (the sequence of decisions), which costs a
    /// little per execution and is off otherwise.
    fn needs_ordered_trace(&self) -> bool {
        false
    }
}

/// A coverage criterion: a factory of goals.
pub trait Criterion {
    /// Name used on the command line and in reports.
    fn name(&self) -> &'static str;
    /// All goals of the program under this criterion, in the functions of `scope` (indices into
    /// [`Program::functions`]: the function under test and those it calls).
    fn goals(&self, program: &Program, analysis: &Analysis, scope: &[usize]) -> Vec<Box<dyn Goal>>;
}

/// Registration table of criteria: name, one-line description, constructor.
pub struct CriterionSpec {
    pub name: &'static str,
    pub about: &'static str,
    pub build: fn() -> Box<dyn Criterion>,
}

/// All criteria evotest knows.
pub const CRITERIA: &[CriterionSpec] = &[CriterionSpec {
    name: "branch",
    about: "every outcome of every conditional branch, switch and select",
    build: || Box::new(branch::BranchCoverage),
}];
