//! The `evotest` command line (clap). Parsing turns flags into a [`RunOptions`]; everything else
//! lives in the library.

use crate::campaign::{self, RunOptions};
use crate::chaining::{ChainConfig, ChainOrder, Chaining};
use crate::config::{self, parse_duration};
use crate::fitness::path::PathFitness;
use crate::fitness::CRITERIA;
use crate::input::spec::parse_range_arg;
use crate::input::InitMode;
use crate::program;
use crate::report::{self, progress::ProgressMonitor};
use crate::search::{Budget, SearchConfig, ALGORITHMS};
use crate::target::{self, TargetOptions};
use crate::toolchain::Toolchain;
use anyhow::{Context, Result};
use clap::{Args, Parser, Subcommand};

/// Set when stdout was closed (`evotest … | head`): output stops, the run goes on and writes its
/// files.
static STDOUT_GONE: AtomicBool = AtomicBool::new(false);

/// `println!` that never panics on a closed stdout.
macro_rules! outln {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        if !$crate::cli::STDOUT_GONE.load(std::sync::atomic::Ordering::Relaxed)
            && writeln!(std::io::stdout(), $($t)*).is_err()
        {
            $crate::cli::STDOUT_GONE.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    }};
}

/// `print!` that never panics on a closed stdout.
macro_rules! out {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        if !$crate::cli::STDOUT_GONE.load(std::sync::atomic::Ordering::Relaxed)
            && write!(std::io::stdout(), $($t)*).is_err()
        {
            $crate::cli::STDOUT_GONE.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    }};
}

mod fuzz;
mod path;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

const EXAMPLES: &str = "\
Examples:
  evotest run examples/triangle.c --function triangle
  evotest run examples/expint.c -f expint --range n=0..100 --max-execs 50000
  evotest run prog.c -f parse --algorithm ga --seed 7 --max-time 30s --out suite/
  evotest run --crate examples/rust/triangle -f triangle --max-execs 20000
  evotest sites examples/triangle.c
  evotest path examples/tritype.c -f tritype --paths enumerate --list
  evotest list

Outputs (in --out, default evotest-out/<function>/):
  tests.c      standalone C tests that #include the source: clang-22 tests.c -lm && ./a.out
               (the exact command, with any -I/-D, is in its first lines)
  tests.rs     (--crate) Rust tests: copy into the crate's tests/ and run cargo test
  suite.json   every kept input, its return value and the branch outcomes it covers
  report.json  coverage figures (branches_total, branches_covered, executions, seconds, ...)
  faults/      inputs that crashed, hung or exited (replay: build/target faults/FILE)
  build/       the instrumented executable and its generated harness";

#[derive(Parser)]
#[command(
    name = "evotest",
    version,
    about = "Coverage-guided evolutionary testing of C functions at the level of LLVM IR",
    long_about = "Coverage-guided evolutionary testing at the level of LLVM IR.\n\n\
evotest compiles a C file with its LLVM pass, which puts a branch-distance probe before every \
conditional branch, switch and select. It then searches for inputs to a function (through a fork \
server; by default one process per 1,000 inputs) until every branch outcome is covered, guided by approach level + \
normalised branch distance, and writes a test suite.",
    after_long_help = EXAMPLES
)]
pub struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Generate tests for a C function: compile with the pass, search, write a test suite
    Run(Box<RunArgs>),
    /// Find inputs that take given paths through a C function (path testing, Bueno & Jino 2002)
    Path(Box<PathArgs>),
    /// Show the branch sites the pass instruments in a C file, with their conditions
    Sites(SitesArgs),
    /// Benchmark tools on the subject programs (programs × tools × runs, fixed seeds)
    Bench(BenchArgs),
    /// Benchmark path testing (Bueno & Jino's 2002 experiment): paths × modes × attempts
    BenchPaths(BenchPathsArgs),
    /// List the search algorithms and coverage criteria
    List,
    /// Fuzz an executable built with evotest-cc: a libFuzzer harness, or a program reading stdin
    /// or a file (@@); libFuzzer's flags and corpus conventions
    Fuzz(Box<fuzz::FuzzArgs>),
}

#[derive(Args)]
struct BenchPathsArgs {
    /// Paths file
    #[arg(long, default_value = "bench/paths.toml", value_name = "FILE")]
    paths: PathBuf,
    /// Only these programs (comma-separated names)
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    only: Vec<String>,
    /// Modes (comma-separated): bj-reuse ([i]), bj ([ii]), random ([iii]), avm-reuse (evotest's
    /// default), avm
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "bj-reuse,bj,random,avm-reuse,avm",
        value_name = "MODES"
    )]
    modes: Vec<String>,
    /// Attempts per path and mode (seeds differ)
    #[arg(long, default_value_t = 10)]
    attempts: u32,
    /// First seed
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Wall-time cap per path (the execution caps are in the paths file)
    #[arg(long, default_value = "60s", value_name = "DURATION")]
    max_time: String,
    /// Name of the result files (<out>/<name>.md and .json)
    #[arg(long, default_value = "paths")]
    name: String,
    /// Results directory
    #[arg(long, default_value = "bench/results", value_name = "DIR")]
    out: PathBuf,
    /// Build directory
    #[arg(long, default_value = "bench/work", value_name = "DIR")]
    work: PathBuf,
    /// Only the summary lines
    #[arg(long, short = 'q')]
    quiet: bool,
}

#[derive(Args)]
struct BenchArgs {
    /// Programs file
    #[arg(long, default_value = "bench/programs.toml", value_name = "FILE")]
    programs: PathBuf,
    /// Only these programs (comma-separated names)
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    only: Vec<String>,
    /// Tools to compare (comma-separated): evotest's algorithms (auto, avm, ga, random, …, each also as
    /// NAME+uniform for uniform initialisation instead of the default bias towards boundaries,
    /// program constants and small values), fuzz, fuzz+i2s, fuzz+noguide (`evotest fuzz` on a
    /// libFuzzer harness of the function: guidance on, input-to-state only, off), libfuzzer,
    /// afl. The random baseline is random+uniform: pure random testing over the domain
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "auto,auto+uniform,avm,ga,random+uniform,libfuzzer,afl",
        value_name = "TOOLS"
    )]
    tools: Vec<String>,
    /// Runs per program × tool (seeds SEED..SEED+RUNS-1)
    #[arg(long, default_value_t = 10)]
    runs: u32,
    /// First seed. Run S starts every tool from one input drawn from seed S, so a bench run is
    /// not `evotest run --seed S` (which draws its own start); `--only NAME --runs 1 --seed S`
    /// repeats one
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Execution cap per run, 0 for none. With a cap, the fuzz tools' runs are reproducible: they
    /// get no time limit of their own (their directed stages' share then counts executions, not
    /// seconds) and are stopped at --max-time from outside
    #[arg(long, default_value_t = 1_000_000, value_name = "N")]
    max_execs: u64,
    /// Wall-time cap per run
    #[arg(long, default_value = "60s", value_name = "DURATION")]
    max_time: String,
    /// Per-execution timeout
    #[arg(long, default_value = "1s", value_name = "DURATION")]
    timeout: String,
    /// Name of the result files (<out>/<name>.md and .json)
    #[arg(long, default_value = "bench")]
    name: String,
    /// Results directory
    #[arg(long, default_value = "bench/results", value_name = "DIR")]
    out: PathBuf,
    /// Build directory
    #[arg(long, default_value = "bench/work", value_name = "DIR")]
    work: PathBuf,
    /// No per-run lines
    #[arg(long, short = 'q')]
    quiet: bool,
    /// Skip the llvm-cov check of each program's claimed feasible count
    #[arg(long)]
    no_truth: bool,
    /// Runs per program of the peers (libfuzzer, afl) [default: --runs]
    #[arg(long, value_name = "N")]
    peer_runs: Option<u32>,
    /// Execution cap per peer run, 0 for none [default: --max-execs]
    #[arg(long, value_name = "N")]
    peer_max_execs: Option<u64>,
    /// Wall-time cap per peer run [default: --max-time]
    #[arg(long, value_name = "DURATION")]
    peer_max_time: Option<String>,
    /// How the harnesses of the fuzzers (libfuzzer, afl, fuzz) read their bytes: raw (a parameter
    /// over its type's whole range is its bytes as they are, as a fuzzing user's harness reads
    /// it; declared ranges are mapped), mapped (every parameter mapped onto its declared range)
    /// or bytes (every parameter its bytes as they are, declared ranges ignored, a string its
    /// bytes up to the first NUL; for programs that declare no ranges)
    #[arg(long, default_value = "raw", value_parser = ["raw", "mapped", "bytes"], value_name = "ENCODING")]
    peer_encoding: String,
    /// The fuzzers' (libfuzzer, afl, fuzz) seed: `start`, the run's starting input that every
    /// tool gets, or `zero`, an all-zero input of the harness's length
    #[arg(long, default_value = "start", value_parser = ["start", "zero"], value_name = "SEED")]
    fuzzer_seed: String,
    /// Programs benchmarked at a time, each in a process of its own (as libFuzzer's -jobs).
    /// Executions do not change; wall times grow once the jobs outnumber the cores
    #[arg(long, default_value_t = 1, value_name = "N")]
    jobs: u32,
    /// Coverage criterion of every run (see `evotest list`); the programs file's `feasible`
    /// counts are in its goals
    #[arg(long, default_value = CRITERIA[0].name)]
    criterion: String,
    /// Population of evotest's evolutionary tools [default: each algorithm's]
    #[arg(long, value_name = "N")]
    population: Option<usize>,
    /// Generations per search of the grammatical-evolution tools [default: 200]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    generations: Option<u32>,
}

impl BenchArgs {
    /// The arguments of an `evotest bench` for `program` alone, writing `<name>.<program>.*`
    /// into `out` (a child of `--jobs`).
    fn child_args(&self, program: &str, out: &std::path::Path) -> Vec<String> {
        let mut v: Vec<String> = vec![
            "bench".into(),
            "--programs".into(),
            self.programs.display().to_string(),
        ];
        let mut kv = |k: &str, val: String| {
            v.push(k.into());
            v.push(val);
        };
        kv("--only", program.into());
        kv("--tools", self.tools.join(","));
        kv("--runs", self.runs.to_string());
        kv("--seed", self.seed.to_string());
        kv("--max-execs", self.max_execs.to_string());
        kv("--max-time", self.max_time.clone());
        kv("--timeout", self.timeout.clone());
        kv("--name", format!("{}.{program}", self.name));
        kv("--out", out.display().to_string());
        kv("--work", self.work.display().to_string());
        kv("--peer-encoding", self.peer_encoding.clone());
        kv("--fuzzer-seed", self.fuzzer_seed.clone());
        if let Some(r) = self.peer_runs {
            kv("--peer-runs", r.to_string());
        }
        if let Some(e) = self.peer_max_execs {
            kv("--peer-max-execs", e.to_string());
        }
        if let Some(t) = &self.peer_max_time {
            kv("--peer-max-time", t.clone());
        }
        kv("--criterion", self.criterion.clone());
        if let Some(p) = self.population {
            kv("--population", p.to_string());
        }
        if let Some(g) = self.generations {
            kv("--generations", g.to_string());
        }
        if self.quiet {
            v.push("--quiet".into());
        }
        if self.no_truth {
            v.push("--no-truth".into());
        }
        v
    }
}

/// What defines the target: sources, function, input domain, execution limits, output.
#[derive(Args)]
struct TargetArgs {
    /// The C source file(s); each is instrumented as its own translation unit
    #[arg(required_unless_present = "krate", conflicts_with = "krate", num_args = 1..)]
    files: Vec<PathBuf>,

    /// A Rust library crate (its directory) instead of C sources: --function is then the path
    /// of a free function in it (module::name), whose parameters are integers, isize, usize,
    /// f32, f64, bool, char, &str, String, or slices and Vec of those scalars (their maximum
    /// lengths: --string NAME=MAX, --array NAME=MAX). Built through cargo with rustc's bitcode,
    /// instrumented, and called from a generated Rust harness; the suite is tests.rs
    #[arg(long = "crate", value_name = "DIR")]
    krate: Option<PathBuf>,

    /// Rust targets: whether compiler-inserted checks (overflow, bounds, unwrap, … branches) are
    /// goals (target: the search tries to make them panic) or left out of the coverage figure
    /// and reported apart (ignore)
    #[arg(long, value_enum, default_value_t = crate::frontend::rust::RustChecks::Ignore, value_name = "MODE")]
    rust_checks: crate::frontend::rust::RustChecks,

    /// Function under test (its parameters must be scalars: _Bool, char, short, int, long,
    /// long long, signed or unsigned, float, double, long double (searched as a double);
    /// structures of them, by value or through a pointer, built member by member (--range
    /// p.x=0..10 narrows one member); or pointers described by --array, --string, --buffer,
    /// including matrices: `int m[3][4]` is --array m=3). Optional when the C sources define
    /// one function besides `main` (or one external function among static helpers). With
    /// --crate: a Rust path, e.g. geometry::triangle
    #[arg(long, short = 'f')]
    function: Option<String>,

    /// Seed of the random generator; the same seed gives the same suite (with an execution budget)
    #[arg(long, default_value_t = 0)]
    seed: u64,

    /// Per-execution timeout; a longer run is recorded as a hang
    #[arg(long, default_value = "1s", value_name = "DURATION")]
    timeout: String,

    /// Inclusive range of a parameter, e.g. --range a=-1000..1000, or with a precision for floats,
    /// --range x=-100..100@0.01 (repeatable). Default: the type's whole range
    #[arg(long = "range", value_name = "NAME=LO..HI")]
    ranges: Vec<String>,

    /// A pointer parameter is a fixed-length array of LEN elements, e.g. --array a=10; for a
    /// pointer to rows (a matrix `int m[3][4]`, passed as `int (*m)[4]`), LEN is the number of
    /// rows; for a list or tree (a structure with links to its own type), the pool of nodes
    /// [default: 8]
    /// (repeatable; --range a=… applies to every element)
    #[arg(long = "array", value_name = "NAME=LEN")]
    arrays: Vec<String>,

    /// A char pointer is a NUL-terminated string of 0..MAX characters from ALPHABET (ranges like
    /// a-z0-9; escapes \n \t \r \\ \- \xHH; default printable ASCII), e.g. --string name=5,
    /// --string isbn=13:0-9X or --string 'line=16:a-c,\n'.
    /// Unlisted char pointers are strings of up to 16 printable characters, unless a length
    /// parameter follows them (see --buffer)
    #[arg(long = "string", value_name = "NAME=MAX[:ALPHABET]")]
    strings: Vec<String>,

    /// A pointer parameter and the integer parameter that carries its length, e.g.
    /// --buffer a=n:10 (a holds n elements, 0 <= n <= 10). Unlisted, a pointer followed by an
    /// integer named as a length (n, len, size, count, …, data_len, bufsize) is a buffer of up to
    /// 16 elements
    #[arg(long = "buffer", value_name = "NAME=LENPARAM:MAX")]
    buffers: Vec<String>,

    /// Test the sources' external functions as an API, with sequences of calls (Pacheco 2009,
    /// directed random testing; the default search `seq` adds random sequences, havoc and a
    /// branch-distance-directed EA, `-a randoop` is Pacheco's alone): a pointer one function returns is a
    /// value later calls take (`s = stack_new(4); stack_push(s, 3)`), a `void` function of one
    /// such value whose name ends in free, destroy, delete, release, close, … is its destructor.
    /// Optionally globs of the functions to call, comma-separated, e.g. --api='stack_*'.
    /// tests.c holds the sequences with their return values as assertions
    #[arg(long, value_name = "GLOBS", num_args = 0..=1, default_missing_value = "", conflicts_with_all = ["function", "krate"])]
    api: Option<String>,

    /// With --api: once every branch outcome is covered (or when the API has no branch), go on
    /// generating sequences until the budget (--max-execs, --max-time) ends, for the faults they
    /// may meet, as Randoop does; without it the search stops at full coverage
    #[arg(long, requires = "api")]
    keep_going: bool,

    /// With --api: most calls in one sequence
    #[arg(long, default_value_t = crate::frontend::sequence::MAX_CALLS as u64, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=4096))]
    max_calls: u64,

    /// A global variable the function reads that is an input too, e.g. --global
    /// Cur_Vertical_Sep (repeatable, or comma-separated): set before each call, over its type's
    /// whole range unless --range narrows it; a scalar, an array of scalars, a structure of
    /// them or an array of structures, `static` ones too. Unlisted globals keep their initial values (the report's notes
    /// name those the function reads)
    #[arg(long = "global", value_name = "NAME", value_delimiter = ',')]
    globals: Vec<String>,

    /// TOML file with [ranges], [arrays], [strings] and [buffers] tables (see README); flags win
    /// over it
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,

    /// How initial values are drawn: biased towards boundaries, program constants and small
    /// magnitudes, or uniform over each range
    #[arg(long, value_enum, default_value_t = InitMode::Biased)]
    init: InitMode,

    /// Output directory [default: evotest-out/<function>]
    #[arg(long, short = 'o', value_name = "DIR")]
    out: Option<PathBuf>,

    /// Inputs per target process: 1 forks a fresh process for every input; larger runs inputs in
    /// a loop (persistent mode). Default: 1000; when the sources write global variables, their
    /// values are restored before each input, or (a module with constructors of its own) 1
    #[arg(long, value_name = "N")]
    persistent: Option<u32>,

    /// Stop an execution after this many executed branch events (0 = no limit); it is recorded as
    /// a step-limit fault instead of running into the timeout. With --api, per call of a sequence
    /// (the limit of a sequence is N × --max-calls)
    #[arg(long, default_value_t = target::MAX_BRANCH_EVENTS, value_name = "N")]
    max_branch_events: u32,

    /// Kill an execution whose resident memory exceeds this many MB, recorded as an `oom` fault
    /// (0 = no limit; as libFuzzer's -rss_limit_mb)
    #[arg(long, default_value_t = target::RSS_LIMIT_MB, value_name = "MB")]
    rss_limit_mb: u64,

    /// Largest file the target may write, in MB; a larger write ends it with SIGXFSZ, recorded as a
    /// crash (0 = no limit)
    #[arg(long, default_value_t = target::FILE_LIMIT_MB, value_name = "MB")]
    max_file_mb: u64,

    #[command(flatten)]
    compile: CompileFlags,

    /// Extra flag for linking, e.g. --ldflag=-lm (repeatable)
    #[arg(long = "ldflag", value_name = "FLAG", allow_hyphen_values = true)]
    ldflags: Vec<String>,
}

#[derive(Args)]
#[command(after_long_help = EXAMPLES)]
struct RunArgs {
    #[command(flatten)]
    target: TargetArgs,

    /// Search algorithm (see `evotest list`) [default: auto; seq with --api]
    #[arg(long, short = 'a')]
    algorithm: Option<String>,

    /// Coverage criterion (see `evotest list`)
    #[arg(long, default_value = CRITERIA[0].name)]
    criterion: String,

    /// Stop after this many executions (0 = no limit)
    #[arg(long, default_value_t = 100_000, value_name = "N")]
    max_execs: u64,

    /// Stop after this much wall time, e.g. 30s, 5m (0 = no limit)
    #[arg(long, default_value = "60s", value_name = "DURATION")]
    max_time: String,

    /// GA population size
    #[arg(long, default_value_t = SearchConfig::default().population)]
    population: usize,

    /// Generations per search of the grammatical-evolution algorithms (ge, ge-unseeded, ge-dyn,
    /// ge-arith, ge-str, ge-blocks, ge-ext)
    /// [default: 200]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    generations: Option<u32>,

    /// End an attempt on a goal after this many evaluations (executions and cache hits) without
    /// improving it; a goal's first attempt is a short look, a tenth of it, not counted as
    /// fruitless when it finds nothing (unless it is the only open goal)
    #[arg(long, default_value_t = SearchConfig::default().patience, value_parser = clap::value_parser!(u64).range(1..))]
    patience: u64,

    /// Set a goal aside as suspected infeasible after this many fruitless attempts (it is retried,
    /// with doubled patience, once every open goal is set aside and budget remains)
    #[arg(long, default_value_t = SearchConfig::default().give_up_after, value_parser = clap::value_parser!(u32).range(1..))]
    give_up_after: u32,

    /// Stop as soon as every uncovered goal is set aside as suspected infeasible, instead of
    /// spending the rest of the budget on them
    #[arg(long)]
    stop_when_stalled: bool,

    /// The chaining approach (McMinn & Holcombe 2004) for goals whose branch distance gives no guidance (flags,
    /// counters, enumerations, special return values): auto = when plain search stalls on a goal,
    /// on = as soon as one plain attempt fails, off = never
    #[arg(long, value_enum, default_value_t = Chaining::Auto, num_args = 0..=1, default_missing_value = "on")]
    chaining: Chaining,

    /// Depth limit of the chaining tree (at least 1; turn chaining off with --chaining off)
    #[arg(long, default_value_t = ChainConfig::default().depth, value_name = "N",
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    chain_depth: usize,

    /// Exploration order of the chaining tree
    #[arg(long, value_enum, default_value_t = ChainOrder::Bfs)]
    chain_order: ChainOrder,

    /// Only these goals: branch outcomes as LINE:OUTCOME (e.g. 38:true, 70:case 1) or
    /// SITE:OUTCOME with the site ID of `evotest sites` (e.g. s2:true); repeatable
    #[arg(long = "target", value_name = "LINE:OUTCOME")]
    targets: Vec<String>,

    /// Seed the search with the inputs of the solutions base (OUT/solutions.jsonl, written by
    /// `evotest path`) and record this run's tests in it
    #[arg(long)]
    reuse: bool,

    /// Continue a run that was killed: evaluate the inputs of OUT/journal.jsonl (every input the
    /// killed run kept) first, then search on
    #[arg(long)]
    resume: bool,

    /// Print report.json on stdout (the table goes to stderr)
    #[arg(long)]
    json: bool,

    /// Print only the summary line
    #[arg(long, short = 'q')]
    quiet: bool,
}

const PATH_EXAMPLES: &str = "\
Path specs (see `evotest sites` for the sites of a file):
  s0:false s2:true          by site ID
  39:false 42:true          by line (when the line has one decision)
  38:11:true 38:20:false    by line and column
  38{y > x}:true            by line and condition text
  [44:true 47:false]*3      a group repeated 3 times (loop iterations)
  outcomes: true/false (T/F), default, case N

Examples:
  evotest path examples/tritype.c -f tritype --paths enumerate --list
  evotest path examples/tritype.c -f tritype --range a=1..100 --range b=1..100 --range c=1..100 \\
      --path '47:11:true 47:21:true 49:16:true 54:19:false 57:26:false 57:36:false 60:32:true'
  evotest path examples/quotient.c -f quotient --paths enumerate:2 --preset bueno-jino

Outputs (in --out, default evotest-out/<function>/):
  paths.json       per path: covered (input, executions), probably infeasible (suspect predicate),
                   or budget exhausted (closest input and where it deviated)
  solutions.jsonl  the solutions base: every path executed so far and its first input, reused by
                   later paths and later runs (exact match: no search; similar paths: seeds)
  tests.c          one test per covered path";

/// Presets reproducing a paper's setup.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Preset {
    /// Bueno & Jino (2002): the binary GA (`bjga`), NC − EP/MEP fitness, population 80
    BuenoJino,
}

#[derive(Args)]
#[command(after_long_help = PATH_EXAMPLES)]
struct PathArgs {
    #[command(flatten)]
    target: TargetArgs,

    /// A path to cover: decisions as LOC:OUTCOME (see below); repeatable, searched in order
    #[arg(long = "path", value_name = "SPEC")]
    paths: Vec<String>,

    /// Also every path of the function's CFG: `enumerate` (acyclic paths only) or `enumerate:K`
    /// (plus up to K iterations of each loop)
    #[arg(long = "paths", value_name = "enumerate[:K]")]
    enumerate: Option<String>,

    /// Print the paths (from --path and --paths) and stop, without searching
    #[arg(long)]
    list: bool,

    /// Most paths --paths enumerate lists (at least 1)
    #[arg(long, default_value_t = 1000, value_name = "N",
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    max_paths: usize,

    /// The paths are prefixes: covered by any execution whose path begins with them
    #[arg(long)]
    prefix: bool,

    /// Search algorithm (see `evotest list`)
    #[arg(long, short = 'a', default_value = ALGORITHMS[0].name)]
    algorithm: String,

    /// Fitness of population-based algorithms: stationary ((unmatched length) + d/(d+1)) or
    /// bueno-jino (NC − EP/MEP, relative to the population; needs --algorithm bjga)
    #[arg(long, value_enum, default_value_t = PathFitness::Stationary)]
    fitness: PathFitness,

    /// Reproduce a paper's setup: bueno-jino = --algorithm bjga --fitness bueno-jino
    /// --population 80
    #[arg(long, value_enum)]
    preset: Option<Preset>,

    /// Population size of the GAs [default: 50; 80 with --preset bueno-jino]
    #[arg(long)]
    population: Option<usize>,

    /// Evaluations (executions and cache hits) without improvement that end one attempt at a path
    #[arg(long, default_value_t = campaign::path::PATIENCE, value_parser = clap::value_parser!(u64).range(1..))]
    patience: u64,

    /// Fruitless attempts in a row after which a path is reported probably infeasible
    #[arg(long, default_value_t = campaign::path::GIVE_UP_AFTER, value_parser = clap::value_parser!(u32).range(1..))]
    give_up_after: u32,

    /// Executions per path (0 = no limit)
    #[arg(long, default_value_t = 100_000, value_name = "N")]
    max_execs: u64,

    /// Wall time per path, e.g. 30s (0 = no limit)
    #[arg(long, default_value = "60s", value_name = "DURATION")]
    max_time: String,

    /// Do not use the solutions base (start every search from random inputs)
    #[arg(long)]
    no_reuse: bool,

    /// Smin: least number of leading decisions a stored path must share with the target for its
    /// input to seed the search
    #[arg(long, default_value_t = 1, value_name = "N")]
    min_similarity: usize,

    /// Print paths.json on stdout
    #[arg(long)]
    json: bool,

    /// Print only the summary line
    #[arg(long, short = 'q')]
    quiet: bool,
}

#[derive(Args)]
struct SitesArgs {
    /// The C source file
    file: PathBuf,
    #[command(flatten)]
    compile: CompileFlags,
}

/// The flags for compiling the sources, shared by the subcommands that compile them.
#[derive(Args)]
struct CompileFlags {
    /// Extra flag for compiling the source, e.g. --cflag=-DNDEBUG (repeatable)
    #[arg(long = "cflag", value_name = "FLAG", allow_hyphen_values = true)]
    cflags: Vec<String>,

    /// Include directory for compiling the source (repeatable)
    #[arg(short = 'I', value_name = "DIR")]
    include: Vec<PathBuf>,

    /// Preprocessor definition for compiling the source (repeatable)
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    define: Vec<String>,
}

impl CompileFlags {
    /// The compiler's flags: --cflag, -I and -D.
    fn all(&self) -> Vec<String> {
        let mut f = self.cflags.clone();
        f.extend(self.include.iter().map(|i| format!("-I{}", i.display())));
        f.extend(self.define.iter().map(|d| format!("-D{d}")));
        f
    }
}

static INTERRUPTED: AtomicBool = AtomicBool::new(false);
/// The signal that interrupted the run (0: none).
static SIGNAL: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(0);

extern "C" fn on_sigint(sig: libc::c_int) {
    SIGNAL.store(sig, Ordering::Relaxed);
    INTERRUPTED.store(true, Ordering::Relaxed);
}

/// The exit code of a run that ended normally with `code`: 128 + the signal if a signal
/// interrupted it (130 after ^C, 143 after SIGTERM), as shells expect.
fn exit_code(code: i32) -> i32 {
    match SIGNAL.load(Ordering::Relaxed) {
        0 => code,
        sig => 128 + sig,
    }
}

/// Lock the output directory for this run and set an earlier run's results aside (unless
/// resuming): [`replaced`] removes them once the new run has results; an error before that puts
/// them back ([`report::PreviousResults`]).
fn prepare_output(
    dir: &std::path::Path,
    sources: &[std::path::PathBuf],
    resume: bool,
) -> Result<(target::OutputLock, Option<report::PreviousResults>)> {
    target::check_output_dir(dir, sources)?;
    let lock = target::lock_output(dir)?;
    let previous = if resume {
        None
    } else {
        Some(report::PreviousResults::set_aside(dir)?)
    };
    Ok((lock, previous))
}

/// The new run in `dir` has results: remove the earlier run's for good, with a note.
fn replaced(previous: Option<report::PreviousResults>, dir: &std::path::Path) {
    if previous.is_some_and(report::PreviousResults::discard) {
        eprintln!(
            "note: replaced the results of an earlier run in {}",
            dir.display()
        );
    }
}

/// First ^C (or SIGTERM) stops the search and writes the results; a second one kills evotest.
fn install_sigint() {
    use nix::sys::signal::{sigaction, SaFlags, SigAction, SigHandler, SigSet, Signal};
    let sa = SigAction::new(
        SigHandler::Handler(on_sigint),
        SaFlags::SA_RESETHAND,
        SigSet::empty(),
    );
    unsafe {
        let _ = sigaction(Signal::SIGINT, &sa);
        let _ = sigaction(Signal::SIGTERM, &sa);
    }
}

fn optional_limit(d: &str) -> Result<Option<std::time::Duration>> {
    if d.trim() == "0" {
        return Ok(None);
    }
    Ok(Some(parse_duration(d)?))
}

impl TargetArgs {
    /// The function under test: `--function`, or else the one function the C sources define
    /// besides `main` (the external one when the others are `static`), found by compiling them
    /// with the pass.
    ///
    /// Errors (one line): `--crate` without `--function`, sources that do not compile, no
    /// function, or several (listed).
    fn function_name(&self) -> Result<String> {
        if let Some(f) = &self.function {
            return Ok(f.clone());
        }
        if self.api.is_some() {
            return Ok("api".to_string());
        }
        if self.krate.is_some() {
            anyhow::bail!("--crate needs --function, the path of the function to test in the crate (module::name)");
        }
        target::check_sources(&self.files)?;
        let tc = Toolchain::locate()?;
        let dir = tempfile::tempdir()?;
        let mut found: Vec<(String, bool)> = Vec::new();
        for (i, src) in self.files.iter().enumerate() {
            let obj = dir.path().join(format!("f{i}.o"));
            crate::compile::instrument(&tc, src, &obj, "", &self.compile.all())?;
            for m in program::read_metadata_if_any(&obj)? {
                for f in m
                    .functions
                    .into_iter()
                    .filter(|f| f.name != evotest_abi::names::RENAMED_MAIN)
                {
                    found.push((
                        f.source_name
                            .clone()
                            .filter(|n| !n.is_empty())
                            .unwrap_or(f.name),
                        f.external,
                    ));
                }
            }
        }
        let external: Vec<&String> = found.iter().filter(|(_, e)| *e).map(|(n, _)| n).collect();
        let all: Vec<&String> = found.iter().map(|(n, _)| n).collect();
        let sources = self
            .files
            .iter()
            .map(|f| f.display().to_string())
            .collect::<Vec<_>>()
            .join(", ");
        match (external.as_slice(), all.as_slice()) {
            ([one], _) | ([], [one]) => Ok(one.to_string()),
            (_, []) => anyhow::bail!("{sources}: no function to test besides main"),
            (_, many) => {
                let list: Vec<&str> = many.iter().take(20).map(|s| s.as_str()).collect();
                let more = if many.len() > 20 { ", …" } else { "" };
                let verb = if self.files.len() == 1 {
                    "defines"
                } else {
                    "define"
                };
                anyhow::bail!(
                    "{sources} {verb} {} functions: give --function NAME ({}{more})",
                    many.len(),
                    list.join(", ")
                )
            }
        }
    }

    /// Options for this target, with the defaults of [`TargetOptions::new`] for the rest.
    fn options(&self) -> Result<TargetOptions> {
        let function = self.function_name()?;
        let mut o = match &self.krate {
            Some(k) => {
                let mut o = TargetOptions::new(k, &function);
                o.out_dir = PathBuf::from("evotest-out").join(function.replace("::", "-"));
                o.rust = Some(target::RustTarget {
                    krate: k.clone(),
                    checks: self.rust_checks,
                });
                o
            }
            None => {
                let mut o = TargetOptions::new(&self.files[0], &function);
                o.sources = self.files.clone();
                if let Some(globs) = &self.api {
                    let patterns = globs
                        .split(',')
                        .map(str::trim)
                        .filter(|g| !g.is_empty())
                        .map(String::from)
                        .collect();
                    o.api = Some(target::ApiTarget {
                        patterns,
                        max_calls: self.max_calls as usize,
                    });
                }
                o
            }
        };
        o.timeout = parse_duration(&self.timeout).context("--timeout")?;
        if let Some(c) = &self.config {
            let file = config::load(c)?;
            o.ranges = file.ranges;
            o.shapes = file.shapes;
        }
        for r in &self.ranges {
            let spec = parse_range_arg(r)?;
            o.ranges.retain(|x| x.name != spec.name);
            o.ranges.push(spec);
        }
        let shapes = config::parse_shapes(&self.arrays, &self.strings, &self.buffers)?;
        for spec in shapes {
            o.shapes.retain(|x| x.name() != spec.name());
            o.shapes.push(spec);
        }
        if let Some(d) = &self.out {
            o.out_dir = d.clone();
        }
        o.globals = self.globals.clone();
        if o.api.is_some()
            && (!o.ranges.is_empty() || !o.shapes.is_empty() || !o.globals.is_empty())
        {
            // a call sequence's arguments are typed by the API, not by parameter names
            anyhow::bail!(
                "--range, --array, --string, --buffer, --global and a config file's tables do not apply with --api: arguments \
                 are drawn per type (strings of up to {} characters, buffers of up to {} elements)",
                crate::input::sequence::MAX_STR,
                crate::input::sequence::MAX_BUF
            );
        }
        if self.krate.is_some() && !o.globals.is_empty() {
            anyhow::bail!("--global applies to C sources, not to a Rust crate");
        }
        o.cflags = self.compile.all();
        o.ldflags = self.ldflags.clone();
        o.persistent = self.persistent;
        o.max_branch_events = self.max_branch_events;
        o.rss_limit_mb = self.rss_limit_mb;
        o.file_limit_mb = self.max_file_mb;
        if o.timeout < std::time::Duration::from_millis(1) {
            anyhow::bail!("--timeout {}: must be at least 1ms", self.timeout);
        }
        Ok(o)
    }
}

fn budget(max_execs: u64, max_time: &str) -> Result<Budget> {
    Ok(Budget {
        max_execs: (max_execs > 0).then_some(max_execs),
        max_time: optional_limit(max_time).context("--max-time")?,
    })
}

impl RunArgs {
    fn options(&self) -> Result<RunOptions> {
        let mut o = RunOptions::new(self.target.options()?);
        o.seed = self.target.seed;
        o.init = self.target.init;
        o.algorithm = match (&self.algorithm, &self.target.api) {
            (Some(a), _) => a.clone(),
            (None, Some(_)) => crate::search::seq::SPEC.name.to_string(),
            (None, None) => ALGORITHMS[0].name.to_string(),
        };
        // refused before the build, so that an earlier run's results stay as they were
        crate::search::algorithm_for(&o.algorithm, o.target.api.is_some())?;
        if self.population < 2 {
            anyhow::bail!(
                "--population {}: a population needs at least 2 individuals",
                self.population
            );
        }
        o.criterion = self.criterion.clone();
        o.budget = budget(self.max_execs, &self.max_time)?;
        o.search = SearchConfig {
            population: self.population,
            patience: self.patience,
            give_up_after: self.give_up_after,
            stop_when_stalled: self.stop_when_stalled,
            generations: self.generations,
            stop_at_covered: None,
            keep_going: self.target.keep_going,
        };
        o.chain = ChainConfig {
            mode: self.chaining,
            depth: self.chain_depth,
            order: self.chain_order,
            ..ChainConfig::default()
        };
        // options of the per-goal driver that an algorithm searching all goals at once (random,
        // GE, Randoop, …) does not read: said, rather than accepted in silence
        let spec = crate::search::algorithm_for(&o.algorithm, o.target.api.is_some())?;
        if matches!(
            (spec.build)(&SearchConfig::default()),
            crate::search::Algorithm::Whole(_)
        ) {
            let d = SearchConfig::default();
            let mut unused = Vec::new();
            if self.patience != d.patience {
                unused.push("--patience");
            }
            if self.give_up_after != d.give_up_after {
                unused.push("--give-up-after");
            }
            if self.stop_when_stalled {
                unused.push("--stop-when-stalled");
            }
            if self.chaining == Chaining::On {
                unused.push("--chaining on");
            }
            if !unused.is_empty() {
                eprintln!(
                    "note: --algorithm {} searches all goals at once, without the per-goal driver: {} {} no effect (they steer per-goal algorithms such as auto, avm and ga)",
                    o.algorithm,
                    unused.join(", "),
                    if unused.len() == 1 { "has" } else { "have" }
                );
            }
        }
        if o.target.api.is_some() {
            // a sequence's arguments are drawn per type, by the sequence searches' own rules
            let mut unused = Vec::new();
            if self.target.init != InitMode::Biased {
                unused.push("--init");
            }
            if self.population != SearchConfig::default().population {
                unused.push("--population");
            }
            if self.generations.is_some() {
                unused.push("--generations");
            }
            if !unused.is_empty() {
                eprintln!(
                    "note: --api draws each argument by its type, and its searches size themselves (godel: 100 choice models): {} {} no effect",
                    unused.join(", "),
                    if unused.len() == 1 { "has" } else { "have" }
                );
            }
            if self.reuse {
                anyhow::bail!(
                    "--reuse does not apply with --api: the solutions base holds inputs of one function"
                );
            }
        }
        o.targets = self.targets.clone();
        o.reuse = self.reuse;
        o.resume = self.resume;
        o.journal = true;
        Ok(o)
    }
}

fn run(args: &RunArgs) -> Result<i32> {
    let opts = args.options()?;
    let (_lock, previous) =
        prepare_output(&opts.target.out_dir, &opts.target.sources, opts.resume)?;
    install_sigint();
    let mut monitor = ProgressMonitor::new(opts.budget.max_execs);
    let result = campaign::run(&opts, &mut monitor, &INTERRUPTED);
    monitor.finish();
    let result = result?;
    replaced(previous, &opts.target.out_dir);
    let written = report::write_all(&result)?;
    let table = report::console::render(&result);
    let summary = report::console::summary(&result);
    if args.json {
        // with -q, standard error carries the summary line alone
        if args.quiet {
            eprintln!("{summary}");
        } else {
            eprint!("{table}");
        }
        outln!(
            "{}",
            serde_json::to_string_pretty(&report::json::report_value(&result))?
        );
    } else if args.quiet {
        outln!("{summary}");
    } else {
        out!("{table}");
        let files: Vec<String> = written.iter().map(|f| f.display().to_string()).collect();
        outln!("wrote {}", files.join(", "));
    }
    if let Some(e) = &result.error {
        eprintln!("error: the search stopped early: {e} (results so far were written)");
        return Ok(exit_code(1));
    }
    Ok(exit_code(0))
}

fn sites(args: &SitesArgs) -> Result<i32> {
    target::check_sources(std::slice::from_ref(&args.file))?;
    let tc = Toolchain::locate()?;
    let dir = tempfile::tempdir()?;
    let obj = dir.path().join("sites.o");
    crate::compile::instrument(&tc, &args.file, &obj, "", &args.compile.all())?;
    let mut metas = program::read_metadata_if_any(&obj)?;
    // a file whose functions are all `static` or inline and uncalled (a class with its members
    // defined in its body): clang emits none of them; once more with every declaration emitted,
    // as `evotest run` does, the system headers' own left out
    let mut emitted_all = false;
    if metas.iter().all(|m| m.functions.is_empty()) {
        let mut flags = args.compile.all();
        flags.push("-femit-all-decls".into());
        crate::compile::instrument(&tc, &args.file, &obj, "", &flags)?;
        metas = program::read_metadata_if_any(&obj)?;
        emitted_all = true;
    }
    if metas.iter().all(|m| m.functions.is_empty()) {
        outln!("{} defines no function", args.file.display());
        return Ok(0);
    }
    let p = program::Program::with_sequential_bases(metas);
    for f in &p.functions {
        if emitted_all && program::is_library_file(&f.meta.file) {
            continue;
        }
        let n = p
            .sites
            .iter()
            .filter(|s| p.functions[s.function].meta.name == f.meta.name && s.meta.kind.is_branch())
            .count();
        if f.meta.name == evotest_abi::names::RENAMED_MAIN {
            continue;
        }
        // the source's parameters (a structure passed by value is split or coerced in the IR)
        let source_params = f.meta.source_params.as_ref().unwrap_or(&f.meta.params);
        let mut params: Vec<String> = source_params
            .iter()
            .map(|x| format!("{} {}", x.ty.c_spelling, x.name))
            .collect();
        if f.meta.variadic {
            params.push("...".into());
        }
        let plural = if n == 1 { "" } else { "s" };
        // a C++ function also by its symbol, which `--function` takes to choose an overload
        let symbol = if f.display_name() != f.meta.name {
            format!(" [{}]", f.meta.name)
        } else {
            String::new()
        };
        outln!(
            "{} {}({}){symbol}  — {} blocks, {n} branch site{plural}",
            f.meta.ret.c_spelling,
            f.display_name(),
            params.join(", "),
            f.meta.blocks.len()
        );
        // branch sites, then condition-only sites (condition-decision coverage only)
        let mut listed: Vec<&program::Site> = p
            .sites
            .iter()
            .filter(|s| std::ptr::eq(&p.functions[s.function], f))
            .collect();
        listed.sort_by_key(|s| !s.meta.kind.is_branch());
        for s in listed {
            let uses: Vec<&str> = s
                .uses
                .iter()
                .map(|v| p.vars[*v as usize].meta.name.as_str())
                .collect();
            let uses = if uses.is_empty() {
                String::new()
            } else {
                format!("  uses {}", uses.join(", "))
            };
            outln!(
                "  {:>4}  {:>5}:{:<3}  {:<7} {}  [{}]{uses}",
                s.id,
                s.meta.line,
                s.meta.col,
                format!("{:?}", s.meta.kind).to_lowercase(),
                s.meta.cond,
                s.meta.outcome_labels.join(", ")
            );
        }
        for d in p
            .decisions
            .iter()
            .filter(|d| std::ptr::eq(&p.functions[d.function], f))
        {
            let conds: Vec<String> = d.conditions.iter().map(|c| format!("s{c}")).collect();
            let site = d
                .site
                .map(|s| format!(", outcome of s{s}"))
                .unwrap_or_default();
            outln!(
                "  decision {:>5}:{:<3}  {}  [conditions {}{site}]",
                d.meta.line,
                d.meta.col,
                d.meta.text,
                conds.join(" ")
            );
        }
        for d in p
            .defs
            .iter()
            .filter(|d| std::ptr::eq(&p.functions[d.function], f) && !d.meta.param_init)
        {
            outln!(
                "  def {:>3}  {:>5}:{:<3}  {}",
                d.id,
                d.meta.line,
                d.meta.col,
                d.meta.text
            );
        }
    }
    Ok(0)
}

fn bench(a: &BenchArgs) -> Result<i32> {
    let mut programs = crate::bench::load_programs(&a.programs)?;
    if !a.only.is_empty() {
        for n in &a.only {
            if !programs.iter().any(|p| &p.name == n) {
                let names: Vec<&str> = programs.iter().map(|p| p.name.as_str()).collect();
                anyhow::bail!(
                    "--only {n}: no such program in {} (programs: {})",
                    a.programs.display(),
                    names.join(", ")
                );
            }
        }
        programs.retain(|p| a.only.contains(&p.name));
    }
    let opts = crate::bench::BenchOptions {
        programs,
        tools: a.tools.clone(),
        runs: a.runs,
        max_execs: a.max_execs,
        max_time: parse_duration(&a.max_time).context("--max-time")?,
        timeout: parse_duration(&a.timeout).context("--timeout")?,
        seed_base: a.seed,
        name: a.name.clone(),
        out: a.out.clone(),
        work: a.work.clone(),
        quiet: a.quiet,
        truth: !a.no_truth,
        peer_runs: a.peer_runs.unwrap_or(a.runs),
        peer_max_execs: a.peer_max_execs.unwrap_or(a.max_execs),
        peer_max_time: match &a.peer_max_time {
            Some(t) => parse_duration(t).context("--peer-max-time")?,
            None => parse_duration(&a.max_time).context("--max-time")?,
        },
        peer_encoding: crate::input::mapped::PeerEncoding::parse(&a.peer_encoding)?,
        zero_seed: a.fuzzer_seed == "zero",
        criterion: a.criterion.clone(),
        population: a.population,
        generations: a.generations,
    };
    if opts.peer_runs == 0 {
        anyhow::bail!("--peer-runs must be at least 1");
    }
    crate::fitness::criterion(&opts.criterion)?;
    let root = std::env::current_dir()?;
    let results = if a.jobs > 1 {
        let parts = a.work.join("parts");
        let exe = std::env::current_exe().context("cannot find evotest's own executable")?;
        let child = |p: &crate::bench::BenchProgram| {
            let mut c = std::process::Command::new(&exe);
            c.args(a.child_args(&p.name, &parts))
                .stdout(std::process::Stdio::null());
            c
        };
        crate::bench::run_parallel(&opts, a.jobs, &parts, &child)?
    } else {
        crate::bench::run(&opts, &root)?
    };
    let command = std::env::args().collect::<Vec<_>>().join(" ");
    out!("{}", crate::bench::markdown(&opts, &results, &command));
    outln!("wrote {}/{}.md and .json", opts.out.display(), opts.name);
    Ok(0)
}

fn bench_paths(a: &BenchPathsArgs) -> Result<i32> {
    let mut programs = crate::bench::paths::load(&a.paths)?;
    if !a.only.is_empty() {
        for n in &a.only {
            if !programs.iter().any(|p| &p.name == n) {
                let names: Vec<&str> = programs.iter().map(|p| p.name.as_str()).collect();
                anyhow::bail!(
                    "--only {n}: no such program in {} (programs: {})",
                    a.paths.display(),
                    names.join(", ")
                );
            }
        }
        programs.retain(|p| a.only.contains(&p.name));
    }
    let opts = crate::bench::paths::PathsBenchOptions {
        programs,
        modes: a.modes.clone(),
        attempts: a.attempts,
        seed_base: a.seed,
        max_time: parse_duration(&a.max_time).context("--max-time")?,
        name: a.name.clone(),
        out: a.out.clone(),
        work: a.work.clone(),
        quiet: a.quiet,
    };
    let command = std::env::args().collect::<Vec<_>>().join(" ");
    let root = std::env::current_dir()?;
    let (records, cells) = crate::bench::paths::run(&opts, &root, &command)?;
    out!(
        "{}",
        crate::bench::paths::markdown(&opts, &records, &cells, &command)
    );
    outln!("wrote {}/{}.md and .json", opts.out.display(), opts.name);
    Ok(0)
}

fn list() -> Result<i32> {
    outln!("search algorithms (--algorithm):");
    for (i, a) in ALGORITHMS.iter().enumerate() {
        outln!(
            "  {:<8} {}{}",
            a.name,
            a.about,
            if i == 0 { " [default]" } else { "" }
        );
    }
    outln!("\ncoverage criteria (--criterion):");
    let w = CRITERIA.iter().map(|c| c.name.len()).max().unwrap_or(8);
    for c in CRITERIA {
        outln!("  {:<w$} {}", c.name, c.about);
    }
    outln!(
        "\npath testing (its own command, not a --criterion): evotest path FILE -f FUNCTION --path SPEC | --paths enumerate[:K]\n  given paths through a function, one at a time (Bueno & Jino 2002)"
    );
    Ok(0)
}

/// Parse the command line and run; returns the process exit code. Errors are for `main` to print
/// as one line.
pub fn main() -> Result<i32> {
    let mut args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let fuzz_args = if args.get(1).is_some_and(|a| a == "fuzz") {
        let rest = fuzz::rewrite_args(args.split_off(2))?;
        args.extend(rest.iter().cloned());
        rest
    } else {
        vec![]
    };
    let cli = Cli::parse_from(args);
    let _ = std::io::stderr().is_terminal();
    match &cli.cmd {
        Cmd::Run(a) => run(a),
        Cmd::Path(a) => crate::cli::path::path(a, &INTERRUPTED),
        Cmd::Sites(a) => sites(a),
        Cmd::Bench(a) => bench(a),
        Cmd::BenchPaths(a) => bench_paths(a),
        Cmd::List => list(),
        Cmd::Fuzz(a) => fuzz::fuzz(a, &fuzz_args),
    }
}
