//! `evotest bench`: every program × tool × run, with fixed seeds, measured the same way.
//!
//! Per run it records whether full *feasible* coverage was reached (the count the program's
//! header claims, from `bench/programs.toml`), the executions and seconds until then, the final
//! coverage and the execution rate. Per program × tool it reports:
//!
//! * **SR**: success rate to full feasible coverage;
//! * **AE**: mean executions to full feasible coverage, failures counted at the execution cap
//!   (as Bueno & Jino 2002 count them);
//! * **median executions** and **median seconds** to full feasible coverage over successful runs;
//! * **MC**: maximum coverage reached in any run (outcomes);
//! * **exec/s**: executions per second over all runs.
//!
//! Every tool starts each run from the same input, drawn uniformly from the domain with the run's
//! seed, and its coverage is measured by the same observer (evotest's probes; see [`tools`] and
//! [`peers`]). Results go to `<out>/<name>.md` and `<out>/<name>.json`, with one SVG plot per
//! program of coverage against executions (log scale), every tool overlaid.

pub mod fuzz;
pub mod paths;
pub mod peers;
pub mod plot;
pub mod tools;
pub mod truth;

use crate::campaign;
use crate::input::mapped::PeerEncoding;
use crate::input::spec::{parse_range_arg, RangeSpec};
use crate::target::{self, TargetOptions};
use anyhow::{anyhow, bail, Context, Result};
use rand::SeedableRng;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;
use tools::{Observed, ProgramCtx, RunSpec, Tool};

/// What a benchmark program file names about one subject: the source, the function under test,
/// and its input domain, in the syntax of the command-line options. Shared by
/// `bench/programs.toml` and `bench/paths.toml` (flattened into their `[[program]]` tables).
#[derive(Clone, Debug, Deserialize, Serialize)]
pub struct Subject {
    /// Source file, relative to the repository root.
    pub file: PathBuf,
    pub function: String,
    /// `NAME=LO..HI[@STEP]` ranges, as `--range`.
    #[serde(default)]
    pub ranges: Vec<String>,
    /// `NAME=LEN` fixed-length arrays, as `--array`.
    #[serde(default)]
    pub arrays: Vec<String>,
    /// `NAME=MAX[:ALPHABET]` strings, as `--string`.
    #[serde(default)]
    pub strings: Vec<String>,
    /// `NAME=LENPARAM:MAX` buffers, as `--buffer`.
    #[serde(default)]
    pub buffers: Vec<String>,
    /// Global variables that are inputs too, as `--global`.
    #[serde(default)]
    pub globals: Vec<String>,
    /// API testing, as `--api=GLOBS` (`""`: every external function); `function` is then `api`.
    #[serde(default)]
    pub api: Option<String>,
    /// With `api`: most calls in one sequence, as `--max-calls` (default
    /// [`crate::frontend::sequence::MAX_CALLS`]).
    #[serde(default)]
    pub max_calls: Option<usize>,
}

impl Subject {
    /// Target options for this subject, with `root` the repository root and outputs in `out_dir`.
    ///
    /// Errors: a range or shape that does not parse (one line, as the CLI reports it).
    pub fn options(&self, root: &Path, out_dir: PathBuf) -> Result<TargetOptions> {
        let mut o = TargetOptions::new(&root.join(&self.file), &self.function);
        o.out_dir = out_dir;
        o.ranges = self
            .ranges
            .iter()
            .map(|r| parse_range_arg(r))
            .collect::<Result<Vec<RangeSpec>>>()?;
        o.shapes = crate::config::parse_shapes(&self.arrays, &self.strings, &self.buffers)?;
        o.globals = self.globals.clone();
        if let Some(globs) = &self.api {
            let patterns = globs
                .split(',')
                .map(str::trim)
                .filter(|g| !g.is_empty())
                .map(String::from)
                .collect();
            o.api = Some(target::ApiTarget {
                patterns,
                max_calls: self
                    .max_calls
                    .unwrap_or(crate::frontend::sequence::MAX_CALLS),
            });
        }
        Ok(o)
    }
}

/// One benchmark subject, as listed in `bench/programs.toml`.
#[derive(Clone, Debug, Deserialize, Serialize)]
pub struct BenchProgram {
    pub name: String,
    #[serde(flatten)]
    pub subject: Subject,
    /// Feasible branch outcomes claimed by the file's header.
    pub feasible: usize,
    /// Figures from the seed papers for this program (label → value), shown beside ours.
    #[serde(default)]
    pub paper: BTreeMap<String, String>,
    /// Only these goals (`LINE:OUTCOME`, `LINE:COL:OUTCOME`, as `--target`); then `feasible` is
    /// their number, and success means covering them all.
    #[serde(default)]
    pub targets: Vec<String>,
}

#[derive(Deserialize)]
struct ProgramsFile<T> {
    program: Vec<T>,
}

/// Read the `[[program]]` tables of a TOML file (`bench/programs.toml`, `bench/paths.toml`).
///
/// Errors: unreadable file, or TOML that does not match `T` (one line, with the file name).
pub fn read_programs<T: serde::de::DeserializeOwned>(path: &Path) -> Result<Vec<T>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let f: ProgramsFile<T> =
        toml::from_str(&text).map_err(|e| anyhow!("{}: {}", path.display(), e.message()))?;
    Ok(f.program)
}

/// The keys a `[[program]]` table of a programs file may have ([`BenchProgram`] and its
/// [`Subject`]).
const PROGRAM_KEYS: &[&str] = &[
    "name",
    "feasible",
    "paper",
    "targets",
    "file",
    "function",
    "ranges",
    "arrays",
    "strings",
    "buffers",
    "globals",
    "api",
    "max_calls",
];

/// Read `bench/programs.toml` (or another file of `[[program]]` tables of [`BenchProgram`]).
///
/// Errors (one line): as [`read_programs`], and a key no program has (`range` for `ranges`: it
/// was ignored, and the program ran over its parameters' whole ranges).
pub fn load_programs(path: &Path) -> Result<Vec<BenchProgram>> {
    let programs = read_programs(path)?;
    if let Ok(toml::Value::Table(t)) = std::fs::read_to_string(path)
        .map_err(anyhow::Error::from)
        .and_then(|text| Ok(toml::from_str::<toml::Value>(&text)?))
    {
        for p in t
            .get("program")
            .and_then(|v| v.as_array())
            .into_iter()
            .flatten()
        {
            for k in p.as_table().into_iter().flat_map(|t| t.keys()) {
                if !PROGRAM_KEYS.contains(&k.as_str()) {
                    let name = p.get("name").and_then(|n| n.as_str()).unwrap_or("?");
                    bail!(
                        "{}: program `{name}`: unknown key `{k}` (known: {})",
                        path.display(),
                        PROGRAM_KEYS.join(", ")
                    );
                }
            }
        }
    }
    Ok(programs)
}

/// What to run.
#[derive(Clone, Debug)]
pub struct BenchOptions {
    pub programs: Vec<BenchProgram>,
    /// Tool names (see [`tools::names`]).
    pub tools: Vec<String>,
    pub runs: u32,
    pub max_execs: u64,
    pub max_time: Duration,
    /// Per-execution timeout.
    pub timeout: Duration,
    /// Seeds are `seed_base + run`.
    pub seed_base: u64,
    pub name: String,
    pub out: PathBuf,
    /// Where programs are built.
    pub work: PathBuf,
    pub quiet: bool,
    /// Check each program's claimed feasible count with llvm-cov ([`truth`]).
    pub truth: bool,
    /// The peers' (libFuzzer's, AFL++'s) runs per program, execution cap (0 = none) and time cap,
    /// when they differ from evotest's (a peer's run is long, evotest's short).
    pub peer_runs: u32,
    pub peer_max_execs: u64,
    pub peer_max_time: Duration,
    /// How the peers' (and the `fuzz` tools') harnesses read their bytes.
    pub peer_encoding: PeerEncoding,
    /// The fuzzers (peers and `fuzz` tools) start from an all-zero input instead of the run's
    /// starting input.
    pub zero_seed: bool,
    /// The coverage criterion of every run (`branch`, `condition-decision`); the programs'
    /// `feasible` counts are in its goals.
    pub criterion: String,
    /// Population and generations of evotest's evolutionary tools (`None`: their defaults).
    pub population: Option<usize>,
    pub generations: Option<u32>,
}

impl BenchOptions {
    /// Runs, execution cap and time cap of `tool`'s runs (`u64::MAX`: no execution cap, which a
    /// cap of 0 means).
    pub fn caps(&self, peer: bool) -> (u32, u64, Duration) {
        let cap = |n: u64| if n == 0 { u64::MAX } else { n };
        if peer {
            (self.peer_runs, cap(self.peer_max_execs), self.peer_max_time)
        } else {
            (self.runs, cap(self.max_execs), self.max_time)
        }
    }
}

/// The measurements of one run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunRecord {
    pub program: String,
    pub tool: String,
    pub run: u32,
    pub seed: u64,
    pub success: bool,
    /// Executions until full feasible coverage (successful runs).
    pub executions_to_full: Option<u64>,
    pub seconds_to_full: Option<f64>,
    pub executions: u64,
    pub seconds: f64,
    pub covered: usize,
    pub total: usize,
    pub feasible: usize,
    /// Fitness evaluations: executions plus evaluations answered by evotest's cache (the
    /// papers' unit); equal to `executions` for peers.
    #[serde(default)]
    pub evaluations: u64,
    /// Event sequences the chaining approach tried.
    #[serde(default)]
    pub sequences: usize,
    /// (execution, outcomes covered) at each increase, for plots.
    pub curve: Vec<(u64, usize)>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The goals a run left uncovered (short labels, e.g. `L48 credits == 15:T`), for runs that
    /// did not reach full feasible coverage; empty otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub missed: Vec<String>,
}

impl RunRecord {
    fn new(program: &BenchProgram, tool: &str, spec: &RunSpec, o: &Observed) -> RunRecord {
        let mut firsts: Vec<(u64, f64)> = o.first.iter().flatten().copied().collect();
        firsts.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
        let reached = if program.feasible == 0 {
            Some((0, 0.0))
        } else {
            firsts.get(program.feasible - 1).copied()
        };
        let curve = firsts
            .iter()
            .enumerate()
            .map(|(i, f)| (f.0, i + 1))
            .collect();
        RunRecord {
            program: program.name.clone(),
            tool: tool.to_string(),
            run: spec.run,
            seed: spec.seed,
            success: reached.is_some(),
            executions_to_full: reached.map(|r| r.0),
            seconds_to_full: reached.map(|r| r.1),
            executions: o.executions,
            seconds: o.seconds,
            covered: firsts.len(),
            total: o.first.len(),
            feasible: program.feasible,
            evaluations: o.evaluations.max(o.executions),
            sequences: o.sequences,
            curve,
            note: o.note.clone(),
            missed: Vec::new(),
        }
    }
}

/// The summary of one program × tool cell.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Cell {
    pub program: String,
    pub tool: String,
    pub runs: usize,
    pub sr: f64,
    pub ae: f64,
    pub median_executions: Option<f64>,
    pub median_seconds: Option<f64>,
    pub mc: usize,
    pub total: usize,
    pub feasible: usize,
    pub exec_per_sec: f64,
    /// Means over all runs: fitness evaluations, seconds, event sequences tried.
    #[serde(default)]
    pub mean_evaluations: f64,
    #[serde(default)]
    pub mean_seconds: f64,
    #[serde(default)]
    pub mean_sequences: f64,
}

fn median(mut v: Vec<f64>) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

/// Summarise the runs of one program × tool.
pub fn summarise(records: &[&RunRecord], cap: u64) -> Option<Cell> {
    let first = records.first()?;
    let n = records.len();
    let ok: Vec<&&RunRecord> = records.iter().filter(|r| r.success).collect();
    // a failure counts at the cap, or, for a run without an execution cap, at what it ran
    let ae = records
        .iter()
        .map(|r| {
            r.executions_to_full
                .unwrap_or(if cap == u64::MAX { r.executions } else { cap }) as f64
        })
        .sum::<f64>()
        / n as f64;
    let execs: u64 = records.iter().map(|r| r.executions).sum();
    let secs: f64 = records.iter().map(|r| r.seconds).sum();
    Some(Cell {
        program: first.program.clone(),
        tool: first.tool.clone(),
        runs: n,
        sr: ok.len() as f64 / n as f64,
        ae,
        median_executions: median(
            ok.iter()
                .filter_map(|r| r.executions_to_full.map(|e| e as f64))
                .collect(),
        ),
        median_seconds: median(ok.iter().filter_map(|r| r.seconds_to_full).collect()),
        mc: records.iter().map(|r| r.covered).max().unwrap_or(0),
        total: first.total,
        feasible: first.feasible,
        exec_per_sec: if secs > 0.0 { execs as f64 / secs } else { 0.0 },
        mean_evaluations: records.iter().map(|r| r.evaluations as f64).sum::<f64>() / n as f64,
        mean_seconds: secs / n as f64,
        mean_sequences: records.iter().map(|r| r.sequences as f64).sum::<f64>() / n as f64,
    })
}

/// Build a program once for all its runs.
fn build<'a>(
    p: &'a BenchProgram,
    work: &Path,
    root: &Path,
    opts: &BenchOptions,
) -> Result<ProgramCtx<'a>> {
    let dir = work.join(&p.name);
    let o = p.subject.options(root, dir.clone())?;
    let target = target::build(&o).with_context(|| format!("building {}", p.name))?;
    let mut run = campaign::RunOptions::new(o);
    run.targets = p.targets.clone();
    run.criterion = opts.criterion.clone();
    if let Some(n) = opts.population {
        run.search.population = n;
    }
    run.search.generations = opts.generations;
    let (_, goals) = campaign::goals(&target, &run)?;
    Ok(ProgramCtx {
        program: p,
        target,
        options: run,
        goals,
        dir,
    })
}

/// The starting input of run `seed` of a program: drawn uniformly from the domain.
pub fn start_input(d: &crate::input::Domain, seed: u64) -> crate::input::Input {
    d.sample_uniform(&mut rand_chacha::ChaCha8Rng::seed_from_u64(
        seed ^ 0x5eed_5eed_5eed_5eed,
    ))
}

/// Most uncovered goals the report lists for one failed run.
const MISSED_SHOWN: usize = 6;

/// Everything a benchmark produced.
pub struct Results {
    pub records: Vec<RunRecord>,
    pub cells: Vec<Cell>,
    pub truths: Vec<truth::Truth>,
}

/// Run the whole benchmark and write its results.
pub fn run(opts: &BenchOptions, root: &Path) -> Result<Results> {
    if opts.runs == 0 {
        bail!("--runs must be at least 1");
    }
    let mut tools: Vec<Box<dyn Tool>> = opts
        .tools
        .iter()
        .map(|t| tools::by_name(t, opts.peer_encoding))
        .collect::<Result<_>>()?;
    std::fs::create_dir_all(&opts.work)?;
    // Peers run in their own directories: every path must be absolute.
    let work = std::path::absolute(&opts.work)?;
    let mut records = Vec::new();
    let mut truths = Vec::new();
    for p in &opts.programs {
        let mut cx = build(p, &work, root, opts)?;
        let mut union_inputs: Vec<crate::input::Input> = Vec::new();
        let mut union_goals = vec![false; cx.goals.len()];
        if cx.goals.len() < p.feasible {
            bail!(
                "{}: the programs file claims {} feasible {} goals, but the program has only {}",
                p.name,
                p.feasible,
                opts.criterion,
                cx.goals.len()
            );
        }
        for tool in tools.iter_mut() {
            tool.prepare(&cx)
                .with_context(|| format!("{} on {}", tool.name(), p.name))?;
            let (runs, max_execs, max_time) = opts.caps(tool.is_peer());
            for run in 0..runs {
                let seed = opts.seed_base + run as u64;
                let spec = RunSpec {
                    run,
                    seed,
                    start: start_input(cx.target.frontend.domain(), seed),
                    max_execs,
                    max_time,
                    timeout: opts.timeout,
                    zero_seed: opts.zero_seed,
                };
                // A tool that fails on one run is recorded as covering nothing, with the error.
                let obs = match tool.run(&mut cx, &spec) {
                    Ok(o) => o,
                    Err(e) => Observed {
                        first: vec![None; cx.goals.len()],
                        note: Some(format!("run failed: {e:#}")),
                        ..Default::default()
                    },
                };
                let mut rec = RunRecord::new(p, &tool.name(), &spec, &obs);
                if !rec.success {
                    rec.missed = obs
                        .first
                        .iter()
                        .enumerate()
                        .filter(|(_, f)| f.is_none())
                        .map(|(g, _)| cx.goals[g].short(&cx.target.program))
                        .collect();
                }
                for (g, f) in obs.first.iter().enumerate() {
                    union_goals[g] |= f.is_some();
                }
                for x in obs.inputs {
                    if !union_inputs.contains(&x) {
                        union_inputs.push(x);
                    }
                }
                if !opts.quiet {
                    eprintln!(
                        "{:<12} {:<14} run {:>2}: {}/{} outcomes, {}{}",
                        p.name,
                        rec.tool,
                        run + 1,
                        rec.covered,
                        rec.total,
                        match rec.executions_to_full {
                            Some(e) => format!("full feasible coverage at execution {e}"),
                            None => format!("not full after {} executions", rec.executions),
                        },
                        rec.note
                            .as_ref()
                            .map(|n| format!(" ({n})"))
                            .unwrap_or_default()
                    );
                }
                records.push(rec);
            }
        }
        if opts.truth {
            let covered = union_goals.iter().filter(|c| **c).count();
            match truth::check(&cx, &union_inputs, covered) {
                Ok(t) => {
                    if !opts.quiet {
                        eprintln!("{:<12} ground truth: {}", p.name, t.verdict);
                    }
                    truths.push(t)
                }
                Err(e) => eprintln!("{:<12} ground truth: not checked: {e:#}", p.name),
            }
        }
    }
    let results = Results {
        cells: cells(opts, &records)?,
        records,
        truths,
    };
    write_results(opts, &results)?;
    Ok(results)
}

/// The cells of `records`, program by program in `opts`' order, tools in `opts`' order.
fn cells(opts: &BenchOptions, records: &[RunRecord]) -> Result<Vec<Cell>> {
    let mut cells = Vec::new();
    for p in &opts.programs {
        for t in &opts.tools {
            let peer = tools::by_name(t, opts.peer_encoding)?.is_peer();
            let rs: Vec<&RunRecord> = records
                .iter()
                .filter(|r| r.program == p.name && &r.tool == t)
                .collect();
            cells.extend(summarise(&rs, opts.caps(peer).1));
        }
    }
    Ok(cells)
}

/// Run the benchmark with `jobs` programs at a time, each in a child process that `child` makes
/// for one program (an `evotest bench` for that program alone, writing `<name>.<program>.json`
/// into `parts`), then merge their records and write the results as [`run`] does. The children
/// share the machine, so wall times grow with `jobs` beyond the cores; executions do not change.
///
/// Errors: a child that cannot be started or fails, or whose results cannot be read.
pub fn run_parallel(
    opts: &BenchOptions,
    jobs: u32,
    parts: &Path,
    child: &dyn Fn(&BenchProgram) -> std::process::Command,
) -> Result<Results> {
    std::fs::create_dir_all(parts)?;
    let mut queue: std::collections::VecDeque<&BenchProgram> = opts.programs.iter().collect();
    let mut running: Vec<(&BenchProgram, std::process::Child)> = Vec::new();
    let mut failed = Vec::new();
    while !queue.is_empty() || !running.is_empty() {
        while running.len() < jobs.max(1) as usize {
            let Some(p) = queue.pop_front() else { break };
            let c = child(p)
                .spawn()
                .with_context(|| format!("cannot start the benchmark of {}", p.name))?;
            running.push((p, c));
        }
        std::thread::sleep(Duration::from_millis(100));
        let mut k = 0;
        while k < running.len() {
            if let Some(st) = running[k].1.try_wait()? {
                let (p, _) = running.remove(k);
                if !st.success() {
                    failed.push(format!("{} ({st})", p.name));
                }
            } else {
                k += 1;
            }
        }
    }
    if !failed.is_empty() {
        bail!("the benchmark failed for {}", failed.join(", "));
    }
    let mut records = Vec::new();
    let mut truths = Vec::new();
    for p in &opts.programs {
        let f = parts.join(format!("{}.{}.json", opts.name, p.name));
        let v: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(&f).with_context(|| format!("reading {}", f.display()))?,
        )
        .with_context(|| format!("reading {}", f.display()))?;
        records.extend(serde_json::from_value::<Vec<RunRecord>>(
            v["records"].clone(),
        )?);
        truths.extend(serde_json::from_value::<Vec<truth::Truth>>(
            v["ground_truth"].clone(),
        )?);
    }
    let results = Results {
        cells: cells(opts, &records)?,
        records,
        truths,
    };
    write_results(opts, &results)?;
    Ok(results)
}

fn fmt_opt(v: Option<f64>, digits: usize) -> String {
    match v {
        Some(x) => format!("{x:.digits$}"),
        None => "–".into(),
    }
}

/// The markdown report.
pub fn markdown(opts: &BenchOptions, results: &Results, command: &str) -> String {
    let cells = &results.cells;
    let tools: Vec<String> = {
        let mut t = Vec::new();
        for c in cells {
            if !t.contains(&c.tool) {
                t.push(c.tool.clone());
            }
        }
        t
    };
    let mut s = String::new();
    let _ = writeln!(s, "# Benchmark `{}`\n", opts.name);
    let _ = writeln!(s, "Command: `{command}`\n");
    let execs_cap = |n: u64| {
        if n == u64::MAX {
            "no execution cap".to_string()
        } else {
            format!("{n} executions")
        }
    };
    let _ = writeln!(
        s,
        "{} runs per cell (seeds {}..{}), caps of {} and {} s per run. Success = all feasible \
         {} goals covered (the count the programs file claims).\n",
        opts.runs,
        opts.seed_base,
        opts.seed_base + opts.runs as u64 - 1,
        execs_cap(opts.caps(false).1),
        opts.max_time.as_secs_f64(),
        if opts.criterion == "branch" {
            "branch-outcome".to_string()
        } else {
            opts.criterion.clone()
        }
    );
    let has_peer = opts
        .tools
        .iter()
        .any(|t| tools::by_name(t, opts.peer_encoding).is_ok_and(|t| t.is_peer()));
    let has_fuzz = opts
        .tools
        .iter()
        .any(|t| fuzz::Fuzz::by_name(t, opts.peer_encoding).is_some());
    if has_peer || has_fuzz {
        let (runs, execs, time) = opts.caps(true);
        let _ = writeln!(
            s,
            "{}{} harnesses ({}); {}.\n",
            if has_peer {
                format!("Peers (libFuzzer, AFL++): {runs} runs per cell, caps of {} and {} s per run; ", execs_cap(execs), time.as_secs_f64())
            } else {
                String::new()
            },
            match opts.peer_encoding {
                PeerEncoding::Raw => "raw-bytes",
                PeerEncoding::Mapped => "mapped",
                PeerEncoding::Bytes => "bytes",
            },
            match opts.peer_encoding {
                PeerEncoding::Raw => "parameters over their type's whole range are read from the bytes as they are; declared ranges are mapped",
                PeerEncoding::Mapped => "every parameter is mapped onto its declared range",
                PeerEncoding::Bytes => "every parameter is read from the bytes as they are, declared ranges ignored; a string is its bytes up to the first NUL or its maximum length",
            },
            if opts.zero_seed {
                "every fuzzer (the peers and the `fuzz` tools) starts from one all-zero input of the harness's length"
            } else {
                "every fuzzer starts from the run's starting input, the one every tool gets"
            }
        );
    }
    let metric = |s: &mut String, title: &str, f: &dyn Fn(&Cell) -> String| {
        let _ = writeln!(s, "## {title}\n");
        let _ = writeln!(s, "| program | {} |", tools.join(" | "));
        let _ = writeln!(s, "|---|{}", "---:|".repeat(tools.len()));
        let mut programs: Vec<&String> = Vec::new();
        for c in cells {
            if !programs.contains(&&c.program) {
                programs.push(&c.program);
            }
        }
        for p in programs {
            let row: Vec<String> = tools
                .iter()
                .map(|t| {
                    cells
                        .iter()
                        .find(|c| &c.program == p && &c.tool == t)
                        .map(f)
                        .unwrap_or_default()
                })
                .collect();
            let _ = writeln!(s, "| {p} | {} |", row.join(" | "));
        }
        s.push('\n');
    };
    metric(&mut s, "SR: success rate", &|c| {
        format!("{:.0}%", c.sr * 100.0)
    });
    metric(
        &mut s,
        "Median executions to full feasible coverage (successful runs)",
        &|c| fmt_opt(c.median_executions, 0),
    );
    metric(
        &mut s,
        "AE: mean executions, failures counted at the cap",
        &|c| format!("{:.1}", c.ae),
    );
    metric(&mut s, "Median seconds to full feasible coverage", &|c| {
        fmt_opt(c.median_seconds, 3)
    });
    metric(
        &mut s,
        "MC: maximum coverage (outcomes covered / feasible / total)",
        &|c| format!("{}/{}/{}", c.mc, c.feasible, c.total),
    );
    metric(&mut s, "Executions per second", &|c| {
        format!("{:.0}", c.exec_per_sec)
    });
    if cells.iter().any(|c| c.mean_sequences > 0.0)
        || opts.programs.iter().any(|p| !p.targets.is_empty())
        || opts.criterion != "branch"
    {
        metric(
            &mut s,
            "Mean fitness evaluations (all runs; executions + cache hits)",
            &|c| format!("{:.0}", c.mean_evaluations),
        );
        metric(&mut s, "Mean seconds per run", &|c| {
            format!("{:.2}", c.mean_seconds)
        });
        metric(&mut s, "Mean event sequences tried (chaining)", &|c| {
            format!("{:.1}", c.mean_sequences)
        });
    }
    let failed: Vec<&RunRecord> = results
        .records
        .iter()
        .filter(|r| !r.success && !r.missed.is_empty())
        .collect();
    if !failed.is_empty() {
        let _ = writeln!(
            s,
            "## Runs that missed full feasible coverage, and the goals they left uncovered
"
        );
        let _ = writeln!(
            s,
            "| program | tool | seed | covered | goals left uncovered |\n|---|---|---:|---:|---|"
        );
        for r in failed {
            let mut goals = r
                .missed
                .iter()
                .take(MISSED_SHOWN)
                .map(|g| format!("`{g}`"))
                .collect::<Vec<_>>()
                .join(", ");
            if r.missed.len() > MISSED_SHOWN {
                let _ = write!(goals, " and {} more", r.missed.len() - MISSED_SHOWN);
            }
            let _ = writeln!(
                s,
                "| {} | {} | {} | {}/{} | {goals} |",
                r.program, r.tool, r.seed, r.covered, r.feasible
            );
        }
        s.push('\n');
    }
    let with_paper: Vec<&BenchProgram> = opts
        .programs
        .iter()
        .filter(|p| !p.paper.is_empty())
        .collect();
    if !with_paper.is_empty() {
        let _ = writeln!(s, "## The papers' own figures for these programs\n");
        let _ = writeln!(s, "They measure other things (a path, or one target branch, not full branch coverage), so they sit \
                             beside the table for orientation, not as a like-for-like comparison.\n");
        let _ = writeln!(s, "| program | source | figure |\n|---|---|---:|");
        for p in with_paper {
            for (k, v) in &p.paper {
                let _ = writeln!(s, "| {} | {k} | {v} |", p.name);
            }
        }
        s.push('\n');
    }
    if !results.truths.is_empty() {
        let _ = writeln!(
            s,
            "## Ground truth: the claimed feasible counts, checked with llvm-cov\n"
        );
        let _ = writeln!(
            s,
            "The union of every input any tool kept, replayed in a `clang-22 -fprofile-instr-generate \
             -fcoverage-mapping` build (see `src/bench/truth.rs` for the units).\n"
        );
        let _ = writeln!(s, "| program | claimed feasible / total | union covers (evotest probes) | union covers (llvm-cov) | verdict |");
        let _ = writeln!(s, "|---|---:|---:|---:|---|");
        for t in &results.truths {
            let _ = writeln!(
                s,
                "| {} | {}/{} | {} | {}/{} | {} |",
                t.program,
                t.claimed,
                t.total,
                t.union_covered,
                t.llvm_covered,
                t.llvm_total,
                t.verdict
            );
        }
        s.push('\n');
    }
    let _ = writeln!(s, "## Coverage against executions\n");
    for p in &opts.programs {
        let _ = writeln!(s, "![{0}]({1}-{0}.svg)", p.name, opts.name);
    }
    s
}

fn write_results(opts: &BenchOptions, results: &Results) -> Result<()> {
    let (records, cells) = (&results.records, &results.cells);
    std::fs::create_dir_all(&opts.out)?;
    for p in &opts.programs {
        let rs: Vec<&RunRecord> = records.iter().filter(|r| r.program == p.name).collect();
        plot::coverage(
            &opts.out.join(format!("{}-{}.svg", opts.name, p.name)),
            p,
            &rs,
            opts.max_execs,
        )?;
    }
    let command = std::env::args().collect::<Vec<_>>().join(" ");
    let md = markdown(opts, results, &command);
    crate::util::write_atomic(&opts.out.join(format!("{}.md", opts.name)), md.as_bytes())?;
    let json = serde_json::json!({
        "name": opts.name,
        "command": command,
        "runs": opts.runs,
        "max_execs": opts.max_execs,
        "max_seconds": opts.max_time.as_secs_f64(),
        "peer_runs": opts.peer_runs,
        "peer_max_execs": opts.peer_max_execs,
        "peer_max_seconds": opts.peer_max_time.as_secs_f64(),
        "peer_encoding": opts.peer_encoding,
        "zero_seed": opts.zero_seed,
        "criterion": opts.criterion,
        "population": opts.population,
        "generations": opts.generations,
        "cells": cells,
        "ground_truth": results.truths,
        "records": records,
    });
    crate::util::write_atomic(
        &opts.out.join(format!("{}.json", opts.name)),
        serde_json::to_string_pretty(&json)?.as_bytes(),
    )?;
    Ok(())
}
