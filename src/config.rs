//! User configuration: parameter ranges and shapes from a TOML file, shape flags, and duration
//! parsing.
//!
//! TOML format:
//! ```toml
//! [ranges]
//! a = "-1000..1000"      # inclusive, as on the command line
//! x = [0.0, 100.0]       # or as a two-element array
//! d = "-50000..50000@0.001"  # a float with a precision step
//! [arrays]
//! a = 10                 # --array a=10
//! [strings]
//! isbn = "13:0-9X"       # --string isbn=13:0-9X
//! [buffers]
//! data = "n:64"          # --buffer data=n:64
//! ```

use crate::frontend::function::shape::ShapeSpec;
use crate::input::spec::{split_range, RangeSpec};
use anyhow::{anyhow, bail, Context, Result};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    #[serde(default)]
    ranges: BTreeMap<String, toml::Value>,
    #[serde(default)]
    arrays: BTreeMap<String, usize>,
    #[serde(default)]
    strings: BTreeMap<String, toml::Value>,
    #[serde(default)]
    buffers: BTreeMap<String, String>,
}

/// What a configuration file says.
#[derive(Clone, Debug, Default)]
pub struct Config {
    pub ranges: Vec<RangeSpec>,
    pub shapes: Vec<ShapeSpec>,
}

/// Parse `--array`, `--string` and `--buffer` values.
pub fn parse_shapes(
    arrays: &[String],
    strings: &[String],
    buffers: &[String],
) -> Result<Vec<ShapeSpec>> {
    let mut out = Vec::new();
    for a in arrays {
        out.push(ShapeSpec::parse_array(a)?);
    }
    for s in strings {
        out.push(ShapeSpec::parse_string(s)?);
    }
    for b in buffers {
        out.push(ShapeSpec::parse_buffer(b)?);
    }
    Ok(out)
}

/// Read a TOML configuration (see module docs).
///
/// Errors: unreadable file, bad TOML, or a malformed entry.
pub fn load(path: &Path) -> Result<Config> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read config {}", path.display()))?;
    let cfg: ConfigFile =
        toml::from_str(&text).map_err(|e| anyhow!("{}: {}", path.display(), e.message()))?;
    let mut shapes = Vec::new();
    for (name, len) in &cfg.arrays {
        shapes.push(
            ShapeSpec::parse_array(&format!("{name}={len}"))
                .with_context(|| path.display().to_string())?,
        );
    }
    for (name, v) in &cfg.strings {
        let s = match v {
            toml::Value::Integer(n) => n.to_string(),
            toml::Value::String(s) => s.clone(),
            _ => bail!(
                "{}: strings.{name} must be MAX or \"MAX:ALPHABET\"",
                path.display()
            ),
        };
        shapes.push(
            ShapeSpec::parse_string(&format!("{name}={s}"))
                .with_context(|| path.display().to_string())?,
        );
    }
    for (name, s) in &cfg.buffers {
        shapes.push(
            ShapeSpec::parse_buffer(&format!("{name}={s}"))
                .with_context(|| path.display().to_string())?,
        );
    }
    Ok(Config {
        ranges: ranges_of(&cfg, path)?,
        shapes,
    })
}

/// Ranges from a TOML file (see module docs).
pub fn load_ranges(path: &Path) -> Result<Vec<RangeSpec>> {
    Ok(load(path)?.ranges)
}

fn ranges_of(cfg: &ConfigFile, path: &Path) -> Result<Vec<RangeSpec>> {
    let mut out = Vec::new();
    for (name, v) in &cfg.ranges {
        let name = name.clone();
        let bad = || {
            anyhow!(
                "{}: range of `{name}` must be \"LO..HI\" or [LO, HI]",
                path.display()
            )
        };
        let (lo, hi) = match v {
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

/// Longest duration accepted: 10 years.
pub const MAX_DURATION: Duration = Duration::from_secs(10 * 365 * 24 * 3600);

/// Parse a duration: `500ms`, `2s`, `1.5s`, `3m`, `1h`, or a bare number of seconds.
///
/// Errors (one line): not a number with a unit, not positive, or longer than [`MAX_DURATION`].
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
    let v: f64 = num
        .trim()
        .parse()
        .map_err(|_| anyhow!("invalid duration `{s}` (examples: 500ms, 2s, 3m)"))?;
    if !(v.is_finite() && v > 0.0) {
        bail!("invalid duration `{s}`: must be positive");
    }
    let secs = v * mul;
    if secs > MAX_DURATION.as_secs_f64() {
        bail!("invalid duration `{s}`: at most 10 years (use 0 for no limit where one is allowed)");
    }
    Ok(Duration::from_secs_f64(secs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("500ms").unwrap(), Duration::from_millis(500));
        assert_eq!(parse_duration("2s").unwrap(), Duration::from_secs(2));
        assert_eq!(parse_duration("3").unwrap(), Duration::from_secs(3));
        assert_eq!(parse_duration("1m").unwrap(), Duration::from_secs(60));
        assert!(parse_duration("fast").is_err());
        assert!(parse_duration("0s").is_err());
        // absurd values are one-line errors, not panics
        assert!(parse_duration("1e300").is_err());
        assert!(parse_duration("18446744073709551615s").is_err());
        assert!(parse_duration("inf").is_err());
        assert!(parse_duration("-1s").is_err());
    }

    mod fuzz {
        use super::super::*;
        use crate::frontend::function::shape::ShapeSpec;
        use crate::input::spec::parse_range_arg;
        use crate::input::{Field, ScalarType};
        use proptest::prelude::*;

        proptest! {
            /// No string makes the parsers of flags panic.
            #[test]
            fn flag_parsers_never_panic(s in "\\PC{0,40}") {
                let _ = parse_duration(&s);
                let _ = parse_range_arg(&s);
                let _ = ShapeSpec::parse_array(&s);
                let _ = ShapeSpec::parse_string(&s);
                let _ = ShapeSpec::parse_buffer(&s);
                let _ = crate::frontend::function::shape::parse_alphabet(&s);
            }

            /// Nor do range bounds of any text, against any type.
            #[test]
            fn range_bounds_never_panic(lo in "\\PC{0,24}", hi in "\\PC{0,24}", t in 0usize..11) {
                let ty = [ScalarType::Bool, ScalarType::I8, ScalarType::U8, ScalarType::I16, ScalarType::U16, ScalarType::I32,
                          ScalarType::U32, ScalarType::I64, ScalarType::U64, ScalarType::F32, ScalarType::F64][t];
                let _ = Field::full("x", ty).set_range(&lo, &hi, "x");
            }

            /// Durations written with a unit parse to what they say (or to an error past the limit).
            #[test]
            fn durations_parse_to_their_value(v in 0.001f64..1e12, unit in 0usize..4) {
                let (suffix, mul) = [("ms", 0.001), ("s", 1.0), ("m", 60.0), ("h", 3600.0)][unit];
                match parse_duration(&format!("{v}{suffix}")) {
                    Ok(d) => prop_assert!((d.as_secs_f64() - v * mul).abs() <= 1e-6 * (v * mul).max(1.0)),
                    Err(_) => prop_assert!(v * mul > MAX_DURATION.as_secs_f64()),
                }
            }

            /// Integer ranges parse back to their bounds.
            #[test]
            fn ranges_parse_to_their_bounds(lo in any::<i64>(), hi in any::<i64>()) {
                let r = parse_range_arg(&format!("a={lo}..{hi}")).unwrap();
                prop_assert_eq!((r.lo.parse::<i64>().unwrap(), r.hi.parse::<i64>().unwrap()), (lo, hi));
            }

            /// No configuration file makes the loader panic.
            #[test]
            fn config_files_never_panic(text in "(\\[(ranges|arrays|strings|buffers)\\]\n)?([a-z]{1,3} = (\"[-0-9.:a-z]{0,8}\"|[0-9]{1,4}|\\[[0-9., ]{0,8}\\])\n){0,4}") {
                let dir = tempfile::tempdir().unwrap();
                let p = dir.path().join("c.toml");
                std::fs::write(&p, &text).unwrap();
                let _ = load(&p);
            }
        }
    }

    #[test]
    fn toml_ranges() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("c.toml");
        std::fs::write(&p, "[ranges]\na = \"-10..10\"\nx = [0.5, 2]\n").unwrap();
        let r = load_ranges(&p).unwrap();
        assert_eq!(r.len(), 2);
        assert_eq!(
            r[0],
            RangeSpec {
                name: "a".into(),
                lo: "-10".into(),
                hi: "10".into()
            }
        );
        assert_eq!(r[1].lo, "0.5");
        std::fs::write(&p, "[ranges]\na = 5\n").unwrap();
        assert!(load_ranges(&p).is_err());
        std::fs::write(
            &p,
            "[arrays]\na = 10\n[strings]\ns = \"5:a-z\"\nt = 3\n[buffers]\nb = \"n:4\"\n",
        )
        .unwrap();
        let c = load(&p).unwrap();
        assert_eq!(c.shapes.len(), 4);
        assert!(c.shapes.contains(&ShapeSpec::Array {
            name: "a".into(),
            len: 10
        }));
        assert!(c.shapes.contains(&ShapeSpec::Buffer {
            name: "b".into(),
            len_param: "n".into(),
            max: 4
        }));
    }
}
