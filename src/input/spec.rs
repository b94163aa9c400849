//! Ranges as the user writes them (`--range a=-1000..1000`, `x=-5..5@0.001`), before they are
//! checked against a field's type ([`super::Field::set_range`]).

use anyhow::{anyhow, bail, Result};

/// An inclusive range for one parameter, as text (parsed against the parameter's type later).
#[derive(Clone, Debug, PartialEq)]
pub struct RangeSpec {
    pub name: String,
    pub lo: String,
    pub hi: String,
}

/// Parse `NAME=LO..HI`.
///
/// Errors (one line): no `=`, no `..`, an empty bound or name.
pub fn parse_range_arg(s: &str) -> Result<RangeSpec> {
    let bad = || anyhow!("--range {s}: expected NAME=LO..HI, e.g. a=-1000..1000");
    let (name, r) = s.split_once('=').ok_or_else(bad)?;
    let (lo, hi) = split_range(r).ok_or_else(bad)?;
    if name.trim().is_empty() {
        bail!("--range {s}: missing parameter name");
    }
    Ok(RangeSpec {
        name: name.trim().to_string(),
        lo,
        hi,
    })
}

/// Split `LO..HI`, where LO may be negative.
pub fn split_range(r: &str) -> Option<(String, String)> {
    let r = r.trim();
    // skip a leading sign so that "-5..-1" splits at the right place
    let start = if r.starts_with('-') || r.starts_with('+') {
        1
    } else {
        0
    };
    let i = r.get(start..)?.find("..")? + start;
    let (lo, hi) = (&r[..i], &r[i + 2..]);
    if lo.trim().is_empty() || hi.trim().is_empty() {
        return None;
    }
    Some((lo.to_string(), hi.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_parse_with_negative_bounds() {
        assert_eq!(
            parse_range_arg("a=-1000..1000").unwrap(),
            RangeSpec {
                name: "a".into(),
                lo: "-1000".into(),
                hi: "1000".into()
            }
        );
        assert_eq!(parse_range_arg("x=-5.5..-1").unwrap().hi, "-1");
        assert!(parse_range_arg("a=5").is_err());
        assert!(parse_range_arg("=1..2").is_err());
        assert!(parse_range_arg("a").is_err());
        assert!(parse_range_arg("a=-..").is_err());
    }
}
