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

/// The format of an image header, as format sniffers are written: helpers that return a compare
/// of magic bytes (`starts_with`, a slice `==` an array), with no branch on the bytes themselves
/// (after imagesize's `matches`). 1: QOI, 2: WebP, 0: neither.
pub fn sniff(h: &[u8]) -> u8 {
    if is_qoi(h) {
        1
    } else if is_webp(h) {
        2
    } else {
        0
    }
}

fn is_qoi(h: &[u8]) -> bool {
    h.starts_with(b"qoif")
}

fn is_webp(h: &[u8]) -> bool {
    h.len() >= 12 && &h[0..4] == b"RIFF" && &h[8..12] == b"WEBP"
}

/// Whether the body after the 4-byte key starts with the key XOR-ed with 0x5a (a scrambled echo,
/// as some handshakes have): a byte compare against values no constant of the program holds.
pub fn is_echo(h: &[u8]) -> bool {
    let key: Vec<u8> = h.iter().take(4).map(|b| b ^ 0x5a).collect();
    h.len() >= 8 && h[4..].starts_with(&key)
}
