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
}

impl PeerEncoding {
    /// Parse `raw` or `mapped`.
    ///
    /// Errors (one line): anything else.
    pub fn parse(s: &str) -> anyhow::Result<PeerEncoding> {
        match s {
            "raw" => Ok(PeerEncoding::Raw),
            "mapped" => Ok(PeerEncoding::Mapped),
            _ => anyhow::bail!("unknown peer encoding `{s}` (raw or mapped)"),
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
        (_, Range::Float { .. }) if g.full => (0, if g.ty == ScalarType::F32 { u32::MAX as u64 } else { u64::MAX }),
        (ScalarType::F32, Range::Float { lo, hi }) => {
            (key32((lo as f32).to_bits()) as u64, key32((hi as f32).to_bits()) as u64)
        }
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
            t if t.is_signed() && bits < 64 => Value::Int(((r << (64 - bits)) as i64 >> (64 - bits)) as i128),
            t if t.is_signed() => Value::Int(r as i64 as i128),
            _ => Value::Int(r as i128),
        };
    }
    match (&g.role, g.range) {
        (Role::Char { alphabet }, _) => Value::Int(alphabet[(r % alphabet.len() as u64) as usize] as i128),
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
                return Value::Float(if g.ty == ScalarType::F32 { v as f32 as f64 } else { v });
            }
            let (klo, khi) = float_keys(g);
            let span = khi - klo;
            let k = if span == u64::MAX { r } else { klo + r % (span + 1) };
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
/// the peer ran; every value is inside its field's domain by construction.
pub fn decode(d: &Domain, bytes: &[u8], enc: PeerEncoding) -> Input {
    let mut out = vec![0u8; d.len];
    for g in &d.fields {
        let v = field_value(g, raw(bytes, g.offset, g.ty.size()), enc);
        g.write(&mut out, v);
    }
    Input::new(out)
}

/// Encode an input so that [`decode`] gives it back (used to give peers the same starting input).
pub fn encode(d: &Domain, input: &Input, enc: PeerEncoding) -> Vec<u8> {
    let mut out = vec![0u8; d.len];
    for g in &d.fields {
        let v = g.read(&input.bytes);
        let r: u64 = match (&g.role, g.range, v) {
            _ if enc.is_raw(g) => match v {
                Value::Float(f) if g.ty == ScalarType::F32 => (f as f32).to_bits() as u64,
                Value::Float(f) => f.to_bits(),
                Value::Int(i) => i as u64,
            },
            (Role::Char { alphabet }, _, v) => alphabet.iter().position(|&c| c as i128 == v.as_i128()).unwrap_or(0) as u64,
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
                    let k = if g.ty == ScalarType::F32 { key32((f as f32).to_bits()) as u64 } else { key64(f.to_bits()) };
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

/// C source of `static void evotest_map(const uint8_t *data, size_t size, unsigned char *out)`,
/// which turns a peer's bytes into the direct encoding of the domain's fields (so that the
/// parameter decoding of the function frontend's harness can follow). Plain C99, so that
/// AFL++'s clang-14 compiles it as well as clang-22.
pub fn c_decoder(d: &Domain, enc: PeerEncoding) -> String {
    let mut s = String::new();
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
            let _ = writeln!(s, "static const unsigned char evotest_alphabet{alph}[{}] = {{{}}};", alphabet.len(), list.join(", "));
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
                let _ = writeln!(s, "    out[{off}] = evotest_alphabet{alph}[r % {}];", alphabet.len());
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
                    let value = if w > u64::MAX as u128 { format!("{lo_c} + r") } else { format!("{lo_c} + r % {w}ULL") };
                    let _ = writeln!(s, "    {{ uint64_t v = {value}; memcpy(out + {off}, &v, {n}); }}");
                }
            }
            (_, Range::Float { lo, .. }) => {
                if let (Some(steps), Some(st)) = (steps(g), g.step) {
                    let ct = if g.ty == ScalarType::F32 { "float" } else { "double" };
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
                    let k = if span == u64::MAX { "r".to_string() } else { format!("{klo}ULL + r % {}ULL", span + 1) };
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
        Domain { init: InitMode::Uniform, ..Domain::packed(fields) }
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
            .find(|c| std::process::Command::new(c).arg("--version").output().is_ok())
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
                role: Role::Char { alphabet: b"0123456789X".to_vec() },
            },
            len,
            fs,
        ]);
        for enc in [PeerEncoding::Mapped, PeerEncoding::Raw] {
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
        let st = std::process::Command::new(clang).arg(dir.path().join("m.c")).arg("-o").arg(&exe).status().unwrap();
        assert!(st.success());
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
        for round in 0..60 {
            let n = if round % 5 == 0 { rng.random_range(0..d.len) } else { d.len };
            let bytes: Vec<u8> = (0..n).map(|_| rng.random()).collect();
            let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
            let out = std::process::Command::new(&exe).arg(if hex.is_empty() { "0".into() } else { hex }).output().unwrap();
            let want: String = decode(&d, &bytes, enc).bytes.iter().map(|b| format!("{b:02x}")).collect();
            assert_eq!(String::from_utf8_lossy(&out.stdout), want, "{enc:?}, bytes {bytes:02x?}");
        }
        }
    }

    #[test]
    fn ordered_keys_are_monotone() {
        let xs = [f32::NEG_INFINITY, -3.0, -0.0, 0.0, 1e-30, 2.0, f32::INFINITY];
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
            let enc = if k % 2 == 0 { PeerEncoding::Mapped } else { PeerEncoding::Raw };
            let x = d.sample(&mut rng);
            let back = decode(&d, &encode(&d, &x, enc), enc);
            for (i, (a, b)) in d.values(&x).iter().zip(&d.values(&back)).enumerate() {
                match (a, b) {
                    (Value::Float(p), Value::Float(q)) if p.is_nan() => assert!(q.is_nan(), "gene {i}"),
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
