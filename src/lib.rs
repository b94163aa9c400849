//! evotest: coverage-guided evolutionary testing at the level of LLVM IR.
//!
//! # Brief overview
//! The stages of a run, each in a module of its own (`ARCHITECTURE.md` has the map and the
//! direction of every dependency):
//!
//! | stage | module | principal types |
//! |---|---|---|
//! | compile, instrument | [`compile`], [`toolchain`], [`target`] (the pass itself is `passes/`) | [`target::Target`] |
//! | frontends | [`frontend`] | [`frontend::Frontend`], [`frontend::function::FunctionFrontend`] |
//! | inputs | [`input`] | [`input::Input`] (bytes), [`input::Domain`] (field map) |
//! | execute | [`exec`] | [`exec::Executor`], [`exec::ForkServer`], [`exec::MockExecutor`] |
//! | trace | [`trace`] (written by `runtime/`) | [`trace::Trace`] |
//! | analysis | [`program`], [`cfg`], [`path`] | [`program::Program`], [`cfg::Cfg`], [`path::Step`] |
//! | fitness | [`fitness`], [`archive`] | [`fitness::Criterion`], [`fitness::Goal`], [`archive::Archive`] |
//! | search | [`search`], [`chaining`], [`observe`] | [`search::GoalSearch`], [`search::SearchContext`], [`chaining::Chained`] |
//! | result, report | [`suite`], [`report`] | [`suite::Suite`], [`report::Reporter`] |
//!
//! [`campaign`] wires them together for `evotest run` and `evotest path`; [`bench`] compares
//! tools; [`cli`] is the command line.

/// `eprintln!` that never panics when standard error is gone (its pipe's reader left, as in
/// `evotest fuzz … 2>&1 | head`: std's panics, and the run ended with a Rust panic's exit 101
/// instead of its own). Defined before the modules, so it is the one they use.
macro_rules! eprintln {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($t)*);
    }};
}

/// `eprint!` that never panics when standard error is gone (see `eprintln!` above).
macro_rules! eprint {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stderr(), $($t)*);
    }};
}

pub mod archive;
pub mod bench;
pub mod campaign;
pub mod cfg;
pub mod chaining;
pub mod cli;
pub mod compile;
pub mod config;
pub mod exec;
pub mod fitness;
pub mod frontend;
pub mod fuzz;
pub mod input;
pub mod observe;
pub mod path;
pub mod program;
pub mod report;
pub mod search;
pub mod suite;
pub mod target;
pub mod toolchain;
pub mod trace;
pub mod util;
pub mod wrapper;
