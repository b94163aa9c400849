//! The target of a search: the instrumented program, its frontend, and an executor running it.
//! [`build`] makes one for a C function: compile every source with the pass, generate and link
//! the function frontend's harness with the runtime, and start the fork server.

use crate::chaining::Chain;
use crate::compile;
use crate::exec::{Executor, ForkServer};
use crate::fitness::Analysis;
use crate::frontend::function::shape::ShapeSpec;
use crate::frontend::function::FunctionFrontend;
use crate::frontend::Frontend;
use crate::input::spec::RangeSpec;
use crate::program::{self, Program};
use crate::toolchain::Toolchain;
use anyhow::{anyhow, bail, Context, Result};
use evotest_abi::names::RENAMED_MAIN;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// Largest input the shared memory accepts, in bytes.
pub const INPUT_CAPACITY: u32 = 1 << 20;

/// Default per-execution limit of executed branch events: far above what the benchmark programs
/// need (a few thousand), and reached in tens of milliseconds by a runaway loop, well before the
/// 1 s timeout (Bueno & Jino 2002, §7: "the program execution halt\[s\] if the number of traversed
/// nodes is greater than a specified limit").
pub const MAX_BRANCH_EVENTS: u32 = 1_000_000;

/// Inputs a persistent child runs before it is replaced.
pub const PERSISTENT_INPUTS: u32 = 1000;

/// What defines a target: sources, function, input domain, execution limits, build directory.
#[derive(Clone, Debug)]
pub struct TargetOptions {
    /// C source files; the function under test is in one of them. Each is compiled with the pass
    /// into its own object (translation unit).
    pub sources: Vec<PathBuf>,
    pub function: String,
    pub ranges: Vec<RangeSpec>,
    /// How pointer parameters are built (arrays, strings, buffers).
    pub shapes: Vec<ShapeSpec>,
    /// Output directory; the target is built in its `build/`.
    pub out_dir: PathBuf,
    pub cflags: Vec<String>,
    pub ldflags: Vec<String>,
    /// Per-execution timeout.
    pub timeout: Duration,
    /// Inputs per process: `None` decides automatically (persistent, [`PERSISTENT_INPUTS`] per
    /// process, unless some function of the sources writes global state); `Some(1)` forks a process
    /// per input.
    pub persistent: Option<u32>,
    /// Most branch events one execution may run before the runtime stops it
    /// ([`crate::exec::ExitKind::StepLimit`]); 0 = no limit. Default [`MAX_BRANCH_EVENTS`].
    pub max_branch_events: u32,
}

impl TargetOptions {
    /// Defaults for `source` and `function`: 1 s timeout, automatic persistence, output in
    /// `evotest-out/<function>`.
    pub fn new(source: &Path, function: &str) -> TargetOptions {
        TargetOptions {
            sources: vec![source.to_path_buf()],
            function: function.to_string(),
            ranges: vec![],
            shapes: vec![],
            out_dir: PathBuf::from("evotest-out").join(function),
            cflags: vec![],
            ldflags: vec![],
            timeout: Duration::from_secs(1),
            persistent: None,
            max_branch_events: MAX_BRANCH_EVENTS,
        }
    }

    /// The sources, space-separated, for messages and generated comments.
    pub fn sources_display(&self) -> String {
        self.sources.iter().map(|s| s.display().to_string()).collect::<Vec<_>>().join(" ")
    }
}

/// A built target. See module docs.
pub struct Target {
    pub options: TargetOptions,
    pub program: Program,
    pub frontend: Arc<dyn Frontend>,
    /// The instrumented executable (harness + target + runtime).
    pub exe: PathBuf,
    pub executor: Box<dyn Executor>,
    /// The chaining approach's analyses, computed on first use.
    chain: Option<Arc<Chain>>,
}

impl Target {
    /// The name of the function under test in the program (a source's `main` is renamed by the
    /// pass so that the harness can provide one).
    pub fn function_name(&self) -> &str {
        linkage_name(&self.options.function)
    }

    /// Index of the function under test in [`Program::functions`].
    ///
    /// Errors: the function is not in the program.
    pub fn function_index(&self) -> Result<usize> {
        let name = self.function_name();
        self.program.function(name).map(|(i, _)| i).ok_or_else(|| anyhow!("function `{name}` not in the target"))
    }

    /// The chaining approach's view of the program (built once, then shared).
    pub fn chain(&mut self) -> Arc<Chain> {
        if self.chain.is_none() {
            self.chain = Some(Arc::new(Chain::new(&self.program, &Analysis::new(&self.program))));
        }
        self.chain.clone().expect("just built")
    }
}

/// The linkage name of function `f` in an instrumented program (`main` is renamed).
pub fn linkage_name(f: &str) -> &str {
    if f == "main" {
        RENAMED_MAIN
    } else {
        f
    }
}

/// Check that every source exists and is a regular file.
///
/// Errors (one line): a missing file, or a directory.
pub fn check_sources(sources: &[PathBuf]) -> Result<()> {
    if sources.is_empty() {
        bail!("no source file given");
    }
    for src in sources {
        if src.is_dir() {
            bail!("{}: is a directory, not a C source file", src.display());
        }
        if !src.is_file() {
            bail!("{}: no such file", src.display());
        }
    }
    Ok(())
}

/// Compile, link and start the target of `opts`.
///
/// Errors (one line each): missing source, LLVM missing, compile errors, unknown function,
/// unsupported parameter types, bad ranges, a target that will not start.
pub fn build(opts: &TargetOptions) -> Result<Target> {
    check_sources(&opts.sources)?;
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
    let wanted = linkage_name(&opts.function);
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
    let mut fe = FunctionFrontend::new(&fmeta, &opts.shapes, &opts.ranges, &opts.sources_display())?;
    let (int_pool, float_pool) = Program::with_sequential_bases(metas.clone()).constants();
    fe.domain.int_pool = int_pool;
    fe.domain.float_pool = float_pool;

    let harness_c = build_dir.join("harness.c");
    std::fs::write(&harness_c, fe.harness_c()).with_context(|| format!("cannot write {}", harness_c.display()))?;
    let exe = build_dir.join("target");
    compile::link(&tc, &harness_c, &objects, &exe, &opts.ldflags)?;

    let metas = program::read_metadata(&exe)?;
    let n_sites: u32 = metas.iter().map(|m| m.sites.len() as u32).sum();
    let n_outcomes: u32 = metas.iter().map(|m| m.n_outcomes).sum();
    let input_capacity = (fe.domain.len as u32).max(INPUT_CAPACITY);
    // Running many inputs in one process is only safe when no input can leave state behind.
    let stateful = metas.iter().flat_map(|m| &m.functions).any(|f| f.writes_globals);
    let persistent = match opts.persistent {
        Some(n) => Some(n),
        None if stateful => None,
        None => Some(PERSISTENT_INPUTS),
    };
    let mut executor =
        ForkServer::start(&exe, n_sites.max(1), n_outcomes.max(1), input_capacity, opts.timeout, persistent)?;
    executor.set_max_branch_events(opts.max_branch_events);
    if executor.overflow() != 0 {
        bail!("the target registered more instrumented code than its metadata describes");
    }
    let program = Program::new(metas, &executor.modules())?;
    Ok(Target {
        options: opts.clone(),
        program,
        frontend: Arc::new(fe),
        exe,
        executor: Box::new(executor),
        chain: None,
    })
}
