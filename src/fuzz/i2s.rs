//! Input-to-state substitution on raw bytes (Aschermann et al. 2019, REDQUEEN; AFL++'s CmpLog):
//! when a compare's operand `a` appears in the input, encoded as the program may have read it,
//! replace that encoding with the same encoding of the other operand `b` (and of `b ± 1`, for an
//! ordering compare), and the other way round.
//!
//! Encodings tried, for an integer operand of an `iN` compare (widened to 64 bits by the probe,
//! by sign or zero extension): the low 1, 2, 4 or 8 bytes (widths up to N/8 that hold the value,
//! as an unsigned or a signed number), little- and big-endian; and the ASCII decimal text (a
//! whole run of digits, with its sign) and hexadecimal text (a whole run of hex digits, in its
//! case, or a field-wide window of a longer run at a byte pair, as a hex decoder reads it). For
//! an operand that is a Unicode code point above U+007F, or compared with one, its UTF-8 bytes
//! in an input that is UTF-8 text (a decoder's code point). For
//! a float operand (an `f64` bit pattern): the 8 bytes
//! of the `f64` and, when the value is exactly an `f32`, the 4 bytes of the `f32`, in both byte
//! orders; an ordering compare also tries the neighbours `next_up`/`next_down`; and its decimal
//! text (what `strtod` read), replaced by the other operand's, or by `nan` for an `isnan` test.
//!
//! For a string compare (`strcmp`, `strncmp`, `memcmp`, `bcmp`, and the arguments of any call of
//! a routine that takes two pointers; REDQUEEN's "routine" operands, CmpLog's `rtn`), the two
//! compared byte strings come from the string operand log
//! ([`StrOperandRec`], each cut to [`crate::trace::STR_OPERAND_CAP`] bytes): every occurrence of one
//! in the input is replaced by the other ([`str_candidates`]), and the one that does not occur in
//! the input is a token for havoc ([`str_tokens`]).

use super::avm::Field;
use crate::trace::{OperandRec, StrOperandRec, OPERANDS_FLOAT};
use evotest_abi::distance::{str_reads_c_strings, STR_STRNCASECMP, STR_STRNCMP};
use evotest_abi::pred::{Pred, Rel};

/// Most candidates built for one compare.
pub const MAX_CANDIDATES: usize = 96;

/// A hash of an input, to tell repeated candidates apart without comparing or keeping copies.
pub fn input_hash(y: &[u8]) -> u64 {
    use std::hash::BuildHasher;
    std::hash::BuildHasherDefault::<std::collections::hash_map::DefaultHasher>::default()
        .hash_one(y)
}

/// The candidates of one input as they are found: each is an edit of `data` (bytes
/// `at..at + remove` replaced by `insert`), made into a whole input only when kept, and kept
/// unless it leaves `data` as it is, repeats an input already kept (by a hash of the input) or
/// comes after `limit`. A long input, in which an operand occurs at thousands of offsets (a
/// 200 KB seed of zeros), thus costs at most `limit` copies, not one per offset.
struct Edits<'a> {
    data: &'a [u8],
    limit: usize,
    seen: std::collections::HashSet<u64>,
    out: Vec<Vec<u8>>,
}

impl<'a> Edits<'a> {
    fn new(data: &'a [u8], limit: usize) -> Edits<'a> {
        Edits {
            data,
            limit: limit.min(MAX_CANDIDATES),
            seen: Default::default(),
            out: Vec::new(),
        }
    }

    fn full(&self) -> bool {
        self.out.len() >= self.limit
    }

    /// Keep `data` with `at..at + remove` replaced by `insert` (see the type's docs).
    fn splice(&mut self, at: usize, remove: usize, insert: &[u8]) {
        if self.full()
            || at + remove > self.data.len()
            || (remove == insert.len() && &self.data[at..at + remove] == insert)
        {
            return;
        }
        let mut y = Vec::with_capacity(self.data.len() - remove + insert.len());
        y.extend_from_slice(&self.data[..at]);
        y.extend_from_slice(insert);
        y.extend_from_slice(&self.data[at + remove..]);
        self.keep(y);
    }

    /// Keep `y` (see the type's docs).
    fn keep(&mut self, y: Vec<u8>) {
        if !self.full() && y != self.data && self.seen.insert(input_hash(&y)) {
            self.out.push(y);
        }
    }
}

/// The width in bytes of the operands of a compare whose LLVM operand type is `ty` (`i32`,
/// `double`, …): 1 to 8, `None` for a pointer or an unknown type.
pub fn operand_width(ty: &str) -> Option<usize> {
    match ty {
        "float" => Some(4),
        "double" => Some(8),
        t => {
            let bits: usize = t.strip_prefix('i')?.parse().ok()?;
            (1..=64)
                .contains(&bits)
                .then(|| bits.div_ceil(8).next_power_of_two().min(8))
        }
    }
}

/// Whether `v` (a 64-bit widened operand) fits `w` bytes as an unsigned or a signed number.
fn fits(v: u64, w: usize) -> bool {
    if w >= 8 {
        return true;
    }
    let bits = 8 * w as u32;
    v < (1u64 << bits) || (v as i64) >= -(1i64 << (bits - 1)) && (v as i64) < 0
}

/// The binary encodings (width in bytes, big-endian) input-to-state tries for an integer operand
/// `a` of a `width`-byte compare: 8, 4, 2 and 1 bytes that fit `width` and hold `a` ([`fits`]),
/// widest first, little-endian first (one byte has one order).
fn int_encodings(a: u64, width: usize) -> impl Iterator<Item = (usize, bool)> {
    super::avm::INT_LAYOUTS
        .into_iter()
        .filter(move |&(w, _)| w <= width && fits(a, w))
}

/// The low `w` bytes of `v`, little-endian or big-endian.
fn encode(v: u64, w: usize, big: bool) -> Vec<u8> {
    let le = v.to_le_bytes();
    let mut b = le[..w].to_vec();
    if big {
        b.reverse();
    }
    b
}

/// Every position of `pat` in `data`.
fn positions(data: &[u8], pat: &[u8]) -> Vec<usize> {
    if pat.is_empty() || data.len() < pat.len() {
        return vec![];
    }
    (0..=data.len() - pat.len())
        .filter(|&p| &data[p..p + pat.len()] == pat)
        .collect()
}

/// `ps` with the offsets that are multiples of `width` first (binary formats align their fields;
/// in a low-entropy input, such as an all-zero seed, a pattern occurs at every offset).
fn aligned_first(mut ps: Vec<usize>, width: usize) -> Vec<usize> {
    ps.sort_by_key(|&p| (p % width.max(1) != 0, p));
    ps
}

/// The replacement values for operand `a` (found in the input) under predicate `pred` against
/// operand `b`: `b` itself, and `b ± 1` for an ordering compare (where equality may not be
/// enough); for an equality compare whose operands are already equal, `b ± 1` only (the outcome
/// left is `!=`).
fn int_targets(a: u64, b: u64, pred: Option<Pred>) -> Vec<u64> {
    match pred.and_then(|p| p.rel()) {
        // operands already equal: the outcome wanted is `!=`
        Some(Rel::Eq) | Some(Rel::Ne) if a == b => vec![b.wrapping_add(1), b.wrapping_sub(1)],
        Some(Rel::Eq) | Some(Rel::Ne) => vec![b],
        _ => vec![b, b.wrapping_add(1), b.wrapping_sub(1)],
    }
}

/// Input-to-state candidates for the compare `rec` (see module docs) over input `data`; `width`
/// is the compare's operand width in bytes ([`operand_width`]). In order: binary encodings at
/// offsets aligned to their width, then at the other offsets (each widest first, little-endian
/// first), then decimal text; without duplicates or `data` itself;
/// at most [`MAX_CANDIDATES`].
pub fn candidates(data: &[u8], rec: &OperandRec, width: usize) -> Vec<Vec<u8>> {
    candidates_upto(data, rec, width, MAX_CANDIDATES)
}

/// [`candidates`], at most `limit` of them (and [`MAX_CANDIDATES`]).
pub fn candidates_upto(data: &[u8], rec: &OperandRec, width: usize, limit: usize) -> Vec<Vec<u8>> {
    let mut out = Edits::new(data, limit);
    let pred = rec.pred();
    // a constant operand is never looked for: it does not come from the input (an all-zero seed
    // holds `x == 0`'s 0 at every offset)
    let sides: Vec<(u64, u64)> = [(true, rec.a, rec.b), (false, rec.b, rec.a)]
        .into_iter()
        .filter(|&(left, ..)| !rec.constant(left))
        .map(|(_, a, b)| (a, b))
        .collect();
    if rec.kind & OPERANDS_FLOAT != 0 {
        for &(a, b) in &sides {
            floats(f64::from_bits(a), f64::from_bits(b), pred, &mut out);
        }
        for &(a, b) in &sides {
            float_text(f64::from_bits(a), f64::from_bits(b), pred, &mut out);
        }
        return out.out;
    }
    let width = width.clamp(1, 8);
    // whether the input holds an operand in one of its binary encodings
    let mut held = false;
    // positions aligned to the encoding's width first: in a low-entropy input (an all-zero
    // seed, padding) the operand occurs everywhere, and binary formats align their fields
    for aligned in [true, false] {
        for &(a, b) in &sides {
            for (w, big) in int_encodings(a, width) {
                if w == 1 && !aligned {
                    continue;
                }
                let pat = encode(a, w, big);
                for p in positions(data, &pat)
                    .into_iter()
                    .filter(|p| (p % w == 0) == aligned)
                {
                    held = true;
                    if out.full() {
                        return out.out;
                    }
                    for t in int_targets(a, b, pred) {
                        out.splice(p, w, &encode(t, w, big));
                    }
                }
            }
        }
    }
    for &(a, b) in &sides {
        decimal(a, b, pred, width, &mut out);
    }
    for &(a, b) in &sides {
        hex(a, b, pred, width, &mut out);
    }
    for &(a, b) in &sides {
        utf8(a, b, pred, width, &mut out);
    }
    // an operand whose binary encodings the input does not hold: perhaps it holds them
    // base64-encoded (a decoded byte compared with a constant)
    if !held {
        for &(a, b) in &sides {
            for (w, big) in int_encodings(a, width) {
                for t in int_targets(a, b, pred) {
                    base64(&encode(a, w, big), &encode(t, w, big), 1, true, &mut out);
                }
            }
        }
    }
    out.out
}

/// Input-to-state on the input's *length* (a harness's `if (size < sizeof(header)) return 0`,
/// a parser's `n >= 12`): when an operand of the integer compare `rec` equals `data.len()`, the
/// input cut or extended (with zero bytes) to each replacement length ([`int_targets`]) of at
/// most `max_len` bytes. The length is an input that no byte holds, so substitution on the bytes
/// never finds it, and havoc under length control reaches a long gate only slowly.
///
/// Each resized input comes twice when the input holds a *length field*, an integer of 2 or 4
/// bytes (either byte order) equal to its length less at most [`MAX_LENGTH_FIELD_OFFSET`] (a
/// header's total size, WOFF2's `length`, RIFF's size less 8): once as it is, and once with those
/// fields rewritten for the new length. A format that checks such a field lets no input grow
/// otherwise: a longer input fails the check, and a field set to a new length fails it too
/// until the input has that length.
pub fn length_candidates(data: &[u8], rec: &OperandRec, max_len: usize) -> Vec<Vec<u8>> {
    let mut out = Edits::new(data, MAX_CANDIDATES);
    if rec.kind & OPERANDS_FLOAT != 0 {
        return out.out;
    }
    let pred = rec.pred();
    let n = data.len() as u64;
    if rec.a != n && rec.b != n {
        return out.out;
    }
    let fields = length_fields(data);
    for (a, b) in [(rec.a, rec.b), (rec.b, rec.a)] {
        if a != n {
            continue;
        }
        for t in int_targets(a, b, pred) {
            if t <= max_len as u64 && t != n {
                let mut y = data.to_vec();
                y.resize(t as usize, 0);
                if !fields.is_empty() {
                    let mut z = y.clone();
                    for f in &fields {
                        f.write(&mut z, t);
                    }
                    out.keep(z);
                }
                out.keep(y);
            }
        }
    }
    out.out
}

/// Largest difference between an input's length and a length field of it ([`length_fields`]).
pub const MAX_LENGTH_FIELD_OFFSET: u64 = 16;

/// Most length fields an input may hold for [`length_candidates`] to rewrite them (more are
/// coincidences of small numbers, not fields).
const MAX_LENGTH_FIELDS: usize = 4;

/// An integer field of an input that holds its length less `offset`.
#[derive(Clone, Copy, Debug, PartialEq)]
struct LengthField {
    field: Field,
    offset: u64,
}

impl LengthField {
    /// Write `len - offset` into `y` (when it fits the field and `y` holds it).
    fn write(&self, y: &mut Vec<u8>, len: u64) {
        let v = len.saturating_sub(self.offset);
        if self.field.width < 8 && v >> (8 * self.field.width) != 0 {
            return;
        }
        self.field.set(y, v);
    }
}

/// The length fields of `data` (see [`length_candidates`]): integers of 2 or 4 bytes at any
/// offset, either byte order, whose value is `data.len() - k` for `k` in
/// `0..=`[`MAX_LENGTH_FIELD_OFFSET`] and at least 8 (smaller numbers are everywhere); none when
/// there are more than [`MAX_LENGTH_FIELDS`]. A field read both ways counts once, little-endian.
fn length_fields(data: &[u8]) -> Vec<LengthField> {
    let n = data.len() as u64;
    let mut out: Vec<LengthField> = Vec::new();
    for width in [4usize, 2] {
        for at in 0..data.len().saturating_sub(width - 1) {
            for big_endian in [false, true] {
                let field = Field::int(at, width, big_endian);
                let v = field.get(data);
                if v < 8 || v > n || n - v > MAX_LENGTH_FIELD_OFFSET {
                    continue;
                }
                // a narrower read inside a wider field already found is that field
                if out
                    .iter()
                    .any(|f| at >= f.field.offset && at + width <= f.field.offset + f.field.width)
                {
                    continue;
                }
                out.push(LengthField {
                    field,
                    offset: n - v,
                });
                if out.len() > MAX_LENGTH_FIELDS {
                    return vec![];
                }
                break;
            }
        }
    }
    out
}

/// Operand `v` of a `width`-byte compare (1 to 8) as an unsigned number of that width.
fn unsigned_in(v: u64, width: usize) -> u64 {
    let bits = 8 * width.clamp(1, 8) as u32;
    if bits == 64 {
        v
    } else {
        v & ((1u64 << bits) - 1)
    }
}

/// The decimal texts of operand `v` of a `width`-byte compare: signed, and unsigned when it
/// differs.
fn decimal_forms(v: u64, width: usize) -> Vec<String> {
    let bits = 8 * width.clamp(1, 8) as u32;
    let unsigned = unsigned_in(v, width);
    let signed = if bits == 64 {
        v as i64
    } else {
        ((unsigned << (64 - bits)) as i64) >> (64 - bits)
    };
    let mut f = vec![signed.to_string()];
    if unsigned as i128 != signed as i128 {
        f.push(unsigned.to_string());
    }
    f
}

/// Candidates replacing a decimal text of `a` in `data` (a maximal run of digits, with a `-`
/// before it when negative) by the text of `b` (and `b ± 1` for an ordering compare). A text with
/// leading zeros (`"07"` of a fixed-width field, read by `atoi` as 7) is replaced whole, by the
/// target zero-padded to its width when it fits (`"12"`, `"03"`), so that the field keeps its
/// width.
fn decimal(a: u64, b: u64, pred: Option<Pred>, width: usize, out: &mut Edits) {
    let data = out.data;
    for text in decimal_forms(a, width) {
        let pat = text.as_bytes();
        for p in positions(data, pat) {
            if out.full() {
                return;
            }
            let end = p + pat.len();
            // leading zeros of a non-negative text: the run starts at the first of them
            let mut start = p;
            if !text.starts_with('-') {
                while start > 0 && data[start - 1] == b'0' {
                    start -= 1;
                }
            }
            // (a `-` before a non-negative text may be a separator, "2024-07-15", as well as a
            // sign: the candidate costs one execution either way)
            let digit_before = start > 0 && data[start - 1].is_ascii_digit();
            if digit_before || data.get(end).is_some_and(|c| c.is_ascii_digit()) {
                continue;
            }
            for t in int_targets(a, b, pred) {
                let mut repl = if text.starts_with('-') || (t as i64) < 0 && width < 8 {
                    decimal_forms(t, width)[0].clone()
                } else {
                    decimal_forms(t, width).last().cloned().unwrap_or_default()
                };
                let run = end - start;
                if start < p && !repl.starts_with('-') && repl.len() < run {
                    repl = format!("{repl:0>run$}");
                }
                out.splice(start, run, repl.as_bytes());
            }
        }
    }
}

/// The UTF-8 encoding of `v` when it is a Unicode scalar value (at most U+10FFFF, not a
/// surrogate).
fn utf8_bytes(v: u64) -> Option<Vec<u8>> {
    let c = char::from_u32(u32::try_from(v).ok()?)?;
    Some(c.encode_utf8(&mut [0; 4]).as_bytes().to_vec())
}

/// Candidates replacing the UTF-8 encoding of code point `a` in `data` by that of `b` (and
/// `b ± 1` for an ordering compare), for a compare of at least 2 bytes whose operands are both
/// Unicode scalar values and one of them above U+007F (a decoder's code point compared with a
/// character outside ASCII: its bytes in the input are not the value's binary encoding, and
/// replacing them can change the input's length). Only in an input that is UTF-8 text as a
/// whole: in a binary input, a byte below 0x80 compared with a larger number (a length with its
/// limit) is no character.
fn utf8(a: u64, b: u64, pred: Option<Pred>, width: usize, out: &mut Edits) {
    if width < 2 || a.max(b) < 0x80 {
        return;
    }
    let (Some(pat), Some(_)) = (utf8_bytes(a), utf8_bytes(b)) else {
        return;
    };
    let data = out.data;
    if std::str::from_utf8(data).is_err() {
        return;
    }
    for p in positions(data, &pat) {
        if out.full() {
            return;
        }
        for t in int_targets(a, b, pred) {
            if let Some(repl) = utf8_bytes(t) {
                out.splice(p, pat.len(), &repl);
            }
        }
    }
}

/// The hex digits of `t`, upper case or lower, zero-padded to at least `digits`.
fn hex_text(t: u64, upper: bool, digits: usize) -> String {
    if upper {
        format!("{t:0digits$X}")
    } else {
        format!("{t:0digits$x}")
    }
}

/// Candidates replacing a hexadecimal text of `a` in `data` (a maximal run of 2 to 16 hex digits,
/// zeros in front allowed, whose value is `a` as an unsigned `width`-byte number: what
/// `strtoul(s, 0, 16)` or `sscanf("%x")` read) by the hex text of `b` (and `b ± 1` for an
/// ordering compare), in the run's case and zero-padded to its length when it fits (a token of
/// 16 hex digits stays 16); and, for a field of 2 bytes or more, each window of exactly its
/// width's digits at an even offset in a longer run (a hex decoder's bytes). REDQUEEN's ASCII
/// encodings; issue 13's "ASCII decimal and hex".
fn hex(a: u64, b: u64, pred: Option<Pred>, width: usize, out: &mut Edits) {
    let data = out.data;
    let a = unsigned_in(a, width);
    let mut p = 0;
    while p < data.len() {
        if !data[p].is_ascii_hexdigit() {
            p += 1;
            continue;
        }
        let end = p + data[p..]
            .iter()
            .take_while(|c| c.is_ascii_hexdigit())
            .count();
        let run = &data[p..end];
        // a run of decimal digits only is read as decimal first ([`decimal`]); as hex it still
        // counts (`strtoul(s, 0, 16)` of "10" is 16)
        if (2..=16).contains(&run.len()) {
            let v = u64::from_str_radix(std::str::from_utf8(run).unwrap_or(""), 16).ok();
            if v == Some(a) {
                let upper = run.iter().any(|c| c.is_ascii_uppercase());
                for t in int_targets(a, b, pred) {
                    if out.full() {
                        return;
                    }
                    let text = hex_text(unsigned_in(t, width), upper, run.len());
                    out.splice(p, run.len(), text.as_bytes());
                }
            }
        }
        // a hex decoder's fixed-width window of a longer run (a 32-bit field as the first 8 of
        // 64 hex digits): every window of 2 × width digits at an even offset from the run's
        // start (where byte pairs begin) whose value is `a`, for fields of 2 bytes or more (a
        // byte's two digits match almost anywhere)
        let digits = 2 * width;
        if width >= 2 && run.len() > digits {
            for o in (0..=run.len() - digits).step_by(2) {
                let win = &data[p + o..p + o + digits];
                let v = u64::from_str_radix(std::str::from_utf8(win).unwrap_or(""), 16).ok();
                if v != Some(a) {
                    continue;
                }
                let upper = win.iter().any(|c| c.is_ascii_uppercase());
                for t in int_targets(a, b, pred) {
                    if out.full() {
                        return;
                    }
                    let text = hex_text(unsigned_in(t, width), upper, digits);
                    if text.len() == digits {
                        out.splice(p + o, digits, text.as_bytes());
                    }
                }
            }
        }
        p = end;
    }
}

/// The text `strtod` reads as `v`: the shortest decimal that round-trips, in exponent form beyond
/// 1e16 or below 1e-4; `inf`, `-inf`, `nan`.
fn float_to_text(v: f64) -> String {
    if v.is_nan() {
        "nan".into()
    } else if v.is_infinite() {
        if v > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        }
    } else if v != 0.0 && (v.abs() >= 1e16 || v.abs() < 1e-4) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

/// Candidates replacing a decimal text of the float `a` in `data` (a maximal run of the
/// characters of a decimal floating constant, `0-9 + - . e E`, with a digit, or a word such as
/// `inf` or `nan`, that reads as `a`, or as `a` rounded to `float`: what `strtod`, `strtof` or
/// `atof` parsed) by the text of `b` (and its neighbours for an ordering compare); for an
/// `isnan`-style test (`fcmp uno`/`ord`, whose operands are the value twice) by `nan` and by `0`.
/// A number a configuration file or a JSON document holds as text is out of reach of the binary
/// encodings (REDQUEEN's ASCII encodings, for floats).
fn float_text(a: f64, b: f64, pred: Option<Pred>, out: &mut Edits) {
    let data = out.data;
    let texts: Vec<String> = match pred {
        Some(Pred::Uno) | Some(Pred::Ord) => vec!["nan".into(), "0".into()],
        _ => float_targets(a, b, pred)
            .into_iter()
            .map(float_to_text)
            .collect(),
    };
    let numeric = |c: u8| c.is_ascii_digit() || matches!(c, b'+' | b'-' | b'.' | b'e' | b'E');
    let mut p = 0;
    while p < data.len() {
        let (end, word) = if data[p].is_ascii_alphabetic() {
            (
                p + data[p..]
                    .iter()
                    .take_while(|c| c.is_ascii_alphabetic())
                    .count(),
                true,
            )
        } else if numeric(data[p]) {
            (
                p + data[p..].iter().take_while(|&&c| numeric(c)).count(),
                false,
            )
        } else {
            p += 1;
            continue;
        };
        let run = &data[p..end];
        let candidate = (word && (3..=8).contains(&run.len()))
            || (!word && run.iter().any(u8::is_ascii_digit) && run.len() <= 40);
        if candidate {
            // a sign before a word (`-inf`) belongs to it
            let (at, len) = if word && p > 0 && matches!(data[p - 1], b'-' | b'+') {
                (p - 1, run.len() + 1)
            } else {
                (p, run.len())
            };
            let v = std::str::from_utf8(&data[at..at + len])
                .ok()
                .and_then(|t| t.parse::<f64>().ok());
            if let Some(v) = v {
                let same = |x: f64| x == a || (x.is_nan() && a.is_nan());
                if same(v) || same(v as f32 as f64) {
                    for t in &texts {
                        if out.full() {
                            return;
                        }
                        out.splice(at, len, t.as_bytes());
                    }
                }
            }
        }
        p = end;
    }
}

/// The values a float operand `a` is replaced by: `b`, and its neighbours for an ordering compare
/// or when the operands are already equal (the outcome wanted is `!=`).
fn float_targets(a: f64, b: f64, pred: Option<Pred>) -> Vec<f64> {
    let mut targets = vec![b];
    if (!pred.is_some_and(Pred::is_equality) || a == b) && b.is_finite() {
        targets.extend([b.next_up(), b.next_down()]);
    }
    targets
}

/// Candidates replacing the `f64` or `f32` encoding of `a` by that of `b` (and its neighbours for
/// an ordering compare).
fn floats(a: f64, b: f64, pred: Option<Pred>, out: &mut Edits) {
    let data = out.data;
    let targets = float_targets(a, b, pred);
    for big in [false, true] {
        let pat = if big {
            a.to_be_bytes()
        } else {
            a.to_le_bytes()
        };
        for p in aligned_first(positions(data, &pat), 8) {
            if out.full() {
                return;
            }
            for &t in &targets {
                out.splice(
                    p,
                    8,
                    &if big {
                        t.to_be_bytes()
                    } else {
                        t.to_le_bytes()
                    },
                );
            }
        }
        let a32 = a as f32;
        if a32 as f64 == a || a.is_nan() {
            let pat = if big {
                a32.to_be_bytes()
            } else {
                a32.to_le_bytes()
            };
            for p in aligned_first(positions(data, &pat), 4) {
                if out.full() {
                    return;
                }
                for &t in &targets {
                    let mut t32 = t as f32;
                    // the f32 neighbours, not the f64 ones (which round back to `b`)
                    if t > b {
                        t32 = (b as f32).next_up();
                    } else if t < b {
                        t32 = (b as f32).next_down();
                    }
                    out.splice(
                        p,
                        4,
                        &if big {
                            t32.to_be_bytes()
                        } else {
                            t32.to_le_bytes()
                        },
                    );
                }
            }
        }
    }
}

/// The value of base64 character `c` (RFC 4648): the standard alphabet, or with `url` the
/// URL-safe one (`-` and `_` for 62 and 63).
fn b64_value(c: u8, url: bool) -> Option<u8> {
    Some(match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' if !url => 62,
        b'/' if !url => 63,
        b'-' if url => 62,
        b'_' if url => 63,
        _ => return None,
    })
}

/// The base64 character of the 6-bit value `v` (see [`b64_value`]).
fn b64_char(v: u8, url: bool) -> u8 {
    match v & 63 {
        v @ 0..=25 => b'A' + v,
        v @ 26..=51 => b'a' + v - 26,
        v @ 52..=61 => b'0' + v - 52,
        62 if url => b'-',
        63 if url => b'_',
        62 => b'+',
        _ => b'/',
    }
}

/// The base64 text of `bytes`, whole groups only (a length that is a multiple of 3).
pub(super) fn b64_encode(bytes: &[u8], url: bool) -> Vec<u8> {
    bytes
        .chunks_exact(3)
        .flat_map(|b| {
            let w = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
            [18, 12, 6, 0].map(|s| b64_char((w >> s) as u8, url))
        })
        .collect()
}

/// Fewest bytes of a string compare's operand looked for in base64-decoded text ([`base64`]):
/// two bytes occur by chance in the decoding of any long run of letters.
pub const BASE64_MIN_BYTES: usize = 3;

/// Candidates that rewrite bytes `x` where the input holds them **base64-encoded** (RFC 4648, as
/// AFL++'s CmpLog transforms try; a credential in an HTTP header, a PEM body, a data URI): every
/// run of at least four base64 characters of `data` is decoded from each of its four phases
/// (whole groups of four characters only), `x` (at least `min` bytes: [`BASE64_MIN_BYTES`] for
/// a string compare's operand, 1 for an integer's encoding) is looked for in the decoded bytes, and each occurrence is replaced by `y` of the same length and the
/// groups encoded again in the run's alphabet (standard, or URL-safe when the run has `-` or
/// `_`). With `strict` (an integer's encodings, whose few bytes occur by chance in the decoding
/// of any long word), only runs an encoder could have written are decoded, from their start: at
/// least 8 characters in whole groups, or followed by `=` padding.
fn base64(x: &[u8], y: &[u8], min: usize, strict: bool, out: &mut Edits) {
    if x.len() < min || x.len() != y.len() {
        return;
    }
    let data = out.data;
    let mut p = 0;
    while p < data.len() {
        let url = |c: u8| c == b'-' || c == b'_';
        let in_run = |c: u8| b64_value(c, false).is_some() || url(c);
        if !in_run(data[p]) {
            p += 1;
            continue;
        }
        let end = p + data[p..].iter().take_while(|&&c| in_run(c)).count();
        let run = &data[p..end];
        let is_url = run.iter().any(|&c| url(c));
        // strict: only what an encoder writes, whole groups from the run's start (at least two)
        // or a run that padding ends; a word of a text format is seldom that
        let encoded = run.len() >= 8 && run.len() % 4 == 0 || data.get(end) == Some(&b'=');
        let phases = if strict {
            usize::from(encoded)
        } else {
            4.min(run.len())
        };
        if !(is_url && run.iter().any(|&c| c == b'+' || c == b'/')) {
            for phase in 0..phases {
                let groups = (run.len() - phase) / 4;
                if 3 * groups < x.len() {
                    continue;
                }
                let enc = &run[phase..phase + 4 * groups];
                let mut dec = Vec::with_capacity(3 * groups);
                for g in enc.chunks(4) {
                    let w = g.iter().fold(0u32, |w, &c| {
                        w << 6 | b64_value(c, is_url).unwrap_or(0) as u32
                    });
                    dec.extend_from_slice(&[(w >> 16) as u8, (w >> 8) as u8, w as u8]);
                }
                for q in positions(&dec, x) {
                    if out.full() {
                        return;
                    }
                    let mut d = dec.clone();
                    d[q..q + y.len()].copy_from_slice(y);
                    out.splice(p + phase, enc.len(), &b64_encode(&d, is_url));
                }
            }
        }
        p = end;
    }
}

/// Input-to-state candidates for the string compare `rec` over input `data` (Aschermann et al.
/// 2019, REDQUEEN): for each direction (operand `x` found, operand `y` written), every occurrence
/// of `x`'s logged bytes in `data` is replaced by `y`'s (the input grows or shrinks by the
/// difference of their lengths), and, where the compare reads a C string (`strcmp`, `strcasecmp`, `strstr`, `strcasestr`; `strncmp`
/// when `y` ended before `n` bytes), also by `y` and its NUL terminator. When `x` holds a NUL
/// (`memcmp` or `strncmp` read past the end of a C string of the input), the part before its
/// first NUL is looked for as well. An empty `x` (a C string the input left empty) has no bytes
/// to find: `y` is inserted where an empty string of the input may start, before each NUL byte
/// and at the end of `data`. Directions in order (a → b first), occurrences in input order; without duplicates or
/// `data` itself; at most [`MAX_CANDIDATES`].
pub fn str_candidates(data: &[u8], rec: &StrOperandRec) -> Vec<Vec<u8>> {
    str_candidates_upto(data, rec, MAX_CANDIDATES)
}

/// [`str_candidates`], at most `limit` of them (and [`MAX_CANDIDATES`]).
pub fn str_candidates_upto(data: &[u8], rec: &StrOperandRec, limit: usize) -> Vec<Vec<u8>> {
    let mut out = Edits::new(data, limit);
    for ((x, x_cut), (y, y_len, y_cut)) in [
        ((rec.a(), rec.a_cut()), (rec.b(), rec.b_len, rec.b_cut())),
        ((rec.b(), rec.b_cut()), (rec.a(), rec.a_len, rec.a_cut())),
    ] {
        if x == y && !x_cut && !y_cut {
            continue;
        }
        // what is written in place of `x`
        let mut writes = vec![y.to_vec()];
        // a search finds the needle before a NUL as well as without one
        let c_string = if matches!(rec.func, STR_STRNCMP | STR_STRNCASECMP) {
            y_len < rec.n
        } else {
            str_reads_c_strings(rec.func)
        };
        if c_string && !y_cut {
            let mut t = y.to_vec();
            t.push(0);
            writes.push(t);
        }
        let mut patterns = vec![x];
        if let Some(k) = x.iter().position(|&c| c == 0) {
            if k > 0 {
                patterns.push(&x[..k]);
            }
        }
        if x.is_empty() {
            // an empty C string of the input starts at one of its NULs, or at its end
            let starts = (0..data.len())
                .filter(|&p| data[p] == 0)
                .chain([data.len()]);
            for p in starts {
                if out.full() {
                    return out.out;
                }
                for w in &writes {
                    out.splice(p, 0, w);
                }
            }
            continue;
        }
        let mut found = false;
        for pat in &patterns {
            for p in positions(data, pat) {
                found = true;
                if out.full() {
                    return out.out;
                }
                for w in &writes {
                    out.splice(p, pat.len(), w);
                }
            }
        }
        // not in the input as it is: perhaps base64-encoded there
        if !found {
            let n = x.len().min(y.len());
            base64(&x[..n], &y[..n], BASE64_MIN_BYTES, false, &mut out);
        }
    }
    out.out
}

/// Tokens for havoc from the string compare `rec` run on `data`: each logged operand of at least
/// two bytes that does not occur in `data` (so, most likely, the program's own string rather
/// than bytes of the input), without duplicates. None from a routine call's operands
/// ([`evotest_abi::shm::RTN_SITE`]) that are neither C strings nor of a length the routine was
/// given (`memcmp` with `n` = 0: bytes of unknown extent, a struct's as often as not).
pub fn str_tokens(data: &[u8], rec: &StrOperandRec) -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = Vec::new();
    if rec.site == evotest_abi::shm::RTN_SITE
        && rec.func == evotest_abi::distance::STR_MEMCMP
        && rec.n == 0
    {
        return out;
    }
    for t in [rec.a(), rec.b()] {
        if t.len() >= 2 && positions(data, t).is_empty() && !out.iter().any(|o| o.as_slice() == t) {
            out.push(t.to_vec());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use evotest_abi::distance::{STR_MEMCMP, STR_STRCMP};

    fn srec(func: u32, n: u64, a: &[u8], b: &[u8]) -> StrOperandRec {
        StrOperandRec::new(0, func, n, a, b)
    }

    #[test]
    fn a_routines_operands_of_unknown_extent_are_no_tokens() {
        let mut r = srec(
            STR_MEMCMP,
            0,
            b"\x01\x02struct bytes",
            b"\x03\x04other struct",
        );
        assert!(
            str_tokens(b"input", &r).len() == 2,
            "a compare site's operands are tokens"
        );
        r.site = evotest_abi::shm::RTN_SITE;
        assert!(str_tokens(b"input", &r).is_empty());
        // a routine with a length argument, or C strings, give tokens
        r.n = 14;
        assert_eq!(str_tokens(b"input", &r).len(), 2);
        let mut c = srec(STR_STRCMP, 0, b"keyword", b"other");
        c.site = evotest_abi::shm::RTN_SITE;
        assert_eq!(
            str_tokens(b"input", &c),
            vec![b"keyword".to_vec(), b"other".to_vec()]
        );
    }

    #[test]
    fn decoded_code_points_are_found_and_written_as_utf8() {
        let rec = |a: u64, b: u64| OperandRec {
            site: 0,
            kind: Pred::Eq as u32,
            a,
            b,
        };
        // 'é' (C3 A9) decoded and compared with U+20AC: its bytes become E2 82 AC (longer)
        let data = "x\u{e9}y".as_bytes();
        let c = candidates(data, &rec(0xe9, 0x20ac), 4);
        assert!(c.contains(&"x\u{20ac}y".as_bytes().to_vec()), "{c:?}");
        // an ASCII character compared with U+1F600: its byte becomes four
        let c = candidates(b"ab", &rec(b'b' as u64, 0x1f600), 4);
        assert!(c.contains(&"a\u{1f600}".as_bytes().to_vec()), "{c:?}");
        // and back: a four-byte character compared with 'z'
        let c = candidates("\u{1f600}!".as_bytes(), &rec(0x1f600, b'z' as u64), 4);
        assert!(c.contains(&b"z!".to_vec()), "{c:?}");
        // neither operand above U+007F, a one-byte compare, or a value that is no scalar
        // value (a surrogate): no UTF-8 candidates
        let utf8_only = |data: &[u8], r: OperandRec, w: usize| {
            let mut out = Edits::new(data, MAX_CANDIDATES);
            utf8(r.a, r.b, r.pred(), w, &mut out);
            out.out
        };
        assert!(utf8_only(b"ab", rec(b'b' as u64, b'c' as u64), 4).is_empty());
        assert!(utf8_only(b"ab", rec(b'b' as u64, 0xe9), 1).is_empty());
        assert!(utf8_only(b"ab", rec(b'b' as u64, 0xd800), 4).is_empty());
        // an input that is not UTF-8 text (a binary header before it)
        assert!(utf8_only(&[0xff, b'a', b'b'], rec(b'b' as u64, 0xe9), 4).is_empty());
        assert!(!utf8_only(b"ab", rec(b'b' as u64, 0xe9), 4).is_empty());
    }

    #[test]
    fn compared_bytes_are_found_and_written_in_base64_text() {
        // "user:AAAA" encoded after a header; the program compares the decoded "AAAA" with "pass"
        let b64 = b64_encode;
        let mut data = b"Basic ".to_vec();
        data.extend(b64(b"user:AAAAxyz", false));
        let rec = srec(STR_MEMCMP, 4, b"AAAA", b"pass");
        let c = str_candidates(&data, &rec);
        let mut want = b"Basic ".to_vec();
        want.extend(b64(b"user:passxyz", false));
        assert!(
            c.contains(&want),
            "{:?}",
            c.iter()
                .map(|y| String::from_utf8_lossy(y))
                .collect::<Vec<_>>()
        );
        // the URL-safe alphabet of a run that has `-` or `_`
        for x in [b"\xfb\xffAAAA", b"AAAA\xfb\xff"] {
            let data = b64(x, true);
            assert!(data.iter().any(|&c| c == b'-' || c == b'_'), "{data:?}");
            let mut y = x.to_vec();
            let at = positions(x, b"AAAA")[0];
            y[at..at + 4].copy_from_slice(b"pass");
            assert!(str_candidates(&data, &rec).contains(&b64(&y, true)));
        }
        // not at a group boundary: the bytes are found from another phase of the run
        let data = [b"x".to_vec(), b64(b"user:AAAAxyz", false)].concat();
        assert!(str_candidates(&data, &rec)
            .contains(&[b"x".to_vec(), b64(b"user:passxyz", false)].concat()));
        // fewer than three bytes are not looked for in a string compare
        let two = srec(STR_MEMCMP, 2, b"AA", b"pa");
        assert!(str_candidates(&b64(b"AAAAAA", false), &two).is_empty());
        // a decoded byte compared with a constant (an integer compare): its base64 text rewritten
        let data = b64(b"KEY\x12ab", false);
        let rec = OperandRec {
            site: 0,
            kind: Pred::Eq as u32 | evotest_abi::shm::OPERAND_B_CONST,
            a: 0x12,
            b: 0x80,
        };
        assert!(candidates(&data, &rec, 4).contains(&b64(b"KEY\x80ab", false)));
    }

    #[test]
    fn aligned_offsets_come_first_in_a_low_entropy_input() {
        // x == 7 for a 4-byte x, logged as (0, 7), on an all-zero input where 0 is everywhere
        let data = vec![0u8; 12];
        let rec = OperandRec {
            site: 0,
            kind: Pred::Eq as u32,
            a: 0,
            b: 7,
        };
        let c = candidates(&data, &rec, 4);
        let at = |y: &Vec<u8>| y.iter().position(|&b| b != 0).unwrap();
        let first: Vec<usize> = c.iter().take(6).map(at).collect();
        // little-endian 7 at offsets 0, 4, 8; big-endian at 3, 7, 11 (the same aligned words)
        assert_eq!(first, [0, 4, 8, 3, 7, 11], "{c:?}");
        assert!(
            c.iter().skip(6).take(2).all(|y| at(y) % 4 != 0),
            "then narrower encodings and other offsets"
        );
    }

    #[test]
    fn a_constant_operand_is_not_looked_for_in_the_input() {
        // x != 0 for the 4-byte x at offset 4 (x = 7) on an otherwise zero input: the 0 at
        // every other offset is the program's constant, not the input's x
        let data = [0u8, 0, 0, 0, 7, 0, 0, 0];
        let both = OperandRec {
            site: 0,
            kind: Pred::Ne as u32,
            a: 7,
            b: 0,
        };
        let c = candidates(&data, &both, 4);
        assert!(
            c.iter().any(|y| y[..4] != [0, 0, 0, 0]),
            "without the flag the zeros are replaced too: {c:?}"
        );
        let flagged = OperandRec {
            kind: both.kind | evotest_abi::shm::OPERAND_B_CONST,
            ..both
        };
        let c = candidates(&data, &flagged, 4);
        assert!(
            !c.is_empty() && c.iter().all(|y| y[..4] == [0, 0, 0, 0]),
            "only x is replaced: {c:?}"
        );
        assert_eq!(c[0], [0u8, 0, 0, 0, 0, 0, 0, 0]);
    }

    #[test]
    fn floats_at_aligned_offsets_first_and_equal_operands_get_neighbours() {
        // b == 1.0 for the second of two doubles, on an all-zero input
        let data = vec![0u8; 16];
        let rec = OperandRec {
            site: 0,
            kind: Pred::Eq as u32 | OPERANDS_FLOAT,
            a: 0f64.to_bits(),
            b: 1f64.to_bits(),
        };
        let c = candidates(&data, &rec, 8);
        assert_eq!(f64::from_le_bytes(c[0][..8].try_into().unwrap()), 1.0);
        assert_eq!(
            f64::from_le_bytes(c[1][8..].try_into().unwrap()),
            1.0,
            "offset 8 second: {c:?}"
        );
        // x == 5 with x already 5: the `!=` outcome is left, so 6 and 4, not 5 again
        let data = vec![9u8, 5, 0, 0, 0];
        let rec = OperandRec {
            site: 0,
            kind: Pred::Eq as u32,
            a: 5,
            b: 5,
        };
        let c = candidates(&data, &rec, 4);
        assert_eq!(c[..2], [vec![9u8, 6, 0, 0, 0], vec![9u8, 4, 0, 0, 0]]);
        let rec = OperandRec {
            site: 0,
            kind: Pred::Eq as u32 | OPERANDS_FLOAT,
            a: 0f64.to_bits(),
            b: 0f64.to_bits(),
        };
        assert!(candidates(&[0u8; 8], &rec, 8)
            .iter()
            .any(|y| f64::from_le_bytes(y[..8].try_into().unwrap()) != 0.0));
    }

    #[test]
    fn a_memcmp_operand_found_in_the_input_takes_the_other() {
        // memcmp(data, "MAGIC_HEADER", 12) on an input that starts with other bytes
        let data = b"ABCDEFGHIJKLtail".to_vec();
        let c = str_candidates(
            &data,
            &srec(STR_MEMCMP, 12, b"ABCDEFGHIJKL", b"MAGIC_HEADER"),
        );
        assert_eq!(c[0], b"MAGIC_HEADERtail".to_vec());
        // memcmp reads no C string: no NUL-terminated variant; the reverse direction finds nothing
        assert_eq!(c.len(), 1, "{c:?}");
        // the operands the other way round give the same candidate
        let c = str_candidates(
            &data,
            &srec(STR_MEMCMP, 12, b"MAGIC_HEADER", b"ABCDEFGHIJKL"),
        );
        assert_eq!(c, vec![b"MAGIC_HEADERtail".to_vec()]);
    }

    #[test]
    fn a_strcmp_operand_is_replaced_whole_with_and_without_its_terminator() {
        // strcmp(s, "xK9#qZ!vR2") with s = "hello" copied from the input's tail
        let data = b"\x01\x02hello".to_vec();
        let c = str_candidates(&data, &srec(STR_STRCMP, 0, b"hello", b"xK9#qZ!vR2"));
        assert_eq!(
            c,
            vec![
                b"\x01\x02xK9#qZ!vR2".to_vec(),
                b"\x01\x02xK9#qZ!vR2\0".to_vec()
            ]
        );
        // every occurrence, in input order
        let c = str_candidates(b"ab-ab", &srec(STR_STRCMP, 0, b"ab", b"XYZ"));
        assert_eq!(c[0], b"XYZ-ab".to_vec());
        assert!(c.contains(&b"ab-XYZ".to_vec()), "{c:?}");
        // equal operands: nothing to do
        assert!(str_candidates(b"same", &srec(STR_STRCMP, 0, b"same", b"same")).is_empty());
    }

    #[test]
    fn strncmp_terminates_only_a_string_shorter_than_n() {
        let data = b"GET /".to_vec();
        // strncmp(s, "POST", 4): 4 bytes, no terminator
        let c = str_candidates(&data, &srec(STR_STRNCMP, 4, b"GET ", b"POST"));
        assert_eq!(c, vec![b"POST/".to_vec()]);
        // strncmp(s, "PUT", 8): "PUT" ended before n, so its NUL is compared too
        let c = str_candidates(&data, &srec(STR_STRNCMP, 8, b"GET /", b"PUT"));
        assert_eq!(c, vec![b"PUT".to_vec(), b"PUT\0".to_vec()]);
    }

    #[test]
    fn a_memcmp_past_a_short_string_matches_the_part_before_the_nul() {
        // memcmp(s, "KEYWORD", 7) where s is the C string "ke" copied from the input
        let data = b"xke".to_vec();
        let c = str_candidates(
            &data,
            &srec(STR_MEMCMP, 7, b"ke\0\x7f\x7f\x7f\x7f", b"KEYWORD"),
        );
        assert_eq!(c, vec![b"xKEYWORD".to_vec()]);
    }

    #[test]
    fn an_empty_string_operand_inserts_the_other_before_each_nul_and_at_the_end() {
        let c = str_candidates(b"head", &srec(STR_STRCMP, 0, b"", b"key"));
        assert_eq!(c, vec![b"headkey".to_vec(), b"headkey\0".to_vec()]);
        let c = str_candidates(b"h\0d", &srec(STR_STRCMP, 0, b"", b"key"));
        assert_eq!(
            c,
            vec![
                b"hkey\0d".to_vec(),
                b"hkey\0\0d".to_vec(),
                b"h\0dkey".to_vec(),
                b"h\0dkey\0".to_vec()
            ]
        );
    }

    #[test]
    fn a_cut_operand_is_replaced_by_its_logged_prefix() {
        let long = vec![b'L'; crate::trace::STR_OPERAND_CAP + 20];
        let mut data = b"<".to_vec();
        data.extend((0..crate::trace::STR_OPERAND_CAP as u8 + 20).map(|i| b'a' + i % 26));
        let r = srec(STR_STRCMP, 0, &data[1..], &long);
        let c = str_candidates(&data, &r);
        // the logged 64 bytes of the input's string become the 64 logged bytes of the other; a
        // cut string gets no terminator (it goes on beyond what the log holds)
        assert_eq!(c.len(), 1, "{c:?}");
        assert_eq!(
            &c[0][1..1 + crate::trace::STR_OPERAND_CAP],
            &long[..crate::trace::STR_OPERAND_CAP]
        );
        assert_eq!(c[0].len(), data.len());
    }

    #[test]
    fn tokens_are_the_operands_not_in_the_input() {
        let r = srec(STR_STRCMP, 0, b"hello", b"xK9#qZ!vR2");
        assert_eq!(str_tokens(b"..hello..", &r), vec![b"xK9#qZ!vR2".to_vec()]);
        assert_eq!(str_tokens(b"", &r).len(), 2);
        assert!(
            str_tokens(b"", &srec(STR_STRCMP, 0, b"x", b"")).is_empty(),
            "single bytes and empty strings are no tokens"
        );
    }

    fn rec(pred: Pred, a: u64, b: u64) -> OperandRec {
        OperandRec {
            site: 0,
            kind: pred as u32,
            a,
            b,
        }
    }

    #[test]
    fn a_length_field_is_rewritten_with_the_length_it_describes() {
        // a 21-byte input whose big-endian u32 at 8 is its length (WOFF2's header), and `n < 22`
        let mut data = vec![0u8; 21];
        data[..4].copy_from_slice(b"wOF2");
        data[8..12].copy_from_slice(&21u32.to_be_bytes());
        let c = length_candidates(&data, &rec(Pred::Ult, 21, 22), 4096);
        let coupled = c
            .iter()
            .find(|y| y.len() == 22 && y[8..12] == 22u32.to_be_bytes())
            .expect("the field follows the length");
        assert_eq!(&coupled[..8], &data[..8]);
        assert!(
            c.iter()
                .any(|y| y.len() == 22 && y[8..12] == 21u32.to_be_bytes()),
            "and the plain resize"
        );
        // a little-endian size less 8 (RIFF): rewritten the same way
        let mut riff = b"RIFF".to_vec();
        riff.extend_from_slice(&8u32.to_le_bytes());
        riff.extend_from_slice(b"WAVEfmt ");
        let c = length_candidates(&riff, &rec(Pred::Ult, 16, 40), 4096);
        assert!(
            c.iter()
                .any(|y| y.len() == 40 && y[4..8] == 32u32.to_le_bytes()),
            "{c:?}"
        );
        // no field: only the plain resizes
        assert!(length_fields(b"abcdefgh").is_empty());
    }

    #[test]
    fn a_compare_of_the_input_length_resizes_the_input() {
        // `n < 12` with n = 4 (unsigned): lengths 12, 13 and 11, zero-padded
        let c = length_candidates(b"abcd", &rec(Pred::Ult, 4, 12), 4096);
        let lens: Vec<usize> = c.iter().map(Vec::len).collect();
        assert_eq!(lens, [12, 13, 11]);
        assert!(c
            .iter()
            .all(|y| y.starts_with(b"abcd") && y[4..].iter().all(|&b| b == 0)));
        // the length on the right, and an equality: exactly the other operand; a cut
        assert_eq!(
            length_candidates(b"abcdef", &rec(Pred::Eq, 2, 6), 4096),
            [b"ab".to_vec()]
        );
        // past max_len, or no operand equal to the length: nothing
        assert!(length_candidates(b"abcd", &rec(Pred::Eq, 4, 5000), 4096).is_empty());
        assert!(length_candidates(b"abcd", &rec(Pred::Eq, 3, 12), 4096).is_empty());
    }

    #[test]
    fn widths_of_llvm_types() {
        assert_eq!(operand_width("i32"), Some(4));
        assert_eq!(operand_width("i1"), Some(1));
        assert_eq!(operand_width("i24"), Some(4));
        assert_eq!(operand_width("i64"), Some(8));
        assert_eq!(operand_width("double"), Some(8));
        assert_eq!(operand_width("ptr"), None);
        assert_eq!(operand_width("i128"), None);
    }

    #[test]
    fn a_little_endian_word_takes_the_other_operand() {
        let data = b"HEAD\x01\x02\x03\x04tail".to_vec();
        let c = candidates(&data, &rec(Pred::Eq, 0x04030201, 0xDEADBEEF), 4);
        assert_eq!(c[0], b"HEAD\xef\xbe\xad\xdetail".to_vec());
        // equality: no neighbours
        assert!(!c.iter().any(|y| y[4] == 0xf0 || y[4] == 0xee));
    }

    #[test]
    fn a_big_endian_half_word_and_the_reverse_direction() {
        // the program compared (d[8] << 8 | d[9]) == 0x1234, with d[8..10] = 00 07
        let data = vec![0, 0, 0, 0, 0, 0, 0, 0, 0, 7];
        let c = candidates(&data, &rec(Pred::Eq, 7, 0x1234), 4);
        assert!(
            c.contains(&vec![0, 0, 0, 0, 0, 0, 0, 0, 0x12, 0x34]),
            "{c:?}"
        );
        // the operands in the other order give the same candidate
        let c2 = candidates(&data, &rec(Pred::Eq, 0x1234, 7), 4);
        assert!(c2.contains(&vec![0, 0, 0, 0, 0, 0, 0, 0, 0x12, 0x34]));
    }

    #[test]
    fn ordering_compares_try_the_neighbours_and_signed_values_match() {
        // x < -5 with x = -1 (a signed byte widened to 64 bits)
        let data = vec![0xff, 0x10];
        let c = candidates(&data, &rec(Pred::Slt, -1i64 as u64, -5i64 as u64), 1);
        let firsts: Vec<u8> = c.iter().map(|y| y[0]).collect();
        assert_eq!(firsts, vec![0xfb, 0xfc, 0xfa]);
    }

    #[test]
    fn decimal_text_is_replaced_whole() {
        let data = b"n=17;m=170".to_vec();
        let c = candidates(&data, &rec(Pred::Eq, 17, 123456), 4);
        assert!(
            c.contains(&b"n=123456;m=170".to_vec()),
            "{:?}",
            c.iter()
                .map(|y| String::from_utf8_lossy(y).into_owned())
                .collect::<Vec<_>>()
        );
        assert!(
            !c.iter().any(|y| y.ends_with(b"m=1234560")),
            "17 inside 170 is not a match"
        );
        let neg = b"x=-3".to_vec();
        let c = candidates(&neg, &rec(Pred::Eq, -3i64 as u64, -42i64 as u64), 4);
        assert!(c.contains(&b"x=-42".to_vec()), "{c:?}");
        // a fixed-width field with leading zeros: atoi("07") == 12, and 15 → 3 keeps "03"
        let date = b"2024-07-15".to_vec();
        let c = candidates(&date, &rec(Pred::Eq, 7, 12), 4);
        assert!(c.contains(&b"2024-12-15".to_vec()), "{c:?}");
        let date = b"2024-07-015".to_vec();
        let c = candidates(&date, &rec(Pred::Eq, 15, 3), 4);
        assert!(c.contains(&b"2024-07-003".to_vec()), "{c:?}");
    }

    /// A number read as hex text (`strtoull(tok, 0, 16) == hash`): the token is replaced by the
    /// other operand's hex digits, in its case and padded to its length.
    #[test]
    fn hex_text_is_replaced_in_its_case_and_length() {
        let data = b"AUTH 00000000DEADBEEF\n".to_vec();
        let c = candidates(&data, &rec(Pred::Eq, 0xdead_beef, 0x0123_4567_89ab_cdef), 8);
        let texts: Vec<String> = c
            .iter()
            .map(|y| String::from_utf8_lossy(y).into_owned())
            .collect();
        assert!(
            texts.contains(&"AUTH 0123456789ABCDEF\n".to_string()),
            "{texts:?}"
        );
        let data = b"id=0x1f;".to_vec();
        let c = candidates(&data, &rec(Pred::Eq, 0x1f, 0x2a), 4);
        let texts: Vec<String> = c
            .iter()
            .map(|y| String::from_utf8_lossy(y).into_owned())
            .collect();
        assert!(texts.contains(&"id=0x2a;".to_string()), "{texts:?}");
        // part of a longer run is no match
        assert!(candidates(b"x=1fab", &rec(Pred::Eq, 0x1f, 0x2a), 4).is_empty());
        // ... unless it is a field's whole width at a byte pair of a hex decoder's run: the first
        // 32 bits of "c0ffee4102" (0xc0ffee41) compared with 0xC0FFEE42
        let c = candidates(b"c0ffee4102", &rec(Pred::Eq, 0xc0ff_ee41, 0xc0ff_ee42), 4);
        let texts: Vec<String> = c
            .iter()
            .map(|y| String::from_utf8_lossy(y).into_owned())
            .collect();
        assert!(texts.contains(&"c0ffee4202".to_string()), "{texts:?}");
        // and at an odd offset it is not (hex pairs start at even ones)
        assert!(
            candidates(b"0c0ffee412", &rec(Pred::Eq, 0xc0ff_ee41, 0xc0ff_ee42), 4)
                .iter()
                .all(|y| y.as_slice() != b"0c0ffee422")
        );
    }

    /// A float read from text (`strtod`): `x > 100.5` with x = 0.25 rewrites "0.25" to "100.5"
    /// and its neighbours; an `isnan` test (`fcmp uno x, x`) rewrites it to "nan".
    #[test]
    fn float_text_is_replaced() {
        let data = b"gain=0.25;n=3".to_vec();
        let r = OperandRec {
            site: 0,
            kind: Pred::Ogt as u32 | OPERANDS_FLOAT,
            a: 0.25f64.to_bits(),
            b: 100.5f64.to_bits(),
        };
        let texts: Vec<String> = candidates(&data, &r, 8)
            .iter()
            .map(|y| String::from_utf8_lossy(y).into_owned())
            .collect();
        assert!(texts.contains(&"gain=100.5;n=3".to_string()), "{texts:?}");
        assert!(
            texts
                .iter()
                .any(|t| t.starts_with("gain=100.50000000000001")),
            "{texts:?}"
        );
        let r = OperandRec {
            site: 0,
            kind: Pred::Uno as u32 | OPERANDS_FLOAT,
            a: 0.25f64.to_bits(),
            b: 0.25f64.to_bits(),
        };
        let texts: Vec<String> = candidates(&data, &r, 8)
            .iter()
            .map(|y| String::from_utf8_lossy(y).into_owned())
            .collect();
        assert!(texts.contains(&"gain=nan;n=3".to_string()), "{texts:?}");
        // a float read with strtof: 0.1f is 0.10000000149011612 as a double
        let r = OperandRec {
            site: 0,
            kind: Pred::Oeq as u32 | OPERANDS_FLOAT,
            a: (0.1f32 as f64).to_bits(),
            b: 2.0f64.to_bits(),
        };
        let texts: Vec<String> = candidates(b"r=0.1", &r, 4)
            .iter()
            .map(|y| String::from_utf8_lossy(y).into_owned())
            .collect();
        assert!(texts.contains(&"r=2".to_string()), "{texts:?}");
    }

    #[test]
    fn floats_as_f64_and_f32() {
        let mut data = 1.5f64.to_le_bytes().to_vec();
        data.extend(2.25f32.to_be_bytes());
        let r = OperandRec {
            site: 0,
            kind: Pred::Oeq as u32 | OPERANDS_FLOAT,
            a: 1.5f64.to_bits(),
            b: 3.0f64.to_bits(),
        };
        let c = candidates(&data, &r, 8);
        assert_eq!(&c[0][..8], &3.0f64.to_le_bytes());
        let r = OperandRec {
            site: 0,
            kind: Pred::Olt as u32 | OPERANDS_FLOAT,
            a: 2.25f64.to_bits(),
            b: 0.5f64.to_bits(),
        };
        let c = candidates(&data, &r, 4);
        assert!(c.iter().any(|y| y[8..] == 0.5f32.to_be_bytes()));
        assert!(c.iter().any(|y| y[8..] == 0.5f32.next_down().to_be_bytes()));
    }

    #[test]
    fn nothing_matches_nothing_is_built() {
        assert!(candidates(b"abc", &rec(Pred::Eq, 0x11223344, 5), 4).is_empty());
        assert!(candidates(b"", &rec(Pred::Eq, 0, 5), 4).is_empty());
    }
}
