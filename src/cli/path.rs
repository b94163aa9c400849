//! `evotest path`: parse or enumerate the target paths, then search for each in turn
//! ([`crate::campaign::path`]), and report.

use super::{budget, exit_code, install_sigint, prepare_output, replaced, PathArgs, Preset};
use crate::campaign::path::{self as driver, PathOutcome, PathResult, PathSearch};
use crate::fitness::path::PathFitness;
use crate::path::base::{program_key, SolutionsBase, FILE_NAME};
use crate::path::{check, enumerate, parse, path_text, Decisions, Step};
use crate::program::{self, Program};
use crate::report::progress::ProgressMonitor;
use crate::search::{self, SearchConfig};
use crate::suite::RunInfo;
use crate::target;
use crate::toolchain::Toolchain;
use anyhow::{anyhow, bail, Context, Result};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// `enumerate` or `enumerate:K` → K.
fn enumerate_k(s: &str) -> Result<u32> {
    match s.trim().split_once(':') {
        None if s.trim() == "enumerate" => Ok(0),
        Some(("enumerate", k)) => k
            .trim()
            .parse()
            .map_err(|_| anyhow!("--paths {s}: K must be a number (loop iterations)")),
        _ => bail!("--paths {s}: expected enumerate or enumerate:K"),
    }
}

/// The target paths: the `--path` specs, then the enumerated ones (duplicates dropped).
fn targets(program: &Program, d: &Decisions, a: &PathArgs) -> Result<(Vec<Vec<Step>>, bool)> {
    let mut out: Vec<Vec<Step>> = Vec::new();
    for (i, spec) in a.paths.iter().enumerate() {
        let p = parse(program, d, spec).with_context(|| format!("--path #{}", i + 1))?;
        check(program, d, &p, a.prefix).with_context(|| format!("--path #{}", i + 1))?;
        out.push(p);
    }
    let mut truncated = false;
    if let Some(e) = &a.enumerate {
        let k = enumerate_k(e)?;
        let (paths, cut) = enumerate(program, d, k, a.max_paths);
        truncated = cut;
        // a set, not a scan of the list: 100,000 enumerated paths took 296 s to list
        let mut seen: std::collections::HashSet<Vec<Step>> = out.iter().cloned().collect();
        for p in paths {
            if seen.insert(p.clone()) {
                out.push(p);
            }
        }
    }
    if out.is_empty() {
        bail!("no path to search for: give --path SPEC (repeatable) or --paths enumerate[:K]");
    }
    Ok((out, truncated))
}

fn list(a: &PathArgs) -> Result<i32> {
    let t = &a.target;
    let function = t.function_name()?;
    let tc = Toolchain::locate()?;
    let dir = tempfile::tempdir()?;
    let mut metas = Vec::new();
    target::check_sources(&t.files)?;
    for (i, src) in t.files.iter().enumerate() {
        let obj = dir.path().join(format!("t{i}.o"));
        crate::compile::instrument(&tc, src, &obj, &function, &t.compile.all())?;
        metas.extend(program::read_metadata(&obj)?);
    }
    let p = Program::with_sequential_bases(metas);
    let name = target::linkage_name(&function);
    let (fi, _) = p.function(name).ok_or_else(|| {
        anyhow!(
            "function `{function}` not found in {}",
            t.files[0].display()
        )
    })?;
    let d = Arc::new(Decisions::of(&p, fi));
    let (paths, truncated) = targets(&p, &d, a)?;
    for (i, q) in paths.iter().enumerate() {
        let loops = crate::path::loop_iterations(q);
        let l = if loops > 0 {
            format!(", {loops} repeated")
        } else {
            String::new()
        };
        outln!(
            "# path {} ({}{l})\n{}",
            i + 1,
            decisions_text(q.len()),
            path_text(&p, q)
        );
    }
    if truncated {
        eprintln!("note: stopped at --max-paths {}", a.max_paths);
    }
    Ok(0)
}

/// "1 decision", "5 decisions".
fn decisions_text(n: usize) -> String {
    format!("{n} decision{}", if n == 1 { "" } else { "s" })
}

fn describe(r: &PathResult) -> String {
    match &r.outcome {
        PathOutcome::Covered { reused: true, .. } => "covered by an input from the solutions base".to_string(),
        PathOutcome::Covered { .. } => {
            let seeded = if r.seeded > 0 {
                format!(" (seeded with {} inputs of similar paths, up to {} decisions in common)", r.seeded, r.best_similarity)
            } else {
                String::new()
            };
            format!("covered after {} executions{seeded}", r.executions)
        }
        PathOutcome::ProbablyInfeasible { suspect_text, matched, .. } if suspect_text.is_empty() => format!(
            "PROBABLY INFEASIBLE after {} executions: the inputs that matched all {matched} decisions went on to take more (a path is the whole sequence of the function's decisions in an execution, its recursive calls' included: --prefix asks only for its start)",
            r.executions
        ),
        PathOutcome::ProbablyInfeasible { suspect_text, matched, .. } => format!(
            "PROBABLY INFEASIBLE after {} executions: no input took {suspect_text} after the first {matched} decisions",
            r.executions
        ),
        PathOutcome::Fault { exit, matched, suspect_text, .. } => format!(
            "FAULT after {} executions: the closest input ended with {exit} after the first {matched} decisions, before {suspect_text} (reproducer in faults/)",
            r.executions
        ),
        PathOutcome::Exhausted { suspect_text, matched, .. } if suspect_text.is_empty() => format!(
            "not covered: budget spent ({} executions); the closest input matched all {matched} decisions and then took more (a path is the whole sequence of the function's decisions in an execution, its recursive calls' included: --prefix asks only for its start)",
            r.executions
        ),
        PathOutcome::Exhausted { suspect_text, matched, .. } => format!(
            "not covered: budget spent ({} executions); the closest input matched {matched} decisions, then missed {suspect_text}",
            r.executions
        ),
    }
}

/// Run `evotest path`.
pub(super) fn path(a: &PathArgs, interrupted: &'static AtomicBool) -> Result<i32> {
    if a.list {
        return list(a);
    }
    let opts = a.target.options()?;
    if opts.api.is_some() {
        anyhow::bail!(
            "--api applies to `evotest run`: path testing follows the paths of one function"
        );
    }
    let (algorithm, fitness, population) = match a.preset {
        Some(Preset::BuenoJino) => (
            "bjga".to_string(),
            PathFitness::BuenoJino,
            a.population.unwrap_or(search::bjga::POPULATION),
        ),
        None => (
            a.algorithm.clone(),
            a.fitness,
            a.population.unwrap_or(SearchConfig::default().population),
        ),
    };
    search::algorithm_or_error(&algorithm)?;
    if population < 2 {
        bail!("--population {population}: a population needs at least 2 individuals");
    }
    if fitness == PathFitness::BuenoJino && algorithm != "bjga" {
        bail!("--fitness bueno-jino is relative to a population: use --algorithm bjga (or --preset bueno-jino)");
    }
    let (_lock, previous) = prepare_output(&opts.out_dir, &opts.sources, false)?;
    install_sigint();
    let t0 = Instant::now();
    let mut target = target::build(&opts)?;
    let d = driver::decisions(&target)?;
    // a function that calls itself: its frames' decisions all go into one path (Bueno & Jino's
    // paths are of one frame)
    if let Ok(f) = target.function_index() {
        let p = &target.program;
        let recursive = p.reachable_from(f).into_iter().any(|g| {
            p.functions[g]
                .meta
                .calls
                .contains(&p.functions[f].meta.name)
        });
        if recursive {
            eprintln!(
                "note: {} calls itself: a path here is every decision of an execution, its recursive calls' included, in order (--prefix matches a path's start)",
                opts.function
            );
        }
    }
    let (paths, truncated) = targets(&target.program, &d, a)?;
    replaced(previous, &opts.out_dir);
    let key = program_key(&target.program, &opts.function, target.frontend.domain());
    let base_file = opts.out_dir.join(FILE_NAME);
    let mut base = SolutionsBase::open(&base_file, &key, &opts.function)?;
    if base.skipped_lines > 0 {
        eprintln!(
            "warning: {}: skipped {} unreadable lines",
            base_file.display(),
            base.skipped_lines
        );
    }
    let ps = PathSearch {
        algorithm,
        config: SearchConfig {
            population,
            patience: a.patience,
            give_up_after: a.give_up_after,
            ..SearchConfig::default()
        },
        fitness,
        budget: budget(a.max_execs, &a.max_time)?,
        seed: a.target.seed,
        init: a.target.init,
        reuse: !a.no_reuse,
        min_similarity: a.min_similarity,
        prefix: a.prefix,
    };
    let decisions: Arc<Decisions> = d;
    let mut results = Vec::new();
    let mut error = None;
    for (i, p) in paths.iter().enumerate() {
        if interrupted.load(Ordering::Relaxed) {
            break;
        }
        let mut monitor = ProgressMonitor::new(ps.budget.max_execs);
        let mut psi = ps.clone();
        psi.seed = ps.seed.wrapping_add(i as u64);
        let r = driver::search_path(
            &mut target,
            &decisions,
            p,
            &psi,
            &mut base,
            &mut monitor,
            interrupted,
        );
        monitor.finish();
        // save after every path: a killed run keeps what it found
        base.save()?;
        match r {
            Ok(r) => {
                if !a.quiet && !a.json {
                    outln!(
                        "path {} ({}): {}",
                        i + 1,
                        decisions_text(r.length),
                        describe(&r)
                    );
                }
                results.push(r);
            }
            Err(e) => {
                error = Some(format!("{e:#}"));
                break;
            }
        }
    }
    let covered = results.iter().filter(|r| r.covered()).count();
    let infeasible = results
        .iter()
        .filter(|r| matches!(r.outcome, PathOutcome::ProbablyInfeasible { .. }))
        .count();
    std::fs::create_dir_all(&opts.out_dir)
        .with_context(|| format!("cannot create {}", opts.out_dir.display()))?;
    let json = serde_json::json!({
        "function": opts.function,
        "sources": opts.sources,
        "algorithm": ps.algorithm,
        "fitness": ps.fitness,
        "population": ps.config.population,
        "reuse": ps.reuse,
        "min_similarity": ps.min_similarity,
        "prefix": ps.prefix,
        "max_execs_per_path": ps.budget.max_execs,
        "paths_total": paths.len(),
        "paths_searched": results.len(),
        "paths_covered": covered,
        "paths_probably_infeasible": infeasible,
        "paths_with_faults": results.iter().filter(|r| matches!(r.outcome, PathOutcome::Fault { .. })).count(),
        // faults any execution of a path's search met, summed over the paths (a path whose
        // closest input ended in a fault counts in paths_with_faults)
        "faults_met": results.iter().map(|r| r.faults.len()).sum::<usize>(),
        "enumeration_truncated": truncated,
        "executions": results.iter().map(|r| r.executions).sum::<u64>(),
        "seconds": t0.elapsed().as_secs_f64(),
        "solutions_base_entries": base.len(),
        "error": error,
        "paths": results,
    });
    crate::report::write_atomic(
        &opts.out_dir.join("paths.json"),
        serde_json::to_string_pretty(&json)?.as_bytes(),
    )?;
    let info = RunInfo {
        sources: opts.sources.clone(),
        function: opts.function.clone(),
        algorithm: ps.algorithm.clone(),
        criterion: "path".into(),
        seed: ps.seed,
        budget: ps.budget,
        timeout: opts.timeout,
        memory_limit: opts.rss_limit_mb << 20,
        file_limit: opts.file_limit_mb << 20,
        out_dir: opts.out_dir.clone(),
    };
    let suite = driver::suite(&target, &decisions, info, &ps, &results, t0.elapsed());
    let test_files = crate::report::Reporter::report(&crate::report::TestFileReporter, &suite)?;
    crate::report::Reporter::report(&crate::report::json::FaultFiles, &suite)?;
    let faults = suite.archive.faults.len();
    let summary = format!(
        "covered {covered}/{} paths, {infeasible} probably infeasible; {} executions, {:.2} s; solutions base: {} paths{}",
        results.len(),
        json["executions"],
        t0.elapsed().as_secs_f64(),
        base.len(),
        if faults > 0 {
            format!(
                "; {faults} distinct fault{} met by the searches (reproducers in {})",
                if faults == 1 { "" } else { "s" },
                opts.out_dir.join("faults").display()
            )
        } else {
            String::new()
        }
    );
    if a.json {
        outln!("{}", serde_json::to_string_pretty(&json)?);
    } else {
        outln!("{summary}");
        if !a.quiet {
            outln!(
                "wrote {}, {}{}",
                opts.out_dir.join("paths.json").display(),
                base_file.display(),
                test_files
                    .iter()
                    .map(|p| format!(", {}", p.display()))
                    .collect::<String>()
            );
        }
    }
    if let Some(e) = error {
        eprintln!("error: the search stopped early: {e} (results so far were written)");
        return Ok(exit_code(1));
    }
    Ok(exit_code(0))
}
