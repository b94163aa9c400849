//! Search algorithms.
//!
//! Every algorithm talks to the program only through a [`SearchContext`]: it asks for inputs to
//! be evaluated and reads fitness values of goals. The context keeps the budget, the archive
//! (collateral coverage counts), the best input seen for each goal (so a search can start from
//! it), and the goals set aside as suspected infeasible.
//!
//! Two kinds of algorithm:
//! * a [`GoalSearch`] works on one goal at a time (AVM, the GAs); [`drive`] schedules the goals
//!   for it, and decorators such as the chaining approach (the `chaining` module) wrap it;
//! * a [`Search`] runs on its own (random testing).
//!
//! The evolutionary algorithms are presets of one loop ([`evolve`]) with small traits for
//! selection, crossover, mutation and stopping.
//!
//! Adding an algorithm means adding a file with a type implementing [`GoalSearch`] or [`Search`]
//! and one line in [`ALGORITHMS`].

pub mod avm;
pub mod bjga;
pub mod cache;
pub mod context;
pub mod drive;
pub mod evolve;
pub mod ga;
pub mod ge;
pub mod godel;
pub mod havoc;
pub mod hillclimb;
pub mod i2s;
pub mod mhga;
pub mod portfolio;
pub mod random;
pub mod randoop;
pub mod secant;
pub mod seq;

use anyhow::Result;
use serde::Serialize;

pub use context::{Budget, SearchContext};
pub use drive::{drive, Attempt, GoalScheduler, Patience};

/// An algorithm that searches on its own until every goal is covered or the budget is spent.
pub trait Search {
    fn run(&mut self, cx: &mut SearchContext) -> Result<()>;
}

/// An algorithm that works on one goal at a time (AVM, GA). [`drive`] schedules goals for it,
/// and the chaining approach uses it to search for each event sequence.
pub trait GoalSearch {
    /// One attempt on goal `goal` (a real goal, or an auxiliary one such as an event sequence):
    /// returns when the goal's fitness reaches 0, when the attempt runs out of patience, or when
    /// the budget is spent.
    fn attempt(&mut self, cx: &mut SearchContext, goal: usize) -> Result<()>;

    /// Called by [`drive`] after each attempt, with how it went, before a stalled goal is set
    /// aside. Decorators act here (the chaining approach starts on a goal that stalls); plain
    /// algorithms do nothing.
    fn after_attempt(
        &mut self,
        _cx: &mut SearchContext,
        _goal: usize,
        _attempt: Attempt,
    ) -> Result<()> {
        Ok(())
    }
}

/// A built algorithm: one of the two kinds.
pub enum Algorithm {
    /// Works on one goal at a time; run with [`drive`].
    PerGoal(Box<dyn GoalSearch>),
    /// Runs on its own.
    Whole(Box<dyn Search>),
}

/// Tunables shared by the algorithms, with their defaults and sources.
#[derive(Clone, Debug, Serialize)]
pub struct SearchConfig {
    /// GA population size. Default 50, EvoSuite's `population`.
    pub population: usize,
    /// An attempt on one goal ends after this many evaluations without improving the goal's best
    /// fitness; a goal's first attempt after a tenth of them when other goals are open
    /// ([`drive::FIRST_LOOK`]). Default 1000.
    pub patience: u64,
    /// A goal is set aside as suspected infeasible after this many attempts in a row that did not
    /// improve its best fitness. Default 3.
    pub give_up_after: u32,
    /// When every open goal is set aside: stop (`true`), or revive them all with doubled patience
    /// and go on while budget remains (`false`, the default, as EvoSuite and the fuzzers spend their
    /// whole budget). Goals still uncovered at the end that were ever set aside are reported as
    /// suspected infeasible either way.
    pub stop_when_stalled: bool,
    /// Generations per attempt of the presets that stop on a generation count and take it from
    /// here (grammatical evolution, [`ge`]: default 200, Anjum & Ryan 2021). `None`: the preset's
    /// own.
    pub generations: Option<u32>,
    /// Stop as soon as this many goals are covered (`None`: only when all are). A benchmark sets
    /// it to a program's known feasible count: the executions to full feasible coverage are the
    /// same, and a run does not go on spending its cap on infeasible goals.
    pub stop_at_covered: Option<usize>,
    /// Go on to the end of the budget once every goal is covered (`--keep-going`, API testing):
    /// sequences are generated for the faults they may meet, as Randoop runs for its whole time
    /// limit (Pacheco 2009), instead of stopping at full coverage.
    pub keep_going: bool,
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            population: 50,
            patience: 1000,
            give_up_after: 3,
            stop_when_stalled: false,
            generations: None,
            stop_at_covered: None,
            keep_going: false,
        }
    }
}

/// Registration of one algorithm: name, one-line description, constructor.
pub struct AlgorithmSpec {
    pub name: &'static str,
    pub about: &'static str,
    pub build: fn(&SearchConfig) -> Algorithm,
}

/// All algorithms, in the order `--help` lists them. The first is the default.
pub const ALGORITHMS: &[AlgorithmSpec] = &[
    portfolio::SPEC,
    avm::SPEC,
    ga::SPEC,
    random::SPEC,
    randoop::SPEC,
    seq::SPEC,
    godel::SPEC,
    mhga::SPEC_200,
    mhga::SPEC_50,
    bjga::SPEC,
    hillclimb::SPEC,
    havoc::SPEC,
    ge::SPEC,
    ge::SPEC_UNSEEDED,
    ge::SPEC_OBSERVED,
    ge::SPEC_ARITHMETIC,
    ge::SPEC_STRINGS,
    ge::SPEC_BLOCKS,
    ge::SPEC_EXTENDED,
];

/// Look an algorithm up by name.
pub fn algorithm(name: &str) -> Option<&'static AlgorithmSpec> {
    ALGORITHMS.iter().find(|a| a.name == name)
}

/// Look an algorithm up by name.
///
/// Errors (one line): no such algorithm, listing the known ones.
pub fn algorithm_or_error(name: &str) -> Result<&'static AlgorithmSpec> {
    algorithm(name).ok_or_else(|| {
        let names: Vec<_> = ALGORITHMS.iter().map(|a| a.name).collect();
        anyhow::anyhow!(
            "unknown algorithm `{name}` (available: {})",
            names.join(", ")
        )
    })
}

/// [`algorithm_or_error`] for inputs that are call sequences (`sequences`, `--api`) or not.
///
/// Errors (one line): an unknown algorithm; with `--api`, one that does not search call
/// sequences ([`randoop::SEQUENCE_ALGORITHMS`]); without, one that searches only them.
pub fn algorithm_for(name: &str, sequences: bool) -> Result<&'static AlgorithmSpec> {
    let spec = algorithm_or_error(name)?;
    let for_sequences = randoop::SEQUENCE_ALGORITHMS.contains(&spec.name);
    if sequences && !for_sequences {
        anyhow::bail!(
            "-a {}: with --api the inputs are call sequences; the algorithms for them are {}",
            spec.name,
            randoop::SEQUENCE_ALGORITHMS.join(", ")
        );
    }
    if !sequences && for_sequences && spec.name != random::SPEC.name {
        anyhow::bail!("-a {}: it builds call sequences; use it with --api (or another algorithm, see `evotest list`)", spec.name);
    }
    Ok(spec)
}

#[cfg(test)]
pub(crate) mod testkit;
