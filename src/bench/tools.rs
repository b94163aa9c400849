//! The tools a benchmark compares. Each implements [`Tool`]; adding one means adding a type
//! (here or in a file of its own) and a line in [`by_name`].
//!
//! Every tool reports the same thing, an [`Observed`]: for each goal, the execution (in the tool's
//! own count) and time at which it was first covered, as measured by **one observer**: evotest's
//! probes and goals. evotest's algorithms report it directly; peers are observed by replaying
//! their inputs through evotest's instrumented binary (see [`super::peers`]).

use super::BenchProgram;
use crate::campaign::{self, RunOptions};
use crate::chaining::Chaining;
use crate::fitness::Goal;
use crate::input::mapped::PeerEncoding;
use crate::input::{InitMode, Input};
use crate::observe::Silent;
use crate::search::{self, Budget};
use crate::target::Target;
use anyhow::{bail, Result};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// Everything about one program that its runs share.
pub struct ProgramCtx<'a> {
    pub program: &'a BenchProgram,
    pub target: Target,
    /// Options of the program's runs (its target's build options, and `--target` goals).
    pub options: RunOptions,
    pub goals: Vec<Box<dyn Goal>>,
    /// Working directory of this program.
    pub dir: PathBuf,
}

/// One run: its seed, starting input and caps.
#[derive(Clone, Debug)]
pub struct RunSpec {
    pub run: u32,
    pub seed: u64,
    /// The starting input every tool gets in this run (drawn uniformly from the domain).
    pub start: Input,
    pub max_execs: u64,
    pub max_time: Duration,
    /// Per-execution timeout.
    pub timeout: Duration,
    /// Fuzzers (peers and `fuzz` tools) start from an all-zero input of their harness's length
    /// instead of `start`.
    pub zero_seed: bool,
}

/// What one run of one tool achieved, in the observer's terms.
#[derive(Clone, Debug, Default)]
pub struct Observed {
    /// By goal: (execution, seconds) of first coverage.
    pub first: Vec<Option<(u64, f64)>>,
    pub executions: u64,
    pub seconds: f64,
    /// Anything unusual (a peer that stopped on a crash, …).
    pub note: Option<String>,
    /// The inputs that covered something first (for the ground-truth check).
    pub inputs: Vec<Input>,
    /// Fitness evaluations (executions plus cache hits; 0 = same as executions).
    pub evaluations: u64,
    /// Event sequences the chaining approach tried.
    pub sequences: usize,
}

/// A tool under benchmark.
pub trait Tool {
    /// Column name.
    fn name(&self) -> String;
    /// Once per program, before its runs (e.g. build a peer's binary).
    fn prepare(&mut self, _cx: &ProgramCtx) -> Result<()> {
        Ok(())
    }
    /// One run.
    fn run(&mut self, cx: &mut ProgramCtx, spec: &RunSpec) -> Result<Observed>;
    /// Whether this is a peer fuzzer (with the peers' runs and caps).
    fn is_peer(&self) -> bool {
        false
    }
}

/// evotest with one search algorithm, optionally with uniform initialisation (`avm+uniform`)
/// and a chaining mode (`+nochain`, `+chain`; default automatic).
pub struct Evotest {
    pub algorithm: String,
    pub init: InitMode,
    pub chaining: Chaining,
    pub name: String,
}

impl Tool for Evotest {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn run(&mut self, cx: &mut ProgramCtx, spec: &RunSpec) -> Result<Observed> {
        let mut o = cx.options.clone();
        o.algorithm = self.algorithm.clone();
        o.init = self.init;
        o.chain.mode = self.chaining;
        o.seed = spec.seed;
        o.seed_input = Some(spec.start.clone());
        o.target.timeout = spec.timeout;
        // the benchmark measures the search; the fresh-process check is for suites users keep
        o.verify = false;
        o.budget = Budget {
            max_execs: Some(spec.max_execs),
            max_time: Some(spec.max_time),
        };
        // nothing is measured after full feasible coverage: stop there (the executions to it do
        // not change; the ground truth is checked on the union of every tool's inputs, peers'
        // whole runs included)
        if cx.program.feasible > 0 {
            o.search.stop_at_covered = Some(cx.program.feasible);
        }
        let stop = AtomicBool::new(false);
        let r = campaign::search(&mut cx.target, &o, &mut Silent, &stop)?;
        if let Some(e) = &r.error {
            bail!("{} on {}: {e}", self.name(), cx.program.name);
        }
        let first = (0..r.goals.len())
            .map(|g| {
                r.archive.covered_by[g]
                    .map(|t| (r.archive.tests[t].exec, r.archive.tests[t].at.as_secs_f64()))
            })
            .collect();
        let inputs = r
            .archive
            .tests
            .iter()
            .chain(&r.archive.faults)
            .map(|t| t.input.clone())
            .collect();
        Ok(Observed {
            first,
            executions: r.executions,
            seconds: r.elapsed.as_secs_f64(),
            note: None,
            inputs,
            evaluations: r.executions + r.cache_hits,
            sequences: r.chain_reports.iter().map(|c| c.sequences.len()).sum(),
        })
    }
}

/// Names of all tools: evotest's algorithms, each with optional modifiers `+uniform`
/// (uniform initialisation), `+nochain` / `+chain` (chaining off / on at the first failed
/// attempt; default automatic); `fuzz`, `fuzz+i2s`, `fuzz+noguide` (`evotest fuzz` on a libFuzzer
/// harness of the function, guidance on, input-to-state only, off; [`super::fuzz`]); and
/// `libfuzzer`, `afl`.
pub fn names() -> Vec<String> {
    let mut v: Vec<String> = search::ALGORITHMS
        .iter()
        .map(|a| format!("{}[+uniform][+nochain|+chain]", a.name))
        .collect();
    v.push("fuzz[+i2s|+noguide]".into());
    v.push("libfuzzer".into());
    v.push("afl".into());
    v
}

/// The tool called `name`.
pub fn by_name(name: &str, encoding: PeerEncoding) -> Result<Box<dyn Tool>> {
    match name {
        "libfuzzer" => return Ok(Box::new(super::peers::LibFuzzer::new(encoding))),
        "afl" => return Ok(Box::new(super::peers::Afl::new(encoding))),
        _ => {}
    }
    if let Some(f) = super::fuzz::Fuzz::by_name(name, encoding) {
        return Ok(Box::new(f));
    }
    let mut parts = name.split('+');
    let algo = parts.next().unwrap_or("");
    let (mut init, mut chaining) = (InitMode::Biased, Chaining::Auto);
    for m in parts {
        match m {
            "uniform" => init = InitMode::Uniform,
            "nochain" => chaining = Chaining::Off,
            "chain" => chaining = Chaining::On,
            _ => bail!(
                "unknown modifier `+{m}` in benchmark tool `{name}` (available: {})",
                names().join(", ")
            ),
        }
    }
    if search::algorithm(algo).is_none() {
        bail!(
            "unknown benchmark tool `{name}` (available: {})",
            names().join(", ")
        );
    }
    Ok(Box::new(Evotest {
        algorithm: algo.to_string(),
        init,
        chaining,
        name: name.to_string(),
    }))
}
