//! The target of a search: the instrumented program, its frontend, and an executor running it.
//! [`build`] makes one for a C function: compile every source with the pass, generate and link
//! the function frontend's harness with the runtime, and start the fork server.
//! [`open_harness`] makes one for an executable built with `evotest-cc` (a libFuzzer harness or
//! a whole program), with the byte-passing frontend.

use crate::chaining::Chain;
use crate::compile;
use crate::exec::shm::SwitchTable;
use crate::exec::{Executor, ForkServer, ForkServerConfig};
use crate::fitness::Analysis;
use crate::frontend::function::shape::ShapeSpec;
use crate::frontend::function::{ForeignGlobal, FunctionFrontend, RELINKED_PREFIX};
use crate::frontend::rust::{self as rustfe, RustChecks, RustFrontend};
use crate::frontend::Frontend;
use crate::input::spec::RangeSpec;
use crate::program::{self, Program};
use crate::toolchain::Toolchain;
use anyhow::{anyhow, bail, Context, Result};
use evotest_abi::meta::FunctionMeta;
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

/// Default resident-memory limit of one execution, in MB (libFuzzer's `-rss_limit_mb` default).
pub const RSS_LIMIT_MB: u64 = 2048;

/// Default size limit of a file the target writes, in MB.
pub const FILE_LIMIT_MB: u64 = 1024;

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
    /// Global variables that are inputs too (`--global NAME`): set by the harness before each
    /// call.
    pub globals: Vec<String>,
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
    /// Resident memory one execution may use, in MB, before it is killed
    /// ([`crate::exec::ExitKind::Oom`]); 0 = no limit. Default [`RSS_LIMIT_MB`].
    pub rss_limit_mb: u64,
    /// Largest file the target may write, in MB (beyond it the write fails with `SIGXFSZ`, a
    /// crash); 0 = no limit. Default [`FILE_LIMIT_MB`].
    pub file_limit_mb: u64,
    /// Set for a Rust function (`evotest run --crate`): `sources` is then the crate directory and
    /// `function` its path (`module::name`).
    pub rust: Option<RustTarget>,
    /// Set for API testing (`evotest run --api`): the sources' external functions are the
    /// operations of call sequences ([`crate::frontend::sequence`]); `function` is then `api`.
    pub api: Option<ApiTarget>,
}

/// An API under test: see [`build_api`].
#[derive(Clone, Debug)]
pub struct ApiTarget {
    /// Globs of the functions that are operations (empty: every external function).
    pub patterns: Vec<String>,
    /// Most calls in one sequence.
    pub max_calls: usize,
}

/// A Rust function under test: see [`build_rust`].
#[derive(Clone, Debug)]
pub struct RustTarget {
    /// The crate directory (or its `Cargo.toml`).
    pub krate: PathBuf,
    /// Whether compiler-inserted checks are goals.
    pub checks: RustChecks,
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
            globals: vec![],
            out_dir: PathBuf::from("evotest-out").join(function),
            cflags: vec![],
            ldflags: vec![],
            timeout: Duration::from_secs(1),
            persistent: None,
            max_branch_events: MAX_BRANCH_EVENTS,
            rss_limit_mb: RSS_LIMIT_MB,
            file_limit_mb: FILE_LIMIT_MB,
            rust: None,
            api: None,
        }
    }

    /// The fork server's configuration for a map of `sites`, `outcomes` and `input_capacity`.
    pub fn fork_server(
        &self,
        sites: u32,
        outcomes: u32,
        input_capacity: u32,
        persistent: Option<u32>,
    ) -> ForkServerConfig {
        ForkServerConfig {
            sites,
            outcomes,
            input_capacity,
            timeout: self.timeout,
            persistent,
            file_limit: self.file_limit_mb << 20,
            ..Default::default()
        }
    }

    /// The sources, space-separated, for messages and generated comments.
    pub fn sources_display(&self) -> String {
        self.sources
            .iter()
            .map(|s| s.display().to_string())
            .collect::<Vec<_>>()
            .join(" ")
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
    /// The configuration of the fork server, for a fresh, non-persistent executor.
    fresh: Option<ForkServerConfig>,
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
        self.program
            .function(name)
            .map(|(i, _)| i)
            .ok_or_else(|| anyhow!("function `{name}` not in the target"))
    }

    /// A new executor of the same executable that runs every input in a fresh process (to check
    /// that a result does not depend on state an earlier input left behind).
    ///
    /// Errors: the target does not start.
    pub fn fresh_executor(&self) -> Result<Box<dyn Executor>> {
        self.fresh_executor_with(self.options.timeout, false)
    }

    /// [`Target::fresh_executor`] with per-execution `timeout` in place of the target's, and
    /// with the target's standard error kept for [`Executor::last_stderr`] if `capture_stderr`
    /// (what a fault's replay says about it) or if the target's executors keep it anyway (a
    /// fuzzing session's, for triage).
    ///
    /// Errors: the target does not start.
    pub fn fresh_executor_with(
        &self,
        timeout: std::time::Duration,
        capture_stderr: bool,
    ) -> Result<Box<dyn Executor>> {
        let mut config = self
            .fresh
            .clone()
            .ok_or_else(|| anyhow!("this target has no fresh executor"))?;
        config.persistent = None;
        config.timeout = timeout;
        config.capture_stderr |= capture_stderr;
        let mut e = ForkServer::start(&self.exe, &config)?;
        e.set_switches(switch_tables(&self.program));
        e.set_max_branch_events(branch_event_limit(&self.options));
        e.set_max_call_events(call_event_limit(&self.options));
        e.set_memory_limit(self.options.rss_limit_mb << 20);
        e.set_return_distances(return_distances());
        Ok(Box::new(e))
    }

    /// The chaining approach's view of the program (built once, then shared).
    pub fn chain(&mut self) -> Arc<Chain> {
        if self.chain.is_none() {
            self.chain = Some(Arc::new(Chain::new(
                &self.program,
                Analysis::new(&self.program),
            )));
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

/// The error of a target that registered more instrumented modules than the metadata of the
/// executable and of its shared libraries describe.
const MORE_CODE: &str = "the target registered more instrumented code than its metadata describes \
     (instrumented code loaded with dlopen? link it into the harness, e.g. ./configure --disable-shared)";

/// The function `function` (its name as given, `wanted` after renaming `main`) among `all`, the
/// functions of the sources `sources`: the one whose linkage name is `wanted`; else, for C++, the
/// one whose source-level name is `function` or ends in `::function` (`geo::classify`,
/// `classify`). With it, for a C++ function, the expression `tests.cpp` calls it by: its
/// qualified name, or for an overloaded one that name cast to its function-pointer type.
///
/// Errors (one line): no such function (the defined ones listed by the names a user would give),
/// a C++ name that several functions carry (each listed with its linkage name, which
/// `--function` also takes), or `static` functions of that name in several sources.
fn find_function<'a>(
    all: &[&'a FunctionMeta],
    wanted: &str,
    function: &str,
    sources: &str,
) -> Result<(&'a FunctionMeta, Option<String>)> {
    let is_cxx = |f: &FunctionMeta| f.language.as_deref() == Some("c++");
    let source_name = |f: &FunctionMeta| {
        f.source_name
            .clone()
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| f.name.clone())
    };
    // `geo::classify` is named by itself and by `classify`; an instance of a function template
    // (`clampit<int>`) also by its template's name (`clampit`)
    let named = |f: &FunctionMeta, n: &str| {
        let s = source_name(f);
        let base = without_template_arguments(&s);
        [s.as_str(), base]
            .iter()
            .any(|s| *s == n || s.strip_suffix(n).is_some_and(|p| p.ends_with("::")))
    };
    // `static` functions of one name in several sources (a copy of one inline definition, as a
    // header's in several C++ sources, shares its file): the harness cannot tell them apart
    let mut files: Vec<&str> = all
        .iter()
        .filter(|f| f.name == wanted)
        .map(|f| f.file.as_str())
        .collect();
    files.sort_unstable();
    files.dedup();
    if files.len() > 1 {
        bail!(
            "`{function}` is defined in {} sources ({}), each a `static` function of its own: give only the source whose `{function}` to test (with the sources it calls into)",
            files.len(),
            files.join(", ")
        );
    }
    let found: Vec<&FunctionMeta> = match all.iter().find(|f| f.name == wanted) {
        Some(f) => vec![*f],
        None => all
            .iter()
            .filter(|f| is_cxx(f) && named(f, function))
            .copied()
            .collect(),
    };
    match found.as_slice() {
        [f] => {
            let call = is_cxx(f).then(|| {
                if f.name == RENAMED_MAIN {
                    return crate::frontend::function::ctests::ORIGINAL_MAIN.to_string();
                }
                let qualified = source_name(f);
                // the qualified name may name several overloads: pick this one by its type
                if all
                    .iter()
                    .filter(|g| is_cxx(g) && source_name(g) == qualified)
                    .count()
                    > 1
                {
                    format!("static_cast<{}>(&{qualified})", cxx_pointer_type(f))
                } else {
                    qualified
                }
            });
            Ok((f, call))
        }
        [] => {
            let names: Vec<String> = all
                .iter()
                .filter(|f| {
                    !(is_cxx(f)
                        && (source_name(f).starts_with("std::")
                            || source_name(f).starts_with("__")))
                })
                .map(|f| {
                    if f.name == RENAMED_MAIN {
                        "main".to_string()
                    } else if is_cxx(f) {
                        source_name(f)
                    } else {
                        f.name.clone()
                    }
                })
                .collect();
            bail!(
                "function `{function}` not found in {sources} (defined: {})",
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                }
            )
        }
        many => {
            let list: Vec<String> = many
                .iter()
                .map(|f| {
                    format!(
                        "{} ({})",
                        cxx_pointer_type(f).replace("(*)", &source_name(f)),
                        f.name
                    )
                })
                .collect();
            bail!("`{function}` names {} functions in {sources}: {}; give --function the linkage name of one", many.len(), list.join(", "))
        }
    }
}

/// `name` without a template argument list at its end (`clampit<int>` → `clampit`, `f<a<b>>`
/// → `f`); `name` itself when it has none (or `operator<`, whose `<` closes nothing).
fn without_template_arguments(name: &str) -> &str {
    if !name.ends_with('>') || name.ends_with("operator>") || name.ends_with("operator>>") {
        return name;
    }
    let mut depth = 0usize;
    for (i, c) in name.char_indices().rev() {
        match c {
            '>' => depth += 1,
            '<' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return &name[..i];
                }
            }
            _ => {}
        }
    }
    name
}

/// The C++ function-pointer type of `f` from its debug-info types: `int (*)(int, double)`.
fn cxx_pointer_type(f: &FunctionMeta) -> String {
    let spell = |t: &evotest_abi::meta::TypeMeta| {
        if t.c_spelling.is_empty() {
            "void".to_string()
        } else {
            t.c_spelling.clone()
        }
    };
    let params: Vec<String> = f.params.iter().map(|p| spell(&p.ty)).collect();
    format!("{} (*)({})", spell(&f.ret), params.join(", "))
}

/// Check that every source exists and is a regular file.
///
/// Errors (one line): a missing file, a directory, or a header (`.h`, `.hpp`, …).
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
        // tests.c `#include`s the source by its path (relative to the output directory, so it
        // may pass through the working directory's names), which may hold no `"` nor line break
        let whole = std::path::absolute(src).unwrap_or_else(|_| src.clone());
        if whole.to_str().is_none_or(|p| p.contains(['"', '\n', '\r'])) {
            bail!(
                "{}: a source whose path holds a double quote, a line break or bytes that are not UTF-8 cannot be #included by the tests evotest writes; rename it (or the directory)",
                whole.display()
            );
        }
        // clang would make a precompiled header of it, which is no object file
        let ext = src.extension().and_then(|e| e.to_str()).unwrap_or("");
        if matches!(ext, "h" | "hh" | "hpp" | "hxx" | "h++" | "H") {
            bail!(
                "{}: is a header, not a source file: #include it in a .c (or .cpp) file and give that",
                src.display()
            );
        }
    }
    Ok(())
}

/// Compile, link and start the target of `opts`.
///
/// Errors (one line each): missing source, LLVM missing, compile errors, unknown function,
/// unsupported parameter types, bad ranges, a target that will not start.
pub fn build(opts: &TargetOptions) -> Result<Target> {
    if opts.rust.is_some() {
        return build_rust(opts);
    }
    if let Some(api) = &opts.api {
        return build_api(opts, api);
    }
    // the function and the global inputs get external linkage (a `static` one too)
    let expose: Vec<&str> = std::iter::once(opts.function.as_str())
        .chain(opts.globals.iter().map(String::as_str))
        .collect();
    let mut inst = instrument_sources(opts, &expose.join(","))?;
    let wanted = linkage_name(&opts.function);
    let find = |inst: &Instrumented| {
        let all: Vec<&FunctionMeta> = inst.metas.iter().flat_map(|m| m.functions.iter()).collect();
        find_function(&all, wanted, &opts.function, &opts.sources_display())
            .map(|(f, call)| (f.clone(), call))
    };
    let (fmeta, cxx_call) = match find(&inst) {
        Ok(found) => found,
        Err(e) => {
            // a `static` (or inline) function that nothing calls is not emitted at all: once more,
            // with every declaration emitted
            let mut again = opts.clone();
            again.cflags.push("-femit-all-decls".into());
            match instrument_sources(&again, &expose.join(",")) {
                Ok(i) => match find(&i) {
                    Ok(found) => {
                        inst = i;
                        found
                    }
                    // what every declaration emitted shows (overloads of an inline member
                    // function, listed; it said "not found (defined: none)")
                    Err(e2) => return Err(e2),
                },
                Err(_) => return Err(e),
            }
        }
    };
    let Instrumented {
        tc,
        tmp,
        objects,
        metas,
        defined_in,
        globals_in,
        names_in,
        relinked,
    } = inst;
    let all: Vec<&FunctionMeta> = metas.iter().flat_map(|m| m.functions.iter()).collect();
    let wanted = fmeta.name.as_str();
    let globals = global_inputs(&metas, &opts.globals, &all, &fmeta)?;
    let null_checked = null_checked_params(&metas, &fmeta);
    let mut fe = FunctionFrontend::new(
        &fmeta,
        &opts.shapes,
        &opts.ranges,
        &opts.sources_display(),
        &globals,
        &null_checked,
    )?;
    fe.unset_globals = unset_globals(&metas, &all, &fmeta, &opts.globals);
    fe.unsettable_globals = fe
        .unset_globals
        .iter()
        .filter(|g| metas.iter().any(|m| m.other_globals.contains(g)))
        .cloned()
        .collect();
    fe.isolate_tests = global_state(&metas) != GlobalState::Untouched;
    fe.hidden_state_calls = hidden_state_calls(&all, &fmeta);
    fe.reads_stdin = fe
        .hidden_state_calls
        .iter()
        .find(|c| STDIN_READERS.contains(&c.as_str()))
        .cloned()
        .or_else(|| {
            globals_read(&all, &fmeta)
                .iter()
                .any(|g| g == "stdin")
                .then(|| "stdin".to_string())
        });
    let scratch = Program::with_sequential_bases(metas.clone());
    seed_pools(&mut fe.domain, &scratch, &fmeta);
    for t in crate::frontend::function::shape::number_texts(&fmeta) {
        if !fe.domain.str_pool.contains(&t) {
            fe.domain.str_pool.push(t);
        }
    }
    let defining = defined_in
        .iter()
        .find(|(n, _)| n == wanted)
        .map(|(_, i)| *i);
    fe.defining_source = defining.map(|i| opts.sources[i].clone());
    fe.relinked = relinked;
    // a freestanding source's own `index`, `sleep` or `write` would clash with the system
    // headers that tests.c and the harness include before it
    if let (Some(i), None) = (defining, &fe.cxx_call) {
        let own: Vec<&String> = names_in
            .iter()
            .filter(|(n, j)| *j == i && n != RENAMED_MAIN && !n.starts_with("__evotest"))
            .map(|(n, _)| n)
            .collect();
        if !own.is_empty() {
            let macros =
                crate::frontend::function::ctests::c_feature_macros(fe.defining_source.as_deref());
            let declared = crate::frontend::function::helper_header_names(&tc.clang, &macros);
            let mut renamed: Vec<String> = own
                .into_iter()
                .filter(|n| declared.contains(*n))
                .cloned()
                .collect();
            renamed.sort();
            renamed.dedup();
            fe.renamed = renamed;
        }
    }
    // global inputs of another source: `tests.c` includes only the function's own
    fe.foreign_globals = globals
        .iter()
        .filter_map(|g| {
            let (_, i) = globals_in.iter().find(|(n, _)| n == &g.name)?;
            (Some(*i) != defining).then(|| ForeignGlobal {
                name: g.name.clone(),
                source: opts.sources[*i].clone(),
                internal: g.internal,
            })
        })
        .collect();
    fe.other_sources = opts
        .sources
        .iter()
        .enumerate()
        .filter(|(i, _)| Some(*i) != defining)
        .map(|(_, s)| s.clone())
        .collect();
    fe.main_sources = defined_in
        .iter()
        .filter(|(n, i)| n == RENAMED_MAIN && Some(*i) != defining)
        .map(|(_, i)| opts.sources[*i].clone())
        .collect();
    fe.cflags = opts.cflags.clone();
    if finite_math(&opts.cflags) && finite_floats(&mut fe.domain) {
        fe.inferred.push(FINITE_MATH_NOTE.to_string());
    }
    fe.cxx_call = cxx_call;

    let cxx = all.iter().any(|f| f.language.as_deref() == Some("c++"));
    let exe = link_harness(opts, &tc, tmp, &objects, &fe.harness_c(), cxx)?;
    if fe.cxx_call.is_some() && fmeta.name != opts.function {
        // a C++ function given by its source-level name: the target knows it by its linkage name
        let opts = TargetOptions {
            function: fmeta.name.clone(),
            ..opts.clone()
        };
        return start(&opts, exe, Arc::new(fe));
    }
    start(opts, exe, Arc::new(fe))
}

/// The sources of a target compiled with the pass, in a private build directory.
struct Instrumented {
    tc: Toolchain,
    /// The build directory (moved into place once the executable is linked).
    tmp: tempfile::TempDir,
    /// One object per source.
    objects: Vec<PathBuf>,
    metas: Vec<evotest_abi::meta::ModuleMeta>,
    /// Each function's name and the index of the source that defines it.
    defined_in: Vec<(String, usize)>,
    /// Each described global variable's name and the index of the source that defines it.
    globals_in: Vec<(String, usize)>,
    /// Every function and global variable the metadata names (inputs or not), with the index
    /// of the source that defines it.
    names_in: Vec<(String, usize)>,
    /// The sources' functions renamed in the objects ([`separate_runtime_imports`]).
    relinked: Vec<String>,
}

/// Compile every source of `opts` with the pass into a private build directory in its output
/// directory, giving the functions and globals named in `expose` (comma-separated) external
/// linkage.
///
/// Errors (one line each): a missing source, LLVM missing, a compile error, an output directory
/// that cannot be made.
fn instrument_sources(opts: &TargetOptions, expose: &str) -> Result<Instrumented> {
    check_sources(&opts.sources)?;
    let tc = Toolchain::locate()?;
    std::fs::create_dir_all(&opts.out_dir)
        .with_context(|| format!("cannot create {}", opts.out_dir.display()))?;
    let tmp = tempfile::Builder::new()
        .prefix(".build-")
        .tempdir_in(&opts.out_dir)
        .with_context(|| {
            format!(
                "cannot create a build directory in {}",
                opts.out_dir.display()
            )
        })?;
    let mut objects = Vec::new();
    let mut metas = Vec::new();
    let mut defined_in = Vec::new();
    let mut globals_in = Vec::new();
    let mut names_in = Vec::new();
    for (i, src) in opts.sources.iter().enumerate() {
        let obj = tmp.path().join(format!("target{i}.o"));
        compile::instrument(&tc, src, &obj, expose, &opts.cflags)?;
        // a source without functions has no metadata section
        let m = program::read_metadata_if_any(&obj)?;
        defined_in.extend(
            m.iter()
                .flat_map(|m| m.functions.iter())
                .map(|f| (f.name.clone(), i)),
        );
        globals_in.extend(
            m.iter()
                .flat_map(|m| m.globals.iter())
                .map(|g| (g.name.clone(), i)),
        );
        names_in.extend(
            m.iter()
                .flat_map(|m| {
                    m.functions
                        .iter()
                        .map(|f| &f.name)
                        .chain(m.globals.iter().map(|g| &g.name))
                        .chain(m.other_globals.iter())
                })
                .map(|n| (n.clone(), i)),
        );
        metas.extend(m);
        objects.push(obj);
    }
    let relinked = separate_runtime_imports(&tc, &objects)?;
    Ok(Instrumented {
        tc,
        tmp,
        objects,
        metas,
        defined_in,
        globals_in,
        names_in,
        relinked,
    })
}

/// Global functions the instrumented `objects` define under the name of a function the evotest
/// runtime calls from the C library (a freestanding source's `read` or `write`, a firmware's
/// `malloc`, its own `memcpy`): their symbols are renamed `evotest_src_NAME` in every object,
/// definitions and the sources' own references alike, so that the runtime keeps the C library's
/// (it read its inputs through the source's `read`, and an instrumented `memcpy` called itself
/// through the probes). Returns the names renamed.
///
/// Errors (one line): `llvm-objcopy` missing or failing.
fn separate_runtime_imports(tc: &Toolchain, objects: &[PathBuf]) -> Result<Vec<String>> {
    use object::{Object, ObjectSymbol, SymbolKind};
    let imports = crate::toolchain::archive_imports(&tc.runtime);
    let mut names = std::collections::BTreeSet::new();
    for o in objects {
        let Ok(data) = std::fs::read(o) else { continue };
        let Ok(obj) = object::File::parse(&*data) else {
            continue;
        };
        for sym in obj.symbols() {
            if sym.is_definition() && sym.is_global() && sym.kind() == SymbolKind::Text {
                if let Ok(n) = sym.name() {
                    if imports.contains(n) {
                        names.insert(n.to_string());
                    }
                }
            }
        }
    }
    if names.is_empty() {
        return Ok(vec![]);
    }
    let objcopy = crate::toolchain::llvm_tool(&tc.clang, "llvm-objcopy")?;
    for o in objects {
        let mut c = std::process::Command::new(&objcopy);
        for n in &names {
            c.arg(format!("--redefine-sym={n}={RELINKED_PREFIX}{n}"));
        }
        let out = c
            .arg(o)
            .output()
            .with_context(|| format!("cannot run {}", objcopy.display()))?;
        if !out.status.success() {
            bail!(
                "renaming the sources' own {} failed: {}",
                names.iter().cloned().collect::<Vec<_>>().join(", "),
                String::from_utf8_lossy(&out.stderr).trim()
            );
        }
    }
    Ok(names.into_iter().collect())
}

/// Write `harness` (C) in the build directory `tmp`, link it with the instrumented `objects`, the
/// runtime and `opts`' link flags (and the C++ runtime when `cxx`), and move the directory into
/// place as the output directory's `build/`. Returns the executable's path.
///
/// Errors (one line each): the harness cannot be written, the link fails.
fn link_harness(
    opts: &TargetOptions,
    tc: &Toolchain,
    tmp: tempfile::TempDir,
    objects: &[PathBuf],
    harness: &str,
    cxx: bool,
) -> Result<PathBuf> {
    let work = tmp.path();
    std::fs::write(work.join("harness.c"), harness)
        .with_context(|| format!("cannot write in {}", work.display()))?;
    let mut ldflags = opts.ldflags.clone();
    if cxx {
        ldflags.push("-lstdc++".to_string());
    }
    compile::link(
        tc,
        &work.join("harness.c"),
        objects,
        &work.join("target"),
        &ldflags,
    )?;
    let build_dir = opts.out_dir.join("build");
    replace_dir(tmp, &build_dir)?;
    Ok(build_dir.join("target"))
}

/// Compile the sources of `opts` with the pass, generate the API harness of their external
/// functions (narrowed by `api`), link and start it.
///
/// Errors (one line each): missing source, compile errors, no function that can be an operation.
pub fn build_api(opts: &TargetOptions, api: &ApiTarget) -> Result<Target> {
    let Instrumented {
        tc,
        tmp,
        objects,
        metas,
        relinked,
        ..
    } = instrument_sources(opts, "")?;
    if let Some(n) = relinked.first() {
        // the API harness calls the operations by their names
        bail!(
            "the sources define `{n}`, a C library function the evotest runtime calls itself; --api cannot test such a source yet: rename it for the test (--cflag=-D{n}=my_{n})"
        );
    }
    let all: Vec<&FunctionMeta> = metas.iter().flat_map(|m| m.functions.iter()).collect();
    let mut fe = crate::frontend::sequence::SequenceFrontend::new(
        &all,
        &api.patterns,
        api.max_calls,
        &opts.sources,
    )?;
    // the operations of an API may be called in any order: the pools of every function
    let pools = Program::with_sequential_bases(metas.clone()).pools(None);
    fe.domain.int_pool = pools.ints;
    fe.domain.float_pool = pools.floats;
    fe.domain.str_pool = pools.strings;
    fe.cflags = opts.cflags.clone();
    if finite_math(&opts.cflags) {
        finite_floats(&mut fe.domain);
    }
    // (C++ sources are refused by the frontend)
    let exe = link_harness(
        opts,
        &tc,
        tmp,
        &objects,
        &crate::frontend::sequence::harness::generate(&fe),
        false,
    )?;
    fe.exe = Some(std::fs::canonicalize(&exe).unwrap_or(exe.clone()));
    fe.replay_limits = (
        call_event_limit(opts),
        crate::exec::hang_limit(opts.timeout),
    );
    start(opts, exe, Arc::new(fe))
}

/// The global variables named by `--global` (`names`), from the modules' metadata.
///
/// Errors (one line each): a name that is no mutable global variable with debug info of the
/// sources (listing those the function reads), a name given twice.
fn global_inputs(
    metas: &[evotest_abi::meta::ModuleMeta],
    names: &[String],
    all: &[&FunctionMeta],
    f: &FunctionMeta,
) -> Result<Vec<evotest_abi::meta::GlobalMeta>> {
    let mut out: Vec<evotest_abi::meta::GlobalMeta> = Vec::new();
    for n in names {
        if out.iter().any(|g| &g.name == n) {
            bail!("--global {n}: given twice");
        }
        let Some(g) = metas.iter().flat_map(|m| &m.globals).find(|g| &g.name == n) else {
            if metas.iter().flat_map(|m| &m.thread_locals).any(|g| g == n) {
                bail!(
                    "--global {n}: `{n}` is thread-local (`_Thread_local`, `thread_local`): each thread has a copy of its own, \
                     which evotest does not set; only ordinary globals can be inputs"
                );
            }
            if metas.iter().flat_map(|m| &m.other_globals).any(|g| g == n) {
                bail!(
                    "--global {n}: `{n}` is of a type evotest does not build as an input (a pointer, a union, …); \
                     only scalars, arrays and structures of them can be"
                );
            }
            // a function's own `static` (`counter.calls`, named `calls` or `counter.calls`)
            if let Some(s) = metas
                .iter()
                .flat_map(|m| &m.local_statics)
                .find(|s| *s == n || s.rsplit_once('.').is_some_and(|(_, v)| v == n))
            {
                let (func, var) = s.rsplit_once('.').unwrap_or(("?", s));
                bail!(
                    "--global {n}: `{var}` is a static variable inside function `{func}`, which evotest cannot set from outside; only variables at file scope can be inputs (move it out of the function to search over it)"
                );
            }
            let read = globals_read(all, f);
            if read.iter().any(|r| r == n) {
                // a source without functions has no metadata: its variables are not described
                bail!(
                    "--global {n}: `{}` reads `{n}`, but no source with a function defines it; evotest describes the variables of sources that define a function, so a source of variables alone (register definitions) is not read: define one function in it, or `{n}` in a source with functions",
                    f.name
                );
            }
            let known: Vec<&str> = read
                .iter()
                .map(String::as_str)
                .filter(|r| metas.iter().flat_map(|m| &m.globals).any(|g| &g.name == r))
                .collect();
            bail!(
                "--global {n}: the sources define no mutable global variable `{n}` with debug info (`{}` and the functions it calls read: {})",
                f.name,
                if known.is_empty() { "none".to_string() } else { known.join(", ") }
            );
        };
        out.push(g.clone());
    }
    Ok(out)
}

/// The parameters of `f` that it compares with NULL itself (a site `p == NULL` or `p != NULL`,
/// `if (!p)` included): NULL is an input such a function expects, so the input model offers it.
fn null_checked_params(metas: &[evotest_abi::meta::ModuleMeta], f: &FunctionMeta) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for m in metas {
        for site in &m.sites {
            let Some(g) = m.functions.get(site.function as usize) else {
                continue;
            };
            if g.name != f.name || g.file != f.file {
                continue;
            }
            let c = site.cond.as_str();
            let Some(name) = c
                .strip_suffix(" == NULL")
                .or_else(|| c.strip_suffix(" != NULL"))
            else {
                continue;
            };
            if f.params
                .iter()
                .chain(f.source_params.iter().flatten())
                .any(|p| p.name == name)
                && !out.iter().any(|o| o == name)
            {
                out.push(name.to_string());
            }
        }
    }
    out
}

/// The global variables `f` and the functions it calls, directly or through others, read (by
/// name, from the calls the pass lists; calls through pointers are not followed), without
/// repeats, `f`'s own first. `all`: every instrumented function.
fn globals_read(all: &[&FunctionMeta], f: &FunctionMeta) -> Vec<String> {
    let mut reads: Vec<String> = Vec::new();
    let mut seen: Vec<&str> = vec![f.name.as_str()];
    let mut queue: std::collections::VecDeque<&FunctionMeta> = [f].into();
    while let Some(g) = queue.pop_front() {
        for r in &g.reads_globals {
            if !reads.contains(r) {
                reads.push(r.clone());
            }
        }
        for c in &g.calls {
            if !seen.contains(&c.as_str()) {
                seen.push(c);
                if let Some(h) = all.iter().find(|h| &h.name == c) {
                    queue.push_back(h);
                }
            }
        }
    }
    reads
}

/// Functions of the C library that keep no state between calls which a later call could see (the
/// string, memory, character-class and math functions, allocation, formatted output, and
/// those that end the process; the number parsers are `shape::NUMBER_PARSERS`). `errno`, which many of them set, is seen only through
/// `__errno_location`, which is not one of them. `f`/`l` variants of the math functions count
/// too ([`keeps_no_state`]).
const STATELESS_LIBRARY: &[&str] = &[
    "strlen",
    "strnlen",
    "strcmp",
    "strncmp",
    "strcasecmp",
    "strncasecmp",
    "strcoll",
    "memcmp",
    "bcmp",
    "memcpy",
    "memmove",
    "memset",
    "memchr",
    "memrchr",
    "strchr",
    "strrchr",
    "strstr",
    "strcasestr",
    "strcpy",
    "strncpy",
    "stpcpy",
    "stpncpy",
    "strcat",
    "strncat",
    "strspn",
    "strcspn",
    "strpbrk",
    "strdup",
    "strndup",
    "isalpha",
    "isdigit",
    "isalnum",
    "isspace",
    "isupper",
    "islower",
    "isxdigit",
    "ispunct",
    "isprint",
    "isgraph",
    "iscntrl",
    "isblank",
    "toupper",
    "tolower",
    "__ctype_b_loc",
    "__ctype_toupper_loc",
    "__ctype_tolower_loc",
    "abs",
    "labs",
    "llabs",
    "div",
    "ldiv",
    "lldiv",
    "malloc",
    "calloc",
    "realloc",
    "free",
    "aligned_alloc",
    "posix_memalign",
    "qsort",
    "bsearch",
    "sprintf",
    "snprintf",
    "vsnprintf",
    "vsprintf",
    "printf",
    "puts",
    "putchar",
    "fprintf",
    "fputs",
    "fputc",
    "putc",
    "fwrite",
    "fflush",
    "abort",
    "exit",
    "_exit",
    "_Exit",
    "__assert_fail",
    "__stack_chk_fail",
    "sqrt",
    "cbrt",
    "pow",
    "exp",
    "exp2",
    "expm1",
    "log",
    "log2",
    "log10",
    "log1p",
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "atan2",
    "sinh",
    "cosh",
    "tanh",
    "asinh",
    "acosh",
    "atanh",
    "hypot",
    "fabs",
    "floor",
    "ceil",
    "round",
    "trunc",
    "fmod",
    "remainder",
    "fmin",
    "fmax",
    "fdim",
    "fma",
    "lround",
    "llround",
    "lrint",
    "llrint",
    "rint",
    "nearbyint",
    "frexp",
    "ldexp",
    "scalbn",
    "modf",
    "copysign",
    "nextafter",
    "erf",
    "erfc",
    "tgamma",
    "lgamma",
    "_Znwm",
    "_Znam",
    "_ZdlPv",
    "_ZdaPv",
    "_ZdlPvm",
    "_ZdaPvm",
    "__cxa_allocate_exception",
    "__cxa_throw",
    "__cxa_begin_catch",
    "__cxa_end_catch",
    "__cxa_free_exception",
];

/// C library functions that read standard input whatever their arguments.
const STDIN_READERS: &[&str] = &[
    "getchar",
    "getchar_unlocked",
    "gets",
    "scanf",
    "vscanf",
    "__isoc99_scanf",
    "__isoc99_vscanf",
    "__isoc23_scanf",
    "__isoc23_vscanf",
];

/// Whether `name`, a function the sources do not define, keeps no state between calls
/// ([`STATELESS_LIBRARY`], a math function's `f` and `l` variants included).
fn keeps_no_state(name: &str) -> bool {
    let listed = |n: &str| {
        STATELESS_LIBRARY.contains(&n)
            || crate::frontend::function::shape::NUMBER_PARSERS.contains(&n)
    };
    listed(name) || name.strip_suffix(['f', 'l']).is_some_and(listed)
}

/// The functions the sources do not define that `f`, or a function it calls or takes the
/// address of (directly or through others), calls or takes the address of, and that may keep
/// state between calls (`rand`, `close`, `getenv`, a library's own: not [`keeps_no_state`]).
/// That state outlives a call, so the tests of `tests.c` run in processes of their own, as each
/// input ran (or was checked) in the search. `all`: every instrumented function.
fn hidden_state_calls(all: &[&FunctionMeta], f: &FunctionMeta) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut seen: Vec<&str> = vec![f.name.as_str()];
    let mut queue: std::collections::VecDeque<&FunctionMeta> = [f].into();
    while let Some(g) = queue.pop_front() {
        for c in g.calls.iter().chain(&g.address_refs) {
            if seen.contains(&c.as_str()) {
                continue;
            }
            seen.push(c);
            match all.iter().find(|h| &h.name == c) {
                Some(h) => queue.push_back(h),
                None if !c.starts_with("llvm.") && !keeps_no_state(c) => out.push(c.clone()),
                None => {}
            }
        }
    }
    out
}

/// The mutable global variables the function under test or the functions it calls (directly or
/// not: [`globals_read`]) read and that are not inputs: they keep their initial values in every
/// execution (a note). Those that cannot be inputs (a pointer, …:
/// [`evotest_abi::meta::ModuleMeta::other_globals`]) too.
fn unset_globals(
    metas: &[evotest_abi::meta::ModuleMeta],
    all: &[&FunctionMeta],
    f: &FunctionMeta,
    inputs: &[String],
) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for r in globals_read(all, f) {
        let of_source = metas
            .iter()
            .any(|m| m.globals.iter().any(|g| g.name == r) || m.other_globals.contains(&r));
        if !inputs.contains(&r) && !out.contains(&r) && of_source {
            out.push(r);
        }
    }
    out
}

/// Whether inputs can leave state behind in global variables, and whether a persistent child can
/// undo it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum GlobalState {
    /// No instrumented function writes a global variable.
    Untouched,
    /// Some do, and every module registered its mutable globals for restoring
    /// ([`evotest_abi::meta::ModuleMeta::globals_restorable`]).
    Restorable,
    /// Some do, and some module did not register its globals (it has constructors of its own,
    /// thread-local globals or globals in named sections).
    Unrestorable,
}

/// See [`GlobalState`]. Conservative: a global written in one module may be defined in another,
/// so every module must be restorable.
fn global_state(metas: &[evotest_abi::meta::ModuleMeta]) -> GlobalState {
    if !metas
        .iter()
        .flat_map(|m| &m.functions)
        .any(|f| f.writes_globals)
    {
        GlobalState::Untouched
    } else if metas.iter().all(|m| m.globals_restorable) {
        GlobalState::Restorable
    } else {
        GlobalState::Unrestorable
    }
}

/// The `switch` sites of `program`, for the executor to complete their case distances after each
/// execution.
fn switch_tables(program: &Program) -> Vec<SwitchTable> {
    program
        .sites
        .iter()
        .filter(|s| !s.meta.case_values.is_empty())
        .map(|s| SwitchTable::new(s.id, s.outcome_base, &s.meta.case_values))
        .collect()
}

/// Environment variable that, when set, turns off the flag distances of helper functions'
/// results ([`ForkServer::set_return_distances`]), for measuring what they buy.
pub const ENV_NO_RETURN_DISTANCES: &str = "EVOTEST_NO_RETURN_DISTANCES";

/// Whether function-level searches use flag distances (unless [`ENV_NO_RETURN_DISTANCES`] is set).
fn return_distances() -> bool {
    std::env::var_os(ENV_NO_RETURN_DISTANCES).is_none()
}

/// The branch-event limit of one execution: `--max-branch-events`, per call of a call sequence
/// under `--api` (a sequence of 64 calls each multiplying two 64×63 matrices is no runaway loop),
/// 0 for none.
fn branch_event_limit(opts: &TargetOptions) -> u32 {
    match &opts.api {
        Some(api) => opts
            .max_branch_events
            .saturating_mul(api.max_calls.clamp(1, u32::MAX as usize) as u32),
        None => opts.max_branch_events,
    }
}

/// The branch-event limit of one call of a call sequence under `--api` (`--max-branch-events`;
/// the sequence harness moves the limit before each call), 0 otherwise: a call that never ends
/// stops after this many events, not after the whole sequence's [`branch_event_limit`].
fn call_event_limit(opts: &TargetOptions) -> u32 {
    match &opts.api {
        Some(_) => opts.max_branch_events,
        None => 0,
    }
}

/// Read the metadata of the linked executable `exe`, start its fork server and make the target.
fn start(opts: &TargetOptions, exe: PathBuf, fe: Arc<dyn Frontend>) -> Result<Target> {
    let metas = program::read_metadata(&exe)?;
    let n_sites: u32 = metas.iter().map(|m| m.sites.len() as u32).sum();
    let n_outcomes: u32 = metas.iter().map(|m| m.n_outcomes).sum();
    let input_capacity = (fe.domain().len as u32).max(INPUT_CAPACITY);
    // Running many inputs in one process is only safe when no input can leave state behind: when
    // the sources write global variables, a persistent child restores them before each input
    // (when every module registered its own), or each input gets a fresh process.
    let state = global_state(&metas);
    let persistent = match opts.persistent {
        Some(n) => Some(n),
        None if state == GlobalState::Unrestorable => None,
        None => Some(PERSISTENT_INPUTS),
    };
    let mut config = opts.fork_server(
        n_sites.max(1),
        n_outcomes.max(1),
        input_capacity,
        persistent,
    );
    if state == GlobalState::Restorable {
        config
            .env
            .push((evotest_abi::names::ENV_RESTORE_GLOBALS.into(), "1".into()));
    }
    let mut executor = ForkServer::start(&exe, &config)?;
    executor.set_max_branch_events(branch_event_limit(opts));
    executor.set_max_call_events(call_event_limit(opts));
    executor.set_memory_limit(opts.rss_limit_mb << 20);
    executor.set_repeated_operands(true);
    executor.set_return_distances(return_distances());
    if executor.registration_overflow() != 0 {
        bail!("the target registered more instrumented code than its metadata describes");
    }
    let program = Program::new(metas, &executor.modules())?;
    executor.set_switches(switch_tables(&program));
    Ok(Target {
        options: opts.clone(),
        program,
        frontend: fe,
        exe,
        executor: Box::new(executor),
        fresh: Some(config),
        chain: None,
    })
}

/// Whether function `f` is code of the crates under test, not of std or a registry dependency
/// (generic std functions are instantiated, and instrumented, in the crate that uses them): its
/// source name is not under `core::`, `alloc::` or `std::` and its file is not library code
/// ([`crate::program::is_library_file`]).
pub fn is_user_rust_function(f: &evotest_abi::meta::FunctionMeta) -> bool {
    let file = &f.file;
    let std_name = f.source_name.as_deref().is_some_and(|n| {
        let n = n.trim_start_matches('<');
        ["core::", "alloc::", "std::"]
            .iter()
            .any(|p| n.starts_with(p))
    });
    !(std_name || crate::program::is_library_file(file))
}

/// Build the target of a Rust function (`opts.rust`): the crate's library through the bitcode
/// route ([`rustfe::build`]), the function found by its path among the crate's functions, its
/// signature read from the source, a generated Rust harness linked against the instrumented
/// crate and the runtime; then start the fork server.
///
/// Errors (one line each): no crate there, a crate that does not build, no such function
/// (listing the crate's functions), an unsupported parameter type, a harness that does not
/// compile (e.g. a private function), a target that will not start.
pub fn build_rust(opts: &TargetOptions) -> Result<Target> {
    let rust = opts
        .rust
        .as_ref()
        .ok_or_else(|| anyhow!("not a Rust target"))?;
    let manifest = rustfe::build::manifest(&rust.krate)?;
    let tc = Toolchain::locate()?;
    std::fs::create_dir_all(&opts.out_dir)
        .with_context(|| format!("cannot create {}", opts.out_dir.display()))?;
    let cargo_dir = opts.out_dir.join("cargo-target");
    let mut cargo_dir = std::path::absolute(&cargo_dir).unwrap_or(cargo_dir);
    if cargo_dir.to_string_lossy().contains(':') {
        // cargo puts the target directory into LD_LIBRARY_PATH, where `:` separates entries
        let h = evotest_abi::meta::fnv1a(cargo_dir.to_string_lossy().as_bytes());
        cargo_dir = std::env::temp_dir().join(format!("evotest-cargo-{h:016x}"));
    }
    let krate = rustfe::build::build_crate(&manifest, &cargo_dir)?;
    let tmp = tempfile::Builder::new()
        .prefix(".build-")
        .tempdir_in(&opts.out_dir)
        .with_context(|| {
            format!(
                "cannot create a build directory in {}",
                opts.out_dir.display()
            )
        })?;
    let work = tmp.path();
    let (obj, rlib) = rustfe::build::instrument(&tc, &krate, work)?;
    let metas = program::read_metadata_if_any(&obj)?;
    // the function: by its path, with or without the crate's name
    let wanted = opts.function.trim_start_matches("crate::").to_string();
    let full = if wanted.starts_with(&format!("{}::", krate.name)) {
        wanted.clone()
    } else {
        format!("{}::{wanted}", krate.name)
    };
    let user: Vec<&evotest_abi::meta::FunctionMeta> = metas
        .iter()
        .flat_map(|m| m.functions.iter())
        .filter(|f| is_user_rust_function(f) && f.source_name.is_some())
        .collect();
    if user.iter().any(|f| {
        f.source_name
            .as_deref()
            .is_some_and(|n| n.starts_with(&format!("{full}<")))
    }) {
        bail!("`{}` is generic; evotest can call only non-generic functions (write a non-generic wrapper)", opts.function);
    }
    if !user
        .iter()
        .any(|f| f.source_name.as_deref() == Some(full.as_str()))
    {
        // not in the bitcode: a generic function (no instance to call) is the likely reason
        let short = full.rsplit("::").next().unwrap_or(&full);
        if let Some(file) = generic_fn_in_sources(&krate.dir.join("src"), short) {
            bail!(
                "`{}` is generic (in {}); evotest can call only non-generic functions (write a non-generic wrapper)",
                opts.function,
                file.display()
            );
        }
    }
    let fmeta = user
        .iter()
        .find(|f| f.source_name.as_deref() == Some(full.as_str()))
        .ok_or_else(|| {
            let mut names: Vec<&str> = user
                .iter()
                .filter_map(|f| f.source_name.as_deref())
                .filter(|n| !n.contains('{'))
                .collect();
            names.sort();
            names.dedup();
            anyhow!(
                "function `{}` not found in crate `{}` (functions: {})",
                opts.function,
                krate.name,
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                }
            )
        })?;
    let src_path = {
        let p = PathBuf::from(&fmeta.file);
        // relative to where cargo ran rustc: the crate, or for a workspace member the
        // workspace's root (`mem/src/lib.rs`), an ancestor of the crate
        if p.is_absolute() {
            p
        } else {
            krate
                .dir
                .ancestors()
                .map(|a| a.join(&p))
                .find(|c| c.is_file())
                .unwrap_or_else(|| krate.dir.join(&p))
        }
    };
    let source = std::fs::read_to_string(&src_path)
        .with_context(|| format!("cannot read {}", src_path.display()))?;
    let short = full.rsplit("::").next().unwrap_or(&full).to_string();
    let sig = rustfe::sig::read(&source, &short, fmeta.line)
        .with_context(|| format!("{}:{}", src_path.display(), fmeta.line))?;
    if !sig.is_pub {
        bail!(
            "`{}` is not `pub` ({}:{}): evotest calls it from outside the crate, as an integration test would (make it `pub`, or test a public function that calls it)",
            opts.function,
            src_path.display(),
            fmeta.line
        );
    }
    // the function's module from the crate root, where the types of its signature are written
    let mut module: Vec<String> = full.split("::").skip(1).map(str::to_string).collect();
    module.pop();
    let types = rustfe::structs::CrateTypes::scan(&krate.src_path);
    let mut fe = RustFrontend::new(
        sig,
        &krate.name,
        &full,
        &module,
        &types,
        &opts.shapes,
        &opts.ranges,
        krate.dir.clone(),
    )?;
    let scratch = Program::with_sequential_bases(metas.clone());
    seed_pools(&mut fe.domain, &scratch, &fmeta);
    let harness = work.join("harness.rs");
    std::fs::write(&harness, rustfe::harness::generate(&fe))
        .with_context(|| format!("cannot write in {}", work.display()))?;
    rustfe::build::link_harness(&tc, &krate, &rlib, &harness, &work.join("target"))?;
    let build_dir = opts.out_dir.join("build");
    replace_dir(tmp, &build_dir)?;
    let exe = build_dir.join("target");
    fe.exe = Some(std::path::absolute(&exe).unwrap_or(exe.clone()));
    let mut target = start(opts, exe, Arc::new(fe))?;
    // the function under test by its linkage name, for the engine's lookups
    let linkage = fmeta.name.clone();
    target.options.function = linkage;
    Ok(target)
}

/// What defines the target of an existing executable built with `evotest-cc` (a libFuzzer
/// harness, or a whole program): see [`open_harness`].
#[derive(Clone, Debug)]
pub struct HarnessOptions {
    /// The executable.
    pub exe: PathBuf,
    /// Its arguments; `@@`, alone or inside an argument (`--in=@@`), is replaced by the absolute
    /// path of the file each input is written to (AFL++'s convention), and makes a whole program
    /// read that file instead of standard input. A
    /// libFuzzer harness gets them after the input file arguments it ignores.
    pub args: Vec<std::ffi::OsString>,
    /// Where `@@` inputs are written (a file of this name in the run's private directory).
    pub input_file: PathBuf,
    /// Largest input in bytes.
    pub max_len: usize,
    pub timeout: Duration,
    /// Inputs per process of a libFuzzer harness (1: a process per input); whole programs always
    /// get a process per input.
    pub persistent: u32,
    pub rss_limit_mb: u64,
    pub file_limit_mb: u64,
    /// Extra environment variables of the target (sanitizer options).
    pub env: Vec<(std::ffi::OsString, std::ffi::OsString)>,
    /// Where the target's files would go (`TargetOptions::out_dir` of the result).
    pub out_dir: PathBuf,
}

/// Whether the executable at `exe` was linked with evotest's libFuzzer-compatible driver.
///
/// Errors: unreadable, or not an executable.
pub fn has_fuzz_driver(exe: &Path) -> Result<bool> {
    use object::{Object, ObjectSymbol};
    let data = std::fs::read(exe).with_context(|| format!("cannot read {}", exe.display()))?;
    let file = object::File::parse(&*data)
        .with_context(|| format!("{} is not an executable", exe.display()))?;
    let marker = evotest_abi::names::DRIVER_MARKER;
    Ok(file
        .symbols()
        .chain(file.dynamic_symbols())
        .any(|s| s.name() == Ok(marker) && !s.is_undefined()))
}

/// Open an existing executable built with `evotest-cc`/`evotest-c++`: read its metadata, start
/// its fork server (persistent for a libFuzzer harness linked with evotest's driver; for a whole
/// program, a process per input that reads the input on standard input, or from the `@@` file),
/// capturing its standard error for crash triage, and build the [`Program`]. The frontend is
/// [`crate::frontend::bytes::BytesFrontend`]; no branch-event limit is set.
///
/// Errors (one line): no such file, not built with the evotest pass (no metadata), a target that
/// does not start as a fork server (not linked with the evotest runtime).
pub fn open_harness(h: &HarnessOptions) -> Result<Target> {
    open_harness_with(h, None)
}

/// The name of the file a whole program reads its inputs from (`@@`): `cur_input`, or
/// `cur_input.EXT` with an extension (AFL++'s `-e`, for programs that choose a format by it).
pub fn input_file_name(extension: Option<&str>) -> String {
    match extension
        .map(|e| e.trim_start_matches('.'))
        .filter(|e| !e.is_empty())
    {
        Some(e) => format!("cur_input.{e}"),
        None => "cur_input".to_string(),
    }
}

/// Whether a target's arguments name the input file: an argument that is `@@` or contains it
/// (`--in=@@`), as AFL++ reads them.
pub fn uses_input_file(args: &[std::ffi::OsString]) -> bool {
    use std::os::unix::ffi::OsStrExt;
    args.iter()
        .any(|a| a.as_bytes().windows(2).any(|w| w == b"@@"))
}

/// `args` with every `@@` replaced by `file` (in `--in=@@` too, as AFL++ does).
pub fn input_file_args(args: &[std::ffi::OsString], file: &Path) -> Vec<std::ffi::OsString> {
    use std::os::unix::ffi::{OsStrExt, OsStringExt};
    let file = file.as_os_str().as_bytes();
    args.iter()
        .map(|a| {
            let a = a.as_bytes();
            let mut out = Vec::with_capacity(a.len());
            let mut i = 0;
            while i < a.len() {
                if a[i..].starts_with(b"@@") {
                    out.extend_from_slice(file);
                    i += 2;
                } else {
                    out.push(a[i]);
                    i += 1;
                }
            }
            std::ffi::OsString::from_vec(out)
        })
        .collect()
}

/// Where an in-process worker's harness runs: the harness's entry points in this process and the
/// supervisor's shared memory ([`crate::exec::inprocess`]).
#[derive(Clone, Copy, Debug)]
pub struct InProcessTarget {
    pub hooks: crate::exec::inprocess::Hooks,
    pub shm_id: i32,
}

/// As [`open_harness`]; with `in_process`, the executor calls the harness in this process (an
/// in-process worker, which must be the harness's own process) instead of starting a fork server.
/// The fork server's configuration is still kept (`Target::fresh`), for runs that need a process
/// of their own (crash triage).
///
/// Errors: as [`open_harness`]; in-process, a harness without evotest's driver, or shared memory
/// that cannot be attached.
pub fn open_harness_with(
    h: &HarnessOptions,
    in_process: Option<InProcessTarget>,
) -> Result<Target> {
    use crate::exec::InputDelivery;
    use crate::frontend::bytes::{BytesFrontend, Delivery};
    if h.exe.is_dir() {
        bail!("{}: is a directory, not an executable", h.exe.display());
    }
    if !h.exe.is_file() {
        bail!("{}: no such file", h.exe.display());
    }
    let metas = program::read_program_metadata(&h.exe)
        .map_err(|e| if e.is::<program::WrapperScript>() { e } else { anyhow!("{e:#}; build it with evotest-cc / evotest-c++ (-fsanitize=fuzzer links evotest's libFuzzer driver)") })?;
    let driver = has_fuzz_driver(&h.exe)?;
    let uses_file = uses_input_file(&h.args);
    // absolute, as AFL++ passes it: a program that changes directory before it opens its input
    // (with a relative corpus directory) read nothing, silently
    let input_file = std::path::absolute(&h.input_file).unwrap_or_else(|_| h.input_file.clone());
    let (delivery, kind) = if driver {
        (InputDelivery::Harness, Delivery::LibFuzzer)
    } else if uses_file {
        (InputDelivery::File(input_file.clone()), Delivery::File)
    } else {
        (InputDelivery::Stdin, Delivery::Stdin)
    };
    let args = input_file_args(&h.args, &input_file);
    let n_sites: u32 = metas.iter().map(|m| m.sites.len() as u32).sum();
    let n_outcomes: u32 = metas.iter().map(|m| m.n_outcomes).sum();
    let persistent = (driver && h.persistent > 1).then_some(h.persistent);
    let config = ForkServerConfig {
        sites: n_sites.max(1),
        outcomes: n_outcomes.max(1),
        input_capacity: (h.max_len as u32).max(1),
        timeout: h.timeout,
        persistent,
        file_limit: h.file_limit_mb << 20,
        args,
        env: h.env.clone(),
        delivery,
        capture_stderr: true,
    };
    let (executor, program): (Box<dyn Executor>, Program) = match in_process {
        None => {
            let mut executor = ForkServer::start(&h.exe, &config)?;
            executor.set_max_branch_events(0);
            executor.set_memory_limit(h.rss_limit_mb << 20);
            if executor.registration_overflow() != 0 {
                bail!("{}: {MORE_CODE}", h.exe.display());
            }
            let program = Program::new(metas, &executor.modules())?;
            executor.set_switches(switch_tables(&program));
            (Box::new(executor), program)
        }
        Some(ip) => {
            if !driver {
                bail!(
                    "{}: in-process fuzzing needs a libFuzzer harness linked with evotest's driver",
                    h.exe.display()
                );
            }
            let mut executor = crate::exec::inprocess::InProcess::new(
                ip.shm_id,
                ip.hooks,
                h.timeout,
                h.rss_limit_mb << 20,
            )?;
            executor.set_max_branch_events(0);
            if executor.registration_overflow() != 0 {
                bail!("{}: {MORE_CODE}", h.exe.display());
            }
            let program = Program::new(metas, &executor.modules())?;
            executor.set_switches(switch_tables(&program));
            (Box::new(executor), program)
        }
    };
    let name = h.exe.file_name().map_or_else(
        || h.exe.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let options = TargetOptions {
        sources: vec![h.exe.clone()],
        function: if driver {
            "LLVMFuzzerTestOneInput".into()
        } else {
            "main".into()
        },
        out_dir: h.out_dir.clone(),
        timeout: h.timeout,
        persistent: Some(persistent.unwrap_or(1)),
        max_branch_events: 0,
        rss_limit_mb: h.rss_limit_mb,
        file_limit_mb: h.file_limit_mb,
        ..TargetOptions::new(&h.exe, "main")
    };
    Ok(Target {
        options,
        program,
        frontend: Arc::new(BytesFrontend::new(&name, kind, h.max_len)),
        exe: h.exe.clone(),
        executor,
        fresh: Some(config),
        chain: None,
    })
}

/// Move the finished build directory `tmp` to `dest`, replacing an earlier build.
fn replace_dir(tmp: tempfile::TempDir, dest: &Path) -> Result<()> {
    let tmp = tmp.keep();
    if dest.exists() {
        let old = dest.with_extension(format!("old-{}", std::process::id()));
        std::fs::rename(dest, &old)
            .with_context(|| format!("cannot replace {}", dest.display()))?;
        let _ = std::fs::remove_dir_all(&old);
    }
    std::fs::rename(&tmp, dest)
        .with_context(|| format!("cannot move the build to {}", dest.display()))
}

/// An exclusive lock on an output directory, held while it lives.
pub struct OutputLock {
    _file: std::fs::File,
}

/// Whether compiler flags `cflags` let the program assume its floating-point values are never
/// NaN or infinite (`-ffast-math`, `-ffinite-math-only`, `-Ofast`; the last of them and their
/// `-fno-` forms decides).
pub fn finite_math(cflags: &[String]) -> bool {
    let mut on = false;
    for f in cflags {
        match f.as_str() {
            "-ffast-math" | "-ffinite-math-only" | "-Ofast" => on = true,
            "-fno-fast-math" | "-fno-finite-math-only" => on = false,
            _ => {}
        }
    }
    on
}

/// The note of a run whose floating-point inputs [`finite_floats`] made finite.
const FINITE_MATH_NOTE: &str = "floating-point inputs are finite: the compiler flags (-ffast-math, -ffinite-math-only or -Ofast) let the program assume no NaN or infinity, so such an input would make its behaviour undefined";

/// Restrict every floating-point field of `domain` that spans its whole type to its finite
/// values (NaN and the infinities left out). Returns whether any was.
pub fn finite_floats(domain: &mut crate::input::Domain) -> bool {
    let mut any = false;
    for f in domain.fields.iter_mut() {
        if f.ty.is_float() && f.full {
            f.full = false;
            any = true;
        }
    }
    any
}

/// The name of the lock file every run leaves in its output directory ([`lock_output`]): a
/// directory that has one was written by evotest.
pub const LOCK_FILE: &str = ".evotest.lock";

/// Check that a run may write its results into `dir`: a run replaces `build/` and the files of
/// [`crate::report::RESULT_FILES`] there, so a directory that holds any of them but was never an
/// evotest output directory (no [`LOCK_FILE`]: a project's own `build/` or `tests.c`) is refused,
/// and so is one of the `sources` inside what a run replaces.
///
/// Errors (one line): the directory holds such an entry, or a source lies inside one.
pub fn check_output_dir(dir: &Path, sources: &[PathBuf]) -> Result<()> {
    let replaced: Vec<&str> = std::iter::once("build")
        .chain(crate::report::RESULT_FILES.iter().copied())
        .collect();
    if dir.is_dir() && !dir.join(LOCK_FILE).exists() {
        if let Some(e) = replaced
            .iter()
            .find(|e| dir.join(e).symlink_metadata().is_ok())
        {
            bail!(
                "--out {}: it holds `{e}`, which a run would replace, and no evotest run wrote it; give an empty or new directory (evotest's own output directories have a {LOCK_FILE})",
                dir.display()
            );
        }
    }
    let Ok(out) = std::fs::canonicalize(dir) else {
        return Ok(());
    };
    for src in sources {
        let Ok(s) = std::fs::canonicalize(src) else {
            continue;
        };
        if let Some(e) = replaced.iter().find(|e| s.starts_with(out.join(e))) {
            bail!(
                "--out {}: the source {} is inside `{e}`, which a run replaces; give another --out DIR",
                dir.display(),
                src.display()
            );
        }
    }
    Ok(())
}

/// Lock `dir` (created if missing) for one run.
///
/// Errors (one line): the directory cannot be created, or another evotest run holds it.
pub fn lock_output(dir: &Path) -> Result<OutputLock> {
    use std::io::{Read, Seek, Write};
    use std::os::fd::AsRawFd;
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let path = dir.join(LOCK_FILE);
    let mut f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .with_context(|| format!("cannot open {}", path.display()))?;
    if unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
        let mut holder = String::new();
        let _ = f.read_to_string(&mut holder);
        let who = holder.trim();
        bail!(
            "{} is in use by another evotest run{}; give this run its own --out DIR",
            dir.display(),
            if who.is_empty() {
                String::new()
            } else {
                format!(" (pid {who})")
            }
        );
    }
    let _ = f.set_len(0);
    let _ = f.rewind();
    let _ = write!(f, "{}", std::process::id());
    Ok(OutputLock { _file: f })
}

/// The first source file under `dir` (recursively) that declares a function `name` with type
/// parameters (`fn name<T…>`, lifetimes alone not counted) or an `impl Trait` parameter: one that
/// rustc leaves out of the bitcode until something instantiates it.
fn generic_fn_in_sources(dir: &Path, name: &str) -> Option<PathBuf> {
    let needle = format!("fn {name}");
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).ok()?.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            if p.extension().is_none_or(|x| x != "rs") {
                continue;
            }
            let Ok(text) = std::fs::read_to_string(&p) else {
                continue;
            };
            let mut from = 0;
            while let Some(i) = text[from..].find(&needle) {
                let at = from + i + needle.len();
                from = at;
                let before = text[..at - needle.len()].chars().next_back();
                if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                    continue;
                }
                let after = text[at..].trim_start();
                if let Some(g) = after.strip_prefix('<') {
                    let close = g.find('>').unwrap_or(g.len());
                    if !rustfe::sig::lifetimes_only(&g[..close]) {
                        return Some(p);
                    }
                } else if let Some(params) = after.strip_prefix('(') {
                    let close = params.find(')').unwrap_or(params.len());
                    if params[..close].contains("impl ") {
                        return Some(p);
                    }
                }
            }
        }
    }
    None
}

/// Seed `domain`'s constant pools ([`crate::program::Pools`]) from the function under test
/// `fmeta` and the functions reachable from it ([`Program::reachable_from`]): the constants of
/// the module's other functions would only dilute them (a file of thirty functions offers the
/// search on one of them the moduli and magic numbers of all thirty).
fn seed_pools(domain: &mut crate::input::Domain, program: &Program, fmeta: &FunctionMeta) {
    let within = program.index_of(fmeta).map(|i| program.reachable_from(i));
    let pools = program.pools(within.as_deref());
    domain.int_pool = pools.ints;
    domain.float_pool = pools.floats;
    domain.str_pool = pools.strings;
    domain.lattice = pools.lattice;
    domain.bit_ops = pools.bit_ops;
    domain.predicate_ints = pools.predicate_ints;
    domain.predicate_floats = pools.predicate_floats;
}
