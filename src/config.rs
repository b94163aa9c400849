//! User configuration: parameter ranges from `--range` and from a TOML file, and duration parsing.
//!
//! TOML format:
//! ```toml
//! [ranges]
//! a = "-1000..1000"      # inclusive, as on the command line
//! x = [0.0, 100.0]       # or as a two-element array
//! ```

use anyhow::{anyhow, bail, Context, Result};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

/// An inclusive range for one parameter, as text (parsed against the parameter's type later).
#[derive(Clone, Debug, PartialEq)]
pub struct RangeSpec {
    pub name: String,
    pub lo: String,
    pub hi: String,
}

/// Parse `NAME=LO..HI`.
pub fn parse_range_arg(s: &str) -> Result<RangeSpec> {
    let (name, r) = s.split_once('=').ok_or_else(|| anyhow!("--range {s}: expected NAME=LO..HI, e.g. a=-1000..1000"))?;
    let (lo, hi) = split_range(r).ok_or_else(|| anyhow!("--range {s}: expected NAME=LO..HI, e.g. a=-1000..1000"))?;
    if name.trim().is_empty() {
        bail!("--range {s}: missing parameter name");
    }
    Ok(RangeSpec { name: name.trim().to_string(), lo, hi })
}

/// Split `LO..HI`, where LO may be negative.
fn split_range(r: &str) -> Option<(String, String)> {
    let r = r.trim();
    // skip a leading sign so that "-5..-1" splits at the right place
    let start = if r.starts_with('-') || r.starts_with('+') { 1 } else { 0 };
    let i = r[start..].find("..")? + start;
    let (lo, hi) = (&r[..i], &r[i + 2..]);
    if lo.is_empty() || hi.is_empty() {
        return None;
    }
    Some((lo.to_string(), hi.to_string()))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    #[serde(default)]
    ranges: BTreeMap<String, toml::Value>,
}

/// Ranges from a TOML file (see module docs).
///
/// Errors: unreadable file, bad TOML, or a range that is neither `"LO..HI"` nor `[LO, HI]`.
pub fn load_ranges(path: &Path) -> Result<Vec<RangeSpec>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read config {}", path.display()))?;
    let cfg: ConfigFile = toml::from_str(&text)
        .map_err(|e| anyhow!("{}: {}", path.display(), e.message()))?;
    let mut out = Vec::new();
    for (name, v) in cfg.ranges {
        let bad = || anyhow!("{}: range of `{name}` must be \"LO..HI\" or [LO, HI]", path.display());
        let (lo, hi) = match &v {
            toml::Value::String(s) => split_range(s).ok_or_else(bad)?,
            toml::Value::Array(a) if a.len() == 2 => {
                let t = |v: &toml::Value| match v {
                    toml::Value::Integer(i) => Some(i.to_string()),
                    toml::Value::Float(f) => Some(f.to_string()),
                    _ => None,
                };
                (t(&a[0]).ok_or_else(bad)?, t(&a[1]).ok_or_else(bad)?)
            }
            _ => return Err(bad()),
        };
        out.push(RangeSpec { name, lo, hi });
    }
    Ok(out)
}

/// Parse a duration: `500ms`, `2s`, `1.5s`, `3m`, `1h`, or a bare number of seconds.
pub fn parse_duration(s: &str) -> Result<Duration> {
    let s = s.trim();
    let (num, mul) = if let Some(n) = s.strip_suffix("ms") {
        (n, 0.001)
    } else if let Some(n) = s.strip_suffix('s') {
        (n, 1.0)
    } else if let Some(n) = s.strip_suffix('m') {
        (n, 60.0)
    } else if let Some(n) = s.strip_suffix('h') {
        (n, 3600.0)
    } else {
        (s, 1.0)
    };
    let v: f64 = num.trim().parse().map_err(|_| anyhow!("invalid duration `{s}` (examples: 500ms, 2s, 3m)"))?;
    if !(v.is_finite() && v > 0.0) {
        bail!("invalid duration `{s}`: must be positive");
    }
    Ok(Duration::from_secs_f64(v * mul))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_parse_with_negative_bounds() {
        assert_eq!(
            parse_range_arg("a=-1000..1000").unwrap(),
            RangeSpec { name: "a".into(), lo: "-1000".into(), hi: "1000".into() }
        );
        assert_eq!(parse_range_arg("x=-5.5..-1").unwrap().hi, "-1");
        assert!(parse_range_arg("a=5").is_err());
        assert!(parse_range_arg("=1..2").is_err());
        assert!(parse_range_arg("a").is_err());
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("500ms").unwrap(), Duration::from_millis(500));
        assert_eq!(parse_duration("2s").unwrap(), Duration::from_secs(2));
        assert_eq!(parse_duration("3").unwrap(), Duration::from_secs(3));
        assert_eq!(parse_duration("1m").unwrap(), Duration::from_secs(60));
        assert!(parse_duration("fast").is_err());
        assert!(parse_duration("0s").is_err());
    }

    #[test]
    fn toml_ranges() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("c.toml");
        std::fs::write(&p, "[ranges]\na = \"-10..10\"\nx = [0.5, 2]\n").unwrap();
        let r = load_ranges(&p).unwrap();
        assert_eq!(r.len(), 2);
        assert_eq!(r[0], RangeSpec { name: "a".into(), lo: "-10".into(), hi: "10".into() });
        assert_eq!(r[1].lo, "0.5");
        std::fs::write(&p, "[ranges]\na = 5\n").unwrap();
        assert!(load_ranges(&p).is_err());
    }
}
