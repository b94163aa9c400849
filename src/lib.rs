//! evotest: coverage-guided evolutionary testing at the level of LLVM IR.
//!
//! # Brief overview
//! The stages of a run, each in a module of its own:
//!
//! | stage | module | principal types |
//! |---|---|---|
//! | compile, instrument | [`compile`], [`toolchain`], [`harness`] (the pass itself is `passes/`) | [`toolchain::Toolchain`], [`harness::Signature`] |
//! | execute | [`exec`] | [`exec::Executor`], [`exec::ForkServer`], [`exec::ExitKind`] |
//! | trace | [`trace`] (written by `runtime/`) | [`trace::Trace`] |
//! | analysis | [`program`], [`cfg`] | [`program::Program`], [`cfg::Cfg`] |
//! | paths | [`path`] (path targets, solutions base, `evotest path`) | [`path::Step`], [`path::base::SolutionsBase`] |
//! | fitness | [`fitness`], [`archive`] | [`fitness::Criterion`], [`fitness::Goal`], [`archive::Archive`] |
//! | search | [`search`], [`input`], [`chaining`] | [`search::Search`], [`search::SearchContext`], [`input::Domain`], [`chaining::Chain`] |
//! | report | [`report`] | [`report::Reporter`] |
//!
//! [`campaign`] wires them together for `evotest run`; [`cli`] is the command line.

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
pub mod harness;
pub mod input;
pub mod path;
pub mod program;
pub mod report;
pub mod search;
pub mod toolchain;
pub mod trace;
