//! The input domain of a function under test.
//!
//! Two levels:
//! * **Parameters** ([`Param`]) are the C parameters, each with a [`Shape`]: a scalar, a
//!   fixed-length array, a NUL-terminated string, a (pointer, length) buffer, or the integer that
//!   carries a buffer's length.
//! * **Genes** ([`Gene`]) are what the search varies: one typed scalar each. A scalar parameter is
//!   one gene; an array of n elements is n genes; a string of up to m characters is a length gene
//!   plus m character genes; a buffer of up to m elements is a length gene plus m element genes.
//!   An [`Input`] holds one [`Value`] per gene.
//!
//! Encoding: genes are packed in order, each in its C size, little-endian, with no padding (a
//! `_Bool` is one byte, 0 or 1; a length gene is a `u32`). The generated harness
//! (`crate::harness`) decodes the same layout and builds the arrays and strings.

pub mod mapped;
pub mod shape;

use anyhow::{bail, Result};
use evotest_abi::meta::{ScalarKind, ScalarMeta};
use rand::Rng;
use serde::{Deserialize, Serialize};
use std::fmt;

pub use shape::{Param, Shape};

/// Scalar types a gene can have.
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

    /// A C type name without typedefs.
    pub fn c_name(self) -> &'static str {
        use ScalarType::*;
        match self {
            Bool => "_Bool",
            I8 => "signed char",
            U8 => "unsigned char",
            I16 => "short",
            U16 => "unsigned short",
            I32 => "int",
            U32 => "unsigned int",
            I64 => "long",
            U64 => "unsigned long",
            F32 => "float",
            F64 => "double",
        }
    }
}

/// The value of one gene. Integers of every width (signed or unsigned, up to 64 bits) fit in
/// `i128`; floats are held as `f64` (an `F32` gene always holds a value exactly representable as
/// `f32`).
///
/// In JSON an integer is a number without a fraction, a float a number with one (`4.0`), and the
/// non-finite floats are the strings `"nan"`, `"inf"` and `"-inf"`, so that a value read back is
/// the value written (the solutions base relies on it).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    Int(i128),
    Float(f64),
}

impl Serialize for Value {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match *self {
            Value::Int(i) => match i64::try_from(i) {
                Ok(v) => s.serialize_i64(v),
                Err(_) => match u64::try_from(i) {
                    Ok(v) => s.serialize_u64(v),
                    Err(_) => s.serialize_str(&i.to_string()),
                },
            },
            Value::Float(f) if f.is_nan() => s.serialize_str("nan"),
            Value::Float(f) if f.is_infinite() => s.serialize_str(if f > 0.0 { "inf" } else { "-inf" }),
            Value::Float(f) => s.serialize_f64(f),
        }
    }
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Value, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Value;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a number, \"nan\", \"inf\" or \"-inf\"")
            }
            fn visit_i64<E>(self, v: i64) -> std::result::Result<Value, E> {
                Ok(Value::Int(v as i128))
            }
            fn visit_u64<E>(self, v: u64) -> std::result::Result<Value, E> {
                Ok(Value::Int(v as i128))
            }
            fn visit_i128<E>(self, v: i128) -> std::result::Result<Value, E> {
                Ok(Value::Int(v))
            }
            fn visit_f64<E>(self, v: f64) -> std::result::Result<Value, E> {
                Ok(Value::Float(v))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> std::result::Result<Value, E> {
                match v {
                    "nan" => Ok(Value::Float(f64::NAN)),
                    "inf" => Ok(Value::Float(f64::INFINITY)),
                    "-inf" => Ok(Value::Float(f64::NEG_INFINITY)),
                    _ => v.parse::<i128>().map(Value::Int).map_err(|_| E::custom(format!("not a value: {v:?}"))),
                }
            }
        }
        d.deserialize_any(V)
    }
}

impl Value {
    /// Numeric value as `f64` (for distances between genes).
    pub fn as_f64(self) -> f64 {
        match self {
            Value::Int(i) => i as f64,
            Value::Float(f) => f,
        }
    }

    /// Integer value (floats truncated).
    pub fn as_i128(self) -> i128 {
        match self {
            Value::Int(i) => i,
            Value::Float(f) => f as i128,
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

/// What a gene stands for, beyond its number.
#[derive(Clone, Debug, PartialEq)]
pub enum GeneRole {
    /// A value (a scalar parameter, or an array/buffer element).
    Value,
    /// The length of a string or buffer (0..=max).
    Length,
    /// A character of a string, restricted to `alphabet` (sorted, no NUL).
    Char { alphabet: Vec<u8> },
}

/// One gene: a typed scalar with a range.
#[derive(Clone, Debug, PartialEq)]
pub struct Gene {
    /// `a`, `a[3]`, `name.len`, `name[2]`.
    pub name: String,
    pub ty: ScalarType,
    pub range: Range,
    /// True when the range is the type's whole range (then floats may also be NaN or ±inf).
    pub full: bool,
    /// Precision of a float gene: values are multiples of `step` (seed 002 uses 0.001).
    pub step: Option<f64>,
    pub role: GeneRole,
}

/// How values are drawn, and whether the search may favour special values.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum InitMode {
    /// Mixture: boundary values, program constants, small magnitudes, and the whole range
    /// (see [`Domain::sample_value`]); the algorithms may also try boundary values and program
    /// constants on purpose (AVM's boundary probe, the GA's boundary mutation).
    #[default]
    Biased,
    /// Uniform over each range, and no special treatment of boundary values or constants
    /// anywhere (as seeds 001 and 002 do; needed for a fair comparison on programs where 0 or a
    /// boundary is the special value).
    Uniform,
}

/// Parameters, their genes, and a pool of constants harvested from the program's compares
/// (seed 004).
#[derive(Clone, Debug, Default)]
pub struct Domain {
    pub params: Vec<Param>,
    pub genes: Vec<Gene>,
    pub int_pool: Vec<i128>,
    pub float_pool: Vec<f64>,
    pub init: InitMode,
}

/// One test input: a value per gene.
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

impl Gene {
    /// A value gene with the whole range of its type.
    pub fn full(name: &str, ty: ScalarType) -> Gene {
        let range = if ty.is_float() {
            Range::Float { lo: -ty.float_max(), hi: ty.float_max() }
        } else {
            let (lo, hi) = ty.int_bounds();
            Range::Int { lo, hi }
        };
        Gene { name: name.into(), ty, range, full: true, step: None, role: GeneRole::Value }
    }

    /// Restrict to `lo..=hi` (given as text; floats may end in `@step`), checking it is within
    /// the type. `what` names the parameter for messages.
    pub fn set_range(&mut self, lo: &str, hi: &str, what: &str) -> Result<()> {
        let what = format!("range {lo}..{hi} for {what}");
        if self.ty.is_float() {
            let (hi, step) = match hi.split_once('@') {
                Some((h, s)) => (h, Some(s)),
                None => (hi, None),
            };
            let (l, h): (f64, f64) = match (lo.trim().parse(), hi.trim().parse()) {
                (Ok(l), Ok(h)) => (l, h),
                _ => bail!("{what}: bounds must be numbers"),
            };
            let max = self.ty.float_max();
            if !(l.is_finite() && h.is_finite()) || l > h || l < -max || h > max {
                bail!("{what}: need finite lo <= hi within ±{max:e}");
            }
            self.step = match step {
                Some(s) => match s.trim().parse::<f64>() {
                    Ok(s) if s.is_finite() && s > 0.0 => Some(s),
                    _ => bail!("{what}: the precision after @ must be a positive number"),
                },
                None => None,
            };
            self.range = Range::Float { lo: l, hi: h };
        } else {
            if hi.contains('@') {
                bail!("{what}: a precision (@step) only applies to floating-point parameters");
            }
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
    /// Whether the search may favour boundary values and program constants ([`InitMode::Biased`]).
    pub fn biased(&self) -> bool {
        self.init == InitMode::Biased
    }

    /// Bytes of an encoded input.
    pub fn encoded_len(&self) -> usize {
        self.genes.iter().map(|g| g.ty.size()).sum()
    }

    /// Byte offset of each gene in the encoding.
    pub fn offsets(&self) -> Vec<usize> {
        let mut off = 0;
        self.genes
            .iter()
            .map(|g| {
                let o = off;
                off += g.ty.size();
                o
            })
            .collect()
    }

    /// Encode an input for the harness (see module docs).
    pub fn encode(&self, input: &Input) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.encoded_len());
        for (g, v) in self.genes.iter().zip(&input.values) {
            let n = g.ty.size();
            match (g.ty, v) {
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
        for (g, off) in self.genes.iter().zip(self.offsets()) {
            let b = &buf[off..off + g.ty.size()];
            let v = match g.ty {
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

    /// Bring `v` into gene `i`'s range and type: clamp; round to an integer, to the precision
    /// step, or to `f32`; snap characters into the alphabet.
    pub fn normalise(&self, i: usize, v: Value) -> Value {
        let g = &self.genes[i];
        match g.range {
            Range::Int { lo, hi } => {
                let x = match v {
                    Value::Int(x) => x,
                    Value::Float(f) if f.is_nan() => lo,
                    Value::Float(f) => f.round().clamp(lo as f64, hi as f64) as i128,
                };
                let x = x.clamp(lo, hi);
                if let GeneRole::Char { alphabet } = &g.role {
                    return Value::Int(snap(alphabet, x) as i128);
                }
                Value::Int(x)
            }
            Range::Float { lo, hi } => {
                let mut f = v.as_f64();
                if f.is_nan() || f.is_infinite() {
                    if !g.full {
                        f = if f == f64::INFINITY { hi } else { lo };
                    }
                } else {
                    f = f.clamp(lo, hi);
                    if let Some(s) = g.step {
                        f = (lo + ((f - lo) / s).round() * s).clamp(lo, hi);
                        // print-exact multiples: round to the step's decimal places
                        let decimals = (-s.log10()).ceil().max(0.0) as i32;
                        if decimals <= 15 {
                            let m = 10f64.powi(decimals);
                            f = (f * m).round() / m;
                        }
                    }
                }
                if g.ty == ScalarType::F32 {
                    f = f as f32 as f64;
                }
                Value::Float(f)
            }
        }
    }

    /// A random input.
    pub fn sample<R: Rng>(&self, rng: &mut R) -> Input {
        Input { values: (0..self.genes.len()).map(|i| self.sample_value(i, rng)).collect() }
    }

    /// A uniformly random value of gene `i` over its range (characters: over the alphabet).
    pub fn uniform_value<R: Rng>(&self, i: usize, rng: &mut R) -> Value {
        let g = &self.genes[i];
        if let GeneRole::Char { alphabet } = &g.role {
            return Value::Int(alphabet[rng.random_range(0..alphabet.len())] as i128);
        }
        match g.range {
            Range::Int { lo, hi } => Value::Int(rng.random_range(lo..=hi)),
            Range::Float { lo, hi } => {
                let f = lo + (hi - lo) * rng.random::<f64>();
                // hi - lo may overflow to inf for the full range: sample halves instead
                let f = if f.is_finite() { f } else { lo * rng.random::<f64>() + hi * rng.random::<f64>() };
                self.normalise(i, Value::Float(f))
            }
        }
    }

    /// The boundary and special values of gene `i` (within its range).
    pub fn boundary_values(&self, i: usize) -> Vec<Value> {
        let g = &self.genes[i];
        let mut out: Vec<Value> = Vec::new();
        let mut push = |v: Value| {
            if !out.iter().any(|o| o.bits_key() == v.bits_key()) {
                out.push(v);
            }
        };
        match (&g.role, g.range) {
            (GeneRole::Char { alphabet }, _) => {
                for c in [alphabet[0], alphabet[alphabet.len() - 1]] {
                    push(Value::Int(c as i128));
                }
            }
            (_, Range::Int { lo, hi }) => {
                for c in [lo, hi, lo.saturating_add(1), hi.saturating_sub(1), 0, 1, -1] {
                    if c >= lo && c <= hi {
                        push(Value::Int(c));
                    }
                }
            }
            (_, Range::Float { lo, hi }) => {
                let mut cands = vec![lo, hi, 0.0, -0.0, 1.0, -1.0];
                if g.full {
                    cands.extend([f64::INFINITY, f64::NEG_INFINITY, f64::NAN, f64::MIN_POSITIVE]);
                }
                for c in cands {
                    if c.is_nan() || c.is_infinite() || (c >= lo && c <= hi) {
                        push(self.normalise(i, Value::Float(c)));
                    }
                }
            }
        }
        out
    }

    /// A constant from the program (or a neighbour ±1), if the pool has one; normalised into
    /// gene `i`'s range.
    pub fn constant_value<R: Rng>(&self, i: usize, rng: &mut R) -> Option<Value> {
        let g = &self.genes[i];
        let v = if g.ty.is_float() {
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

    /// A random value of gene `i`. With [`InitMode::Uniform`], uniform over the range. With
    /// [`InitMode::Biased`] (the default), a mixture: 15% a boundary value (range ends, 0, ±1, and
    /// for full-range floats ±inf and NaN), 15% a program constant or its neighbour, 30% a small
    /// magnitude (|v| ≤ 100), 40% the whole range (log-uniform magnitude for wide float ranges).
    /// The bias towards small and boundary values follows the practice of AUSTIN and EvoSuite's
    /// constant seeding; the constant pool follows seed 004. Lengths are uniform in 0..=max and
    /// characters uniform over their alphabet, 15% of the time a program constant.
    pub fn sample_value<R: Rng>(&self, i: usize, rng: &mut R) -> Value {
        if self.init == InitMode::Uniform {
            return self.uniform_value(i, rng);
        }
        let g = &self.genes[i];
        let r: f64 = rng.random();
        match g.role {
            GeneRole::Length => return self.uniform_value(i, rng),
            GeneRole::Char { .. } => {
                if r < BIAS[1] {
                    if let Some(v) = self.constant_value(i, rng) {
                        return v;
                    }
                }
                return self.uniform_value(i, rng);
            }
            GeneRole::Value => {}
        }
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
            let v = match g.range {
                Range::Int { .. } => Value::Int(rng.random_range(-SMALL..=SMALL)),
                Range::Float { .. } => Value::Float(rng.random_range(-(SMALL as f64)..=SMALL as f64)),
            };
            return self.normalise(i, v);
        }
        match g.range {
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

    /// `name=value, …` for people (arrays as `[…]`, strings quoted).
    pub fn display(&self, input: &Input) -> String {
        self.params
            .iter()
            .filter_map(|p| p.display(self, input).map(|v| format!("{}={v}", p.name)))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The member of sorted `alphabet` nearest to `x`.
fn snap(alphabet: &[u8], x: i128) -> u8 {
    match alphabet.binary_search_by(|c| (*c as i128).cmp(&x)) {
        Ok(i) => alphabet[i],
        Err(0) => alphabet[0],
        Err(i) if i >= alphabet.len() => alphabet[alphabet.len() - 1],
        Err(i) => {
            let (a, b) = (alphabet[i - 1], alphabet[i]);
            if x - a as i128 <= b as i128 - x {
                a
            } else {
                b
            }
        }
    }
}

/// Exact C literal of a value of type `ty`.
pub fn c_literal(ty: ScalarType, v: Value) -> String {
    use ScalarType::*;
    match (ty, v) {
        (Bool, Value::Int(i)) => if i != 0 { "1" } else { "0" }.into(),
        (I64, Value::Int(i)) if i == i64::MIN as i128 => "(-9223372036854775807L - 1)".into(),
        (I32, Value::Int(i)) if i == i32::MIN as i128 => "(-2147483647 - 1)".into(),
        (I64, Value::Int(i)) => format!("{i}L"),
        (U64, Value::Int(i)) => format!("{i}UL"),
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
        let genes = vec![
            Gene::full("a", ScalarType::I32),
            Gene::full("b", ScalarType::U8),
            Gene::full("x", ScalarType::F32),
            Gene::full("f", ScalarType::Bool),
            Gene::full("l", ScalarType::I64),
        ];
        Domain { params: vec![], genes, int_pool: vec![42], float_pool: vec![0.5], init: InitMode::Biased }
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
        d.genes[0].set_range("-10", "10", "a").unwrap();
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
        assert!(d.genes[1].set_range("0", "256", "b").is_err());
        assert!(d.genes[0].set_range("5", "1", "a").is_err());
        assert!(d.genes[0].set_range("1", "5@0.1", "a").is_err());
        assert!(d.genes[2].set_range("a", "1", "x").is_err());
        assert!(d.genes[2].set_range("-1.5", "2.5", "x").is_ok());
        assert!(d.genes[2].set_range("-1.5", "2.5@0", "x").is_err());
    }

    #[test]
    fn precision_steps_round_floats() {
        let mut d = dom();
        d.genes[2] = Gene::full("x", ScalarType::F64);
        d.genes[2].set_range("-50000", "50000@0.001", "x").unwrap();
        assert_eq!(d.normalise(2, Value::Float(1.23456)), Value::Float(1.235));
        assert_eq!(d.normalise(2, Value::Float(-0.0004)), Value::Float(-0.0));
        assert_eq!(d.normalise(2, Value::Float(9e9)), Value::Float(50000.0));
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        for _ in 0..1000 {
            let Value::Float(f) = d.sample_value(2, &mut rng) else { panic!() };
            assert!(((f * 1000.0).round() - f * 1000.0).abs() < 1e-6, "{f}");
        }
    }

    #[test]
    fn characters_snap_into_the_alphabet() {
        let mut d = dom();
        d.genes[1].role = GeneRole::Char { alphabet: b"0123456789X".to_vec() };
        d.genes[1].range = Range::Int { lo: b'0' as i128, hi: b'X' as i128 };
        assert_eq!(d.normalise(1, Value::Int(b'5' as i128)), Value::Int(b'5' as i128));
        assert_eq!(d.normalise(1, Value::Int(b'A' as i128)), Value::Int(b'9' as i128));
        assert_eq!(d.normalise(1, Value::Int(b'W' as i128)), Value::Int(b'X' as i128));
        assert_eq!(d.normalise(1, Value::Int(0)), Value::Int(b'0' as i128));
    }

    #[test]
    fn float_literals_are_exact() {
        assert_eq!(float_literal(1.0, false), "0x1p+0");
        assert_eq!(float_literal(1.5, true), "0x1.8p+0f");
        assert_eq!(float_literal(-0.0, false), "-0.0");
        assert_eq!(float_literal(0.1, false), "0x1.999999999999ap-4");
        assert_eq!(float_literal(f64::from_bits(1), false), "0x0.0000000000001p-1022");
        assert_eq!(c_literal(ScalarType::I64, Value::Int(i64::MIN as i128)), "(-9223372036854775807L - 1)");
    }
}
