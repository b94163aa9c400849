//! The compile stage: C source → instrumented object (clang-22 with the evotest pass, `-O0 -g`,
//! so that `&&` and `||` become separate branches) → executable linked with a generated harness
//! and the runtime.

use crate::toolchain::{Toolchain, RUNTIME_LINK_LIBS};
use anyhow::{bail, Context, Result};
use evotest_abi::names::{ENV_PASS_EXPOSE, ENV_PASS_RENAME_MAIN};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Flags every instrumented compile gets: before any optimisation, with debug info for names and
/// locations. `-fstandalone-debug` describes every C++ class a parameter names member by member
/// (clang otherwise describes a class with constructors only where one of them is emitted).
pub const INSTRUMENT_FLAGS: &[&str] =
    &["-O0", "-g", "-fstandalone-debug", "-fno-omit-frame-pointer"];

/// The linker's own messages: an undefined or multiply defined symbol, a missing library.
const LINKER_KEYS: &[&str] = &[
    "undefined reference",
    "undefined symbol",
    "multiple definition",
    "duplicate symbol",
    "cannot find",
    "relocation",
    // a full disk, a directory that cannot be written: the reason bfd gives for its failure
    "final link failed",
    "cannot open output file",
    "No space left on device",
];

/// The key lines of a failed tool's stderr, for a one-line error: the first error and, after a
/// linker's own messages (`undefined reference to `f'`, `multiple definition of`, `cannot find
/// -lx`), up to two more of those, joined by "; ", then the number of the others (`(and N more
/// errors)`). The driver's "linker command failed" line is quoted only when the linker said
/// nothing else. The linker's program prefix (`/usr/bin/ld: `) is removed.
fn key_lines(stderr: &str) -> String {
    let is_linker = |l: &str| LINKER_KEYS.iter().any(|k| l.contains(k));
    let generic = |l: &str| l.contains("linker command failed");
    let trim = |l: &str| -> String {
        let l = l.trim();
        match l.split_once(": ") {
            Some((prog, rest))
                if matches!(prog.rsplit('/').next(), Some("ld" | "ld.bfd" | "ld.gold")) =>
            {
                rest.to_string()
            }
            _ => l.to_string(),
        }
    };
    // not clang's summary "N errors generated."
    let summary = |l: &str| l.trim_end().ends_with(" generated.");
    let mut errors: Vec<&str> = stderr
        .lines()
        .filter(|l| (l.contains("error") || is_linker(l)) && !generic(l) && !summary(l))
        .collect();
    if errors.is_empty() {
        errors = stderr.lines().filter(|l| l.contains("error")).collect();
    }
    let Some(first) = errors
        .first()
        .copied()
        .or_else(|| stderr.lines().find(|l| !l.trim().is_empty()))
    else {
        return "no message".to_string();
    };
    let mut shown = vec![trim(first)];
    if is_linker(first) {
        for l in errors.iter().skip(1).filter(|l| is_linker(l)).take(2) {
            let t = trim(l);
            if !shown.contains(&t) {
                shown.push(t);
            }
        }
    }
    let rest = errors.len().saturating_sub(shown.len().max(1));
    let more = if rest > 0 {
        format!(" (and {rest} more errors)")
    } else {
        String::new()
    };
    format!("{}{more}", shown.join("; "))
}

/// Run a command; on failure, a one-line error quoting the first diagnostic (for a link, the
/// linker's own lines, see [`key_lines`]).
pub(crate) fn run_tool(mut cmd: Command, what: &str) -> Result<()> {
    let out = cmd
        .output()
        .with_context(|| format!("cannot run {:?}", cmd.get_program()))?;
    if out.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    bail!("{what}: {}", key_lines(&stderr))
}

/// Compile `source` with the pass into `out_obj`. `function` is made callable even if `static`,
/// and the source's own `main` is renamed so that the harness can provide one.
///
/// Errors: the file does not compile (clang's first error is quoted).
pub fn instrument(
    tc: &Toolchain,
    source: &Path,
    out_obj: &Path,
    function: &str,
    cflags: &[String],
) -> Result<()> {
    let mut cmd = tc.clang();
    cmd.args(INSTRUMENT_FLAGS)
        .arg(format!("-fpass-plugin={}", tc.pass.display()))
        .args(cflags)
        // real objects, whatever the flags say: a `-flto` bitcode file is no object to link the
        // harness with, nor to read the metadata from
        .arg("-fno-lto")
        .arg("-c")
        .arg(not_an_option(source).as_os_str())
        .arg("-o")
        .arg(out_obj)
        .env(ENV_PASS_EXPOSE, function)
        .env(ENV_PASS_RENAME_MAIN, "1");
    run_tool(cmd, &format!("{} does not compile", source.display()))
}

/// Compile the harness and link it with the instrumented objects and the runtime into `out_exe`.
pub fn link(
    tc: &Toolchain,
    harness_c: &Path,
    objects: &[PathBuf],
    out_exe: &Path,
    ldflags: &[String],
) -> Result<()> {
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

#[cfg(test)]
mod tests {
    use super::key_lines;

    #[test]
    fn link_errors_quote_the_linker() {
        let bfd = "/usr/bin/ld: /tmp/u-2ee2cd.o: in function `f':\n/tmp/u.c:2: undefined reference to `c_tolower'\n\
                   /usr/bin/ld: /tmp/u.c:2: undefined reference to `g2'\n\
                   clang-22: error: linker command failed with exit code 1 (use -v to see invocation)\n";
        assert_eq!(key_lines(bfd), "/tmp/u.c:2: undefined reference to `c_tolower'; /tmp/u.c:2: undefined reference to `g2'");
        let lld = "ld.lld: error: undefined symbol: c_tolower\n>>> referenced by u.c:2\n\n\
                   clang-22: error: linker command failed with exit code 1 (use -v to see invocation)\n";
        assert_eq!(key_lines(lld), "ld.lld: error: undefined symbol: c_tolower");
        // nothing but the driver's line: quoted
        let bare = "clang-22: error: linker command failed with exit code 1\n";
        assert_eq!(
            key_lines(bare),
            "clang-22: error: linker command failed with exit code 1"
        );
        // a full disk: bfd's reason, not only the driver's line
        let full = "/usr/bin/ld: final link failed: No space left on device\n\
                    clang-22: error: linker command failed with exit code 1 (use -v to see invocation)\n";
        assert_eq!(
            key_lines(full),
            "final link failed: No space left on device"
        );
        // compile errors: the first and a count, as before
        let cc = "a.c:1:5: error: x\na.c:2:5: error: y\na.c:3:5: error: z\n3 errors generated.\n";
        assert_eq!(key_lines(cc), "a.c:1:5: error: x (and 2 more errors)");
    }
}

/// `path` as clang cannot take it for an option: `./-x.c` for `-x.c`.
pub fn not_an_option(path: &Path) -> std::borrow::Cow<'_, Path> {
    if path.as_os_str().as_encoded_bytes().first() == Some(&b'-') {
        std::borrow::Cow::Owned(Path::new(".").join(path))
    } else {
        std::borrow::Cow::Borrowed(path)
    }
}
