//! Ground truth: an independent check of each program's claimed feasible count.
//!
//! The union of every input any tool kept is replayed in a build instrumented with clang's
//! source-based coverage (`clang-22 -fprofile-instr-generate -fcoverage-mapping`), one forked child
//! per input, and `llvm-cov-22 export` reports which branch outcomes it took. llvm-cov's units differ
//! slightly from evotest's: a `case`/`default` label is one outcome (its "true" count), every other
//! branch region two; a `switch` without `default` has no region for its implicit default; and
//! the last operand of `&&`/`||` in a value context (`return a || b`) is an llvm-cov region but no IR
//! branch. So the verdict compares like with like where it can:
//!
//! * **confirmed**: evotest's probes saw the union cover exactly the claimed F outcomes, and llvm-cov
//!   finds as many outcomes untaken as the header calls infeasible;
//! * **claim too low**: the union covers more than F outcomes;
//! * **unconfirmed**: no tool reached F (search failure or a wrong claim);
//! * **disagrees**: F reached, but llvm-cov counts a different number of untaken outcomes with the same
//!   structure; **units differ**: F reached, and llvm-cov's outcome total differs from evotest's, or
//!   the program has a `&&`/`||` lowered to a `phi` (whose units differ even where the totals
//!   agree), so the untaken counts cannot be compared (both are shown).

use super::tools::ProgramCtx;
use crate::input::Input;
use crate::toolchain::Toolchain;
use anyhow::{anyhow, bail, Context, Result};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The check of one program.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Truth {
    pub program: String,
    /// Claimed feasible outcomes (evotest's units).
    pub claimed: usize,
    /// All outcomes (evotest's units).
    pub total: usize,
    /// Outcomes the union covers, by evotest's probes.
    pub union_covered: usize,
    /// Branch outcomes llvm-cov counts in the file, and how many the union covers.
    pub llvm_total: usize,
    pub llvm_covered: usize,
    pub verdict: String,
}

fn llvm_tool(tc: &Toolchain, name: &str) -> PathBuf {
    let dir = tc
        .clang
        .canonicalize()
        .ok()
        .and_then(|p| p.parent().map(Path::to_path_buf));
    match dir {
        Some(d) if d.join(name).is_file() => d.join(name),
        _ => PathBuf::from(format!("{name}-22")),
    }
}

/// Count llvm-cov's branch outcomes of `source` in an `llvm-cov export` JSON document.
fn llvm_counts(json: &str, source: &Path) -> Result<(usize, usize)> {
    let v: serde_json::Value = serde_json::from_str(json).context("llvm-cov export output")?;
    let text = std::fs::read_to_string(source)?;
    let lines: Vec<&str> = text.lines().collect();
    let canon = source.canonicalize()?;
    let files = v["data"][0]["files"]
        .as_array()
        .ok_or_else(|| anyhow!("llvm-cov export: no files"))?;
    let file = files
        .iter()
        .find(|f| {
            f["filename"]
                .as_str()
                .is_some_and(|n| Path::new(n).canonicalize().ok().as_ref() == Some(&canon))
        })
        .ok_or_else(|| anyhow!("llvm-cov export has no data for {}", source.display()))?;
    let (mut total, mut covered) = (0, 0);
    for b in file["branches"].as_array().into_iter().flatten() {
        let a: Vec<u64> = b
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|x| x.as_u64())
            .collect();
        if a.len() < 6 {
            continue;
        }
        let (line, col, t, f) = (a[0] as usize, a[1] as usize, a[4], a[5]);
        let at = lines
            .get(line.wrapping_sub(1))
            .map(|l| l.get(col.saturating_sub(1)..).unwrap_or(""))
            .unwrap_or("");
        if at.starts_with("case") || at.starts_with("default") {
            total += 1;
            covered += (t > 0) as usize;
        } else {
            total += 2;
            covered += (t > 0) as usize + (f > 0) as usize;
        }
    }
    Ok((total, covered))
}

/// One branch region of llvm-cov's branch view: an atomic condition of a `&&`/`||`, the whole
/// condition of a control-flow statement without one, or a `case`/`default` label.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct LlvmBranch {
    pub line: usize,
    pub col: usize,
    pub end_line: usize,
    pub end_col: usize,
    pub true_count: u64,
    pub false_count: u64,
}

/// One decision of llvm-cov's MC/DC view (`-fcoverage-mcdc`): a `&&`/`||` expression of two or
/// more conditions, and which results its executed test vectors had.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct LlvmDecision {
    pub line: usize,
    pub col: usize,
    pub end_line: usize,
    pub end_col: usize,
    pub conditions: usize,
    /// Some executed test vector had result true / false.
    pub outcomes: [bool; 2],
}

/// llvm-cov's view of one source file after a replay: branch regions and MC/DC decisions.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct LlvmCdc {
    pub branches: Vec<LlvmBranch>,
    pub decisions: Vec<LlvmDecision>,
}

impl LlvmCdc {
    /// (objectives, covered) in condition-decision units: both outcomes of every branch region
    /// and of every MC/DC decision.
    pub fn counts(&self) -> (usize, usize) {
        let total = 2 * (self.branches.len() + self.decisions.len());
        let covered = self
            .branches
            .iter()
            .map(|b| (b.true_count > 0) as usize + (b.false_count > 0) as usize)
            .sum::<usize>()
            + self
                .decisions
                .iter()
                .map(|d| d.outcomes.iter().filter(|o| **o).count())
                .sum::<usize>();
        (total, covered)
    }
}

/// The branch regions and MC/DC decisions of `source` in an `llvm-cov export` JSON document.
///
/// Errors: JSON that is not llvm-cov's export format, or no data for `source`.
pub fn llvm_cdc(json: &str, source: &Path) -> Result<LlvmCdc> {
    let v: serde_json::Value = serde_json::from_str(json).context("llvm-cov export output")?;
    let canon = source.canonicalize()?;
    let files = v["data"][0]["files"]
        .as_array()
        .ok_or_else(|| anyhow!("llvm-cov export: no files"))?;
    let file = files
        .iter()
        .find(|f| {
            f["filename"]
                .as_str()
                .is_some_and(|n| Path::new(n).canonicalize().ok().as_ref() == Some(&canon))
        })
        .ok_or_else(|| anyhow!("llvm-cov export has no data for {}", source.display()))?;
    let mut out = LlvmCdc::default();
    for b in file["branches"].as_array().into_iter().flatten() {
        let a: Vec<u64> = b
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|x| x.as_u64())
            .collect();
        if a.len() < 6 {
            continue;
        }
        out.branches.push(LlvmBranch {
            line: a[0] as usize,
            col: a[1] as usize,
            end_line: a[2] as usize,
            end_col: a[3] as usize,
            true_count: a[4],
            false_count: a[5],
        });
    }
    for m in file["mcdc_records"].as_array().into_iter().flatten() {
        let a = m
            .as_array()
            .ok_or_else(|| anyhow!("llvm-cov export: malformed MC/DC record"))?;
        let n = |i: usize| a.get(i).and_then(|x| x.as_u64()).unwrap_or(0) as usize;
        let conditions = a
            .iter()
            .find_map(|x| x.as_array().filter(|v| v.iter().all(|b| b.is_boolean())))
            .map_or(0, |v| v.len());
        let mut outcomes = [false; 2];
        for tv in a.iter().filter_map(|x| x.as_array()).flatten() {
            if tv["executed"].as_bool() == Some(true) {
                match tv["result"].as_bool() {
                    Some(true) => outcomes[0] = true,
                    Some(false) => outcomes[1] = true,
                    None => {}
                }
            }
        }
        out.decisions.push(LlvmDecision {
            line: n(0),
            col: n(1),
            end_line: n(2),
            end_col: n(3),
            conditions,
            outcomes,
        });
    }
    Ok(out)
}

/// Build `sources` with `replay` (a `main` that calls the function under test on each input, in
/// a forked child) under clang's source-based coverage with MC/DC, run it in `dir`, and read
/// llvm-cov's view of the first source.
///
/// Errors: a build, run, merge or export that fails (one line).
pub fn replay_cdc(
    tc: &Toolchain,
    dir: &Path,
    replay: &str,
    sources: &[PathBuf],
    cflags: &[String],
) -> Result<LlvmCdc> {
    let (exe, prof) = replay_build(tc, dir, replay, sources, cflags, true)?;
    let src = sources.first().ok_or_else(|| anyhow!("no source"))?;
    llvm_cdc(&export(tc, &exe, &prof, src)?, src)
}

/// Build and run a replay driver with coverage (and MC/DC when `mcdc`); returns the executable
/// and the merged profile.
fn replay_build(
    tc: &Toolchain,
    dir: &Path,
    replay: &str,
    sources: &[PathBuf],
    cflags: &[String],
    mcdc: bool,
) -> Result<(PathBuf, PathBuf)> {
    if dir.exists() {
        std::fs::remove_dir_all(dir)?;
    }
    std::fs::create_dir_all(dir)?;
    let drv = dir.join("driver.c");
    std::fs::write(&drv, replay)?;
    let exe = dir.join("truth");
    let mut cmd = tc.clang();
    cmd.args(["-O0", "-fprofile-instr-generate", "-fcoverage-mapping"]);
    if mcdc {
        cmd.arg("-fcoverage-mcdc");
    }
    let out = cmd
        .arg(&drv)
        .args(sources)
        .args(cflags)
        .arg("-lm")
        .arg("-o")
        .arg(&exe)
        .output()?;
    if !out.status.success() {
        bail!(
            "ground truth build failed: {}",
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .next()
                .unwrap_or("")
        );
    }
    let st = Command::new(&exe)
        .env("LLVM_PROFILE_FILE", dir.join("run-%p.profraw"))
        .status()?;
    if !st.success() {
        bail!("ground truth driver failed: {st}");
    }
    let raws: Vec<PathBuf> = std::fs::read_dir(dir)?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "profraw"))
        .collect();
    let prof = dir.join("truth.profdata");
    let st = Command::new(llvm_tool(tc, "llvm-profdata"))
        .arg("merge")
        .arg("-o")
        .arg(&prof)
        .args(&raws)
        .status()?;
    if !st.success() {
        bail!("llvm-profdata merge failed");
    }
    Ok((exe, prof))
}

fn export(tc: &Toolchain, exe: &Path, prof: &Path, src: &Path) -> Result<String> {
    let out = Command::new(llvm_tool(tc, "llvm-cov"))
        .arg("export")
        .arg(exe)
        .arg(format!("-instr-profile={}", prof.display()))
        .arg("-format=text")
        .arg(src)
        .output()?;
    if !out.status.success() {
        bail!(
            "llvm-cov export failed: {}",
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .next()
                .unwrap_or("")
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Check `cx`'s claim against the union `inputs` (whose coverage by evotest's probes is
/// `union_covered`). Under condition-decision coverage llvm-cov's units are the branch regions
/// and the MC/DC decisions (`-fcoverage-mcdc`), two outcomes each ([`LlvmCdc::counts`]).
pub fn check(cx: &ProgramCtx, inputs: &[Input], union_covered: usize) -> Result<Truth> {
    let tc = Toolchain::locate()?;
    let dir = cx.dir.join("truth");
    let program = cx
        .target
        .frontend
        .replay_program(inputs)
        .ok_or_else(|| anyhow!("this frontend has no replay program"))?;
    let src = cx
        .options
        .target
        .sources
        .first()
        .ok_or_else(|| anyhow!("no source"))?;
    let cdc = cx.options.criterion == "condition-decision";
    let (exe, prof) = replay_build(
        &tc,
        &dir,
        &program,
        &cx.options.target.sources,
        &cx.options.target.cflags,
        cdc,
    )?;
    let json = export(&tc, &exe, &prof, src)?;
    let (llvm_total, llvm_covered) = if cdc {
        llvm_cdc(&json, src)?.counts()
    } else {
        llvm_counts(&json, src)?
    };
    let claimed = cx.program.feasible;
    let total = cx.goals.len();
    // a `&&`/`||` lowered to a `phi` (a loop header's, a value's): under branch coverage evotest
    // has a site on the `phi` where llvm-cov has one region per operand, so the units differ even
    // when the totals happen to agree (`i < n && s[i] != 0`: 2 + 2 outcomes either way, one of
    // llvm-cov's second operand's infeasible where evotest's are all feasible)
    let phi_decisions = !cdc
        && cx
            .target
            .program
            .decisions
            .iter()
            .any(|d| d.meta.form == evotest_abi::meta::DecisionForm::Phi);
    let verdict = if union_covered > claimed {
        format!(
            "claim too low: the union covers {union_covered}, the header claims {claimed} feasible"
        )
    } else if union_covered < claimed {
        format!(
            "unconfirmed: no tool reached the claimed {claimed} (the union covers {union_covered})"
        )
    } else if llvm_total != total || phi_decisions && llvm_total - llvm_covered != total - claimed {
        format!(
            "units differ: claim reached; llvm-cov counts {} untaken of {llvm_total}, the header {} infeasible of {total}{}",
            llvm_total - llvm_covered,
            total - claimed,
            if llvm_total == total { " (a && or || lowered to a phi: one outcome pair of evotest's, one per operand of llvm-cov's)" } else { "" }
        )
    } else if llvm_total - llvm_covered == total - claimed {
        "confirmed".to_string()
    } else {
        format!(
            "disagrees: llvm-cov finds {} outcomes untaken, the header calls {} infeasible",
            llvm_total - llvm_covered,
            total - claimed
        )
    };
    Ok(Truth {
        program: cx.program.name.clone(),
        claimed,
        total,
        union_covered,
        llvm_total,
        llvm_covered,
        verdict,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_case_labels_as_one_outcome() {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("s.c");
        std::fs::write(&src, "int f(int x) {\n  if (x) return 1;\n  switch (x) {\n  case 3: return 2;\n  default: return 0;\n  }\n}\n").unwrap();
        let json = serde_json::json!({"data": [{"files": [{"filename": src.to_str().unwrap(), "branches": [
            [2, 7, 2, 8, 1, 0, 0, 0, 4],
            [4, 3, 4, 10, 0, 5, 0, 0, 4],
            [5, 3, 5, 11, 5, 0, 0, 0, 4]
        ]}]}]});
        assert_eq!(llvm_counts(&json.to_string(), &src).unwrap(), (4, 2));
    }
}
