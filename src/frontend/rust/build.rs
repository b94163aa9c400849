//! Building a Rust target through the bitcode route (`examples/rust/ROUTE.md`):
//!
//! 1. [`build_crate`]: `cargo rustc --lib` with the route's flags (`-C opt-level=0 -C debuginfo=2
//!    -C codegen-units=1 -C no-prepopulate-passes --emit=llvm-bc,link`): the library's bitcode
//!    and, from the same rustc session, its rlib. Dependencies are built by cargo as usual (not
//!    instrumented). The cargo target directory is kept between runs.
//! 2. [`instrument`]: `clang-22 -fpass-plugin=libevotest_pass.so -c crate.bc` → an instrumented
//!    object, which then replaces the object inside a copy of the rlib.
//! 3. [`link_harness`]: rustc compiles the generated harness with `--extern crate=<that rlib>`
//!    and `--extern evotest_rt=libevotest_rt.rlib`, so the executable has one std. The runtime
//!    must have been built by the same rustc as the crate.

use crate::toolchain::Toolchain;
use anyhow::{anyhow, bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The rustc flags of the route (see module docs).
pub const ROUTE_FLAGS: &[&str] = &[
    "-C",
    "opt-level=0",
    "-C",
    "debuginfo=2",
    "-C",
    "codegen-units=1",
    "-C",
    "no-prepopulate-passes",
];

/// The rustc flags of the cargo-fuzz route ([`build_fuzz_target`]): [`ROUTE_FLAGS`] at
/// opt-level 2, still without LLVM's passes, so that the bitcode is the unoptimised IR the pass
/// wants. At opt-level 0 (or 1) rustc *shares* generic instances: `header.starts_with(b"qoif")`
/// or `&h[0..4] == b"RIFF"` calls the instance some other crate of the build (std's) already has,
/// which is not instrumented, so no compare of those bytes was logged and input-to-state never saw
/// the magic values (imagesize's fuzz target missed seven of its formats). From opt-level 2 each
/// crate has instances of its own, and rustc's MIR inliner puts a small array compare in the
/// caller as an integer compare. Debug assertions and overflow checks, which opt-level 2 would
/// turn off, are on, as cargo-fuzz builds its targets.
pub fn fuzz_route_flags() -> Vec<&'static str> {
    let mut flags: Vec<&str> = ROUTE_FLAGS
        .iter()
        .map(|&f| if f == "opt-level=0" { "opt-level=2" } else { f })
        .collect();
    flags.extend(["-C", "debug-assertions=on", "-C", "overflow-checks=on"]);
    flags
}

/// What [`build_crate`] produced.
#[derive(Clone, Debug)]
pub struct CrateBuild {
    /// The library's name as Rust paths spell it (`my_crate`).
    pub name: String,
    /// The crate directory (holding `Cargo.toml`).
    pub dir: PathBuf,
    /// The library's bitcode.
    pub bitcode: PathBuf,
    /// The library's rlib (from the same rustc session as the bitcode).
    pub rlib: PathBuf,
    /// The directory of the dependencies' rlibs (`target/debug/deps`).
    pub deps: PathBuf,
    /// The library's root source file (`src/lib.rs`), as cargo reports it.
    pub src_path: PathBuf,
}

/// `cargo`: `$CARGO` (set when evotest runs under cargo), else `cargo` on `PATH`.
fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

/// The first error line of a tool's standard error, with the count of the others.
fn first_error(stderr: &str) -> String {
    let errors: Vec<&str> = stderr
        .lines()
        .filter(|l| l.trim_start().starts_with("error"))
        .collect();
    let first = errors
        .first()
        .copied()
        .or_else(|| stderr.lines().find(|l| !l.trim().is_empty()))
        .unwrap_or("no message")
        .trim();
    let detail: Option<&str> = stderr
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("error"))
        .find(|l| l.trim_start().starts_with("-->"))
        .map(|l| l.trim());
    let more = if errors.len() > 1 {
        format!(" (and {} more errors)", errors.len() - 1)
    } else {
        String::new()
    };
    match detail {
        Some(d) => format!("{first} {d}{more}"),
        None => format!("{first}{more}"),
    }
}

/// The manifest of `krate` (a crate directory or its `Cargo.toml`).
///
/// Errors: neither exists.
pub fn manifest(krate: &Path) -> Result<PathBuf> {
    let m = if krate.is_dir() {
        krate.join("Cargo.toml")
    } else {
        krate.to_path_buf()
    };
    if !m.is_file() {
        bail!(
            "{}: no Cargo.toml there (--crate takes a crate directory)",
            krate.display()
        );
    }
    Ok(m.canonicalize().unwrap_or(m))
}

/// Build the library of the crate at `manifest` to bitcode and rlib, in `target_dir`.
///
/// Errors (one line): cargo missing, no library target, a compile error (rustc's first error).
pub fn build_crate(manifest: &Path, target_dir: &Path) -> Result<CrateBuild> {
    let mut cmd = cargo();
    cmd.args([
        "rustc",
        "--lib",
        "--message-format=json-render-diagnostics",
        "--manifest-path",
    ])
    .arg(manifest)
    .arg("--target-dir")
    .arg(target_dir)
    .arg("--")
    .args(ROUTE_FLAGS)
    .arg("--emit=llvm-bc,link")
    .env("CARGO_INCREMENTAL", "0")
    .env_remove("RUSTFLAGS")
    .env_remove("CARGO_TARGET_DIR")
    .env_remove("CARGO_BUILD_TARGET");
    let out = cmd.output().context("cannot run cargo (is it on PATH?)")?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        bail!("building the crate failed: {}", first_error(&stderr));
    }
    let dir = manifest.parent().unwrap_or(Path::new(".")).to_path_buf();
    let mut found = None;
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if v["reason"] != "compiler-artifact" {
            continue;
        }
        let same = v["manifest_path"]
            .as_str()
            .map(PathBuf::from)
            .map(|p| p.canonicalize().unwrap_or(p))
            == Some(manifest.to_path_buf());
        let kinds: Vec<&str> = v["target"]["kind"]
            .as_array()
            .map(|a| a.iter().filter_map(|k| k.as_str()).collect())
            .unwrap_or_default();
        if !same || !kinds.iter().any(|k| *k == "lib" || *k == "rlib") {
            continue;
        }
        let name = v["target"]["name"]
            .as_str()
            .unwrap_or_default()
            .replace('-', "_");
        let files: Vec<PathBuf> = v["filenames"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|f| f.as_str().map(PathBuf::from))
                    .collect()
            })
            .unwrap_or_default();
        // deps/lib<name>-<hash>.rmeta names the session's files: deps/<name>-<hash>.bc, deps/lib<name>-<hash>.rlib
        let rmeta = files
            .iter()
            .find(|f| f.extension().is_some_and(|e| e == "rmeta"));
        if let Some(rmeta) = rmeta {
            let stem = rmeta
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or_default();
            let deps = rmeta.parent().unwrap_or(Path::new(".")).to_path_buf();
            let hashed = stem.strip_prefix("lib").unwrap_or(stem);
            let src_path = v["target"]["src_path"]
                .as_str()
                .map(PathBuf::from)
                .unwrap_or_else(|| super::structs::lib_root(&dir));
            found = Some(CrateBuild {
                name: name.clone(),
                dir: dir.clone(),
                bitcode: deps.join(format!("{hashed}.bc")),
                rlib: deps.join(format!("lib{hashed}.rlib")),
                deps,
                src_path,
            });
        }
    }
    let b = found.ok_or_else(|| {
        anyhow!(
            "{}: cargo built no library (evotest tests a function of a library crate: src/lib.rs)",
            manifest.display()
        )
    })?;
    for f in [&b.bitcode, &b.rlib] {
        if !f.is_file() {
            bail!(
                "cargo did not write {} (is the crate built with a custom profile?)",
                f.display()
            );
        }
    }
    Ok(b)
}

/// An LLVM tool next to clang (`llvm-ar`), or with the `-22` suffix on `PATH`.
fn llvm_tool(tc: &Toolchain, name: &str) -> PathBuf {
    let dir = tc.clang.parent().unwrap_or(Path::new("/usr/bin"));
    for c in [
        dir.join(name),
        dir.join(format!("{name}-22")),
        PathBuf::from(format!("/usr/lib/llvm-22/bin/{name}")),
    ] {
        if c.is_file() {
            return c;
        }
    }
    PathBuf::from(format!("{name}-22"))
}

fn run(mut cmd: Command, what: &str) -> Result<()> {
    let out = cmd
        .output()
        .with_context(|| format!("cannot run {:?}", cmd.get_program()))?;
    if !out.status.success() {
        bail!(
            "{what}: {}",
            first_error(&String::from_utf8_lossy(&out.stderr))
        );
    }
    Ok(())
}

/// Instrument the crate's bitcode into `work/<name>.o` and put that object into a copy of its
/// rlib, `work/lib<name>.rlib`. Returns the object and the rlib.
///
/// Errors: clang or llvm-ar fail.
pub fn instrument(tc: &Toolchain, b: &CrateBuild, work: &Path) -> Result<(PathBuf, PathBuf)> {
    let obj = work.join(format!("{}.o", b.name));
    let mut cmd = tc.clang();
    cmd.args([
        "--target=x86_64-unknown-linux-gnu",
        "-O0",
        "-Wno-override-module",
    ])
    .arg(format!("-fpass-plugin={}", tc.pass.display()))
    .arg("-c")
    .arg(&b.bitcode)
    .arg("-o")
    .arg(&obj);
    run(cmd, "instrumenting the crate's bitcode failed")?;
    let rlib = work.join(format!("lib{}.rlib", b.name));
    std::fs::copy(&b.rlib, &rlib).with_context(|| format!("cannot copy {}", b.rlib.display()))?;
    let ar = llvm_tool(tc, "llvm-ar");
    let list = Command::new(&ar)
        .arg("t")
        .arg(&rlib)
        .output()
        .with_context(|| format!("cannot run {}", ar.display()))?;
    let members = String::from_utf8_lossy(&list.stdout);
    let objs: Vec<&str> = members.lines().filter(|m| m.ends_with(".o")).collect();
    let [member] = objs[..] else {
        bail!(
            "{}: expected one object in the rlib (codegen-units=1), found {}",
            b.rlib.display(),
            objs.len()
        );
    };
    let mdir = work.join("rlib-member");
    std::fs::create_dir_all(&mdir)?;
    std::fs::copy(&obj, mdir.join(member))?;
    // run in the member's directory (the member is named as in the rlib), so the rlib path is absolute
    let rlib_abs = rlib.canonicalize().unwrap_or(rlib.clone());
    let mut cmd = Command::new(&ar);
    cmd.arg("r").arg(&rlib_abs).arg(member).current_dir(&mdir);
    run(cmd, "replacing the rlib's object failed")?;
    Ok((obj, rlib))
}

/// Compile `harness` (Rust source) against the instrumented rlib and the runtime into `exe`.
///
/// Errors: the runtime's rlib is missing, or rustc fails (its first error, e.g. a private
/// function).
pub fn link_harness(
    tc: &Toolchain,
    b: &CrateBuild,
    rlib: &Path,
    harness: &Path,
    exe: &Path,
) -> Result<()> {
    let rt = tc.runtime.with_file_name("libevotest_rt.rlib");
    if !rt.is_file() {
        bail!(
            "{} not found; build it with `cargo build --workspace`",
            rt.display()
        );
    }
    let rt_deps = rt.parent().unwrap_or(Path::new(".")).join("deps");
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let mut cmd = Command::new(rustc);
    cmd.args([
        "--edition",
        "2021",
        "--crate-type",
        "bin",
        "-C",
        "opt-level=0",
        "-C",
        "debuginfo=1",
    ])
    .arg("--extern")
    .arg(format!("{}={}", b.name, rlib.display()))
    .arg("--extern")
    .arg(format!("evotest_rt={}", rt.display()))
    .arg("-L")
    .arg(format!("dependency={}", b.deps.display()))
    .arg("-L")
    .arg(format!("dependency={}", rt_deps.display()))
    .arg(harness)
    .arg("-o")
    .arg(exe);
    run(cmd, "compiling the harness failed").map_err(|e| {
        let m = e.to_string();
        if m.contains("E0603") || m.contains("is private") {
            anyhow!("{m}; the function must be public and reachable by a public path from the crate root")
        } else {
            e
        }
    })
}

/// The stand-in for libFuzzer that cargo's own link of a cargo-fuzz target gets through
/// `CUSTOM_LIBFUZZER_PATH` (so that libfuzzer-sys neither compiles nor links libFuzzer): a `main`
/// that runs each file argument through `LLVMFuzzerTestOneInput` once, uninstrumented.
const REPLAY_MAIN_C: &str = r#"#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
extern int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
extern int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));
int main(int argc, char **argv) {
    if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (!f) { perror(argv[i]); return 2; }
        fseek(f, 0, SEEK_END);
        long len = ftell(f);
        rewind(f);
        uint8_t *buf = malloc(len > 0 ? (size_t)len : 1);
        if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len) return 2;
        fclose(f);
        LLVMFuzzerTestOneInput(buf, (size_t)len);
        free(buf);
    }
    return 0;
}
"#;

/// libFuzzer's functions that libfuzzer-sys refers to besides the entry points: a custom
/// mutator gets its input back unchanged (evotest mutates itself). Weak, so a real one wins.
const LIBFUZZER_STUBS_C: &str = r#"#include <stddef.h>
#include <stdint.h>
__attribute__((weak)) size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size) {
    (void)data; (void)max_size; return size;
}
"#;

/// Rust's target triple for the host, as cargo-fuzz passes it (`--target` keeps `RUSTFLAGS`
/// away from build scripts and proc macros).
pub const HOST_TRIPLE: &str = "x86_64-unknown-linux-gnu";

/// The crates of a fuzz target's build that [`build_fuzz_target`] never instruments: the fuzzing
/// machinery itself (cargo-fuzz does not count its coverage either).
pub const FUZZ_MACHINERY: &[&str] = &["libfuzzer_sys", "arbitrary", "derive_arbitrary"];

/// Build the cargo-fuzz target `target` (a `fuzz_target!` binary) of the crate at `krate` (a
/// cargo-fuzz project: `krate/fuzz/Cargo.toml`, or a crate with the `[[bin]]` itself) into an
/// executable that `evotest fuzz` runs: the local crates (the fuzz crate and the crates under
/// test) instrumented, and the registry crates named in `instrument` (library names, `-` read as
/// `_`; `all`: every crate but [`FUZZ_MACHINERY`]), as cargo-fuzz instruments a crate under test
/// that comes from crates.io; other dependencies as cargo built them; and evotest's
/// libFuzzer-compatible driver as `main`. Builds in `work` (kept between runs, so cargo rebuilds
/// only what changed); returns the executable, `work/<target>`.
///
/// Errors (one line): no Cargo.toml, no such fuzz target, a name in `instrument` that is not a
/// crate of the build, a build or link failure (the first error).
pub fn build_fuzz_target(
    tc: &Toolchain,
    krate: &Path,
    target: &str,
    work: &Path,
    instrument: &[String],
) -> Result<PathBuf> {
    let instrument: Vec<String> = instrument
        .iter()
        .map(|c| c.trim().replace('-', "_"))
        .filter(|c| !c.is_empty())
        .collect();
    let all = instrument.iter().any(|c| c == "all");
    let mut named_seen: Vec<String> = vec![];
    let manifest = {
        let fuzz = krate.join("fuzz").join("Cargo.toml");
        if fuzz.is_file() {
            fuzz.canonicalize()?
        } else {
            self::manifest(krate)?
        }
    };
    std::fs::create_dir_all(work).with_context(|| format!("cannot create {}", work.display()))?;
    let work = work.canonicalize()?;
    // libFuzzer's stand-in for cargo's link
    std::fs::write(work.join("replay_main.c"), REPLAY_MAIN_C)?;
    let mut cc = tc.clang();
    cc.args(["-O1", "-c"])
        .arg(work.join("replay_main.c"))
        .arg("-o")
        .arg(work.join("replay_main.o"));
    run(cc, "compiling the replayer failed")?;
    let ar = llvm_tool(tc, "llvm-ar");
    let _ = std::fs::remove_file(work.join("libreplay.a"));
    let mut a = Command::new(&ar);
    a.arg("rc")
        .arg(work.join("libreplay.a"))
        .arg(work.join("replay_main.o"));
    run(a, "archiving the replayer failed")?;
    let rustflags = format!(
        "--cfg fuzzing {} --emit=llvm-bc,link",
        fuzz_route_flags().join(" ")
    );
    let cargo_dir = work.join("cargo");
    let mut cmd = cargo();
    cmd.args([
        "build",
        "--message-format=json-render-diagnostics",
        "--target",
        HOST_TRIPLE,
        "--bin",
        target,
        "--manifest-path",
    ])
    .arg(&manifest)
    .arg("--target-dir")
    .arg(&cargo_dir)
    .env("CARGO_INCREMENTAL", "0")
    .env("RUSTFLAGS", rustflags)
    .env("CUSTOM_LIBFUZZER_PATH", work.join("libreplay.a"))
    .env("CUSTOM_LIBFUZZER_STD_CXX", "none")
    .env_remove("CARGO_TARGET_DIR")
    .env_remove("CARGO_BUILD_TARGET");
    let out = cmd.output().context("cannot run cargo (is it on PATH?)")?;
    if !out.status.success() {
        bail!(
            "building fuzz target `{target}` failed: {}",
            first_error(&String::from_utf8_lossy(&out.stderr))
        );
    }
    // local crates: instrument their bitcode; others: link their rlibs
    let mut objects = Vec::new();
    let mut rlibs = Vec::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if v["reason"] != "compiler-artifact" {
            continue;
        }
        let kinds: Vec<&str> = v["target"]["kind"]
            .as_array()
            .map(|a| a.iter().filter_map(|k| k.as_str()).collect())
            .unwrap_or_default();
        if kinds
            .iter()
            .any(|k| *k == "custom-build" || *k == "proc-macro")
        {
            continue;
        }
        let files: Vec<PathBuf> = v["filenames"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|f| f.as_str().map(PathBuf::from))
                    .collect()
            })
            .unwrap_or_default();
        // built for the host only (a build script's dependency, e.g. `cc`'s `libc`): not linked
        // into the target, and cargo kept no bitcode of it for the target
        if !files.is_empty()
            && !files
                .iter()
                .any(|f| f.starts_with(cargo_dir.join(HOST_TRIPLE)))
        {
            continue;
        }
        let name = v["target"]["name"]
            .as_str()
            .unwrap_or_default()
            .replace('-', "_");
        if instrument.contains(&name) {
            named_seen.push(name.clone());
        }
        let local = v["package_id"]
            .as_str()
            .is_some_and(|p| p.starts_with("path+file://"))
            || instrument.contains(&name)
            || (all && !FUZZ_MACHINERY.contains(&name.as_str()));
        let deps = cargo_dir.join(HOST_TRIPLE).join("debug").join("deps");
        if local {
            // the session's bitcode: deps/<name>-<hash>.bc (the hash of its rmeta, or the newest)
            let hashed = files
                .iter()
                .find(|f| f.extension().is_some_and(|e| e == "rmeta"))
                .and_then(|f| f.file_stem().and_then(|s| s.to_str()))
                .map(|s| s.strip_prefix("lib").unwrap_or(s).to_string());
            let bc = match hashed {
                Some(h) => deps.join(format!("{h}.bc")),
                None => newest(&deps, &format!("{name}-"), ".bc")
                    .ok_or_else(|| anyhow!("no bitcode of `{name}` in {}", deps.display()))?,
            };
            let obj = work.join(format!("{name}.o"));
            let mut c = tc.clang();
            c.args([
                "--target=x86_64-unknown-linux-gnu",
                // instrumented at the start of the pipeline, then optimised
                "-O1",
                "-Wno-override-module",
            ])
            .arg(format!("-fpass-plugin={}", tc.pass.display()))
            .arg("-c")
            .arg(&bc)
            .arg("-o")
            .arg(&obj);
            run(c, &format!("instrumenting `{name}` failed"))?;
            objects.push(obj);
        } else if let Some(r) = files
            .iter()
            .find(|f| f.extension().is_some_and(|e| e == "rlib"))
        {
            rlibs.push(r.clone());
        }
    }
    if objects.is_empty() {
        bail!("cargo built no local crate for fuzz target `{target}`");
    }
    if let Some(c) = instrument
        .iter()
        .find(|c| *c != "all" && !named_seen.contains(c))
    {
        bail!("--instrument_crates: `{c}` is not a crate of fuzz target `{target}`'s build");
    }
    std::fs::write(work.join("libfuzzer_stubs.c"), LIBFUZZER_STUBS_C)?;
    let driver = Toolchain::driver()?;
    let exe = work.join(target);
    let tmp = work.join(format!(".{target}.linking"));
    let mut link = tc.clang();
    link.arg("-g")
        .arg(work.join("libfuzzer_stubs.c"))
        .args(&objects)
        // the driver first: its `main` (libfuzzer-sys's rlib bundles the replayer's)
        .arg(&driver)
        .arg("-Wl,--start-group")
        .args(&rlibs)
        .arg(&driver)
        .arg("-Wl,--end-group")
        .args(crate::toolchain::RUNTIME_LINK_LIBS)
        .arg("-o")
        .arg(&tmp);
    run(link, &format!("linking fuzz target `{target}` failed"))?;
    std::fs::rename(&tmp, &exe).with_context(|| format!("cannot write {}", exe.display()))?;
    Ok(exe)
}

/// The newest file in `dir` named `<prefix>…<suffix>`.
fn newest(dir: &Path, prefix: &str, suffix: &str) -> Option<PathBuf> {
    std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok())
        .filter(|e| {
            e.file_name()
                .to_str()
                .is_some_and(|n| n.starts_with(prefix) && n.ends_with(suffix))
        })
        .max_by_key(|e| e.metadata().and_then(|m| m.modified()).ok())
        .map(|e| e.path())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fuzz_route_is_the_route_at_opt_level_2_with_checks_on() {
        let f = fuzz_route_flags().join(" ");
        assert!(
            f.contains("-C opt-level=2") && !f.contains("opt-level=0"),
            "{f}"
        );
        assert!(f.contains("-C no-prepopulate-passes"), "{f}");
        assert!(
            f.contains("-C debug-assertions=on") && f.contains("-C overflow-checks=on"),
            "{f}"
        );
    }
}
