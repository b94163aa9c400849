//! One `evotest run`: compile → instrument → link → execute → trace → fitness → search, wired
//! together. Reporting is left to [`crate::report`], so that whatever the search found is
//! written even when the search ends with an error.

use crate::archive::Archive;
use crate::compile;
use crate::config::RangeSpec;
use crate::exec::ForkServer;
use crate::fitness::{Analysis, Goal, CRITERIA};
use crate::harness::{self, Signature};
use crate::input::shape::{self, ShapeSpec};
use crate::input::{Domain, InitMode, Input};
use crate::program::{self, Program};
use crate::search::{self, Budget, Monitor, SearchConfig, SearchContext};
use crate::toolchain::Toolchain;
use anyhow::{anyhow, bail, Context, Result};
use evotest_abi::names::RENAMED_MAIN;
use rand::SeedableRng;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// Largest encoded input the shared memory accepts.
pub const INPUT_CAPACITY: u32 = 1 << 20;

/// Everything that defines a run.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// C source files; the function under test is in one of them. Each is compiled with the pass
    /// into its own object (translation unit).
    pub sources: Vec<PathBuf>,
    pub function: String,
    pub algorithm: String,
    pub criterion: String,
    pub seed: u64,
    pub budget: Budget,
    /// Per-execution timeout.
    pub timeout: Duration,
    pub ranges: Vec<RangeSpec>,
    /// How pointer parameters are built (arrays, strings, buffers).
    pub shapes: Vec<ShapeSpec>,
    pub init: InitMode,
    pub search: SearchConfig,
    pub out_dir: PathBuf,
    pub cflags: Vec<String>,
    pub ldflags: Vec<String>,
    /// An input to evaluate first, before the algorithm runs (benchmarks give every tool the same
    /// starting input).
    pub seed_input: Option<Input>,
    /// Only these goals (`LINE:OUTCOME` or `sSITE:OUTCOME`); empty = all of the criterion's.
    pub targets: Vec<String>,
    /// Inputs per process: `None` decides automatically (persistent, [`PERSISTENT_INPUTS`] per
    /// process, unless some function of the sources writes global state); `Some(1)` forks a process
    /// per input.
    pub persistent: Option<u32>,
    /// Most branch events one execution may run before the runtime stops it
    /// ([`crate::exec::ExitKind::StepLimit`]); 0 = no limit. Default [`MAX_BRANCH_EVENTS`].
    pub max_branch_events: u32,
    /// Use the solutions base in the output directory (seed 001 §8): evaluate its inputs before
    /// the search, and record the paths of this run's tests in it afterwards.
    pub reuse: bool,
}

/// Most stored inputs a branch-coverage run evaluates from the solutions base.
pub const MAX_REUSED_INPUTS: usize = 1000;

/// Default per-execution limit of executed branch events: far above what the benchmark programs
/// need (a few thousand), and reached in tens of milliseconds by a runaway loop, well before the
/// 1 s timeout (seed 001 §7: "the program execution halt\[s\] if the number of traversed nodes is
/// greater than a specified limit").
pub const MAX_BRANCH_EVENTS: u32 = 1_000_000;

/// Inputs a persistent child runs before it is replaced.
pub const PERSISTENT_INPUTS: u32 = 1000;

impl RunOptions {
    /// Defaults for `source` and `function`: AVM, branch coverage, seed 0, 100,000 executions or
    /// 60 s, 1 s timeout, output in `evotest-out/<function>`.
    pub fn new(source: &Path, function: &str) -> RunOptions {
        RunOptions {
            sources: vec![source.to_path_buf()],
            function: function.to_string(),
            algorithm: search::ALGORITHMS[0].name.to_string(),
            criterion: CRITERIA[0].name.to_string(),
            seed: 0,
            budget: Budget { max_execs: Some(100_000), max_time: Some(Duration::from_secs(60)) },
            timeout: Duration::from_secs(1),
            ranges: vec![],
            shapes: vec![],
            init: InitMode::Biased,
            search: SearchConfig::default(),
            out_dir: PathBuf::from("evotest-out").join(function),
            cflags: vec![],
            ldflags: vec![],
            seed_input: None,
            persistent: None,
            targets: vec![],
            max_branch_events: MAX_BRANCH_EVENTS,
            reuse: false,
        }
    }
}

impl RunOptions {
    /// The sources, space-separated, for messages and generated comments.
    pub fn sources_display(&self) -> String {
        self.sources.iter().map(|s| s.display().to_string()).collect::<Vec<_>>().join(" ")
    }
}

/// The built target of a run.
pub struct Target {
    pub program: Program,
    pub signature: Signature,
    pub domain: Domain,
    /// The instrumented executable (harness + target + runtime).
    pub exe: PathBuf,
    pub executor: ForkServer,
    /// The chaining approach's analyses, computed on first use.
    pub chain: Option<std::sync::Arc<crate::chaining::Chain>>,
}

/// What a run produced.
pub struct RunResult {
    pub options: RunOptions,
    pub program: Program,
    pub signature: Signature,
    pub domain: Domain,
    pub goals: Vec<Box<dyn Goal>>,
    pub archive: Archive,
    /// Goals given up as suspected infeasible.
    pub given_up: Vec<usize>,
    pub executions: u64,
    /// Evaluations answered from the evaluation cache (not executed).
    pub cache_hits: u64,
    pub elapsed: Duration,
    pub exe: PathBuf,
    /// Set when the search stopped on an error (the executor broke); the results so far are kept.
    pub error: Option<String>,
    pub interrupted: bool,
    pub fork_server_restarts: u32,
    /// How many inputs one target process ran at most (1: a fork per input).
    pub inputs_per_process: u32,
    /// What the chaining approach did, per goal it was used on.
    pub chain_reports: Vec<crate::chaining::driver::ChainReport>,
}

/// Compile, link and start the target.
///
/// Errors (one line each): missing source, LLVM missing, compile errors, unknown function,
/// unsupported parameter types, bad ranges, a target that will not start.
pub fn build(opts: &RunOptions) -> Result<Target> {
    if opts.sources.is_empty() {
        bail!("no source file given");
    }
    for src in &opts.sources {
        if !src.is_file() {
            bail!("{}: no such file", src.display());
        }
    }
    let algo_ok = search::algorithm(&opts.algorithm).is_some();
    if !algo_ok {
        let names: Vec<_> = search::ALGORITHMS.iter().map(|a| a.name).collect();
        bail!("unknown algorithm `{}` (available: {})", opts.algorithm, names.join(", "));
    }
    if !CRITERIA.iter().any(|c| c.name == opts.criterion) {
        let names: Vec<_> = CRITERIA.iter().map(|c| c.name).collect();
        bail!("unknown criterion `{}` (available: {})", opts.criterion, names.join(", "));
    }
    let tc = Toolchain::locate()?;
    let build_dir = opts.out_dir.join("build");
    std::fs::create_dir_all(&build_dir).with_context(|| format!("cannot create {}", build_dir.display()))?;

    let mut objects = Vec::new();
    let mut metas = Vec::new();
    for (i, src) in opts.sources.iter().enumerate() {
        let obj = build_dir.join(format!("target{i}.o"));
        compile::instrument(&tc, src, &obj, &opts.function, &opts.cflags)?;
        metas.extend(program::read_metadata(&obj)?);
        objects.push(obj);
    }
    let wanted = if opts.function == "main" { RENAMED_MAIN } else { opts.function.as_str() };
    let fmeta = metas
        .iter()
        .flat_map(|m| m.functions.iter())
        .find(|f| f.name == wanted)
        .ok_or_else(|| {
            let names: Vec<String> = metas
                .iter()
                .flat_map(|m| m.functions.iter())
                .map(|f| if f.name == RENAMED_MAIN { "main".to_string() } else { f.name.clone() })
                .collect();
            anyhow!(
                "function `{}` not found in {} (defined: {})",
                opts.function,
                opts.sources_display(),
                if names.is_empty() { "none".to_string() } else { names.join(", ") }
            )
        })?
        .clone();
    let (params, genes) = shape::build(&fmeta, &opts.shapes, &opts.ranges)?;
    let signature = Signature::of(&fmeta, &params)?;
    let scratch = Program::with_sequential_bases(metas.clone());
    let (int_pool, float_pool) = scratch.constants();
    let domain = Domain { params, genes, int_pool, float_pool, init: opts.init };

    let harness_c = build_dir.join("harness.c");
    std::fs::write(&harness_c, harness::generate(&signature, &domain, &opts.sources_display()))
        .with_context(|| format!("cannot write {}", harness_c.display()))?;
    let exe = build_dir.join("target");
    compile::link(&tc, &harness_c, &objects, &exe, &opts.ldflags)?;

    let metas = program::read_metadata(&exe)?;
    let n_sites: u32 = metas.iter().map(|m| m.sites.len() as u32).sum();
    let n_outcomes: u32 = metas.iter().map(|m| m.n_outcomes).sum();
    let input_capacity = (domain.encoded_len() as u32).max(INPUT_CAPACITY);
    // Running many inputs in one process is only safe when no input can leave state behind.
    let stateful = metas.iter().flat_map(|m| &m.functions).any(|f| f.writes_globals);
    let persistent = match opts.persistent {
        Some(n) => Some(n),
        None if stateful => None,
        None => Some(PERSISTENT_INPUTS),
    };
    let mut executor =
        ForkServer::start(&exe, n_sites.max(1), n_outcomes.max(1), input_capacity, opts.timeout, persistent)?;
    crate::exec::Executor::set_max_branch_events(&mut executor, opts.max_branch_events);
    if executor.overflow() != 0 {
        bail!("the target registered more instrumented code than its metadata describes");
    }
    let program = Program::new(metas, &executor.modules())?;
    Ok(Target { program, signature, domain, exe, executor, chain: None })
}

/// Build the target and search. An error during the search is kept in [`RunResult::error`].
pub fn run(opts: &RunOptions, monitor: &mut dyn Monitor, interrupt: &AtomicBool) -> Result<RunResult> {
    let mut target = build(opts)?;
    search(&mut target, opts, monitor, interrupt)
}

/// The goals of `opts`' criterion for the function under test and the functions it calls.
pub fn goals(target: &Target, opts: &RunOptions) -> Result<Vec<Box<dyn Goal>>> {
    let program = &target.program;
    let analysis = Analysis::new(program);
    let criterion = (CRITERIA
        .iter()
        .find(|c| c.name == opts.criterion)
        .ok_or_else(|| anyhow!("unknown criterion `{}`", opts.criterion))?
        .build)();
    let wanted = if opts.function == "main" { RENAMED_MAIN } else { opts.function.as_str() };
    let root = program.function(wanted).map(|(i, _)| i).ok_or_else(|| anyhow!("function `{wanted}` not in the target"))?;
    let scope = program.reachable_from(root);
    let goals = criterion.goals(program, &analysis, &scope);
    if opts.targets.is_empty() {
        return Ok(goals);
    }
    let mut keep = vec![false; goals.len()];
    for t in &opts.targets {
        let (loc, outcome) = t
            .rsplit_once(':')
            .ok_or_else(|| anyhow!("--target {t}: expected LINE:OUTCOME (e.g. 38:true), LINE:COL:OUTCOME or sSITE:OUTCOME"))?;
        let outcome = outcome.trim();
        let (line, col) = match loc.split_once(':') {
            Some((l, c)) => (l, c.trim().parse::<u32>().ok()),
            None => (loc, None),
        };
        let mut found = false;
        for (g, goal) in goals.iter().enumerate() {
            let Some((site, _, k)) = goal.branch() else { continue };
            let s = &program.sites[site as usize];
            let here = match line.trim().strip_prefix('s') {
                Some(id) => id.parse::<u32>().ok() == Some(site),
                None => {
                    line.trim().parse::<u32>().ok() == Some(s.meta.line) && col.is_none_or(|c| c == s.meta.col)
                }
            };
            if here && s.meta.outcome_labels.get(k as usize).map(String::as_str) == Some(outcome) {
                keep[g] = true;
                found = true;
            }
        }
        if !found {
            bail!("--target {t}: no branch outcome `{outcome}` at {loc} among the goals (see `evotest sites`)");
        }
    }
    Ok(goals.into_iter().zip(keep).filter(|(_, k)| *k).map(|(g, _)| g).collect())
}

/// Search on an already built target (so that benchmarks build each program once). Uses
/// `opts`' algorithm, criterion, seed, budget and search configuration; the domain and executor
/// come from the target.
pub fn search(target: &mut Target, opts: &RunOptions, monitor: &mut dyn Monitor, interrupt: &AtomicBool) -> Result<RunResult> {
    let goals = goals(target, opts)?;
    let spec = search::algorithm(&opts.algorithm).ok_or_else(|| anyhow!("unknown algorithm `{}`", opts.algorithm))?;
    let mut algo = (spec.build)(&opts.search);
    let rng = rand_chacha::ChaCha8Rng::seed_from_u64(opts.seed);
    let mut domain = target.domain.clone();
    domain.init = opts.init;
    if opts.search.chaining != crate::search::Chaining::Off && target.chain.is_none() {
        let c = crate::chaining::Chain::new(&target.program, &Analysis::new(&target.program));
        target.chain = Some(std::sync::Arc::new(c));
    }
    let chain = target.chain.clone().filter(|_| opts.search.chaining != crate::search::Chaining::Off);
    let mut base = match opts.reuse {
        true => {
            let key = crate::path::base::program_key(&target.program, &opts.function, &domain);
            let file = opts.out_dir.join(crate::path::base::FILE_NAME);
            Some(crate::path::base::SolutionsBase::open(&file, &key, &opts.function)?)
        }
        false => None,
    };
    let decisions = crate::path::driver::decisions(&target.program, &opts.function)?;
    let t0 = Instant::now();
    let restarts_before = target.executor.restarts();
    let (archive, given_up, executions, cache_hits, error, chain_reports) = {
        let mut cx = SearchContext::new(
            &domain,
            &goals,
            rng,
            opts.search.clone(),
            opts.budget,
            &mut target.executor,
            monitor,
            interrupt,
        );
        cx.chain = chain;
        let mut error = None;
        if let Some(b) = &base {
            for s in b.entries().iter().take(MAX_REUSED_INPUTS) {
                if cx.finished() || error.is_some() {
                    break;
                }
                error = cx.evaluate(&s.input).err().map(|e| format!("{e:#}"));
            }
        }
        if let Some(x) = &opts.seed_input {
            if !cx.finished() {
                error = cx.evaluate(x).err().map(|e| format!("{e:#}"));
            }
        }
        if error.is_none() {
            error = algo.run(&mut cx).err().map(|e| format!("{e:#}"));
        }
        if let (Some(b), None) = (base.as_mut(), &error) {
            // the paths of the suite's tests, for later runs (a few executions with the ordered trace)
            cx.set_ordered_trace(true);
            let inputs: Vec<Input> = cx.archive.tests.iter().map(|t| t.input.clone()).collect();
            for x in inputs {
                match cx.evaluate(&x) {
                    Ok(ev) => {
                        if !ev.trace.events_overflow {
                            b.record(&ev.input, &crate::path::executed(&ev.trace.events, &decisions));
                        }
                    }
                    Err(e) => {
                        error = Some(format!("{e:#}"));
                        break;
                    }
                }
            }
        }
        // the executor outlives this search (benchmarks reuse it): leave the ordered trace off
        cx.set_ordered_trace(false);
        let given_up = cx.given_up();
        let executions = cx.executions();
        let hits = cx.cache_hits();
        let reports = std::mem::take(&mut cx.chain_reports);
        (std::mem::take(&mut cx.archive), given_up, executions, hits, error, reports)
    };
    let elapsed = t0.elapsed();
    if let Some(b) = base.as_mut() {
        b.save()?;
    }
    Ok(RunResult {
        options: opts.clone(),
        program: target.program.clone(),
        signature: target.signature.clone(),
        domain,
        goals,
        archive,
        given_up,
        executions,
        cache_hits,
        elapsed,
        exe: target.exe.clone(),
        error,
        interrupted: interrupt.load(std::sync::atomic::Ordering::Relaxed),
        fork_server_restarts: target.executor.restarts() - restarts_before,
        inputs_per_process: target.executor.inputs_per_process(),
        chain_reports,
    })
}
