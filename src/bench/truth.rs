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
//!   structure; **units differ**: F reached, and llvm-cov's outcome total differs from evotest's, so
//!   the untaken counts cannot be compared (both are shown).

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
    let dir = tc.clang.canonicalize().ok().and_then(|p| p.parent().map(Path::to_path_buf));
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
    let files = v["data"][0]["files"].as_array().ok_or_else(|| anyhow!("llvm-cov export: no files"))?;
    let file = files
        .iter()
        .find(|f| f["filename"].as_str().is_some_and(|n| Path::new(n).canonicalize().ok().as_ref() == Some(&canon)))
        .ok_or_else(|| anyhow!("llvm-cov export has no data for {}", source.display()))?;
    let (mut total, mut covered) = (0, 0);
    for b in file["branches"].as_array().into_iter().flatten() {
        let a: Vec<u64> = b.as_array().into_iter().flatten().filter_map(|x| x.as_u64()).collect();
        if a.len() < 6 {
            continue;
        }
        let (line, col, t, f) = (a[0] as usize, a[1] as usize, a[4], a[5]);
        let at = lines.get(line.wrapping_sub(1)).map(|l| l.get(col.saturating_sub(1)..).unwrap_or("")).unwrap_or("");
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

/// Check `cx`'s claim against the union `inputs` (whose coverage by evotest's probes is
/// `union_covered`).
pub fn check(cx: &ProgramCtx, inputs: &[Input], union_covered: usize) -> Result<Truth> {
    let tc = Toolchain::locate()?;
    let dir = cx.dir.join("truth");
    if dir.exists() {
        std::fs::remove_dir_all(&dir)?;
    }
    std::fs::create_dir_all(&dir)?;
    let drv = dir.join("driver.c");
    let program = cx.target.frontend.replay_program(inputs).ok_or_else(|| anyhow!("this frontend has no replay program"))?;
    std::fs::write(&drv, program)?;
    let exe = dir.join("truth");
    let src = cx.options.target.sources.first().ok_or_else(|| anyhow!("no source"))?;
    let out = tc
        .clang()
        .args(["-O0", "-fprofile-instr-generate", "-fcoverage-mapping"])
        .arg(&drv)
        .args(&cx.options.target.sources)
        .args(&cx.options.target.cflags)
        .arg("-lm")
        .arg("-o")
        .arg(&exe)
        .output()?;
    if !out.status.success() {
        bail!("ground truth build failed: {}", String::from_utf8_lossy(&out.stderr).lines().next().unwrap_or(""));
    }
    let st = Command::new(&exe).env("LLVM_PROFILE_FILE", dir.join("run-%p.profraw")).status()?;
    if !st.success() {
        bail!("ground truth driver failed: {st}");
    }
    let raws: Vec<PathBuf> = std::fs::read_dir(&dir)?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "profraw"))
        .collect();
    let prof = dir.join("truth.profdata");
    let st = Command::new(llvm_tool(&tc, "llvm-profdata")).arg("merge").arg("-o").arg(&prof).args(&raws).status()?;
    if !st.success() {
        bail!("llvm-profdata merge failed");
    }
    let out = Command::new(llvm_tool(&tc, "llvm-cov"))
        .arg("export")
        .arg(&exe)
        .arg(format!("-instr-profile={}", prof.display()))
        .arg("-format=text")
        .arg(src)
        .output()?;
    if !out.status.success() {
        bail!("llvm-cov export failed: {}", String::from_utf8_lossy(&out.stderr).lines().next().unwrap_or(""));
    }
    let (llvm_total, llvm_covered) = llvm_counts(&String::from_utf8_lossy(&out.stdout), src)?;
    let claimed = cx.program.feasible;
    let total = cx.goals.len();
    let verdict = if union_covered > claimed {
        format!("claim too low: the union covers {union_covered}, the header claims {claimed} feasible")
    } else if union_covered < claimed {
        format!("unconfirmed: no tool reached the claimed {claimed} (the union covers {union_covered})")
    } else if llvm_total != total {
        format!(
            "units differ: claim reached; llvm-cov counts {} untaken of {llvm_total}, the header {} infeasible of {total}",
            llvm_total - llvm_covered,
            total - claimed
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
