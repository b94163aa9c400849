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
pub const RUNTIME_LINK_LIBS: &[&str] = &[
    "-lgcc_s",
    "-lutil",
    "-lrt",
    "-lpthread",
    "-lm",
    "-ldl",
    "-lc",
];

/// The libraries that the runtime archive `libevotest_rt.a` (and the driver that includes it)
/// really needs, for the compiler wrappers, which must not add libraries the user's code could
/// resolve symbols from (an autoconf probe `AC_SEARCH_LIBS([cbrt], [m])` would answer "none
/// required" instead of `-lm`).
///
/// The archive's undefined symbols (`nm -u`) are libc's and the unwinder's (`_Unwind_*`), none
/// of libm or libutil: the unwinder is `-lgcc_s`, or `-lgcc_eh` for a static link (`static_link`:
/// `-static`, `-static-pie` or `-static-libgcc`, where `-lgcc_s` is missing or unwanted), then
/// `-lc`. Before glibc 2.34, `pthread_*`, `dl*` and `clock_*`/`shm*` lived in separate libraries:
/// with such a glibc (at run time of the wrapper) `-lpthread -ldl -lrt` are added.
pub fn runtime_link_libs(static_link: bool) -> Vec<&'static str> {
    let mut libs = vec![if static_link { "-lgcc_eh" } else { "-lgcc_s" }];
    if glibc_before_2_34() {
        libs.extend(["-lpthread", "-ldl", "-lrt"]);
    }
    libs.push("-lc");
    libs
}

/// A copy of the runtime (or driver) archive `archive` whose C math functions are private, for the
/// compiler wrappers; `archive` itself if the copy cannot be made.
///
/// The Rust `compiler_builtins` in the archive defines weak `cbrt`, `floor`, `fmod`, `sqrt`, …
/// (its own libm), which would resolve the user's calls when the user did not ask for `-lm`
/// (configure's `AC_SEARCH_LIBS([cbrt], [m])` would answer "none required"). The copy renames
/// them, definitions and the archive's own references alike, to `__evotest_libm_NAME`, and its
/// soft-float and integer helpers (`__divtf3`, `__truncsfhf2`, `__udivti3`, …), which would take
/// the place of libgcc's (that honour the rounding mode and raise the IEEE flags), to
/// `__evotest_cb__NAME` (with
/// `llvm-objcopy --redefine-syms`, the symbols found by `llvm-nm`, both of LLVM 22 next to
/// `clang`). It is made once per version of `archive` (path, size and time) in
/// `$XDG_CACHE_HOME/evotest` (else `~/.cache/evotest`, else the temporary directory), written
/// under a temporary name and renamed, so that parallel builds may race; older copies of the same
/// archive are removed.
pub fn private_libm_archive(clang: &Path, archive: &Path) -> PathBuf {
    // a build that raced with another one making the same copy tries once more (the other's
    // copy is then usually there)
    make_private_libm_archive(clang, archive)
        .or_else(|_| make_private_libm_archive(clang, archive))
        .unwrap_or_else(|_| archive.to_path_buf())
}

/// The version of the renaming rule of [`private_libm_archive`] (part of the copy's cache key).
const RENAMING: u32 = 2;

/// Whether `p` (not followed if a link) is this user's and other users may not write it: a cache
/// entry in a shared directory (the `/tmp` fallback) that another user made or may replace would
/// be linked into this user's programs.
fn owned_privately(p: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::symlink_metadata(p).is_ok_and(|m| {
        !m.file_type().is_symlink() && m.uid() == unsafe { libc::getuid() } && m.mode() & 0o002 == 0
    })
}

fn make_private_libm_archive(clang: &Path, archive: &Path) -> Result<PathBuf> {
    use std::hash::{Hash, Hasher};
    let archive = archive.canonicalize()?;
    let meta = std::fs::metadata(&archive)?;
    let key = |v: &dyn Fn(&mut std::collections::hash_map::DefaultHasher)| {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        v(&mut h);
        h.finish()
    };
    let path_key = key(&|h| archive.hash(h));
    // the renaming's own version too: a copy made by an older rule is not reused
    let version_key = key(&|h| (RENAMING, meta.len(), meta.modified().ok()).hash(h));
    let stem = archive
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("archive");
    let prefix = format!("{stem}-{path_key:016x}-");
    let name = format!("{prefix}{version_key:016x}.a");
    let mut dirs = Vec::new();
    if let Some(x) = std::env::var_os("XDG_CACHE_HOME").filter(|x| !x.is_empty()) {
        dirs.push(PathBuf::from(x).join("evotest"));
    }
    if let Some(h) = std::env::var_os("HOME").filter(|x| !x.is_empty()) {
        dirs.push(PathBuf::from(h).join(".cache/evotest"));
    }
    dirs.push(std::env::temp_dir().join(format!("evotest-cache-{}", unsafe { libc::getuid() })));
    for d in &dirs {
        let f = d.join(&name);
        if f.is_file() && owned_privately(d) && owned_privately(&f) {
            return Ok(f);
        }
    }
    let tool = |t: &str| llvm_tool(clang, t);
    let nm = Command::new(tool("llvm-nm")?)
        .args(["-A", "--defined-only", "--extern-only"])
        .arg(&archive)
        .output()?;
    let listing = String::from_utf8_lossy(&nm.stdout);
    let mut names: Vec<&str> = listing
        .lines()
        .filter(|l| l.contains("compiler_builtins"))
        .filter_map(|l| l.rsplit(' ').next())
        .filter(|n| {
            let libm = n.chars().next().is_some_and(|c| c.is_ascii_lowercase())
                && n.chars().all(|c| c.is_ascii_alphanumeric());
            let helper = n.starts_with("__")
                && n.len() > 2
                && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            libm || helper
        })
        .collect();
    names.sort_unstable();
    names.dedup();
    let map: String = names
        .iter()
        .map(|n| {
            if n.starts_with("__") {
                format!("{n} __evotest_cb{n}\n")
            } else {
                format!("{n} __evotest_libm_{n}\n")
            }
        })
        .collect();
    let mut last_err = anyhow::anyhow!("no cache directory");
    for d in &dirs {
        let made = (|| -> Result<PathBuf> {
            {
                use std::os::unix::fs::DirBuilderExt;
                std::fs::DirBuilder::new()
                    .recursive(true)
                    .mode(0o700)
                    .create(d)?;
            }
            if !owned_privately(d) {
                bail!(
                    "{} is not a directory of this user's that other users may not write",
                    d.display()
                );
            }
            let tmp = d.join(format!("{name}.tmp{}", std::process::id()));
            let syms = d.join(format!("{name}.syms{}", std::process::id()));
            std::fs::write(&syms, &map)?;
            let st = Command::new(tool("llvm-objcopy")?)
                .arg(format!("--redefine-syms={}", syms.display()))
                .arg(&archive)
                .arg(&tmp)
                .status();
            let _ = std::fs::remove_file(&syms);
            if !st?.success() {
                let _ = std::fs::remove_file(&tmp);
                bail!("llvm-objcopy failed");
            }
            let out = d.join(&name);
            std::fs::rename(&tmp, &out)?;
            // older copies of this archive: exactly PREFIX + 16 hex digits + `.a` (not another
            // build's temporary files, which llvm-objcopy names `….a.tmpPID.temp-archive-….a`)
            for e in std::fs::read_dir(d)?.flatten() {
                let f = e.file_name().to_string_lossy().to_string();
                let older = f
                    .strip_prefix(&prefix)
                    .and_then(|r| r.strip_suffix(".a"))
                    .is_some_and(|v| v.len() == 16 && v.chars().all(|c| c.is_ascii_hexdigit()));
                if older && f != name {
                    let _ = std::fs::remove_file(e.path());
                }
            }
            Ok(out)
        })();
        match made {
            Ok(p) => return Ok(p),
            Err(e) => last_err = e,
        }
    }
    Err(last_err)
}

/// Whether the C library is a glibc older than 2.34 (which split libpthread, libdl and librt
/// from libc).
fn glibc_before_2_34() -> bool {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: gnu_get_libc_version returns a static NUL-terminated string.
        let v = unsafe { std::ffi::CStr::from_ptr(libc::gnu_get_libc_version()) };
        let mut parts = v
            .to_str()
            .unwrap_or("")
            .split('.')
            .map(|p| p.parse::<u32>().unwrap_or(0));
        let (major, minor) = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
        (major, minor) < (2, 34)
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        false
    }
}

impl Toolchain {
    /// Find all three, or fail with a one-line explanation of what is missing and how to get it.
    pub fn locate() -> Result<Toolchain> {
        let clang = find_clang()?;
        let pass = find_artifact("EVOTEST_PASS", "libevotest_pass.so")?;
        let runtime = find_artifact("EVOTEST_RUNTIME", "libevotest_rt.a")?;
        Ok(Toolchain {
            clang,
            pass,
            runtime,
        })
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
        Ok(Toolchain {
            clang,
            pass,
            runtime,
        })
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
    // a clang-22 that is there but does not run (a memory or file limit, a broken install) is
    // not "not found": its own error is the one to give
    let mut failed = None;
    for c in &candidates {
        if c.is_file() {
            match check_clang(c) {
                Ok(()) => return Ok(c.clone()),
                Err(e) => {
                    failed.get_or_insert(e);
                }
            }
        }
    }
    if let Some(e) = failed {
        bail!("{e:#}. {HINT}");
    }
    bail!("LLVM 22 not found (no clang-22 on PATH, nor /usr/lib/llvm-22/bin/clang). {HINT}")
}

fn check_clang(p: &Path) -> Result<()> {
    let out = Command::new(p)
        .arg("--version")
        .output()
        .with_context(|| format!("cannot run {}", p.display()))?;
    let text = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        bail!(
            "{} is there but did not run ({}: {})",
            p.display(),
            out.status,
            err.lines()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("no message")
        );
    }
    if !text.contains("clang version 22.") {
        bail!(
            "{} is not clang 22 ({})",
            p.display(),
            text.lines().next().unwrap_or("no version")
        );
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
    for d in [
        dir.to_path_buf(),
        dir.join(".."),
        dir.join("../lib/evotest"),
    ] {
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

#[cfg(test)]
mod tests {
    use super::owned_privately;
    use std::os::unix::fs::PermissionsExt;

    /// A cache entry is used only when it is this user's and other users may not write it (the
    /// `/tmp` fallback is shared: another user could plant an archive there).
    #[test]
    fn only_a_user_s_own_unshared_cache_entries_are_trusted() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("libevotest_rt-x.a");
        std::fs::write(&f, b"!<arch>\n").unwrap();
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert!(owned_privately(&f));
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o666)).unwrap();
        assert!(!owned_privately(&f));
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o644)).unwrap();
        let link = d.path().join("link.a");
        std::os::unix::fs::symlink(&f, &link).unwrap();
        assert!(!owned_privately(&link));
        assert!(!owned_privately(&d.path().join("missing.a")));
        if unsafe { libc::getuid() } == 0 {
            // another user's file (root can give it away)
            std::os::unix::fs::chown(&f, Some(65534), Some(65534)).unwrap();
            assert!(!owned_privately(&f));
        }
    }
}

/// LLVM's tool `name` (`llvm-objcopy`, `llvm-nm`) next to the real `clang` (`/usr/bin/clang-22`
/// is a link into `/usr/lib/llvm-22/bin`), else in LLVM 22's directory.
///
/// Errors: neither exists.
pub fn llvm_tool(clang: &Path, name: &str) -> Result<PathBuf> {
    let real = clang.canonicalize().unwrap_or_else(|_| clang.to_path_buf());
    [
        real.parent().map(|d| d.join(name)),
        Some(Path::new("/usr/lib/llvm-22/bin").join(name)),
    ]
    .into_iter()
    .flatten()
    .find(|p| p.is_file())
    .with_context(|| format!("{name} of LLVM 22 not found"))
}

/// The symbols the members of static archive `archive` reference and none of them defines: what
/// a program linked with it must provide (for the runtime, the C library's functions). Empty
/// when the archive cannot be read.
pub fn archive_imports(archive: &Path) -> std::collections::HashSet<String> {
    use object::read::archive::ArchiveFile;
    use object::{Object, ObjectSymbol};
    let Ok(data) = std::fs::read(archive) else {
        return Default::default();
    };
    let Ok(a) = ArchiveFile::parse(&*data) else {
        return Default::default();
    };
    let (mut defined, mut undefined) = (
        std::collections::HashSet::new(),
        std::collections::HashSet::new(),
    );
    for m in a.members().flatten() {
        let Ok(bytes) = m.data(&*data) else { continue };
        // a member's bytes need not be aligned as the ELF reader requires
        let copy = aligned_copy(bytes);
        let Ok(obj) = object::File::parse(aligned_bytes(&copy, bytes.len())) else {
            continue;
        };
        for sym in obj.symbols() {
            let Ok(n) = sym.name() else { continue };
            if sym.is_undefined() {
                undefined.insert(n.to_string());
            } else if sym.is_definition() {
                defined.insert(n.to_string());
            }
        }
    }
    undefined.retain(|n| !defined.contains(n));
    undefined
}

/// `bytes` copied into 8-byte aligned storage (see [`aligned_bytes`]).
fn aligned_copy(bytes: &[u8]) -> Vec<u64> {
    let mut v = vec![0u64; bytes.len().div_ceil(8)];
    // SAFETY: v holds at least bytes.len() bytes; u64 has no invalid bit patterns
    unsafe {
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), v.as_mut_ptr() as *mut u8, bytes.len());
    }
    v
}

/// The first `len` bytes of `v` (made by [`aligned_copy`]).
fn aligned_bytes(v: &[u64], len: usize) -> &[u8] {
    // SAFETY: v holds at least len bytes (aligned_copy), and u8 has alignment 1
    unsafe { std::slice::from_raw_parts(v.as_ptr() as *const u8, len.min(v.len() * 8)) }
}
