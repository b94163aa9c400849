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
