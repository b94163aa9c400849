//! Making inputs smaller: crash minimisation (libFuzzer's `-minimize_crash=1`: a smaller input
//! that crashes the same way, here with the same raw stack) and corpus merging (libFuzzer's
//! `-merge=1`: copy into an output directory the inputs that add coverage to what it has,
//! smallest first).

use super::{corpus, Outcome, Session};
use crate::exec::ExitKind;
use crate::util::write_atomic;
use anyhow::{bail, Context, Result};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// How much a minimisation may spend.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    pub max_execs: u64,
    pub deadline: Option<Instant>,
}

/// The smallest input found by removing chunks of `data` (halving the chunk size from half the
/// input down to one byte, as delta debugging does), then any span of it (longest first, until
/// none can go), such that the input still crashes and `same(session, exit)` holds for the
/// crash, within the budget `b`.
///
/// Errors: the executor broke.
pub fn shrink(
    s: &mut Session,
    data: &[u8],
    b: &Budget,
    mut same: impl FnMut(&mut Session, ExitKind) -> bool,
) -> Result<Vec<u8>> {
    let mut best = data.to_vec();
    let first = s.executions;
    let spent = |s: &Session| {
        s.executions - first >= b.max_execs
            || b.deadline.is_some_and(|d| Instant::now() >= d)
            || s.stopped()
    };
    let mut chunk = (best.len() / 2).max(1);
    loop {
        let mut i = 0;
        while i < best.len() {
            if spent(s) {
                return Ok(best);
            }
            let mut cand = best.clone();
            cand.drain(i..(i + chunk).min(best.len()));
            let (outcome, exit) = s.run_full(&cand)?;
            if outcome == Outcome::Crash && same(s, exit) {
                best = cand;
            } else {
                i += chunk;
            }
        }
        if chunk == 1 {
            break;
        }
        chunk /= 2;
    }
    // every span, longest first, until none can go: deletion at the chunk boundaries above
    // stops at a local minimum where only a span across two chunks can go (a JSON member
    // `,"":[{"":null}]`, whose every byte alone is needed); within the budget
    'sweep: loop {
        for len in (1..best.len()).rev() {
            for i in 0..=best.len() - len {
                if spent(s) {
                    return Ok(best);
                }
                let mut cand = best.clone();
                cand.drain(i..i + len);
                let (outcome, exit) = s.run_full(&cand)?;
                if outcome == Outcome::Crash && same(s, exit) {
                    best = cand;
                    continue 'sweep;
                }
            }
        }
        return Ok(best);
    }
}

/// What `evotest fuzz --minimize-crash` did.
#[derive(Clone, Debug, Serialize)]
pub struct Minimized {
    pub input: PathBuf,
    pub output: PathBuf,
    pub kind: String,
    pub signature: String,
    pub original_size: usize,
    pub size: usize,
    pub executions: u64,
}

/// Minimise the crashing input `file` of `exe` (see [`shrink`]), writing the result to `exact`
/// when given (libFuzzer's `-exact_artifact_path`), else as `minimized-from-<sha1 of the
/// original>` under `artifact_prefix`.
///
/// Errors (one line): the file cannot be read, it does not crash the target, the target does
/// not start. `input_extension`: as for [`merge`].
#[allow(clippy::too_many_arguments)]
pub fn minimize_crash(
    exe: &Path,
    args: &[std::ffi::OsString],
    input_extension: Option<&str>,
    file: &Path,
    artifact_prefix: &str,
    exact: Option<&Path>,
    timeout: Duration,
    rss_limit_mb: u64,
    budget: Budget,
    interrupt: &AtomicBool,
) -> Result<Minimized> {
    let data = std::fs::read(file).with_context(|| format!("cannot read {}", file.display()))?;
    let work = tempfile::tempdir().context("cannot create a temporary directory")?;
    let mut s = Session::open(
        exe,
        args,
        &work
            .path()
            .join(crate::target::input_file_name(input_extension)),
        data.len().max(1),
        timeout,
        1,
        rss_limit_mb,
        0,
        interrupt,
        None,
    )?;
    let (outcome, exit) = s.run_full(&data)?;
    if outcome != Outcome::Crash {
        bail!(
            "{} does not crash {} (it ended: {exit})",
            file.display(),
            exe.display()
        );
    }
    let mut report = s.report(exit);
    let raw = report.raw_key();
    let small = shrink(&mut s, &data, &budget, |s, exit| {
        s.report(exit).raw_key() == raw
    })?;
    s.symbolizer.symbolize(&mut report);
    let out = exact.map_or_else(
        || {
            PathBuf::from(format!(
                "{artifact_prefix}minimized-from-{}",
                corpus::sha1_hex(&data)
            ))
        },
        Path::to_path_buf,
    );
    write_atomic(&out, &small).with_context(|| format!("cannot write {}", out.display()))?;
    Ok(Minimized {
        input: file.to_path_buf(),
        output: out,
        kind: report.kind.clone(),
        signature: report.signature(),
        original_size: data.len(),
        size: small.len(),
        executions: s.executions,
    })
}

/// What `evotest fuzz --merge` did.
#[derive(Clone, Debug, Serialize)]
pub struct Merged {
    pub output: PathBuf,
    /// Inputs already in the output directory, and those added.
    pub existing: usize,
    pub added: usize,
    /// Branch outcomes covered by the output directory before and after.
    pub outcomes_before: usize,
    pub outcomes_after: usize,
    pub features_after: usize,
    /// Inputs that crashed, hung or ran out of memory (not merged).
    pub faulty: Vec<LeftOut>,
}

/// An input a merge left out, and why.
#[derive(Clone, Debug, Serialize)]
pub struct LeftOut {
    pub input: PathBuf,
    /// `crash`, `timeout` or `oom`.
    pub kind: &'static str,
}

/// Merge the inputs under `inputs` into the directory `out`: every input of `out` counts first;
/// then the others, smallest first, are copied into `out` (named by SHA-1) when they add a
/// feature (see [`super::feedback`]).
///
/// Errors (one line): an input directory that does not exist, an unwritable output directory,
/// a target that does not start. `input_extension`: the input file's extension for a whole
/// program reading `@@` ([`crate::target::input_file_name`]).
#[allow(clippy::too_many_arguments)]
pub fn merge(
    exe: &Path,
    args: &[std::ffi::OsString],
    input_extension: Option<&str>,
    out: &Path,
    inputs: &[PathBuf],
    timeout: Duration,
    rss_limit_mb: u64,
    interrupt: &AtomicBool,
) -> Result<Merged> {
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    let existing = corpus::list_files(out)?;
    let mut candidates = Vec::new();
    for i in inputs {
        if i.is_dir() {
            candidates.extend(corpus::list_files(i)?);
        } else if i.is_file() {
            candidates.push(i.clone());
        } else {
            bail!("{}: no such file or directory", i.display());
        }
    }
    let size = |p: &PathBuf| std::fs::metadata(p).map_or(0, |m| m.len() as usize);
    let max_len = existing
        .iter()
        .chain(&candidates)
        .map(size)
        .max()
        .unwrap_or(1)
        .clamp(1, super::MAX_LEN_LIMIT);
    let work = tempfile::tempdir().context("cannot create a temporary directory")?;
    let mut s = Session::open(
        exe,
        args,
        &work
            .path()
            .join(crate::target::input_file_name(input_extension)),
        max_len,
        timeout,
        super::DEFAULT_PERSISTENT,
        rss_limit_mb,
        0,
        interrupt,
        None,
    )?;
    let mut fb = super::feedback::Feedback::new(s.site_outcomes.len(), s.n_outcomes());
    let mut faulty = Vec::new();
    for p in &existing {
        let Ok(data) = std::fs::read(p) else { continue };
        if s.run_full(&data)?.0 == Outcome::Normal {
            fb.add(&s.cov);
        }
    }
    let before = fb.covered();
    candidates.sort_by_key(|p| (size(p), p.clone()));
    let mut added = 0;
    for p in &candidates {
        if s.stopped() {
            break;
        }
        let Ok(mut data) = std::fs::read(p) else {
            continue;
        };
        data.truncate(max_len);
        match s.run_full(&data)?.0 {
            Outcome::Normal if fb.is_new(&s.cov) => {
                fb.add(&s.cov);
                let dest = out.join(corpus::sha1_hex(&data));
                if !dest.exists() {
                    write_atomic(&dest, &data)
                        .with_context(|| format!("cannot write {}", dest.display()))?;
                    added += 1;
                }
            }
            Outcome::Normal | Outcome::Stopped => {}
            o => faulty.push(LeftOut {
                input: p.clone(),
                kind: match o {
                    Outcome::Timeout => "timeout",
                    Outcome::Oom => "oom",
                    _ => "crash",
                },
            }),
        }
    }
    Ok(Merged {
        output: out.to_path_buf(),
        existing: existing.len(),
        added,
        outcomes_before: before,
        outcomes_after: fb.covered(),
        features_after: fb.features(),
        faulty,
    })
}
