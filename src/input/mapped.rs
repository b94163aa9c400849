//! The **mapped encoding** used by peer fuzzers (libFuzzer, AFL++): any byte string decodes to an
//! input inside the declared domain, and an all-zero string decodes to each gene's lower bound.
//!
//! So that every tool searches the same domain, the peer harnesses decode their bytes with this
//! mapping (generated as C by [`c_decoder`]), and the benchmark replays a peer's inputs through
//! evotest's own instrumented binary after decoding them with [`decode`]. Each gene consumes its
//! type's size in bytes, little-endian, zero-padded when the input is short; with `r` that raw
//! unsigned value:
//!
//! | gene | value |
//! |---|---|
//! | integer in `lo..=hi` | `lo + r mod (hi − lo + 1)` |
//! | `_Bool` | `r & 1` |
//! | length `0..=max` | `r mod (max + 1)` |
//! | character over alphabet A | `A[r mod |A|]` |
//! | float with step s in `lo..=hi` | `lo + (r mod (N + 1))·s`, N = round((hi − lo)/s) |
//! | float in `lo..=hi` | the float whose *ordered key* is `key(lo) + r mod (key(hi) − key(lo) + 1)` |
//! | float, whole type range | the float whose ordered key is `r` (every bit pattern, NaN included) |
//!
//! With the **raw** encoding ([`PeerEncoding::Raw`], the benchmark's default), a field over its
//! type's *whole* range instead takes its bytes as they are (`memcpy`, as a fuzzing user's harness
//! would read an `int` or a `double` from the data): zero bytes are 0 and 0.0, not the lower bound.
//! Declared ranges, lengths, characters and `_Bool`s are mapped as in the table either way.
//!
//! With the **bytes** encoding ([`PeerEncoding::Bytes`]) every parameter is read from the input as
//! a fuzzing user's harness would read it, with no mapping at all: each scalar and array element
//! is its C type's bytes as they are (declared ranges are *not* applied, so use it with programs
//! that declare none), a string is its characters up to the first NUL byte or its maximum length
//! (its slot in the input is that maximum, and there is no length field), a buffer's length is a
//! 4-byte integer cut to the buffer's maximum, and a `_Bool` is the low bit of its byte. The
//! input is then shorter than the domain's direct encoding by the strings' length fields
//! ([`input_len`]).
//!
//! The ordered key of a float maps its bit pattern to an unsigned integer that increases with the
//! float's value (negative patterns inverted, positive ones with the top bit set), so key 0 is the
//! lowest value (a negative NaN for the whole range) and consecutive keys are adjacent floats.

use super::{Domain, Field, Input, Range, Role, ScalarType, Value};
use std::fmt::Write;

/// How a peer's bytes become an input (see module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PeerEncoding {
    /// Whole-range fields take their bytes as they are; the others are mapped.
    #[default]
    Raw,
    /// Every field is mapped onto its range (zero bytes are the lower bounds).
    Mapped,
    /// Every parameter is its bytes as they are, declared ranges ignored; a string is its
    /// characters up to the first NUL (see module docs).
    Bytes,
}

impl PeerEncoding {
    /// Parse `raw`, `mapped` or `bytes`.
    ///
    /// Errors (one line): anything else.
    pub fn parse(s: &str) -> anyhow::Result<PeerEncoding> {
        match s {
            "raw" => Ok(PeerEncoding::Raw),
            "mapped" => Ok(PeerEncoding::Mapped),
            "bytes" => Ok(PeerEncoding::Bytes),
            _ => anyhow::bail!("unknown peer encoding `{s}` (raw, mapped or bytes)"),
        }
    }

    /// Whether field `g` takes its bytes as they are.
    fn is_raw(self, g: &Field) -> bool {
        self == PeerEncoding::Raw && g.full && g.role == Role::Value && g.ty != ScalarType::Bool
    }
}

fn raw(bytes: &[u8], off: usize, n: usize) -> u64 {
    let mut b = [0u8; 8];
    for (k, slot) in b.iter_mut().enumerate().take(n) {
        *slot = bytes.get(off + k).copied().unwrap_or(0);
    }
    u64::from_le_bytes(b)
}

/// Ordered key of an `f32` bit pattern.
pub fn key32(bits: u32) -> u32 {
    if bits & 0x8000_0000 != 0 {
        !bits
    } else {
        bits | 0x8000_0000
    }
}

/// Inverse of [`key32`].
pub fn unkey32(k: u32) -> u32 {
    if k & 0x8000_0000 != 0 {
        k & 0x7fff_ffff
    } else {
        !k
    }
}

/// Ordered key of an `f64` bit pattern.
pub fn key64(bits: u64) -> u64 {
    if bits & (1 << 63) != 0 {
        !bits
    } else {
        bits | (1 << 63)
    }
}

/// Inverse of [`key64`].
pub fn unkey64(k: u64) -> u64 {
    if k & (1 << 63) != 0 {
        k & !(1 << 63)
    } else {
        !k
    }
}

fn float_keys(g: &Field) -> (u64, u64) {
    match (g.ty, g.range) {
        (_, Range::Float { .. }) if g.full => (
            0,
            if g.ty == ScalarType::F32 {
                u32::MAX as u64
            } else {
                u64::MAX
            },
        ),
        (ScalarType::F32, Range::Float { lo, hi }) => (
            key32((lo as f32).to_bits()) as u64,
            key32((hi as f32).to_bits()) as u64,
        ),
        (_, Range::Float { lo, hi }) => (key64(lo.to_bits()), key64(hi.to_bits())),
        _ => (0, 0),
    }
}

fn steps(g: &Field) -> Option<u64> {
    match (g.step, g.range) {
        (Some(s), Range::Float { lo, hi }) => Some(((hi - lo) / s).round().max(0.0) as u64),
        _ => None,
    }
}

/// The value of field `g` for raw value `r`.
fn field_value(g: &Field, r: u64, enc: PeerEncoding) -> Value {
    if enc.is_raw(g) {
        let bits = 8 * g.ty.size() as u32;
        return match g.ty {
            ScalarType::F32 => Value::Float(f32::from_bits(r as u32) as f64),
            ScalarType::F64 => Value::Float(f64::from_bits(r)),
            t if t.is_signed() && bits < 64 => {
                Value::Int(((r << (64 - bits)) as i64 >> (64 - bits)) as i128)
            }
            t if t.is_signed() => Value::Int(r as i64 as i128),
            _ => Value::Int(r as i128),
        };
    }
    match (&g.role, g.range) {
        (Role::Char { alphabet }, _) => {
            Value::Int(alphabet[(r % alphabet.len() as u64) as usize] as i128)
        }
        (_, Range::Int { lo, hi }) => {
            if g.ty == ScalarType::Bool {
                return Value::Int(lo.max((r & 1) as i128).min(hi));
            }
            let w = (hi - lo + 1) as u128;
            Value::Int(lo + ((r as u128) % w) as i128)
        }
        (_, Range::Float { lo, .. }) => {
            if let (Some(n), Some(s)) = (steps(g), g.step) {
                let v = lo + (r % (n + 1)) as f64 * s;
                return Value::Float(if g.ty == ScalarType::F32 {
                    v as f32 as f64
                } else {
                    v
                });
            }
            let (klo, khi) = float_keys(g);
            let span = khi - klo;
            let k = if span == u64::MAX {
                r
            } else {
                klo + r % (span + 1)
            };
            if g.ty == ScalarType::F32 {
                Value::Float(f32::from_bits(unkey32(k as u32)) as f64)
            } else {
                Value::Float(f64::from_bits(unkey64(k)))
            }
        }
    }
}

/// Decode a peer's byte string (see module docs) into the direct encoding of the domain. The
/// arithmetic is the same as the generated C decoder's, so a replayed input is bit-for-bit the one
/// the peer ran; every value is inside its field's domain by construction, except under the
/// bytes encoding, which ignores declared ranges and alphabets.
pub fn decode(d: &Domain, bytes: &[u8], enc: PeerEncoding) -> Input {
    if d.sequence.is_some() {
        // a call sequence: the harnesses read the bytes as they are, in every encoding
        return Input::new(bytes[..bytes.len().min(d.len)].to_vec());
    }
    if enc == PeerEncoding::Bytes {
        return decode_bytes(d, bytes);
    }
    let mut out = vec![0u8; d.len];
    for g in &d.fields {
        let r = raw(bytes, g.offset, g.ty.size());
        let v = field_value(g, r, enc);
        g.write(&mut out, v);
        if g.ty == ScalarType::F32 && g.full && matches!(v, Value::Float(f) if f.is_nan()) {
            // a signalling NaN would come back quiet from its f64 value: write its bits as the C
            // decoder does (the whole range's key span is 2^32, so the key is r's low half)
            let bits = if enc.is_raw(g) {
                r as u32
            } else {
                unkey32(r as u32)
            };
            out[g.offset..g.offset + 4].copy_from_slice(&bits.to_le_bytes());
        }
    }
    Input::new(out)
}

/// Encode an input so that [`decode`] gives it back (used to give peers the same starting input).
pub fn encode(d: &Domain, input: &Input, enc: PeerEncoding) -> Vec<u8> {
    if d.sequence.is_some() {
        return input.bytes.clone();
    }
    if enc == PeerEncoding::Bytes {
        return encode_bytes(d, input);
    }
    let mut out = vec![0u8; d.len];
    for g in &d.fields {
        let v = g.read(&input.bytes);
        let r: u64 = match (&g.role, g.range, v) {
            _ if enc.is_raw(g) => match v {
                Value::Float(f) if g.ty == ScalarType::F32 => (f as f32).to_bits() as u64,
                Value::Float(f) => f.to_bits(),
                Value::Int(i) => i as u64,
            },
            (Role::Char { alphabet }, _, v) => alphabet
                .iter()
                .position(|&c| c as i128 == v.as_i128())
                .unwrap_or(0) as u64,
            (_, Range::Int { lo, .. }, v) => {
                if g.ty == ScalarType::Bool {
                    v.as_i128() as u64 & 1
                } else {
                    (v.as_i128() - lo) as u64
                }
            }
            (_, Range::Float { lo, .. }, Value::Float(f)) => {
                if let (Some(_), Some(s)) = (steps(g), g.step) {
                    ((f - lo) / s).round().max(0.0) as u64
                } else {
                    let (klo, _) = float_keys(g);
                    let k = if g.ty == ScalarType::F32 {
                        key32((f as f32).to_bits()) as u64
                    } else {
                        key64(f.to_bits())
                    };
                    k.wrapping_sub(klo)
                }
            }
            _ => 0,
        };
        let n = g.ty.size();
        out[g.offset..g.offset + n].copy_from_slice(&r.to_le_bytes()[..n]);
    }
    out
}

/// Where the [`PeerEncoding::Bytes`] encoding takes a domain field's bytes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot {
    /// Field `field`'s bytes, as they are, from input offset `from` (a `_Bool`: the low bit).
    Copy { field: usize, from: usize },
    /// A string: `max` characters from input offset `from`, up to the first NUL; its length
    /// goes into field `len_field`, its characters into the `max` fields from `first`.
    Str {
        len_field: usize,
        first: usize,
        max: usize,
        from: usize,
    },
    /// A buffer's length: a 4-byte integer from `from`, cut to `max`.
    Len {
        field: usize,
        from: usize,
        max: usize,
    },
}

/// The [`PeerEncoding::Bytes`] layout of `d`: a slot per field (one per string), and the input
/// length.
fn bytes_layout(d: &Domain) -> (Vec<Slot>, usize) {
    let mut slots = Vec::new();
    let (mut i, mut from) = (0, 0);
    while i < d.fields.len() {
        let g = &d.fields[i];
        let max = match g.range {
            Range::Int { hi, .. } => hi.clamp(0, u32::MAX as i128) as usize,
            _ => 0,
        };
        let is_string = g.role == Role::Length
            && max > 0
            && i + max < d.fields.len()
            && (1..=max).all(|k| {
                let c = &d.fields[i + k];
                matches!(c.role, Role::Char { .. })
                    && c.ty.size() == 1
                    && c.offset == d.fields[i + 1].offset + k - 1
            });
        if is_string {
            slots.push(Slot::Str {
                len_field: i,
                first: i + 1,
                max,
                from,
            });
            from += max;
            i += 1 + max;
        } else if g.role == Role::Length {
            slots.push(Slot::Len {
                field: i,
                from,
                max,
            });
            from += g.ty.size();
            i += 1;
        } else {
            slots.push(Slot::Copy { field: i, from });
            from += g.ty.size();
            i += 1;
        }
    }
    (slots, from)
}

/// Length of a peer's input under `enc`: the domain's length, or for [`PeerEncoding::Bytes`]
/// that of its layout (strings without length fields).
pub fn input_len(d: &Domain, enc: PeerEncoding) -> usize {
    match enc {
        _ if d.sequence.is_some() => d.len,
        PeerEncoding::Bytes => bytes_layout(d).1,
        _ => d.len,
    }
}

fn decode_bytes(d: &Domain, bytes: &[u8]) -> Input {
    let mut out = vec![0u8; d.len];
    let byte = |k: usize| bytes.get(k).copied().unwrap_or(0);
    for slot in bytes_layout(d).0 {
        match slot {
            Slot::Copy { field, from } => {
                let g = &d.fields[field];
                for k in 0..g.ty.size() {
                    out[g.offset + k] = byte(from + k);
                }
                if g.ty == ScalarType::Bool {
                    out[g.offset] &= 1;
                }
            }
            Slot::Str {
                len_field,
                first,
                max,
                from,
            } => {
                let n = (0..max).find(|&k| byte(from + k) == 0).unwrap_or(max);
                for k in 0..n {
                    out[d.fields[first + k].offset] = byte(from + k);
                }
                d.fields[len_field].write(&mut out, Value::Int(n as i128));
            }
            Slot::Len { field, from, max } => {
                let g = &d.fields[field];
                let r = raw(bytes, from, g.ty.size());
                g.write(&mut out, Value::Int(r.min(max as u64) as i128));
            }
        }
    }
    Input::new(out)
}

fn encode_bytes(d: &Domain, input: &Input) -> Vec<u8> {
    let (slots, len) = bytes_layout(d);
    let mut out = vec![0u8; len];
    let at = |k: usize| input.bytes.get(k).copied().unwrap_or(0);
    for slot in slots {
        match slot {
            Slot::Copy { field, from } => {
                let g = &d.fields[field];
                for k in 0..g.ty.size() {
                    out[from + k] = at(g.offset + k);
                }
            }
            Slot::Str {
                len_field,
                first,
                max,
                from,
            } => {
                let n = (d.get(input, len_field).as_i128().clamp(0, max as i128)) as usize;
                for k in 0..n {
                    let c = at(d.fields[first + k].offset);
                    if c == 0 {
                        break;
                    }
                    out[from + k] = c;
                }
            }
            Slot::Len { field, from, .. } => {
                let g = &d.fields[field];
                for k in 0..g.ty.size() {
                    out[from + k] = at(g.offset + k);
                }
            }
        }
    }
    out
}

/// The C decoder of the [`PeerEncoding::Bytes`] encoding (see [`c_decoder`]): the input, cut or
/// zero-padded to its length, then plain copies (`strnlen` for a string), so that the harness
/// adds a single branch of its own (the cut).
fn c_decoder_bytes(d: &Domain) -> String {
    let (slots, len) = bytes_layout(d);
    let len = len.max(1);
    let mut s = String::from(
        "static void evotest_map(const uint8_t *data, size_t size, unsigned char *out) {\n",
    );
    let _ = writeln!(
        s,
        "    unsigned char in[{len}];\n    uint32_t len;\n    memset(in, 0, {len});"
    );
    let _ = writeln!(
        s,
        "    memcpy(in, data, size < {len} ? size : {len});\n    memset(out, 0, {});",
        d.len.max(1)
    );
    for slot in slots {
        match slot {
            Slot::Copy { field, from } => {
                let g = &d.fields[field];
                let _ = writeln!(
                    s,
                    "    memcpy(out + {}, in + {from}, {});",
                    g.offset,
                    g.ty.size()
                );
                if g.ty == ScalarType::Bool {
                    let _ = writeln!(s, "    out[{}] &= 1;", g.offset);
                }
            }
            Slot::Str {
                len_field,
                first,
                max,
                from,
            } => {
                let (loff, coff) = (d.fields[len_field].offset, d.fields[first].offset);
                let _ = writeln!(
                    s,
                    "    len = (uint32_t)strnlen((const char *)in + {from}, {max});"
                );
                let _ = writeln!(s, "    memcpy(out + {coff}, in + {from}, len);\n    memcpy(out + {loff}, &len, 4);");
            }
            Slot::Len { field, from, max } => {
                let off = d.fields[field].offset;
                let _ = writeln!(s, "    memcpy(&len, in + {from}, 4);\n    len = len < {max}u ? len : {max}u;\n    memcpy(out + {off}, &len, 4);");
            }
        }
    }
    s.push_str("    (void)len;\n}\n");
    s
}

/// C source of `static void evotest_map(const uint8_t *data, size_t size, unsigned char *out)`,
/// which turns a peer's bytes into the direct encoding of the domain's fields (so that the
/// parameter decoding of the function frontend's harness can follow). Plain C99, so that
/// AFL++'s clang-14 compiles it as well as clang-22.
pub fn c_decoder(d: &Domain, enc: PeerEncoding) -> String {
    let mut s = String::new();
    if enc == PeerEncoding::Bytes {
        return c_decoder_bytes(d);
    }
    s.push_str(
        "static uint64_t evotest_raw(const uint8_t *data, size_t size, size_t off, size_t n) {\n\
         \x20   uint64_t r = 0;\n\
         \x20   for (size_t k = 0; k < n; k++)\n\
         \x20       if (off + k < size) r |= (uint64_t)data[off + k] << (8 * k);\n\
         \x20   return r;\n}\n\
         static uint32_t evotest_unkey32(uint32_t k) { return (k & 0x80000000u) ? (k & 0x7fffffffu) : ~k; }\n\
         static uint64_t evotest_unkey64(uint64_t k) { return (k & 0x8000000000000000ull) ? (k & 0x7fffffffffffffffull) : ~k; }\n",
    );
    let mut alph = 0;
    for g in &d.fields {
        if let Role::Char { alphabet } = &g.role {
            let list: Vec<String> = alphabet.iter().map(|c| c.to_string()).collect();
            let _ = writeln!(
                s,
                "static const unsigned char evotest_alphabet{alph}[{}] = {{{}}};",
                alphabet.len(),
                list.join(", ")
            );
            alph += 1;
        }
    }
    s.push_str("static void evotest_map(const uint8_t *data, size_t size, unsigned char *out) {\n");
    s.push_str("    uint64_t r;\n");
    let mut alph = 0;
    for g in &d.fields {
        let (off, n) = (g.offset, g.ty.size());
        let _ = writeln!(s, "    r = evotest_raw(data, size, {off}, {n});");
        if enc.is_raw(g) {
            // little-endian: the low n bytes of r are the field's bytes
            let _ = writeln!(s, "    memcpy(out + {off}, &r, {n});");
            continue;
        }
        match (&g.role, g.range) {
            (Role::Char { alphabet }, _) => {
                let _ = writeln!(
                    s,
                    "    out[{off}] = evotest_alphabet{alph}[r % {}];",
                    alphabet.len()
                );
                alph += 1;
            }
            (_, Range::Int { lo, hi }) => {
                if g.ty == ScalarType::Bool {
                    let (l, h) = (lo.clamp(0, 1), hi.clamp(0, 1));
                    let _ = writeln!(s, "    out[{off}] = (unsigned char)((r & 1) < {l} ? {l} : (r & 1) > {h} ? {h} : (r & 1));");
                } else {
                    // unsigned arithmetic wraps, so lo + r (mod 2^64) is right for any lo
                    let lo_c = if lo == i64::MIN as i128 {
                        "(uint64_t)(-9223372036854775807LL - 1)".to_string()
                    } else if lo < 0 {
                        format!("(uint64_t)({lo}LL)")
                    } else {
                        format!("{lo}ULL")
                    };
                    let w = (hi - lo + 1) as u128;
                    let value = if w > u64::MAX as u128 {
                        format!("{lo_c} + r")
                    } else {
                        format!("{lo_c} + r % {w}ULL")
                    };
                    let _ = writeln!(
                        s,
                        "    {{ uint64_t v = {value}; memcpy(out + {off}, &v, {n}); }}"
                    );
                }
            }
            (_, Range::Float { lo, .. }) => {
                if let (Some(steps), Some(st)) = (steps(g), g.step) {
                    let ct = if g.ty == ScalarType::F32 {
                        "float"
                    } else {
                        "double"
                    };
                    let _ = writeln!(
                        s,
                        "    {{ {ct} v = ({ct})({} + (double)(r % {}ULL) * {}); memcpy(out + {off}, &v, {n}); }}",
                        super::float_literal(lo, false),
                        steps + 1,
                        super::float_literal(st, false)
                    );
                } else {
                    let (klo, khi) = float_keys(g);
                    let span = khi - klo;
                    let k = if span == u64::MAX {
                        "r".to_string()
                    } else {
                        format!("{klo}ULL + r % {}ULL", span + 1)
                    };
                    if g.ty == ScalarType::F32 {
                        let _ = writeln!(s, "    {{ uint32_t b = evotest_unkey32((uint32_t)({k})); memcpy(out + {off}, &b, 4); }}");
                    } else {
                        let _ = writeln!(s, "    {{ uint64_t b = evotest_unkey64({k}); memcpy(out + {off}, &b, 8); }}");
                    }
                }
            }
        }
    }
    s.push_str("}\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::{Field, InitMode};
    use rand::{Rng, SeedableRng};

    fn domain() -> Domain {
        domain_with(vec![])
    }

    fn domain_with(extra: Vec<Field>) -> Domain {
        let mut fields = vec![
            Field::full("a", ScalarType::I32),
            Field::full("b", ScalarType::U8),
            Field::full("x", ScalarType::F32),
            Field::full("y", ScalarType::F64),
            Field::full("f", ScalarType::Bool),
            Field::full("l", ScalarType::I64),
            Field::full("d", ScalarType::F64),
        ];
        fields[0].set_range("-15000", "15000", "a").unwrap();
        fields[3].set_range("-2.5", "10", "y").unwrap();
        fields[6].set_range("-50000", "50000@0.001", "d").unwrap();
        fields.extend(extra);
        Domain {
            init: InitMode::Uniform,
            ..Domain::packed(fields)
        }
    }

    #[test]
    fn all_zero_bytes_decode_to_lower_bounds() {
        let d = domain();
        let v = d.values(&decode(&d, &[], PeerEncoding::Mapped));
        assert_eq!(v[0], Value::Int(-15000));
        assert_eq!(v[1], Value::Int(0));
        assert!(matches!(v[2], Value::Float(f) if f.is_nan())); // whole f32 range: key 0 is a NaN
        assert_eq!(v[3], Value::Float(-2.5));
        assert_eq!(v[4], Value::Int(0));
        assert_eq!(v[5], Value::Int(i64::MIN as i128));
        assert_eq!(v[6], Value::Float(-50000.0));
    }

    /// Raw: whole-range fields are their bytes (zero is 0, 0.0), declared ranges still mapped.
    #[test]
    fn raw_encoding_reads_whole_range_fields_as_they_are() {
        let d = domain();
        let v = d.values(&decode(&d, &[], PeerEncoding::Raw));
        assert_eq!(v[0], Value::Int(-15000));
        assert_eq!(v[2], Value::Float(0.0));
        assert_eq!(v[3], Value::Float(-2.5));
        assert_eq!(v[5], Value::Int(0));
        let mut bytes = vec![0u8; d.len];
        bytes[d.fields[5].offset..d.fields[5].offset + 8].copy_from_slice(&(-7i64).to_le_bytes());
        bytes[d.fields[2].offset..d.fields[2].offset + 4].copy_from_slice(&1.5f32.to_le_bytes());
        let v = d.values(&decode(&d, &bytes, PeerEncoding::Raw));
        assert_eq!(v[5], Value::Int(-7));
        assert_eq!(v[2], Value::Float(1.5));
    }

    /// The generated C decoder and the Rust decoder agree bit for bit on random bytes.
    #[test]
    fn c_decoder_matches_rust() {
        let clang = ["/usr/lib/llvm-22/bin/clang", "clang-22"]
            .into_iter()
            .find(|c| {
                std::process::Command::new(c)
                    .arg("--version")
                    .output()
                    .is_ok()
            })
            .expect("clang-22 (run make setup)");
        let mut len = Field::full("s.len", ScalarType::U32);
        len.range = Range::Int { lo: 0, hi: 7 };
        len.role = Role::Length;
        let mut fs = Field::full("fs", ScalarType::F32);
        fs.set_range("-1", "1@0.01", "fs").unwrap();
        let d = domain_with(vec![
            Field::full("u", ScalarType::U64),
            Field {
                name: "c".into(),
                offset: 0,
                ty: ScalarType::I8,
                range: Range::Int { lo: 48, hi: 88 },
                full: false,
                step: None,
                role: Role::Char {
                    alphabet: b"0123456789X".to_vec(),
                },
            },
            len,
            fs,
        ]);
        let d = with_string(d);
        for enc in [PeerEncoding::Mapped, PeerEncoding::Raw, PeerEncoding::Bytes] {
            let dir = tempfile::tempdir().unwrap();
            let src = format!(
            "#include <stdint.h>\n#include <stddef.h>\n#include <stdio.h>\n#include <string.h>\n{}\n\
             int main(int argc, char **argv) {{ unsigned char in[256], out[{}]; size_t n = 0;\n\
             for (const char *p = argv[1]; p[0] && p[1]; p += 2) {{ unsigned v; sscanf(p, \"%2x\", &v); in[n++] = v; }}\n\
             evotest_map(in, n, out); for (size_t i = 0; i < sizeof out; i++) printf(\"%02x\", out[i]); return 0; }}\n",
            c_decoder(&d, enc),
            d.len
        );
            std::fs::write(dir.path().join("m.c"), src).unwrap();
            let exe = dir.path().join("m");
            let st = std::process::Command::new(clang)
                .arg(dir.path().join("m.c"))
                .arg("-o")
                .arg(&exe)
                .status()
                .unwrap();
            assert!(st.success());
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
            for round in 0..90 {
                let n = if round % 5 == 0 {
                    rng.random_range(0..d.len)
                } else {
                    d.len
                };
                let mut bytes: Vec<u8> = (0..n).map(|_| rng.random()).collect();
                if round % 3 == 0 && n > 2 {
                    bytes[n - 2] = 0; // a NUL inside the string of the bytes encoding
                }
                let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
                let out = std::process::Command::new(&exe)
                    .arg(if hex.is_empty() { "0".into() } else { hex })
                    .output()
                    .unwrap();
                let want: String = decode(&d, &bytes, enc)
                    .bytes
                    .iter()
                    .map(|b| format!("{b:02x}"))
                    .collect();
                assert_eq!(
                    String::from_utf8_lossy(&out.stdout),
                    want,
                    "{enc:?}, bytes {bytes:02x?}"
                );
            }
        }
    }

    /// `d` with a string `t` of at most 3 characters at its end (length field, then characters).
    fn with_string(d: Domain) -> Domain {
        let mut fields = d.fields.clone();
        let mut len = Field::full("t.len", ScalarType::U32);
        len.range = Range::Int { lo: 0, hi: 3 };
        len.role = Role::Length;
        fields.push(len);
        for k in 0..3 {
            fields.push(Field {
                name: format!("t[{k}]"),
                offset: 0,
                ty: ScalarType::I8,
                range: Range::Int { lo: 32, hi: 126 },
                full: false,
                step: None,
                role: Role::Char {
                    alphabet: (32..=126).collect(),
                },
            });
        }
        Domain {
            init: InitMode::Uniform,
            ..Domain::packed(fields)
        }
    }

    /// Bytes: every field its bytes (declared ranges ignored), the string up to its first NUL and
    /// without a length field in the input; encode gives the bytes back.
    #[test]
    fn bytes_encoding_reads_parameters_as_they_are() {
        let d = with_string(domain());
        let n = input_len(&d, PeerEncoding::Bytes);
        assert_eq!(
            n,
            d.len - 4,
            "the string's length field is not in the input"
        );
        let mut bytes = vec![0u8; n];
        bytes[..4].copy_from_slice(&(-20000i32).to_le_bytes()); // outside a's declared -15000..15000
        bytes[n - 3..].copy_from_slice(&[0xe9, b'x', 0]);
        let x = decode(&d, &bytes, PeerEncoding::Bytes);
        let v = d.values(&x);
        assert_eq!(v[0], Value::Int(-20000));
        assert_eq!(
            v[3],
            Value::Float(0.0),
            "y's declared range is not applied either"
        );
        let t = d.fields.iter().position(|f| f.name == "t.len").unwrap();
        assert_eq!(v[t], Value::Int(2));
        assert_eq!(
            x.bytes[d.fields[t + 1].offset],
            0xe9,
            "characters outside the alphabet stay"
        );
        assert_eq!(encode(&d, &x, PeerEncoding::Bytes), bytes);
        // a short input is zero-padded: the string is empty
        let v = d.values(&decode(&d, &bytes[..4], PeerEncoding::Bytes));
        assert_eq!((v[0], v[t]), (Value::Int(-20000), Value::Int(0)));
    }

    #[test]
    fn ordered_keys_are_monotone() {
        let xs = [
            f32::NEG_INFINITY,
            -3.0,
            -0.0,
            0.0,
            1e-30,
            2.0,
            f32::INFINITY,
        ];
        for w in xs.windows(2) {
            assert!(key32(w[0].to_bits()) < key32(w[1].to_bits()), "{w:?}");
            assert_eq!(unkey32(key32(w[0].to_bits())), w[0].to_bits());
        }
        assert_eq!(unkey64(key64(1.5f64.to_bits())), 1.5f64.to_bits());
    }

    #[test]
    fn encode_inverts_decode_and_stays_in_range() {
        let d = domain();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        for k in 0..1000 {
            let enc = if k % 2 == 0 {
                PeerEncoding::Mapped
            } else {
                PeerEncoding::Raw
            };
            let x = d.sample(&mut rng);
            let back = decode(&d, &encode(&d, &x, enc), enc);
            for (i, (a, b)) in d.values(&x).iter().zip(&d.values(&back)).enumerate() {
                match (a, b) {
                    (Value::Float(p), Value::Float(q)) if p.is_nan() => {
                        assert!(q.is_nan(), "gene {i}")
                    }
                    // the same lattice point of a precision step, computed as lo + k·s
                    (Value::Float(p), Value::Float(q)) if d.fields[i].step.is_some() => {
                        assert!((p - q).abs() <= 1e-6, "gene {i}: {p} vs {q}")
                    }
                    _ => assert_eq!(a, b, "gene {i}"),
                }
            }
            let bytes: Vec<u8> = (0..d.len).map(|_| rng.random()).collect();
            let y = decode(&d, &bytes, enc);
            assert!(matches!(d.get(&y, 0), Value::Int(v) if (-15000..=15000).contains(&v)));
            assert!(matches!(d.get(&y, 3), Value::Float(v) if (-2.5..=10.0).contains(&v)));
        }
    }
}
