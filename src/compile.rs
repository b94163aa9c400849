//! The compile stage: C source → instrumented object (clang-22 with the evotest pass, `-O0 -g`,
//! so that `&&` and `||` become separate branches) → executable linked with a generated harness
//! and the runtime.

use crate::toolchain::{Toolchain, RUNTIME_LINK_LIBS};
use anyhow::{bail, Context, Result};
use evotest_abi::names::{ENV_PASS_EXPOSE, ENV_PASS_RENAME_MAIN};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Flags every instrumented compile gets: before any optimisation, with debug info for names and
/// locations.
pub const INSTRUMENT_FLAGS: &[&str] = &["-O0", "-g", "-fno-omit-frame-pointer"];

/// Run a command; on failure, a one-line error quoting the first diagnostic.
fn run_tool(mut cmd: Command, what: &str) -> Result<()> {
    let out = cmd.output().with_context(|| format!("cannot run {:?}", cmd.get_program()))?;
    if out.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let errors: Vec<&str> = stderr.lines().filter(|l| l.contains("error")).collect();
    let first = errors.first().copied().or_else(|| stderr.lines().next()).unwrap_or("no message").trim();
    let more = if errors.len() > 1 { format!(" (and {} more errors)", errors.len() - 1) } else { String::new() };
    bail!("{what}: {first}{more}")
}

/// Compile `source` with the pass into `out_obj`. `function` is made callable even if `static`,
/// and the source's own `main` is renamed so that the harness can provide one.
///
/// Errors: the file does not compile (clang's first error is quoted).
pub fn instrument(tc: &Toolchain, source: &Path, out_obj: &Path, function: &str, cflags: &[String]) -> Result<()> {
    let mut cmd = tc.clang();
    cmd.args(INSTRUMENT_FLAGS)
        .arg(format!("-fpass-plugin={}", tc.pass.display()))
        .args(cflags)
        .arg("-c")
        .arg(source)
        .arg("-o")
        .arg(out_obj)
        .env(ENV_PASS_EXPOSE, function)
        .env(ENV_PASS_RENAME_MAIN, "1");
    run_tool(cmd, &format!("{} does not compile", source.display()))
}

/// Compile the harness and link it with the instrumented objects and the runtime into `out_exe`.
pub fn link(tc: &Toolchain, harness_c: &Path, objects: &[PathBuf], out_exe: &Path, ldflags: &[String]) -> Result<()> {
    let mut cmd = tc.clang();
    cmd.arg("-O1")
        .arg("-g")
        .arg(harness_c)
        .args(objects)
        .arg(&tc.runtime)
        .args(ldflags)
        .args(RUNTIME_LINK_LIBS)
        .arg("-o")
        .arg(out_exe);
    run_tool(cmd, "linking the harness failed")
}
