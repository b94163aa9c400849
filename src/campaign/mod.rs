//! Campaigns: one `evotest run` (branch coverage of a function) wires target → criterion → goals
//! → search → [`Suite`]; [`path`] does the same for `evotest path`, one path at a time. Reporting
//! is left to [`crate::report`], so that whatever a search found is written even when it ends
//! with an error.

pub mod minimize;
pub mod path;
pub mod verify;

use crate::chaining::{ChainConfig, Chained, Chaining};
use crate::fitness::{self, Analysis, Criterion, Goal};
use crate::input::{InitMode, Input};
use crate::observe::Observer;
use crate::path::base::{program_key, PathLog, SolutionsBase, FILE_NAME};
use crate::report::journal::{self, Journal};
use crate::search::{self, drive, Algorithm, Budget, SearchConfig, SearchContext};
use crate::suite::{RunInfo, Suite};
use crate::target::{self, Target, TargetOptions};
use anyhow::Result;
use rand::SeedableRng;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Most stored inputs a branch-coverage run evaluates from the solutions base.
pub const MAX_REUSED_INPUTS: usize = 1000;

/// Everything that defines a run: the target, and how to search it.
#[derive(Clone, Debug)]
pub struct RunOptions {
    pub target: TargetOptions,
    pub algorithm: String,
    pub criterion: String,
    pub seed: u64,
    pub budget: Budget,
    pub init: InitMode,
    pub search: SearchConfig,
    pub chain: ChainConfig,
    /// An input to evaluate first, before the algorithm runs (benchmarks give every tool the same
    /// starting input).
    pub seed_input: Option<Input>,
    /// Only these goals (the criterion's `--target` specs); empty = all of the criterion's.
    pub targets: Vec<String>,
    /// Use the solutions base in the output directory (Bueno & Jino 2002, §8): evaluate its inputs
    /// before the search, and record the paths of this run's tests in it afterwards.
    pub reuse: bool,
    /// Journal every kept input in the output directory as it is found
    /// ([`crate::report::journal`]), so that a killed run loses nothing.
    pub journal: bool,
    /// Evaluate the inputs of the output directory's journal first (continue a killed run).
    pub resume: bool,
    /// Replay kept inputs in a fresh process before the suite is written ([`verify`]).
    pub verify: bool,
}

impl RunOptions {
    /// Defaults for `source` and `function`: AVM, branch coverage, seed 0, 100,000 executions or
    /// 60 s, biased initialisation, chaining when plain search stalls.
    pub fn new(target: TargetOptions) -> RunOptions {
        RunOptions {
            target,
            algorithm: search::ALGORITHMS[0].name.to_string(),
            criterion: fitness::CRITERIA[0].name.to_string(),
            seed: 0,
            budget: Budget {
                max_execs: Some(100_000),
                max_time: Some(Duration::from_secs(60)),
            },
            init: InitMode::Biased,
            search: SearchConfig::default(),
            chain: ChainConfig::default(),
            seed_input: None,
            targets: vec![],
            reuse: false,
            journal: false,
            resume: false,
            verify: true,
        }
    }

    fn info(&self) -> RunInfo {
        RunInfo {
            sources: self.target.sources.clone(),
            function: self.target.function.clone(),
            algorithm: self.algorithm.clone(),
            criterion: self.criterion.clone(),
            seed: self.seed,
            budget: self.budget,
            timeout: self.target.timeout,
            memory_limit: self.target.rss_limit_mb << 20,
            file_limit: self.target.file_limit_mb << 20,
            out_dir: self.target.out_dir.clone(),
        }
    }
}

/// Build the target and search. An error during the search is kept in [`Suite::error`].
///
/// Errors: bad options or a target that does not build (one line each).
pub fn run(
    opts: &RunOptions,
    observer: &mut dyn Observer,
    interrupt: &AtomicBool,
) -> Result<Suite> {
    search::algorithm_or_error(&opts.algorithm)?;
    fitness::criterion(&opts.criterion)?;
    let mut target = target::build(&opts.target)?;
    search(&mut target, opts, observer, interrupt)
}

/// A note for branch coverage: the atomic conditions of `&&`/`||` decisions, in the functions
/// whose branches are goals, that have no branch of their own (a loop condition or a value that
/// clang lowers to a `phi`, Anjum & Ryan 2021's conditions; [`crate::fitness::cdc`]). They are
/// no goals of `--criterion branch`, while llvm-cov's branch coverage counts each condition of a
/// `&&`/`||`, so a full branch coverage can leave one of them one-sided. `None` when there are none.
pub fn conditions_without_goals(
    program: &crate::program::Program,
    goals: &[Box<dyn fitness::Goal>],
) -> Option<String> {
    use evotest_abi::meta::SiteKind;
    let functions: std::collections::HashSet<usize> = goals
        .iter()
        .filter_map(|g| g.target_outcome())
        .filter_map(|(s, _)| program.sites.get(s as usize))
        .map(|s| s.function)
        .collect();
    let lines: Vec<u32> = program
        .decisions
        .iter()
        .filter(|d| functions.contains(&d.function))
        .flat_map(|d| d.conditions.iter())
        .filter_map(|&c| program.sites.get(c as usize))
        .filter(|s| s.meta.kind == SiteKind::Cond)
        .map(|s| s.meta.line)
        .collect();
    if lines.is_empty() {
        return None;
    }
    let mut shown: Vec<String> = lines.iter().map(|l| format!("L{l}")).collect();
    shown.dedup();
    let n = lines.len();
    Some(format!(
        "conditions: {n} condition{} of `&&`/`||` in a loop condition or a value ({}) {} no branch of {} own, so {} outcomes are no goals of branch coverage, where llvm-cov counts them; --criterion condition-decision makes them goals",
        if n == 1 { "" } else { "s" },
        shown.join(", "),
        if n == 1 { "has" } else { "have" },
        if n == 1 { "its" } else { "their" },
        if n == 1 { "its" } else { "their" },
    ))
}

/// A note naming the computed gotos (`goto *tbl[op]`) of the sources' own functions: the labels
/// they may reach are no goals, so what only those labels run is outside the coverage figure
/// (a robustness check found "100%" with three of four targets never run); `None` without any.
fn indirect_jump_note(program: &crate::program::Program) -> Option<String> {
    let jumps: Vec<String> = program
        .functions
        .iter()
        .filter(|f| {
            !f.meta.indirect_jumps.is_empty() && !crate::program::is_library_file(&f.meta.file)
        })
        .map(|f| {
            let lines: Vec<String> = f
                .meta
                .indirect_jumps
                .iter()
                .map(|l| format!("L{l}"))
                .collect();
            format!("`{}` ({})", f.display_name(), lines.join(", "))
        })
        .collect();
    (!jumps.is_empty()).then(|| {
        format!(
            "computed goto: {} jump{} to a label's address; the labels such a jump reaches are no goals, so what only they run is outside the figure",
            jumps.join(", "),
            if jumps.len() == 1 { "s" } else { "" }
        )
    })
}

/// The functions (indices into [`crate::program::Program::functions`]) that the operations
/// `ops` of an API are or reach: the scope of its goals.
fn api_scope(
    program: &crate::program::Program,
    ops: &[String],
) -> std::collections::BTreeSet<usize> {
    let mut scope = std::collections::BTreeSet::new();
    for name in ops {
        if let Some(i) = program.functions.iter().position(|f| &f.meta.name == name) {
            scope.extend(program.reachable_from(i));
        }
    }
    scope
}

/// A note naming the functions of an API's sources that have branches no operation reaches (left
/// out: a callback parameter, a `FILE *`), with their branch outcomes, which the coverage figure
/// does not count (llvm-cov's report of the sources does); `None` when there are none.
fn api_unreached_note(program: &crate::program::Program, ops: &[String]) -> Option<String> {
    let reached = api_scope(program, ops);
    let (mut names, mut outcomes) = (Vec::new(), 0u32);
    for (i, f) in program.functions.iter().enumerate() {
        if reached.contains(&i) || crate::program::is_library_file(&f.meta.file) {
            continue;
        }
        let n: u32 = f
            .block_site
            .iter()
            .flatten()
            .chain(f.block_selects.iter().flatten())
            .map(|&s| program.sites[s as usize].meta.n_outcomes)
            .sum();
        if n > 0 && f.meta.name != "main" {
            names.push(format!("`{}`", f.display_name()));
            outcomes += n;
        }
    }
    (!names.is_empty()).then(|| {
        format!(
            "api: {outcomes} branch outcome{} of {} (reached by no operation) {} not in the figure, which llvm-cov's report of the sources counts",
            if outcomes == 1 { "" } else { "s" },
            names.join(", "),
            if outcomes == 1 { "is" } else { "are" }
        )
    })
}

/// A criterion and the goals it made.
pub type Goals = (Box<dyn Criterion>, Vec<Box<dyn Goal>>);

/// The criterion of `opts` and its goals in the function under test and the functions it calls,
/// narrowed to `opts.targets`.
///
/// Errors: an unknown criterion, or a `--target` that names no goal.
pub fn goals(target: &Target, opts: &RunOptions) -> Result<Goals> {
    let criterion = fitness::criterion(&opts.criterion)?;
    let program = &target.program;
    let mut scope = match (&opts.target.api, target.frontend.called_functions()) {
        // API testing: the operations and what they call (not a function `--api=GLOBS` left
        // out that no operation calls: nothing could reach its branches)
        (Some(_), Some(ops)) => api_scope(program, &ops).into_iter().collect(),
        (Some(_), None) => (0..program.functions.len()).collect(),
        (None, _) => program.reachable_from(target.function_index()?),
    };
    if opts.target.rust.is_some() {
        // the crate's own functions: not the std instances it holds
        let root = target.function_index()?;
        scope.retain(|&f| f == root || target::is_user_rust_function(&program.functions[f].meta));
    } else if opts.target.api.is_none() {
        // the sources' own functions: not what system headers define in them (libstdc++'s
        // `std::string` internals, a header's inline helper), whose branches a user cannot act on
        // and llvm-cov's report of the sources does not count
        let root = target.function_index()?;
        scope.retain(|&f| {
            f == root || !crate::program::is_library_file(&program.functions[f].meta.file)
        });
    }
    let goals = criterion.goals(program, &Analysis::new(program), &scope);
    let goals: Vec<Box<dyn Goal>> = match &opts.target.rust {
        Some(r) if r.checks == crate::frontend::rust::RustChecks::Ignore => goals
            .into_iter()
            .filter(|g| rust_check_of(program, g.as_ref()).is_none())
            .collect(),
        _ => goals,
    };
    let keep = criterion.select(program, &goals, &opts.targets)?;
    let goals = goals
        .into_iter()
        .zip(keep)
        .filter(|(_, k)| *k)
        .map(|(g, _)| g)
        .collect();
    Ok((criterion, goals))
}

/// The values of `text`'s literals that read as characters: character literals (`'\n'`),
/// hexadecimal literals up to `0xff` (`0x80`, `0x1f`), decimal ones from 127 to 255 (a smaller
/// decimal number is more often a count than a character) and from -128 to -1 (a byte above
/// 0x7f of a signed `char`, as the condition of `s[0] == '\xC3'` reads: `s[0] == -61`).
fn character_like_literals(text: &str) -> Vec<u8> {
    use crate::program::{Literal, LiteralForm};
    let byte = |v: i128| {
        u8::try_from(v)
            .ok()
            .or_else(|| i8::try_from(v).ok().map(|b| b as u8))
    };
    crate::program::literals_with_form(text)
        .into_iter()
        .filter_map(|(l, form)| match (l, form) {
            (Literal::Int(v), LiteralForm::Char) => byte(v),
            (Literal::Int(v), LiteralForm::Hex) => u8::try_from(v).ok(),
            (Literal::Int(v), LiteralForm::Decimal)
                if (127..=255).contains(&v) || (-128..=-1).contains(&v) =>
            {
                byte(v)
            }
            _ => None,
        })
        .collect()
}

/// The condition of outcome `k` of `site` as the alphabet note reads it: a `switch` case on a
/// string's character (`switch (s[0])`, `switch (*p)`) as the compare it is, its value in hex
/// when it fits a byte (`s[0] == 0x09` for `case '\t'`, which the case label shows as 9);
/// otherwise the site's condition.
fn switch_case_text(site: &evotest_abi::meta::SiteMeta, k: u32) -> String {
    let cond = &site.cond;
    let on_char = cond.ends_with(']') || cond.starts_with('*');
    match (k as usize)
        .checked_sub(1)
        .and_then(|i| site.case_values.get(i))
    {
        Some(&v) if on_char && (-128..=255).contains(&v) => format!("{cond} == 0x{:02x}", v as u8),
        _ => cond.clone(),
    }
}

/// A note for outcomes set aside as suspected infeasible whose conditions (`texts`) compare
/// with a character that no string of `domain` can hold (a `'\n'` outside the default printable
/// alphabet): with it, the size hint alone misleads (a longer string still has no newline).
fn alphabet_note(texts: &[String], domain: &crate::input::Domain) -> Option<String> {
    use crate::input::Role;
    let strings: Vec<(&str, &Vec<u8>)> = domain
        .fields
        .iter()
        .filter_map(|f| match &f.role {
            Role::Char { alphabet } => {
                Some((f.name.split('[').next().unwrap_or(&f.name), alphabet))
            }
            _ => None,
        })
        .collect();
    let (name, _) = *strings.first()?;
    let mut missing: Vec<u8> = texts
        .iter()
        .flat_map(|t| character_like_literals(t))
        .filter(|c| *c != 0 && strings.iter().all(|(_, a)| !a.contains(c)))
        .collect();
    missing.sort_unstable();
    missing.dedup();
    if missing.is_empty() {
        return None;
    }
    let shown: Vec<String> = missing
        .iter()
        .map(|&c| match c {
            b'\t' | b'\n' | b'\r' | b' '..=b'~' => format!("'{}'", (c as char).escape_default()),
            _ => format!("0x{c:02x}"),
        })
        .collect();
    let alphabet: String = missing
        .iter()
        .map(|&c| (c as char).escape_default().to_string())
        .collect();
    let max = domain
        .fields
        .iter()
        .filter(|f| matches!(f.role, Role::Char { .. }) && f.name.starts_with(&format!("{name}[")))
        .count();
    if missing
        .iter()
        .any(|&c| !(c.is_ascii_graphic() || c == b' ' || matches!(c, b'\t' | b'\n' | b'\r')))
    {
        // bytes no printable alphabet names: every byte but NUL
        return Some(format!(
            "infeasible?: the outcomes not covered compare with {}, which no string's alphabet holds (printable ASCII unless --string gives one): widen it, e.g. --string '{name}={max}:\\x01-\\xff'",
            shown.join(", ")
        ));
    }
    Some(format!(
        "infeasible?: the outcomes set aside compare with {}, which no string's alphabet holds (printable ASCII unless --string gives one): add it, e.g. --string '{name}={max}: -~{alphabet}'",
        shown.join(", ")
    ))
}

/// The compiler-inserted check (overflow, bounds, `unwrap`…) that `goal` belongs to, if any: an
/// outcome of a two-way check site (its failing outcome, or the check passing), or the failing
/// outcome of a `switch` check (a `match` on an enum whose default is `unreachable`: its cases
/// are the `match`'s arms, real decisions, and stay goals).
pub fn rust_check_of<'a>(
    program: &'a crate::program::Program,
    goal: &dyn Goal,
) -> Option<&'a evotest_abi::meta::CheckMeta> {
    let (site, outcome) = goal.target_outcome()?;
    let meta = &program.sites[site as usize].meta;
    meta.check
        .as_ref()
        .filter(|c| c.is_compiler_inserted() && (meta.n_outcomes <= 2 || c.outcome == outcome))
}

/// The compiler-inserted check sites of the crate's functions in `scope` of the function under
/// test, by kind: `(kind, sites)`, for the report of a Rust run.
pub fn rust_check_sites(target: &Target) -> Vec<(String, usize)> {
    let program = &target.program;
    let Ok(root) = target.function_index() else {
        return vec![];
    };
    let scope = program.reachable_from(root);
    let mut counts = std::collections::BTreeMap::new();
    for s in &program.sites {
        if !scope.contains(&s.function)
            || !target::is_user_rust_function(&program.functions[s.function].meta)
        {
            continue;
        }
        if let Some(c) = s.meta.check.as_ref().filter(|c| c.is_compiler_inserted()) {
            *counts.entry(c.kind.clone()).or_insert(0usize) += 1;
        }
    }
    counts.into_iter().collect()
}

/// Run `algorithm` in `cx`: a per-goal algorithm under [`drive`], wrapped in the chaining
/// approach unless it is off. Returns the chaining reports.
///
/// Errors: only when the executor breaks.
pub fn run_algorithm(
    cx: &mut SearchContext,
    algorithm: Algorithm,
    chain: Option<(std::sync::Arc<crate::chaining::Chain>, ChainConfig)>,
) -> Result<Vec<crate::chaining::ChainReport>> {
    match algorithm {
        Algorithm::Whole(mut s) => s.run(cx).map(|()| vec![]),
        Algorithm::PerGoal(mut g) => match chain.filter(|(_, c)| c.mode != Chaining::Off) {
            Some((chain, config)) => {
                let mut chained = Chained::new(g.as_mut(), chain, config);
                let r = drive(cx, &mut chained);
                let reports = std::mem::take(&mut chained.reports);
                r.map(|()| reports)
            }
            None => drive(cx, g.as_mut()).map(|()| vec![]),
        },
    }
}

/// Search on an already built target (so that benchmarks build each program once), with
/// `opts`' algorithm, criterion, seed, budget and configuration.
///
/// Errors: bad options (unknown algorithm or criterion, a bad `--target`), an unreadable
/// solutions base. An error of the search itself is kept in [`Suite::error`].
pub fn search(
    target: &mut Target,
    opts: &RunOptions,
    observer: &mut dyn Observer,
    interrupt: &AtomicBool,
) -> Result<Suite> {
    let (criterion, goals) = goals(target, opts)?;
    let rows = criterion.rows(&target.program, &goals);
    let spec = search::algorithm_for(&opts.algorithm, opts.target.api.is_some())?;
    let rng = rand_chacha::ChaCha8Rng::seed_from_u64(opts.seed);
    let mut domain = target.frontend.domain().clone();
    domain.init = opts.init;
    let chain = (opts.chain.mode != Chaining::Off).then(|| (target.chain(), opts.chain));
    let mut base = match opts.reuse {
        true => {
            let key = program_key(&target.program, &opts.target.function, &domain);
            Some(SolutionsBase::open(
                &opts.target.out_dir.join(FILE_NAME),
                &key,
                &opts.target.function,
            )?)
        }
        false => None,
    };
    let decisions = match base {
        Some(_) => Some(crate::path::Decisions::of(
            &target.program,
            target.function_index()?,
        )),
        None => None,
    };
    let out = opts.target.out_dir.clone();
    let resumed = if opts.resume {
        journal::resume(&out)?
    } else {
        vec![]
    };
    let mut journal = if opts.journal {
        Some(Journal::open(&out)?)
    } else {
        None
    };
    let t0 = Instant::now();
    let restarts_before = target.executor.restarts();
    let (mut archive, given_up, executions, cache_hits, mut error, chain_reports, exhausted) = {
        let mut cx = SearchContext::new(
            &domain,
            &goals,
            rng,
            opts.search.clone(),
            opts.budget,
            target.executor.as_mut(),
            interrupt,
        );
        cx.set_site_outcomes(target.program.site_outcomes());
        cx.observe(observer);
        if let Some(j) = journal.as_mut() {
            cx.observe(j);
        }
        let mut error = None;
        for e in &resumed {
            if cx.finished() || error.is_some() {
                break;
            }
            error = cx.evaluate(&e.input).err().map(|e| format!("{e:#}"));
        }
        if let Some(b) = &base {
            for s in b.entries().iter().take(MAX_REUSED_INPUTS) {
                if cx.finished() || error.is_some() {
                    break;
                }
                error = cx.evaluate(&s.input).err().map(|e| format!("{e:#}"));
            }
        }
        if let Some(x) = &opts.seed_input {
            if !cx.finished() && error.is_none() {
                error = cx.evaluate(x).err().map(|e| format!("{e:#}"));
            }
        }
        let mut reports = Vec::new();
        if error.is_none() {
            match run_algorithm(&mut cx, (spec.build)(&opts.search), chain) {
                Ok(r) => reports = r,
                Err(e) => error = Some(format!("{e:#}")),
            }
        }
        if error.is_none() && goals.is_empty() && cx.archive().tests.is_empty() && !cx.interrupted()
        {
            // a function without a branch: one input, which the archive keeps as a test of the
            // function's result (Archive::add_test)
            let x = cx.random_input();
            error = cx.evaluate(&x).err().map(|e| format!("{e:#}"));
        }
        // the search's executions: the replays below are the solutions base's bookkeeping, not
        // part of the budget (--max-execs 5000 reported 5,004)
        let searched = cx.executions();
        if let (Some(b), Some(d), None) = (base.as_mut(), decisions, &error) {
            // the paths of the suite's tests, for later runs (a few executions with the ordered trace)
            let mut log = PathLog::new(std::sync::Arc::new(d));
            cx.set_ordered_trace(true);
            let inputs: Vec<Input> = cx.archive().tests.iter().map(|t| t.input.clone()).collect();
            for x in inputs {
                match cx.evaluate(&x) {
                    Ok(ev) => log.log(&ev.input, &ev.trace),
                    Err(e) => {
                        error = Some(format!("{e:#}"));
                        break;
                    }
                }
            }
            for (x, p) in log.drain() {
                b.record(&x, &p);
            }
        }
        let given_up = cx.given_up();
        (
            cx.take_archive(),
            given_up,
            searched,
            cx.cache_hits(),
            error,
            reports,
            cx.exhausted(),
        )
    };
    if error.is_none() {
        if opts.resume {
            journal::resumed(&out);
        }
        if let Some(e) = journal.as_ref().and_then(|j| j.error.clone()) {
            eprintln!("warning: the journal could not be written: {e}");
        }
    }
    let mut shortened = None;
    let mut observer_calls = 0;
    if let (Some(m), None) = (domain.sequence.clone(), &error) {
        // a tenth of --max-time (at least a second) after the search, so that a run ends near it
        let deadline = opts
            .budget
            .max_time
            .map(|t| Instant::now() + (t / 10).max(Duration::from_secs(1)));
        match minimize::shorten(
            &m,
            target.executor.as_mut(),
            &goals,
            &mut archive,
            interrupt,
            deadline,
        ) {
            Ok(s) => shortened = Some(s),
            Err(e) => error = Some(format!("shortening the call sequences: {e:#}")),
        }
        if error.is_none() {
            match minimize::append_observers(
                &m,
                target.executor.as_mut(),
                &goals,
                &mut archive,
                interrupt,
                deadline,
            ) {
                Ok(n) => observer_calls = n,
                Err(e) => error = Some(format!("appending observer calls: {e:#}")),
            }
        }
    }
    let mut verification = None;
    if opts.verify && error.is_none() {
        match verify::verify(target, &goals, &mut archive, interrupt) {
            Ok(v) => verification = Some(v),
            Err(e) => error = Some(format!("checking the suite in a fresh process: {e:#}")),
        }
    }
    let given_up: Vec<_> = given_up
        .into_iter()
        .filter(|&g| !archive.is_covered(g))
        .collect();
    let elapsed = t0.elapsed();
    if let Some(b) = base.as_mut() {
        b.save()?;
    }
    let mut notes = target.frontend.notes();
    let caps = target.frontend.default_caps();
    if !given_up.is_empty() && !caps.is_empty() {
        // an outcome that needs a 20-character string looks infeasible under the default 16
        notes.push(format!(
            "infeasible?: {} outcome{} set aside may need a larger input than the default sizes allow: {}",
            given_up.len(),
            if given_up.len() == 1 { "" } else { "s" },
            caps.join(", ")
        ));
    }
    // the outcomes not covered, set aside or not (a run that spent its budget sets none aside)
    let uncovered: Vec<usize> = (0..goals.len())
        .filter(|&g| !archive.is_covered(g))
        .collect();
    if !uncovered.is_empty() {
        // the conditions' own text (a description also holds line numbers)
        let texts: Vec<String> = uncovered
            .iter()
            .filter_map(|&g| goals.get(g))
            .map(|g| match g.target_outcome() {
                Some((site, k)) => switch_case_text(&target.program.sites[site as usize].meta, k),
                None => g.describe(&target.program),
            })
            .collect();
        if let Some(n) = alphabet_note(&texts, target.frontend.domain()) {
            notes.push(n);
        }
    }
    if observer_calls > 0 {
        notes.push(format!(
            "api: {observer_calls} call{} of observers (one handle in, a value out) appended to the kept tests, whose results tests.c checks (RANDOOP's regression oracle, Pacheco 2009)",
            if observer_calls == 1 { "" } else { "s" }
        ));
    }
    if opts.target.api.is_some()
        && !opts.search.keep_going
        && uncovered.is_empty()
        && error.is_none()
        && !interrupt.load(Ordering::Relaxed)
    {
        // Randoop's product is also the failing sequences: say that none were sought past this
        notes.push(format!(
            "api: the search stopped after {} execution{} ({}): faults that other sequences may meet were not looked for; --keep-going generates sequences until the budget ends",
            executions,
            if executions == 1 { "" } else { "s" },
            if goals.is_empty() {
                "the API has no branch to cover"
            } else {
                "every branch outcome covered"
            }
        ));
    }
    if let Some(n) = indirect_jump_note(&target.program) {
        notes.push(n);
    }
    if let (Some(_), Some(ops)) = (&opts.target.api, target.frontend.called_functions()) {
        if let Some(n) = api_unreached_note(&target.program, &ops) {
            notes.push(n);
        }
    }
    if let Some(s) = shortened.filter(|s| s.calls_before > 0) {
        notes.push(format!(
            "api: the kept sequences were shortened from {} to {} calls in {} executions after the search (Pacheco 2009, §6.1)",
            s.calls_before, s.calls_after, s.executions
        ));
    }
    if let Some(r) = &opts.target.rust {
        let checks = rust_check_sites(target);
        let n: usize = checks.iter().map(|c| c.1).sum();
        let kinds: Vec<String> = checks.iter().map(|(k, c)| format!("{k} {c}")).collect();
        if n > 0 {
            notes.push(match r.checks {
                crate::frontend::rust::RustChecks::Ignore => format!(
                    "rust checks: {n} compiler-inserted check site{} ({}) left out of the coverage figure{} (--rust-checks target makes them goals); panics found are faults",
                    if n == 1 { "" } else { "s" },
                    kinds.join(", "),
                    if checks.iter().any(|(k, _)| k == "unreachable") { " (of a `match` with an unreachable default, only that default)" } else { "" }
                ),
                crate::frontend::rust::RustChecks::Target => {
                    format!("rust checks: {n} compiler-inserted check site{} ({}) are goals", if n == 1 { "" } else { "s" }, kinds.join(", "))
                }
            });
        }
    }
    if opts.criterion == "branch" {
        if let Some(n) = conditions_without_goals(&target.program, &goals) {
            notes.push(n);
        }
    }
    Ok(Suite {
        notes,
        info: opts.info(),
        program: target.program.clone(),
        frontend: target.frontend.clone(),
        goals,
        rows,
        archive,
        given_up,
        executions,
        cache_hits,
        elapsed,
        exe: target.exe.clone(),
        error,
        interrupted: interrupt.load(Ordering::Relaxed),
        exhausted,
        verification,
        fork_server_restarts: target.executor.restarts() - restarts_before,
        inputs_per_process: target.executor.inputs_per_process(),
        chain_reports,
    })
}

#[cfg(test)]
mod note_tests {
    #[test]
    fn character_like_literals_are_chars_hex_bytes_and_high_decimals() {
        let mut v = super::character_like_literals(
            "c >= 0x80 && c != '\\n' && n > 20 && d == 200 && x1 == 0x1ff && s == \"0x41\"",
        );
        v.sort_unstable();
        assert_eq!(v, vec![b'\n', 0x80, 200]);
        // a signed char's byte above 0x7f, as the condition text shows it
        assert_eq!(
            super::character_like_literals("s[0] == -61 && n > -5000"),
            vec![0xc3]
        );
    }
}
