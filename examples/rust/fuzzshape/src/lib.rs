//! A tiny parser to fuzz: `KEY=NUMBER` lines.

pub fn parse(data: &[u8]) -> Option<(u8, i32)> {
    let s = std::str::from_utf8(data).ok()?;
    let (k, v) = s.split_once('=')?;
    if k.len() != 1 {
        return None;
    }
    let key = k.as_bytes()[0];
    let value: i32 = v.trim().parse().ok()?;
    if key == b'x' && value == 4242 {
        return Some((key, value * 2));
    }
    Some((key, value))
}
