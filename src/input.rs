//! The input domain of a function under test: one typed **gene** per parameter, its range, how
//! to sample it, and how an input is encoded into the bytes the generated harness decodes.
//!
//! Encoding: parameters are packed in order, each in its C size, little-endian, with no padding
//! (`_Bool` is one byte, 0 or 1). The harness (`crate::harness`) reads the same layout.

use anyhow::{bail, Result};
use evotest_abi::meta::{ScalarKind, ScalarMeta};
use rand::Rng;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Scalar parameter types the harness supports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ScalarType {
    Bool,
    I8,
    U8,
    I16,
    U16,
    I32,
    U32,
    I64,
    U64,
    F32,
    F64,
}

impl ScalarType {
    /// The type for a canonical scalar from debug info, or `None` (e.g. `long double`, `__int128`).
    pub fn from_meta(m: &ScalarMeta) -> Option<ScalarType> {
        use ScalarType::*;
        Some(match (m.kind, m.bits) {
            (ScalarKind::Bool, _) => Bool,
            (ScalarKind::Signed, 8) => I8,
            (ScalarKind::Unsigned, 8) => U8,
            (ScalarKind::Signed, 16) => I16,
            (ScalarKind::Unsigned, 16) => U16,
            (ScalarKind::Signed, 32) => I32,
            (ScalarKind::Unsigned, 32) => U32,
            (ScalarKind::Signed, 64) => I64,
            (ScalarKind::Unsigned, 64) => U64,
            (ScalarKind::Float, 32) => F32,
            (ScalarKind::Float, 64) => F64,
            _ => return None,
        })
    }

    /// Size in bytes in the input encoding.
    pub fn size(self) -> usize {
        use ScalarType::*;
        match self {
            Bool | I8 | U8 => 1,
            I16 | U16 => 2,
            I32 | U32 | F32 => 4,
            I64 | U64 | F64 => 8,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, ScalarType::F32 | ScalarType::F64)
    }

    pub fn is_signed(self) -> bool {
        use ScalarType::*;
        matches!(self, I8 | I16 | I32 | I64)
    }

    /// Inclusive bounds of an integer type (`Bool` is 0..1). Floats: panics.
    pub fn int_bounds(self) -> (i128, i128) {
        use ScalarType::*;
        match self {
            Bool => (0, 1),
            I8 => (i8::MIN as i128, i8::MAX as i128),
            U8 => (0, u8::MAX as i128),
            I16 => (i16::MIN as i128, i16::MAX as i128),
            U16 => (0, u16::MAX as i128),
            I32 => (i32::MIN as i128, i32::MAX as i128),
            U32 => (0, u32::MAX as i128),
            I64 => (i64::MIN as i128, i64::MAX as i128),
            U64 => (0, u64::MAX as i128),
            F32 | F64 => panic!("int_bounds of a float type"),
        }
    }

    /// Largest finite magnitude of a float type.
    pub fn float_max(self) -> f64 {
        match self {
            ScalarType::F32 => f32::MAX as f64,
            _ => f64::MAX,
        }
    }
}

/// The value of one gene. Integers of every width (signed or unsigned, up to 64 bits) fit in
/// `i128`; floats are held as `f64` (an `F32` gene always holds a value exactly representable as
/// `f32`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Value {
    Int(i128),
    Float(f64),
}

impl Value {
    /// Numeric value as `f64` (for distances between genes).
    pub fn as_f64(self) -> f64 {
        match self {
            Value::Int(i) => i as f64,
            Value::Float(f) => f,
        }
    }

    fn bits_key(self) -> (u8, u128) {
        match self {
            Value::Int(i) => (0, i as u128),
            Value::Float(f) => (1, f.to_bits() as u128),
        }
    }
}

/// An inclusive range of a gene.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Range {
    Int { lo: i128, hi: i128 },
    Float { lo: f64, hi: f64 },
}

/// One parameter of the function under test.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    /// Source name (from debug info).
    pub name: String,
    /// Canonical C type for generated code (`unsigned int`, not a typedef name).
    pub c_type: String,
    /// The type as declared (may be a typedef), for messages.
    pub declared: String,
    pub ty: ScalarType,
    pub range: Range,
    /// True when the range is the type's whole range (then floats may also be NaN or ±inf).
    pub full: bool,
}

/// How initial values are drawn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum InitMode {
    /// Mixture: boundary values, program constants, small magnitudes, and the whole range
    /// (see [`Domain::sample_value`]).
    #[default]
    Biased,
    /// Uniform over each range (as seeds 001 and 002 do; needed for a fair comparison on
    /// programs where 0 or a boundary is the special value).
    Uniform,
}

/// All parameters, plus a pool of constants harvested from the program's compares (seed 004).
#[derive(Clone, Debug, Default)]
pub struct Domain {
    pub params: Vec<Param>,
    pub int_pool: Vec<i128>,
    pub float_pool: Vec<f64>,
    pub init: InitMode,
}

/// One test input: a value per parameter.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Input {
    pub values: Vec<Value>,
}

impl Eq for Input {}
impl std::hash::Hash for Input {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        for v in &self.values {
            v.bits_key().hash(state);
        }
    }
}

/// Probabilities of [`InitMode::Biased`] sampling (sum to 1): boundary, constant, small, whole.
const BIAS: [f64; 4] = [0.15, 0.15, 0.30, 0.40];
/// "Small magnitude" means |v| <= this.
const SMALL: i128 = 100;

impl Param {
    /// A parameter with the whole range of its type.
    pub fn full(name: &str, c_type: &str, declared: &str, ty: ScalarType) -> Param {
        let range = if ty.is_float() {
            Range::Float { lo: -ty.float_max(), hi: ty.float_max() }
        } else {
            let (lo, hi) = ty.int_bounds();
            Range::Int { lo, hi }
        };
        Param { name: name.into(), c_type: c_type.into(), declared: declared.into(), ty, range, full: true }
    }

    /// Restrict to `lo..=hi` (given as text), checking it is within the type.
    pub fn set_range(&mut self, lo: &str, hi: &str) -> Result<()> {
        let what = format!("range {lo}..{hi} for parameter `{}` ({})", self.name, self.declared);
        if self.ty.is_float() {
            let (l, h): (f64, f64) = match (lo.trim().parse(), hi.trim().parse()) {
                (Ok(l), Ok(h)) => (l, h),
                _ => bail!("{what}: bounds must be numbers"),
            };
            let max = self.ty.float_max();
            if !(l.is_finite() && h.is_finite()) || l > h || l < -max || h > max {
                bail!("{what}: need finite lo <= hi within ±{max:e}");
            }
            self.range = Range::Float { lo: l, hi: h };
        } else {
            let (l, h): (i128, i128) = match (lo.trim().parse(), hi.trim().parse()) {
                (Ok(l), Ok(h)) => (l, h),
                _ => bail!("{what}: bounds must be integers"),
            };
            let (tl, th) = self.ty.int_bounds();
            if l > h || l < tl || h > th {
                bail!("{what}: need lo <= hi within {tl}..{th}");
            }
            self.range = Range::Int { lo: l, hi: h };
        }
        self.full = false;
        Ok(())
    }
}

impl Domain {
    /// Bytes of an encoded input.
    pub fn encoded_len(&self) -> usize {
        self.params.iter().map(|p| p.ty.size()).sum()
    }

    /// Byte offset of each parameter in the encoding.
    pub fn offsets(&self) -> Vec<usize> {
        let mut off = 0;
        self.params
            .iter()
            .map(|p| {
                let o = off;
                off += p.ty.size();
                o
            })
            .collect()
    }

    /// Encode an input for the harness (see module docs).
    pub fn encode(&self, input: &Input) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.encoded_len());
        for (p, v) in self.params.iter().zip(&input.values) {
            let n = p.ty.size();
            match (p.ty, v) {
                (ScalarType::F32, Value::Float(f)) => out.extend_from_slice(&(*f as f32).to_le_bytes()),
                (ScalarType::F64, Value::Float(f)) => out.extend_from_slice(&f.to_le_bytes()),
                (_, Value::Int(i)) => out.extend_from_slice(&(*i as u128).to_le_bytes()[..n]),
                (_, Value::Float(f)) => out.extend_from_slice(&((*f as i128) as u128).to_le_bytes()[..n]),
            }
        }
        out
    }

    /// Decode bytes produced by [`Domain::encode`] (short input is zero-filled, as in the harness).
    pub fn decode(&self, bytes: &[u8]) -> Input {
        let mut buf = bytes.to_vec();
        buf.resize(self.encoded_len().max(bytes.len()), 0);
        let mut values = Vec::new();
        for (p, off) in self.params.iter().zip(self.offsets()) {
            let b = &buf[off..off + p.ty.size()];
            let v = match p.ty {
                ScalarType::F32 => Value::Float(f32::from_le_bytes(b.try_into().unwrap()) as f64),
                ScalarType::F64 => Value::Float(f64::from_le_bytes(b.try_into().unwrap())),
                ScalarType::Bool => Value::Int((b[0] & 1) as i128),
                t => {
                    let mut w = [0u8; 16];
                    w[..b.len()].copy_from_slice(b);
                    let u = u128::from_le_bytes(w);
                    let bits = 8 * b.len() as u32;
                    if t.is_signed() && (u >> (bits - 1)) & 1 == 1 {
                        Value::Int((u as i128) - (1i128 << bits))
                    } else {
                        Value::Int(u as i128)
                    }
                }
            };
            values.push(v);
        }
        Input { values }
    }

    /// Bring `v` into parameter `i`'s range and type: clamp, round to an integer or to `f32`.
    pub fn normalise(&self, i: usize, v: Value) -> Value {
        let p = &self.params[i];
        match p.range {
            Range::Int { lo, hi } => {
                let x = match v {
                    Value::Int(x) => x,
                    Value::Float(f) if f.is_nan() => lo,
                    Value::Float(f) => f.round().clamp(lo as f64, hi as f64) as i128,
                };
                Value::Int(x.clamp(lo, hi))
            }
            Range::Float { lo, hi } => {
                let mut f = v.as_f64();
                if f.is_nan() || f.is_infinite() {
                    if !p.full {
                        f = if f == f64::INFINITY { hi } else if f == f64::NEG_INFINITY { lo } else { lo };
                    }
                } else {
                    f = f.clamp(lo, hi);
                }
                if p.ty == ScalarType::F32 {
                    f = f as f32 as f64;
                }
                Value::Float(f)
            }
        }
    }

    /// A random input.
    pub fn sample<R: Rng>(&self, rng: &mut R) -> Input {
        Input { values: (0..self.params.len()).map(|i| self.sample_value(i, rng)).collect() }
    }

    /// A uniformly random value of parameter `i` over its range.
    pub fn uniform_value<R: Rng>(&self, i: usize, rng: &mut R) -> Value {
        match self.params[i].range {
            Range::Int { lo, hi } => Value::Int(rng.random_range(lo..=hi)),
            Range::Float { lo, hi } => {
                let f = lo + (hi - lo) * rng.random::<f64>();
                // hi - lo may overflow to inf for the full range: sample halves instead
                let f = if f.is_finite() { f } else { lo * rng.random::<f64>() + hi * rng.random::<f64>() };
                self.normalise(i, Value::Float(f))
            }
        }
    }

    /// The boundary and special values of parameter `i` (within its range).
    pub fn boundary_values(&self, i: usize) -> Vec<Value> {
        let p = &self.params[i];
        let mut out = Vec::new();
        match p.range {
            Range::Int { lo, hi } => {
                for c in [lo, hi, lo.saturating_add(1), hi.saturating_sub(1), 0, 1, -1] {
                    if c >= lo && c <= hi && !out.contains(&Value::Int(c)) {
                        out.push(Value::Int(c));
                    }
                }
            }
            Range::Float { lo, hi } => {
                let mut cands = vec![lo, hi, 0.0, -0.0, 1.0, -1.0];
                if p.full {
                    cands.extend([f64::INFINITY, f64::NEG_INFINITY, f64::NAN, f64::MIN_POSITIVE]);
                }
                for c in cands {
                    if c.is_nan() || c.is_infinite() || (c >= lo && c <= hi) {
                        let v = self.normalise(i, Value::Float(c));
                        if !out.iter().any(|o: &Value| o.bits_key() == v.bits_key()) {
                            out.push(v);
                        }
                    }
                }
            }
        }
        out
    }

    /// A constant from the program (or a neighbour ±1), if the pool has one inside the range.
    pub fn constant_value<R: Rng>(&self, i: usize, rng: &mut R) -> Option<Value> {
        let p = &self.params[i];
        let v = if p.ty.is_float() {
            let mut pool: Vec<f64> = self.float_pool.clone();
            pool.extend(self.int_pool.iter().map(|&c| c as f64));
            if pool.is_empty() {
                return None;
            }
            Value::Float(pool[rng.random_range(0..pool.len())])
        } else {
            if self.int_pool.is_empty() {
                return None;
            }
            let c = self.int_pool[rng.random_range(0..self.int_pool.len())];
            Value::Int(c + rng.random_range(-1..=1))
        };
        Some(self.normalise(i, v))
    }

    /// A random value of parameter `i`. With [`InitMode::Uniform`], uniform over the range. With
    /// [`InitMode::Biased`] (the default), a mixture: 15% a boundary value (range ends, 0, ±1, and
    /// for full-range floats ±inf and NaN), 15% a program constant or its neighbour, 30% a small
    /// magnitude (|v| ≤ 100), 40% the whole range (log-uniform magnitude for floats). The bias
    /// towards small and boundary values follows the practice of AUSTIN and EvoSuite's constant
    /// seeding; the constant pool follows seed 004.
    pub fn sample_value<R: Rng>(&self, i: usize, rng: &mut R) -> Value {
        if self.init == InitMode::Uniform {
            return self.uniform_value(i, rng);
        }
        let r: f64 = rng.random();
        let p = &self.params[i];
        if r < BIAS[0] {
            let b = self.boundary_values(i);
            return b[rng.random_range(0..b.len())];
        }
        if r < BIAS[0] + BIAS[1] {
            if let Some(v) = self.constant_value(i, rng) {
                return v;
            }
        }
        if r < BIAS[0] + BIAS[1] + BIAS[2] {
            let v = match p.range {
                Range::Int { .. } => Value::Int(rng.random_range(-SMALL..=SMALL)),
                Range::Float { .. } => Value::Float(rng.random_range(-(SMALL as f64)..=SMALL as f64)),
            };
            return self.normalise(i, v);
        }
        match p.range {
            Range::Int { .. } => self.uniform_value(i, rng),
            Range::Float { lo, hi } => {
                let m = lo.abs().max(hi.abs()).max(1.0);
                if m <= 1e6 {
                    return self.uniform_value(i, rng);
                }
                // log-uniform magnitude between 1e-3 and the range's largest magnitude
                let e = rng.random_range(-3.0..m.log10());
                let s = if rng.random_bool(0.5) { 1.0 } else { -1.0 };
                self.normalise(i, Value::Float(s * 10f64.powf(e)))
            }
        }
    }

    /// Value of parameter `i` as a C literal of its type, exact (hex floats), for `tests.c`.
    pub fn c_literal(&self, i: usize, v: Value) -> String {
        let p = &self.params[i];
        c_literal(p.ty, v)
    }

    /// `name=value, …` for people.
    pub fn display(&self, input: &Input) -> String {
        self.params
            .iter()
            .zip(&input.values)
            .map(|(p, v)| format!("{}={}", p.name, DisplayValue(p.ty, *v)))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Exact C literal of a value of type `ty`.
pub fn c_literal(ty: ScalarType, v: Value) -> String {
    use ScalarType::*;
    match (ty, v) {
        (Bool, Value::Int(i)) => if i != 0 { "1" } else { "0" }.into(),
        (I64, Value::Int(i)) if i == i64::MIN as i128 => "(-9223372036854775807LL - 1)".into(),
        (I32, Value::Int(i)) if i == i32::MIN as i128 => "(-2147483647 - 1)".into(),
        (I64, Value::Int(i)) => format!("{i}LL"),
        (U64, Value::Int(i)) => format!("{i}ULL"),
        (U32, Value::Int(i)) => format!("{i}U"),
        (I8 | U8 | I16 | U16 | I32, Value::Int(i)) => format!("{i}"),
        (F32, Value::Float(f)) => float_literal(f, true),
        (F64, Value::Float(f)) => float_literal(f, false),
        (_, v) => format!("{}", v.as_f64()),
    }
}

/// A C expression for `f` that reproduces it bit-exactly: a hex float literal, or a
/// `__builtin_*` for infinities and NaN.
pub fn float_literal(f: f64, single: bool) -> String {
    let suffix = if single { "f" } else { "" };
    if f.is_nan() {
        return if single { "__builtin_nanf(\"\")".into() } else { "__builtin_nan(\"\")".into() };
    }
    if f.is_infinite() {
        let b = if single { "__builtin_inff()" } else { "__builtin_inf()" };
        return if f < 0.0 { format!("(-{b})") } else { b.into() };
    }
    let sign = if f.is_sign_negative() { "-" } else { "" };
    let bits = f.abs().to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i64;
    let mant = bits & ((1u64 << 52) - 1);
    if exp == 0 && mant == 0 {
        return format!("{sign}0.0{suffix}");
    }
    let (lead, e) = if exp == 0 { (0, -1022) } else { (1, exp - 1023) };
    let mut m = format!("{mant:013x}");
    while m.ends_with('0') {
        m.pop();
    }
    let frac = if m.is_empty() { String::new() } else { format!(".{m}") };
    format!("{sign}0x{lead}{frac}p{e:+}{suffix}")
}

/// Human-readable value (shortest round-trip form).
pub struct DisplayValue(pub ScalarType, pub Value);

impl fmt::Display for DisplayValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.0, self.1) {
            (ScalarType::Bool, Value::Int(i)) => write!(f, "{}", if i != 0 { "true" } else { "false" }),
            (ScalarType::F32, Value::Float(x)) => write!(f, "{:?}", x as f32),
            (_, Value::Float(x)) => write!(f, "{x:?}"),
            (_, Value::Int(i)) => write!(f, "{i}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn dom() -> Domain {
        Domain {
            params: vec![
                Param::full("a", "int", "int", ScalarType::I32),
                Param::full("b", "unsigned char", "uint8_t", ScalarType::U8),
                Param::full("x", "float", "float", ScalarType::F32),
                Param::full("f", "_Bool", "_Bool", ScalarType::Bool),
                Param::full("l", "long", "long", ScalarType::I64),
            ],
            int_pool: vec![42],
            float_pool: vec![0.5],
            init: InitMode::Biased,
        }
    }

    #[test]
    fn encode_decode_round_trip() {
        let d = dom();
        let input = Input {
            values: vec![Value::Int(-5), Value::Int(200), Value::Float(1.5), Value::Int(1), Value::Int(i64::MIN as i128)],
        };
        let bytes = d.encode(&input);
        assert_eq!(bytes.len(), 4 + 1 + 4 + 1 + 8);
        assert_eq!(&bytes[..4], &(-5i32).to_le_bytes());
        assert_eq!(d.decode(&bytes), input);
    }

    #[test]
    fn samples_stay_in_range_and_type() {
        let mut d = dom();
        d.params[0].set_range("-10", "10").unwrap();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        for _ in 0..2000 {
            let s = d.sample(&mut rng);
            match s.values[0] {
                Value::Int(i) => assert!((-10..=10).contains(&i)),
                _ => panic!(),
            }
            match s.values[1] {
                Value::Int(i) => assert!((0..=255).contains(&i)),
                _ => panic!(),
            }
            match s.values[2] {
                Value::Float(f) => assert!(f.is_nan() || (f as f32) as f64 == f),
                _ => panic!(),
            }
        }
    }

    #[test]
    fn bad_ranges_are_rejected() {
        let mut d = dom();
        assert!(d.params[1].set_range("0", "256").is_err());
        assert!(d.params[0].set_range("5", "1").is_err());
        assert!(d.params[2].set_range("a", "1").is_err());
        assert!(d.params[2].set_range("-1.5", "2.5").is_ok());
    }

    #[test]
    fn float_literals_are_exact() {
        assert_eq!(float_literal(1.0, false), "0x1p+0");
        assert_eq!(float_literal(1.5, true), "0x1.8p+0f");
        assert_eq!(float_literal(-0.0, false), "-0.0");
        assert_eq!(float_literal(0.1, false), "0x1.999999999999ap-4");
        assert_eq!(float_literal(f64::from_bits(1), false), "0x0.0000000000001p-1022");
        assert_eq!(c_literal(ScalarType::I64, Value::Int(i64::MIN as i128)), "(-9223372036854775807LL - 1)");
    }
}
