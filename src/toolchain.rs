//! Locating the tools evotest drives: LLVM 22's `clang`, the pass plugin and the runtime library.
//!
//! Search order, each overridable by an environment variable:
//! * clang: `$EVOTEST_CLANG`, else `clang-22` on `PATH`, else `/usr/lib/llvm-22/bin/clang`.
//! * plugin: `$EVOTEST_PASS`, else `libevotest_pass.so` next to the `evotest` executable (or its
//!   parent, for test binaries in `deps/`), else `../lib/evotest/` relative to it.
//! * runtime: `$EVOTEST_RUNTIME`, else `libevotest_rt.a` in the same places.

use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Paths to the tools of one campaign.
#[derive(Clone, Debug)]
pub struct Toolchain {
    /// LLVM 22 clang driver.
    pub clang: PathBuf,
    /// The evotest pass plugin (`libevotest_pass.so`).
    pub pass: PathBuf,
    /// The evotest runtime (`libevotest_rt.a`).
    pub runtime: PathBuf,
}

/// Libraries the Rust runtime needs at link time (`rustc --print native-static-libs`).
pub const RUNTIME_LINK_LIBS: &[&str] = &["-lgcc_s", "-lutil", "-lrt", "-lpthread", "-lm", "-ldl", "-lc"];

impl Toolchain {
    /// Find all three, or fail with a one-line explanation of what is missing and how to get it.
    pub fn locate() -> Result<Toolchain> {
        let clang = find_clang()?;
        let pass = find_artifact("EVOTEST_PASS", "libevotest_pass.so")?;
        let runtime = find_artifact("EVOTEST_RUNTIME", "libevotest_rt.a")?;
        Ok(Toolchain { clang, pass, runtime })
    }

    /// As [`Toolchain::locate`], without running clang to check its version (the compiler
    /// wrappers run once per translation unit and must add little time; a wrong clang shows in
    /// its own errors).
    ///
    /// Errors: no clang-22 found, or the pass or runtime missing.
    pub fn locate_unchecked() -> Result<Toolchain> {
        let clang = match std::env::var_os("EVOTEST_CLANG") {
            Some(p) => PathBuf::from(p),
            None => std::env::var_os("PATH")
                .into_iter()
                .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
                .map(|d| d.join("clang-22"))
                .chain([PathBuf::from("/usr/lib/llvm-22/bin/clang")])
                .find(|c| c.is_file())
                .ok_or_else(|| anyhow::anyhow!("LLVM 22 not found (no clang-22 on PATH, nor /usr/lib/llvm-22/bin/clang); run `make setup` or set EVOTEST_CLANG"))?,
        };
        let pass = find_artifact("EVOTEST_PASS", "libevotest_pass.so")?;
        let runtime = find_artifact("EVOTEST_RUNTIME", "libevotest_rt.a")?;
        Ok(Toolchain { clang, pass, runtime })
    }

    /// evotest's libFuzzer-compatible driver, `libevotest_driver.a` (it includes the runtime):
    /// `$EVOTEST_DRIVER`, else next to the executable as for the runtime.
    ///
    /// Errors: not found (not built).
    pub fn driver() -> Result<PathBuf> {
        find_artifact("EVOTEST_DRIVER", "libevotest_driver.a")
    }

    /// evotest's in-process engine, `libevotest_inprocess.so` (`evotest fuzz --in_process` loads
    /// it into the harness's process): `$EVOTEST_IN_PROCESS_ENGINE`, else next to the executable
    /// as for the runtime.
    ///
    /// Errors: not found (not built).
    pub fn in_process_engine() -> Result<PathBuf> {
        find_artifact("EVOTEST_IN_PROCESS_ENGINE", "libevotest_inprocess.so")
    }

    /// A `Command` for clang with the given arguments.
    pub fn clang(&self) -> Command {
        Command::new(&self.clang)
    }
}

fn find_clang() -> Result<PathBuf> {
    const HINT: &str = "LLVM 22 is required: run `make setup` (apt-get install clang-22 llvm-22-dev lld-22 libclang-rt-22-dev) or set EVOTEST_CLANG";
    if let Some(p) = std::env::var_os("EVOTEST_CLANG") {
        let p = PathBuf::from(p);
        check_clang(&p).with_context(|| format!("EVOTEST_CLANG={}: {HINT}", p.display()))?;
        return Ok(p);
    }
    let mut candidates = Vec::new();
    if let Some(path) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&path) {
            candidates.push(dir.join("clang-22"));
        }
    }
    candidates.push(PathBuf::from("/usr/lib/llvm-22/bin/clang"));
    for c in &candidates {
        if c.is_file() && check_clang(c).is_ok() {
            return Ok(c.clone());
        }
    }
    bail!("LLVM 22 not found (no clang-22 on PATH, nor /usr/lib/llvm-22/bin/clang). {HINT}")
}

fn check_clang(p: &Path) -> Result<()> {
    let out = Command::new(p).arg("--version").output().with_context(|| format!("cannot run {}", p.display()))?;
    let text = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() || !text.contains("clang version 22.") {
        bail!("{} is not clang 22 ({})", p.display(), text.lines().next().unwrap_or("no version"));
    }
    Ok(())
}

fn find_artifact(var: &str, file: &str) -> Result<PathBuf> {
    if let Some(p) = std::env::var_os(var) {
        let p = PathBuf::from(p);
        if p.is_file() {
            return Ok(p);
        }
        bail!("{var}={} does not exist", p.display());
    }
    let exe = std::env::current_exe().context("cannot locate the evotest executable")?;
    let dir = exe.parent().unwrap_or(Path::new("."));
    let mut looked = Vec::new();
    for d in [dir.to_path_buf(), dir.join(".."), dir.join("../lib/evotest")] {
        let c = d.join(file);
        if c.is_file() {
            return Ok(c.canonicalize().unwrap_or(c));
        }
        looked.push(d.display().to_string());
    }
    bail!(
        "{file} not found (looked in {}); build it with `cargo build --workspace` or `make build`, or set {var}",
        looked.join(", ")
    )
}
