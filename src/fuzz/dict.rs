//! Fuzzing dictionaries in the AFL/libFuzzer format: one token per line, `"value"` or
//! `name="value"` (AFL also allows `name@level="value"`), with `\\`, `\"` and `\xNN` escapes;
//! empty lines and lines starting with `#` are ignored.

use anyhow::{anyhow, bail, Context, Result};
use std::path::Path;

/// Parse one line's token; `Ok(None)` for blank and comment lines.
///
/// Errors: no quoted value, an unknown escape, a bad `\x` escape.
pub fn parse_line(line: &str) -> Result<Option<Vec<u8>>> {
    let l = line.trim();
    if l.is_empty() || l.starts_with('#') {
        return Ok(None);
    }
    let start = l.find('"').ok_or_else(|| anyhow!("no quoted value"))?;
    if !l.ends_with('"') || l.len() < start + 2 {
        bail!("the value must end with '\"'");
    }
    let body = &l.as_bytes()[start + 1..l.len() - 1];
    let mut out = Vec::with_capacity(body.len());
    let mut i = 0;
    while i < body.len() {
        let c = body[i];
        if c != b'\\' {
            out.push(c);
            i += 1;
            continue;
        }
        match body.get(i + 1) {
            Some(b'\\') => out.push(b'\\'),
            Some(b'"') => out.push(b'"'),
            Some(b'x') => {
                let h = body
                    .get(i + 2..i + 4)
                    .ok_or_else(|| anyhow!("\\x needs two hex digits"))?;
                let v = std::str::from_utf8(h)
                    .ok()
                    .and_then(|h| u8::from_str_radix(h, 16).ok());
                out.push(v.ok_or_else(|| anyhow!("\\x needs two hex digits"))?);
                i += 4;
                continue;
            }
            Some(&other) => bail!("unknown escape \\{}", other as char),
            None => bail!("a '\\' at the end of the value"),
        }
        i += 2;
    }
    Ok(Some(out))
}

/// Read the dictionary at `path`: its tokens, without duplicates, in file order.
///
/// Errors (one line): the file cannot be read, or a line is malformed (`FILE:LINE: why`).
pub fn load(path: &Path) -> Result<Vec<Vec<u8>>> {
    let text = std::fs::read(path)
        .with_context(|| format!("cannot read dictionary {}", path.display()))?;
    let text = String::from_utf8_lossy(&text);
    let mut tokens: Vec<Vec<u8>> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        match parse_line(line) {
            Ok(Some(t)) if !t.is_empty() && !tokens.contains(&t) => tokens.push(t),
            Ok(_) => {}
            Err(e) => bail!(
                "{}:{}: {e} (dictionary lines are \"value\" or name=\"value\")",
                path.display(),
                i + 1
            ),
        }
    }
    Ok(tokens)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn afl_and_libfuzzer_lines() {
        assert_eq!(
            parse_line("kw1=\"<?xml\"").unwrap(),
            Some(b"<?xml".to_vec())
        );
        assert_eq!(
            parse_line("  \"a\\\"b\\\\c\\x00\\xff\"  ").unwrap(),
            Some(b"a\"b\\c\x00\xff".to_vec())
        );
        assert_eq!(parse_line("tok@2=\"x\"").unwrap(), Some(b"x".to_vec()));
        assert_eq!(parse_line("# comment").unwrap(), None);
        assert_eq!(parse_line("").unwrap(), None);
        assert!(parse_line("novalue").is_err());
        assert!(parse_line("\"bad\\q\"").is_err());
        assert!(parse_line("\"bad\\x4\"").is_err());
        assert!(parse_line("\"open").is_err());
    }

    #[test]
    fn load_reports_file_and_line() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("x.dict");
        std::fs::write(&p, "\"a\"\n\"a\"\n# c\nb=\"bb\"\n").unwrap();
        assert_eq!(load(&p).unwrap(), vec![b"a".to_vec(), b"bb".to_vec()]);
        std::fs::write(&p, "\"a\"\noops\n").unwrap();
        let e = format!("{:#}", load(&p).unwrap_err());
        assert!(e.contains("x.dict:2:"), "{e}");
    }
}
