//! The input model: every input is a **byte string** ([`Input`]), and a **field map**
//! ([`Domain::fields`]) says where typed values sit in it.
//!
//! * A [`Field`] is a typed scalar at a byte offset, with an inclusive range and a role: a plain
//!   value, the length of a string or buffer, or a character restricted to an alphabet. Values are
//!   little-endian in their C size (a `_Bool` is one byte, 0 or 1; a length is a `u32`).
//! * A **frontend** (the `frontend` module, above this one) decides what the bytes mean for its target and supplies
//!   the field map: the function-under-test frontend packs one field per scalar parameter, array
//!   element, string character or length, with no padding; a byte-passing frontend may have no
//!   fields at all.
//! * Typed search (AVM moves, GA genes, boundary values, program constants) works on fields
//!   through [`Domain::get`] and [`Domain::set`]; byte-level search works on the bytes.
//!
//! [`Domain`] also holds the constant pools harvested from the program's compares (after the
//! constant seeding of Ariadne's grammar, Anjum et al. 2024) and the initialisation mode.

pub mod mapped;
pub mod sequence;
pub mod spec;

use anyhow::{bail, Result};
use evotest_abi::meta::{ScalarKind, ScalarMeta};
use rand::Rng;
use serde::{Deserialize, Serialize};
use std::fmt;

/// One test input: the bytes its frontend decodes. Serialised as a hex string.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Input {
    pub bytes: Vec<u8>,
}

impl Input {
    pub fn new(bytes: Vec<u8>) -> Input {
        Input { bytes }
    }
}

impl Serialize for Input {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(&crate::util::hex(&self.bytes))
    }
}

impl<'de> Deserialize<'de> for Input {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Input, D::Error> {
        let s = String::deserialize(d)?;
        crate::util::unhex(&s)
            .map(Input::new)
            .ok_or_else(|| serde::de::Error::custom("an input must be a hex string"))
    }
}

/// Scalar types a field can have.
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

/// The value of one field. Integers of every width (signed or unsigned, up to 64 bits) fit in
/// `i128`; floats are held as `f64` (an `F32` field always holds a value exactly representable as
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
            Value::Float(f) if f.is_infinite() => {
                s.serialize_str(if f > 0.0 { "inf" } else { "-inf" })
            }
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
                    _ => v
                        .parse::<i128>()
                        .map(Value::Int)
                        .map_err(|_| E::custom(format!("not a value: {v:?}"))),
                }
            }
        }
        d.deserialize_any(V)
    }
}

impl Value {
    /// Numeric value as `f64` (for distances between fields).
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
}

/// An inclusive range of a field.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Range {
    Int { lo: i128, hi: i128 },
    Float { lo: f64, hi: f64 },
}

/// What a field stands for, beyond its number.
#[derive(Clone, Debug, PartialEq)]
pub enum Role {
    /// A value (a scalar parameter, or an array/buffer element).
    Value,
    /// The length of a string or buffer (0..=max).
    Length,
    /// A character of a string, restricted to `alphabet` (sorted, no NUL).
    Char { alphabet: Vec<u8> },
}

/// One field: a typed scalar at a byte offset of the input, with a range.
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    /// `a`, `a[3]`, `name.len`, `name[2]`.
    pub name: String,
    /// Byte offset in the input.
    pub offset: usize,
    pub ty: ScalarType,
    pub range: Range,
    /// True when the range is the type's whole range (then floats may also be NaN or ±inf).
    pub full: bool,
    /// Precision of a float field: values are multiples of `step` (McMinn & Holcombe 2006 use
    /// 0.001).
    pub step: Option<f64>,
    pub role: Role,
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
    /// Uniform over each range, and no bias towards boundary values or the program's constants
    /// in sampling or in the algorithms' moves (as Bueno & Jino 2002 and McMinn & Holcombe 2006
    /// do; needed for a fair comparison on programs where 0 or a boundary is the special value).
    /// The search still copies the operands of the compares it runs into the input
    /// (input-to-state), in either mode.
    Uniform,
}

/// The field map of inputs, their length, the constant pools and the initialisation mode.
#[derive(Clone, Debug, Default)]
pub struct Domain {
    /// Fields in byte order, without overlaps.
    pub fields: Vec<Field>,
    /// Length of an input in bytes (the end of the last field): inputs are normalised to it.
    pub len: usize,
    pub int_pool: Vec<i128>,
    pub float_pool: Vec<f64>,
    /// Lattice steps of the program's integer arithmetic (moduli, divisors, shift and mask periods,
    /// and their pairwise least common multiples): integer moves by these keep remainders.
    pub lattice: Vec<i128>,
    /// Whether the program's conditions test bit patterns (a bitwise operator, `&`, `|`, `^`,
    /// `~`, `<<` or `>>`, in a branch's condition text; [`crate::program::Pools::bit_ops`]):
    /// AVM's scale moves are tried only then.
    pub bit_ops: bool,
    /// String literals the program compares strings with (`strcmp(s, "VIP")`): a pool for
    /// string parameters (grammatical evolution's extended grammar, `search::ge`).
    pub str_pool: Vec<Vec<u8>>,
    /// The numeric literals of the program's condition texts, integers and floats
    /// ([`crate::program::Pools::predicate_ints`]): every constant of a predicate, also
    /// those inside its arithmetic (`len != hdr + 10`: 10), which the compares' operands in
    /// `int_pool` miss. Grammatical evolution's `<const>` (Anjum & Ryan 2021 seed their grammar
    /// with the constants of the predicates); no other algorithm reads them.
    pub predicate_ints: Vec<i128>,
    pub predicate_floats: Vec<f64>,
    pub init: InitMode,
    /// For API testing: the inputs are call sequences of this model ([`sequence`]), with no
    /// fields; a random input is a random sequence.
    pub sequence: Option<std::sync::Arc<sequence::SequenceModel>>,
}

/// Probabilities of [`InitMode::Biased`] sampling (sum to 1): boundary, constant, small, whole.
const BIAS: [f64; 4] = [0.15, 0.15, 0.30, 0.40];
/// "Small magnitude" means |v| <= this.
const SMALL: i128 = 100;

/// The element index of a field named `NAME[k]`: (the position of its last `[`, `k`).
fn element_index(name: &str) -> Option<(usize, usize)> {
    let open = name.strip_suffix(']')?.rfind('[')?;
    let k = name[open + 1..name.len() - 1].parse().ok()?;
    Some((open, k))
}

/// `values` in ascending order (integers by value; floats by `total_cmp`, NaNs last).
pub fn sort_values(values: &mut [Value]) {
    values.sort_by(|a, b| match (a, b) {
        (Value::Int(x), Value::Int(y)) => x.cmp(y),
        _ => a.as_f64().total_cmp(&b.as_f64()),
    });
}

impl Field {
    /// A value field with the whole range of its type, at offset 0 (see [`Domain::packed`]).
    pub fn full(name: &str, ty: ScalarType) -> Field {
        let range = if ty.is_float() {
            Range::Float {
                lo: -ty.float_max(),
                hi: ty.float_max(),
            }
        } else {
            let (lo, hi) = ty.int_bounds();
            Range::Int { lo, hi }
        };
        Field {
            name: name.into(),
            offset: 0,
            ty,
            range,
            full: true,
            step: None,
            role: Role::Value,
        }
    }

    /// The byte range of this field.
    pub fn bytes(&self) -> std::ops::Range<usize> {
        self.offset..self.offset + self.ty.size()
    }

    /// Restrict to `lo..=hi` (given as text; floats may end in `@step`), checking it is within
    /// the type. `what` names the parameter for messages.
    ///
    /// Errors (one line): bounds that do not parse, are reversed, or leave the type; a precision
    /// that is not a positive number, or given for an integer.
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

    /// The value of this field in `bytes` (missing bytes read as 0).
    pub fn read(&self, bytes: &[u8]) -> Value {
        let n = self.ty.size();
        let mut b = [0u8; 8];
        for (k, slot) in b.iter_mut().enumerate().take(n) {
            *slot = bytes.get(self.offset + k).copied().unwrap_or(0);
        }
        match self.ty {
            ScalarType::F32 => Value::Float(f32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64),
            ScalarType::F64 => Value::Float(f64::from_le_bytes(b)),
            ScalarType::Bool => Value::Int((b[0] & 1) as i128),
            t => {
                let u = u64::from_le_bytes(b) as u128;
                let bits = 8 * n as u32;
                if t.is_signed() && (u >> (bits - 1)) & 1 == 1 {
                    Value::Int((u as i128) - (1i128 << bits))
                } else {
                    Value::Int(u as i128)
                }
            }
        }
    }

    /// Write `v` (already in the field's type) into `bytes`, growing them if they are short.
    pub fn write(&self, bytes: &mut Vec<u8>, v: Value) {
        let r = self.bytes();
        if bytes.len() < r.end {
            bytes.resize(r.end, 0);
        }
        let n = self.ty.size();
        let out = &mut bytes[r];
        match (self.ty, v) {
            (ScalarType::F32, Value::Float(f)) => out.copy_from_slice(&(f as f32).to_le_bytes()),
            (ScalarType::F64, Value::Float(f)) => out.copy_from_slice(&f.to_le_bytes()),
            (ScalarType::Bool, v) => out[0] = (v.as_i128() != 0) as u8,
            (_, Value::Int(i)) => out.copy_from_slice(&(i as u128).to_le_bytes()[..n]),
            (_, Value::Float(f)) => out.copy_from_slice(&((f as i128) as u128).to_le_bytes()[..n]),
        }
    }
}

impl Domain {
    /// A domain of `fields` packed in order with no padding (their offsets are set here).
    pub fn packed(mut fields: Vec<Field>) -> Domain {
        let mut off = 0;
        for f in &mut fields {
            f.offset = off;
            off += f.ty.size();
        }
        Domain {
            fields,
            len: off,
            ..Default::default()
        }
    }

    /// Whether the search may favour boundary values and program constants ([`InitMode::Biased`]).
    pub fn biased(&self) -> bool {
        self.init == InitMode::Biased
    }

    /// Whether there is nothing to vary (a function without parameters).
    pub fn is_trivial(&self) -> bool {
        self.fields.is_empty() && self.len == 0
    }

    /// The value of field `i` of `x`.
    pub fn get(&self, x: &Input, i: usize) -> Value {
        self.fields[i].read(&x.bytes)
    }

    /// Set field `i` of `x` to `v`, normalised into the field's range and type.
    pub fn set(&self, x: &mut Input, i: usize, v: Value) {
        let v = self.normalise(i, v);
        self.fields[i].write(&mut x.bytes, v);
    }

    /// The values of every field of `x`.
    pub fn values(&self, x: &Input) -> Vec<Value> {
        self.fields.iter().map(|f| f.read(&x.bytes)).collect()
    }

    /// The input with these field values (normalised), in an input of [`Domain::len`] bytes.
    pub fn from_values(&self, values: &[Value]) -> Input {
        let mut x = Input::new(vec![0; self.len]);
        for (i, v) in values.iter().enumerate().take(self.fields.len()) {
            self.set(&mut x, i, *v);
        }
        x
    }

    /// `x` cut or zero-padded to [`Domain::len`] bytes, with every field normalised: what the
    /// target will actually see.
    pub fn normalise_input(&self, x: &Input) -> Input {
        let mut bytes = x.bytes.clone();
        bytes.resize(self.len, 0);
        let mut y = Input::new(bytes);
        for i in 0..self.fields.len() {
            let v = self.get(&y, i);
            let n = self.normalise(i, v);
            if !same(v, n) {
                self.fields[i].write(&mut y.bytes, n);
            }
        }
        y
    }

    /// Bring `v` into field `i`'s range and type: clamp; round to an integer, to the precision
    /// step, or to `f32`; snap characters into the alphabet.
    pub fn normalise(&self, i: usize, v: Value) -> Value {
        let g = &self.fields[i];
        match g.range {
            Range::Int { lo, hi } => {
                let x = match v {
                    Value::Int(x) => x,
                    Value::Float(f) if f.is_nan() => lo,
                    Value::Float(f) => f.round().clamp(lo as f64, hi as f64) as i128,
                };
                let x = x.clamp(lo, hi);
                if let Role::Char { alphabet } = &g.role {
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

    /// A random input: every field drawn by [`Domain::sample_value`].
    pub fn sample<R: Rng>(&self, rng: &mut R) -> Input {
        if let Some(m) = &self.sequence {
            let pools = sequence::ValuePools::of(self);
            return Input::new(m.encode(&sequence::random_sequence(m, &pools, rng)));
        }
        let mut values: Vec<Value> = (0..self.fields.len())
            .map(|i| self.sample_value(i, rng))
            .collect();
        if self.init == InitMode::Biased {
            self.seed_strings(&mut values, rng);
            self.shape_arrays(&mut values, rng);
        }
        self.from_values(&values)
    }

    /// In biased mode, each array of two or more elements ([`Domain::array_runs`]) gets, each
    /// with the probability of a program constant (15%), every element equal to its first, and
    /// its elements in ascending order. Independent draws almost never give an array whose
    /// elements are all equal, or sorted, and code over arrays asks for both (a binary search's
    /// precondition, a run of equal values, a check for duplicates); a byte fuzzer gets them
    /// from zero-filled or repeated bytes.
    fn shape_arrays<R: Rng>(&self, values: &mut [Value], rng: &mut R) {
        for (first, n) in self.array_runs() {
            if n < 2 {
                continue;
            }
            if rng.random::<f64>() < BIAS[1] {
                let v = values[first];
                values[first..first + n].fill(v);
            }
            if rng.random::<f64>() < BIAS[1] {
                sort_values(&mut values[first..first + n]);
            }
        }
    }

    /// The arrays of the input, in field order: (the index of the first element field, the
    /// number of elements), for each run of consecutive [`Role::Value`] fields of one type named
    /// `NAME[0]`, `NAME[1]`, … (array and buffer parameters, and the innermost dimension of a
    /// matrix row by row; structure members `NAME[k].x` are not elements).
    pub fn array_runs(&self) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < self.fields.len() {
            match self.array_from(i) {
                Some(n) => {
                    out.push((i, n));
                    i += n;
                }
                None => i += 1,
            }
        }
        out
    }

    /// The array of [`Domain::array_runs`] that field `i` is an element of, as (its first
    /// element field, its number of elements); `None` for a field that is no element. Costs the
    /// array's length, not the input's (function-level havoc asks it per mutation).
    pub fn array_run_at(&self, i: usize) -> Option<(usize, usize)> {
        let f = self.fields.get(i)?;
        let (_, k) = element_index(&f.name)?;
        let first = i.checked_sub(k)?;
        let n = self.array_from(first)?;
        (i < first + n).then_some((first, n))
    }

    /// The number of elements of the array whose element 0 is field `first` (see
    /// [`Domain::array_runs`]), `None` when that field is no element 0.
    fn array_from(&self, first: usize) -> Option<usize> {
        let f = self.fields.get(first)?;
        let (open, k) = element_index(&f.name)?;
        if k != 0 || f.role != Role::Value {
            return None;
        }
        let base = &f.name[..open];
        let mut n = 1;
        while let Some(g) = self.fields.get(first + n) {
            let same = g.role == Role::Value
                && g.ty == f.ty
                && element_index(&g.name).is_some_and(|(o, k)| k == n && &g.name[..o] == base);
            if !same {
                break;
            }
            n += 1;
        }
        Some(n)
    }

    /// In biased mode, each string (a [`Role::Length`] field and the [`Role::Char`] fields after
    /// it) becomes, with the probability of a program constant (15%), a whole string of the
    /// program's pool ([`Domain::str_pool`]: literals it compares strings with, and those of its
    /// tables) that fits its maximum length and alphabet: a keyword looked up through `bsearch`
    /// is compared by no probe, and a string is too many characters to guess one at a time. So
    /// does each buffer of bytes and its length (`--buffer s=len:N` of a `char *`: gperf's
    /// `lookup(str, len)`, a hash table's `find(key, keylen)`), its length set to the literal's.
    fn seed_strings<R: Rng>(&self, values: &mut [Value], rng: &mut R) {
        if self.str_pool.is_empty() {
            return;
        }
        for (l, bytes) in self.byte_buffer_spans() {
            if rng.random::<f64>() >= BIAS[1] {
                continue;
            }
            let cands: Vec<&Vec<u8>> = self.str_pool.iter().filter(|s| s.len() <= bytes).collect();
            if !cands.is_empty() {
                let s = cands[rng.random_range(0..cands.len())];
                values[l] = Value::Int(s.len() as i128);
                for (k, &c) in s.iter().enumerate() {
                    let v = match self.fields[l + 1 + k].ty {
                        ScalarType::I8 => c as i8 as i128,
                        _ => c as i128,
                    };
                    values[l + 1 + k] = Value::Int(v);
                }
            }
        }
        for (l, chars) in self.string_spans() {
            if rng.random::<f64>() >= BIAS[1] {
                continue;
            }
            let fits = |s: &&Vec<u8>| {
                s.len() <= chars
                    && s.iter()
                        .enumerate()
                        .all(|(k, c)| match &self.fields[l + 1 + k].role {
                            Role::Char { alphabet } => alphabet.binary_search(c).is_ok(),
                            _ => false,
                        })
            };
            let cands: Vec<&Vec<u8>> = self.str_pool.iter().filter(fits).collect();
            if !cands.is_empty() {
                let s = cands[rng.random_range(0..cands.len())];
                values[l] = Value::Int(s.len() as i128);
                for (k, &c) in s.iter().enumerate() {
                    values[l + 1 + k] = Value::Int(c as i128);
                }
            }
        }
    }

    /// The buffers of bytes of the input, in field order: (the index of its [`Role::Length`]
    /// field, the number of one-byte [`Role::Value`] fields that follow it, i.e. its maximum
    /// length).
    fn byte_buffer_spans(&self) -> Vec<(usize, usize)> {
        let f = &self.fields;
        (0..f.len())
            .filter(|&i| f[i].role == Role::Length)
            .filter_map(|i| {
                let n = f[i + 1..]
                    .iter()
                    .take_while(|g| {
                        g.role == Role::Value && matches!(g.ty, ScalarType::I8 | ScalarType::U8)
                    })
                    .count();
                (n > 0).then_some((i, n))
            })
            .collect()
    }

    /// The strings of the input, in field order: (the index of its [`Role::Length`] field, the
    /// number of [`Role::Char`] fields that follow it, i.e. its maximum length).
    pub fn string_spans(&self) -> Vec<(usize, usize)> {
        (0..self.fields.len())
            .filter(|&i| self.fields[i].role == Role::Length)
            .filter_map(|i| self.string_at(i))
            .collect()
    }

    /// The string field `i` belongs to (its length field or one of its characters), as in
    /// [`Domain::string_spans`]; `None` for any other field. Costs the string's length, not the
    /// input's.
    pub fn string_at(&self, i: usize) -> Option<(usize, usize)> {
        let f = &self.fields;
        let mut l = i;
        while matches!(f.get(l)?.role, Role::Char { .. }) {
            l = l.checked_sub(1)?;
        }
        if f[l].role != Role::Length {
            return None;
        }
        let n = f[l + 1..]
            .iter()
            .take_while(|g| matches!(g.role, Role::Char { .. }))
            .count();
        (n > 0).then_some((l, n))
    }

    /// A random input with every field uniform over its range, whatever the initialisation mode.
    pub fn sample_uniform<R: Rng>(&self, rng: &mut R) -> Input {
        let values: Vec<Value> = (0..self.fields.len())
            .map(|i| self.uniform_value(i, rng))
            .collect();
        self.from_values(&values)
    }

    /// A random input on every scale: each value-field's magnitude log-uniform (|v| = 2^u − 1, u
    /// uniform up to the log2 of the range's largest magnitude), its sign random, clamped into
    /// the range; lengths and characters uniform. Unlike [`Domain::sample`] in biased mode it uses
    /// no boundary values and no program constants: it is the scale-free distribution that byte
    /// mutations of a fuzzer and the GA's Gaussian mutation also have, and it reaches the small
    /// values of a relation (`a*a + b*b == c*c`) as often as the large ones.
    pub fn sample_scale_free<R: Rng>(&self, rng: &mut R) -> Input {
        let values: Vec<Value> = (0..self.fields.len())
            .map(|i| {
                let g = &self.fields[i];
                if g.role != Role::Value || g.ty == ScalarType::Bool {
                    return self.uniform_value(i, rng);
                }
                let neg = rng.random_bool(0.5);
                let v = match g.range {
                    Range::Int { lo, hi } => {
                        let m = lo.unsigned_abs().max(hi.unsigned_abs()).max(1) as f64;
                        let a =
                            (rng.random_range(0.0..=(m + 1.0).log2()).exp2() - 1.0).floor() as i128;
                        Value::Int(if neg { -a } else { a })
                    }
                    Range::Float { lo, hi } => {
                        let m = lo.abs().max(hi.abs()).clamp(1.0, f64::MAX);
                        let a = rng.random_range(0.0..=m.log2().min(1023.0)).exp2() - 1.0;
                        if !lo.is_finite() || !hi.is_finite() || m > 1e300 {
                            // full ranges: also below 1, down to the normal minimum
                            let e = rng.random_range(-1022.0..=1023.0f64);
                            Value::Float(if neg { -e.exp2() } else { e.exp2() })
                        } else {
                            Value::Float(if neg { -a } else { a })
                        }
                    }
                };
                self.normalise(i, v)
            })
            .collect();
        self.from_values(&values)
    }

    /// A uniformly random value of field `i` over its range (characters: over the alphabet).
    pub fn uniform_value<R: Rng>(&self, i: usize, rng: &mut R) -> Value {
        let g = &self.fields[i];
        if let Role::Char { alphabet } = &g.role {
            return Value::Int(alphabet[rng.random_range(0..alphabet.len())] as i128);
        }
        match g.range {
            Range::Int { lo, hi } => Value::Int(rng.random_range(lo..=hi)),
            Range::Float { lo, hi } => {
                let f = lo + (hi - lo) * rng.random::<f64>();
                // hi - lo may overflow to inf for the full range: sample halves instead
                let f = if f.is_finite() {
                    f
                } else {
                    lo * rng.random::<f64>() + hi * rng.random::<f64>()
                };
                self.normalise(i, Value::Float(f))
            }
        }
    }

    /// The boundary and special values of field `i` (within its range).
    pub fn boundary_values(&self, i: usize) -> Vec<Value> {
        let g = &self.fields[i];
        let mut out: Vec<Value> = Vec::new();
        let mut push = |v: Value| {
            if !out.iter().any(|o| same(*o, v)) {
                out.push(v);
            }
        };
        match (&g.role, g.range) {
            (Role::Char { alphabet }, _) => {
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
                    cands.extend([
                        f64::INFINITY,
                        f64::NEG_INFINITY,
                        f64::NAN,
                        f64::MIN_POSITIVE,
                    ]);
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
    /// field `i`'s range.
    pub fn constant_value<R: Rng>(&self, i: usize, rng: &mut R) -> Option<Value> {
        let g = &self.fields[i];
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

    /// A random value of field `i`. With [`InitMode::Uniform`], uniform over the range. With
    /// [`InitMode::Biased`] (the default), a mixture: 15% a boundary value (range ends, 0, ±1, and
    /// for full-range floats ±inf and NaN), 15% a program constant or its neighbour, 30% a small
    /// magnitude (|v| ≤ 100), 40% the whole range (log-uniform magnitude for wide float ranges).
    /// The bias towards small and boundary values follows the practice of AUSTIN and EvoSuite's
    /// constant seeding; the constant pool follows Anjum et al.'s seeded grammar. Lengths are
    /// uniform in 0..=max and characters uniform over their alphabet, 15% of the time a program
    /// constant.
    pub fn sample_value<R: Rng>(&self, i: usize, rng: &mut R) -> Value {
        if self.init == InitMode::Uniform {
            return self.uniform_value(i, rng);
        }
        let g = &self.fields[i];
        let r: f64 = rng.random();
        match g.role {
            Role::Length => return self.uniform_value(i, rng),
            Role::Char { .. } => {
                if r < BIAS[1] {
                    if let Some(v) = self.constant_value(i, rng) {
                        return v;
                    }
                }
                return self.uniform_value(i, rng);
            }
            Role::Value => {}
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
                Range::Float { .. } => {
                    Value::Float(rng.random_range(-(SMALL as f64)..=SMALL as f64))
                }
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
}

/// Whether two values are the same bit for bit (floats by their bits, so -0.0 ≠ 0.0 and a NaN
/// equals itself).
pub fn same(a: Value, b: Value) -> bool {
    match (a, b) {
        (Value::Float(x), Value::Float(y)) => x.to_bits() == y.to_bits(),
        (x, y) => x == y,
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
/// `__builtin_*` for infinities and NaN (a NaN with its sign, quiet bit and payload; for `float`,
/// the NaN `f` narrows to).
pub fn float_literal(f: f64, single: bool) -> String {
    let suffix = if single { "f" } else { "" };
    if f.is_nan() {
        let (neg, quiet, payload) = if single {
            let b = (f as f32).to_bits();
            (b >> 31 == 1, b & 0x0040_0000 != 0, (b & 0x003f_ffff) as u64)
        } else {
            let b = f.to_bits();
            (
                b >> 63 == 1,
                b & 0x0008_0000_0000_0000 != 0,
                b & 0x0007_ffff_ffff_ffff,
            )
        };
        let s = if quiet { "" } else { "s" };
        let arg = if payload == 0 {
            String::new()
        } else {
            format!("0x{payload:x}")
        };
        let e = format!("__builtin_nan{s}{suffix}(\"{arg}\")");
        return if neg { format!("(-{e})") } else { e };
    }
    if f.is_infinite() {
        let b = if single {
            "__builtin_inff()"
        } else {
            "__builtin_inf()"
        };
        return if f < 0.0 { format!("(-{b})") } else { b.into() };
    }
    let sign = if f.is_sign_negative() { "-" } else { "" };
    let bits = f.abs().to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i64;
    let mant = bits & ((1u64 << 52) - 1);
    if exp == 0 && mant == 0 {
        return format!("{sign}0.0{suffix}");
    }
    let (lead, e) = if exp == 0 {
        (0, -1022)
    } else {
        (1, exp - 1023)
    };
    let mut m = format!("{mant:013x}");
    while m.ends_with('0') {
        m.pop();
    }
    let frac = if m.is_empty() {
        String::new()
    } else {
        format!(".{m}")
    };
    format!("{sign}0x{lead}{frac}p{e:+}{suffix}")
}

/// Human-readable value (shortest round-trip form).
pub struct DisplayValue(pub ScalarType, pub Value);

impl fmt::Display for DisplayValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.0, self.1) {
            (ScalarType::Bool, Value::Int(i)) => {
                write!(f, "{}", if i != 0 { "true" } else { "false" })
            }
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

    /// Arrays are the runs of `NAME[0]`, `NAME[1]`, … of one type; structure members and
    /// scalars are not; the biased start sometimes fills and sorts them.
    #[test]
    fn array_runs_and_their_shapes() {
        let names = [
            "x", "a[0]", "a[1]", "a[2]", "b[0]", "b[1]", "s[0].x", "s[1].x", "c[0]", "m[0][0]",
            "m[0][1]",
        ];
        let d = Domain::packed(
            names
                .iter()
                .map(|n| Field::full(n, ScalarType::I32))
                .collect(),
        );
        assert_eq!(d.array_runs(), vec![(1, 3), (4, 2), (8, 1), (9, 2)]);
        // the run of one field, as the whole list has it
        let at: Vec<Option<(usize, usize)>> = (0..names.len()).map(|i| d.array_run_at(i)).collect();
        assert_eq!(
            at,
            [
                None,
                Some((1, 3)),
                Some((1, 3)),
                Some((1, 3)),
                Some((4, 2)),
                Some((4, 2)),
                None,
                None,
                Some((8, 1)),
                Some((9, 2)),
                Some((9, 2))
            ]
        );
        let mut v = vec![
            Value::Int(3),
            Value::Int(-2),
            Value::Float(f64::NAN),
            Value::Int(1),
        ];
        sort_values(&mut v[..2]);
        assert_eq!(v[..2], [Value::Int(-2), Value::Int(3)]);
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        let d = Domain::packed(
            (0..8)
                .map(|k| Field::full(&format!("a[{k}]"), ScalarType::I32))
                .collect(),
        );
        let (mut equal, mut sorted) = (0, 0);
        for _ in 0..400 {
            let x = d.sample(&mut rng);
            let v: Vec<i128> = (0..8).map(|k| d.get(&x, k).as_i128()).collect();
            equal += v.iter().all(|&e| e == v[0]) as u32;
            sorted += v.windows(2).all(|w| w[0] <= w[1]) as u32;
        }
        // 15% each (sorted includes the equal ones)
        assert!(
            (30..=90).contains(&equal) && sorted >= equal + 20,
            "{equal} equal, {sorted} sorted of 400"
        );
    }

    fn dom() -> Domain {
        let mut d = Domain::packed(vec![
            Field::full("a", ScalarType::I32),
            Field::full("b", ScalarType::U8),
            Field::full("x", ScalarType::F32),
            Field::full("f", ScalarType::Bool),
            Field::full("l", ScalarType::I64),
        ]);
        d.int_pool = vec![42];
        d.float_pool = vec![0.5];
        d
    }

    #[test]
    fn fields_are_packed_little_endian_and_round_trip() {
        let d = dom();
        assert_eq!(d.len, 4 + 1 + 4 + 1 + 8);
        let values = vec![
            Value::Int(-5),
            Value::Int(200),
            Value::Float(1.5),
            Value::Int(1),
            Value::Int(i64::MIN as i128),
        ];
        let x = d.from_values(&values);
        assert_eq!(x.bytes.len(), d.len);
        assert_eq!(&x.bytes[..4], &(-5i32).to_le_bytes());
        assert_eq!(d.values(&x), values);
        // a short input reads as zero-filled
        assert_eq!(d.get(&Input::new(vec![7]), 0), Value::Int(7));
        assert_eq!(d.get(&Input::new(vec![]), 4), Value::Int(0));
    }

    #[test]
    fn set_normalises_and_normalise_input_fixes_every_field() {
        let mut d = dom();
        d.fields[0].set_range("-10", "10", "a").unwrap();
        let mut x = d.from_values(&[Value::Int(0); 5]);
        d.set(&mut x, 0, Value::Int(99));
        assert_eq!(d.get(&x, 0), Value::Int(10));
        // raw bytes out of range, too long: cut to the domain's length and clamped
        let mut raw = vec![0xff; d.len + 3];
        raw[..4].copy_from_slice(&1000i32.to_le_bytes());
        let y = d.normalise_input(&Input::new(raw));
        assert_eq!(y.bytes.len(), d.len);
        assert_eq!(d.get(&y, 0), Value::Int(10));
        assert_eq!(d.get(&y, 3), Value::Int(1));
    }

    #[test]
    fn inputs_serialise_as_hex() {
        let x = Input::new(vec![1, 0xab]);
        let s = serde_json::to_string(&x).unwrap();
        assert_eq!(s, "\"01ab\"");
        assert_eq!(serde_json::from_str::<Input>(&s).unwrap(), x);
        assert!(serde_json::from_str::<Input>("\"xyz\"").is_err());
    }

    #[test]
    fn samples_stay_in_range_and_type() {
        let mut d = dom();
        d.fields[0].set_range("-10", "10", "a").unwrap();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        for _ in 0..2000 {
            let s = d.sample(&mut rng);
            match d.get(&s, 0) {
                Value::Int(i) => assert!((-10..=10).contains(&i)),
                _ => panic!(),
            }
            match d.get(&s, 1) {
                Value::Int(i) => assert!((0..=255).contains(&i)),
                _ => panic!(),
            }
            match d.get(&s, 2) {
                Value::Float(f) => assert!(f.is_nan() || (f as f32) as f64 == f),
                _ => panic!(),
            }
        }
    }

    #[test]
    fn bad_ranges_are_rejected() {
        let mut d = dom();
        assert!(d.fields[1].set_range("0", "256", "b").is_err());
        assert!(d.fields[0].set_range("5", "1", "a").is_err());
        assert!(d.fields[0].set_range("1", "5@0.1", "a").is_err());
        assert!(d.fields[2].set_range("a", "1", "x").is_err());
        assert!(d.fields[2].set_range("-1.5", "2.5", "x").is_ok());
        assert!(d.fields[2].set_range("-1.5", "2.5@0", "x").is_err());
    }

    #[test]
    fn precision_steps_round_floats() {
        let mut d = Domain::packed(vec![Field::full("x", ScalarType::F64)]);
        d.fields[0].set_range("-50000", "50000@0.001", "x").unwrap();
        assert_eq!(d.normalise(0, Value::Float(1.23456)), Value::Float(1.235));
        assert_eq!(d.normalise(0, Value::Float(-0.0004)), Value::Float(-0.0));
        assert_eq!(d.normalise(0, Value::Float(9e9)), Value::Float(50000.0));
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        for _ in 0..1000 {
            let Value::Float(f) = d.sample_value(0, &mut rng) else {
                panic!()
            };
            assert!(((f * 1000.0).round() - f * 1000.0).abs() < 1e-6, "{f}");
        }
    }

    #[test]
    fn characters_snap_into_the_alphabet() {
        let mut d = dom();
        d.fields[1].role = Role::Char {
            alphabet: b"0123456789X".to_vec(),
        };
        d.fields[1].range = Range::Int {
            lo: b'0' as i128,
            hi: b'X' as i128,
        };
        assert_eq!(
            d.normalise(1, Value::Int(b'5' as i128)),
            Value::Int(b'5' as i128)
        );
        assert_eq!(
            d.normalise(1, Value::Int(b'A' as i128)),
            Value::Int(b'9' as i128)
        );
        assert_eq!(
            d.normalise(1, Value::Int(b'W' as i128)),
            Value::Int(b'X' as i128)
        );
        assert_eq!(d.normalise(1, Value::Int(0)), Value::Int(b'0' as i128));
    }

    #[test]
    fn float_literals_are_exact() {
        assert_eq!(float_literal(1.0, false), "0x1p+0");
        assert_eq!(float_literal(1.5, true), "0x1.8p+0f");
        assert_eq!(float_literal(-0.0, false), "-0.0");
        assert_eq!(float_literal(0.1, false), "0x1.999999999999ap-4");
        assert_eq!(
            float_literal(f64::from_bits(1), false),
            "0x0.0000000000001p-1022"
        );
        assert_eq!(float_literal(f64::NAN, false), "__builtin_nan(\"\")");
        assert_eq!(float_literal(-f64::NAN, true), "(-__builtin_nanf(\"\"))");
        assert_eq!(
            float_literal(f64::from_bits(0x7ff0_0000_0000_0005), false),
            "__builtin_nans(\"0x5\")"
        );
        assert_eq!(
            c_literal(ScalarType::I64, Value::Int(i64::MIN as i128)),
            "(-9223372036854775807L - 1)"
        );
    }
}
