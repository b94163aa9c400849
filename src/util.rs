//! Small helpers with no knowledge of the rest of evotest: atomic file writes, number
//! formatting, hex, waiting for a child process with a time limit.

use anyhow::{Context, Result};
use std::path::Path;

/// Write `bytes` to `path` atomically (temporary file in the same directory, then rename), so that
/// a killed run never leaves a half-written file. The result gets mode 0644, or keeps the mode of
/// the file it replaces.
///
/// Errors: the directory is not writable.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    replace(path, bytes, true)
}

/// As [`write_atomic`], without `fsync`: a killed process never leaves a half-written file (the
/// temporary file, named `.tmp…`, is renamed into place), but a power cut may lose the write.
/// For files written many times a second (fuzzing corpus entries, statistics).
///
/// Errors: the directory is not writable.
pub fn write_replace(path: &Path, bytes: &[u8]) -> Result<()> {
    replace(path, bytes, false)
}

/// Write through a temporary file in the same directory renamed into place, with `fsync` or not.
fn replace(path: &Path, bytes: &[u8], sync: bool) -> Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::NamedTempFile::new_in(dir)
        .with_context(|| format!("cannot write in {}", dir.display()))?;
    std::io::Write::write_all(&mut tmp, bytes)
        .with_context(|| format!("cannot write {}", path.display()))?;
    // A temporary file is created 0600; give the result the mode a plain write would (0644), or
    // keep the mode of the file it replaces.
    let mode = std::fs::metadata(path)
        .map(|m| std::os::unix::fs::PermissionsExt::mode(&m.permissions()))
        .unwrap_or(0o644);
    std::fs::set_permissions(
        tmp.path(),
        std::os::unix::fs::PermissionsExt::from_mode(mode),
    )
    .with_context(|| format!("cannot write {}", path.display()))?;
    if sync {
        tmp.as_file()
            .sync_all()
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    tmp.persist(path)
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}

/// `1234567` → `1,234,567`.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Lower-case hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

/// Bytes of a hex string; `None` if it has an odd length or a non-hex digit.
pub fn unhex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(s.get(2 * i..2 * i + 2)?, 16).ok())
        .collect()
}

/// The path of `to` relative to directory `from` (both made absolute and canonical first when they
/// exist), e.g. `../../examples/triangle.c`; `to` itself when that is impossible.
pub fn relative_path(from: &Path, to: &Path) -> std::path::PathBuf {
    let abs = |p: &Path| {
        p.canonicalize()
            .or_else(|_| std::path::absolute(p))
            .unwrap_or_else(|_| p.to_path_buf())
    };
    let (from, to) = (abs(from), abs(to));
    let (f, t): (Vec<_>, Vec<_>) = (from.components().collect(), to.components().collect());
    let common = f.iter().zip(&t).take_while(|(a, b)| a == b).count();
    if common == 0 {
        return to;
    }
    let mut out = std::path::PathBuf::new();
    for _ in common..f.len() {
        out.push("..");
    }
    for c in &t[common..] {
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trips_and_rejects_junk() {
        assert_eq!(hex(&[0, 255, 16]), "00ff10");
        assert_eq!(unhex("00ff10"), Some(vec![0, 255, 16]));
        assert_eq!(unhex(""), Some(vec![]));
        assert_eq!(unhex("0"), None);
        assert_eq!(unhex("zz"), None);
        assert_eq!(thousands(1234567), "1,234,567");
        assert_eq!(thousands(12), "12");
    }

    #[test]
    fn relative_paths() {
        assert_eq!(
            relative_path(Path::new("/a/b/out"), Path::new("/a/src/x.c")),
            Path::new("../../src/x.c")
        );
        assert_eq!(
            relative_path(Path::new("/a"), Path::new("/a/x.c")),
            Path::new("x.c")
        );
    }

    #[test]
    fn atomic_writes_leave_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f.txt");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"two");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}

/// Wait for `child` at most `limit`; past it, kill it with `SIGKILL` (its whole process group
/// when `group`: a child started as the leader of its own, whose tests fork) and reap it.
/// Whether it ended by itself.
///
/// Errors: waiting for it failed.
pub fn wait_or_kill(
    child: &mut std::process::Child,
    limit: std::time::Duration,
    group: bool,
) -> Result<bool> {
    let start = std::time::Instant::now();
    loop {
        if child.try_wait()?.is_some() {
            return Ok(true);
        }
        if start.elapsed() > limit {
            if group {
                // SAFETY: a plain system call on the child's own process group
                unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
            }
            let _ = child.kill();
            let _ = child.wait();
            return Ok(false);
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
}
