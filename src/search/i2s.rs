//! Input-to-state moves at the level of fields (Aschermann et al. 2019, REDQUEEN; AFL++'s CmpLog):
//! when the compare that decides a goal's critical branch has an operand equal to an input field,
//! set the field to the *other* operand.
//!
//! This solves in one evaluation what a distance-guided search may never solve: `x == y` for two
//! inputs (the distance changes with both, but a uniform start puts them 1e300 apart), and
//! `x == g(y)` with a value computed from other inputs (a checksum, a hash, a product), where
//! moving `x` towards `g(y)` one step at a time can take longer than the budget. Every copy is
//! tried as the value and its two neighbours (for `<`, `<=`, `>`, `>=`).
//!
//! The same candidates **repair** a one-variable move that broke a condition on the goal's path
//! ([`repairs`]): another field equal to the operand the move left alone turns the compare back
//! (a check digit takes the new checksum).
//!
//! An integer field may show a compare only a part of itself (`x & 0xffff`, `x >> 16`, `(x >> 8)
//! & 0xff`, a cast to `short`): an operand equal to a byte-aligned slice of the field, and not to
//! the whole, has the other operand written into that slice ([`slices`]), as REDQUEEN matches
//! operands at every width.
//!
//! The operands come from the trace's operand log ([`crate::trace::Trace::operands`]), the first
//! evaluation of each compare site in the execution.
//!
//! An integer the program parsed from a string parameter (`atoi`, `sscanf`) is found there as
//! decimal text and replaced ([`decimal_flips`]).
//!
//! A string compare (`strcmp`, `strncmp`, `memcmp`, `bcmp`) has byte strings for operands (the
//! string operand log, [`crate::trace::Trace::str_operands`], each cut to
//! [`crate::trace::STR_OPERAND_CAP`] bytes): a string, buffer or array parameter of one-byte
//! elements whose content equals or contains one is given the other ([`string_copies`]).

use crate::fitness::Goal;
use crate::input::{Domain, Input, Range, Role, ScalarType, Value};
use crate::trace::{OperandRec, StrOperandRec, Trace, OPERANDS_FLOAT, OPERANDS_REPEATED};
use evotest_abi::distance::fcmp_holds;
use evotest_abi::pred::{Pred, Rel};

/// Inputs that copy one operand of the goal's critical branch into a field of `x` equal to the
/// other operand (see module docs), in field order, without duplicates and without `x` itself;
/// for a string compare, the [`string_copies`]. Empty when the critical branch is not a compare
/// that ran, or no field matches.
pub fn candidates(domain: &Domain, goal: &dyn Goal, x: &Input, trace: &Trace) -> Vec<Input> {
    let Some(site) = goal.critical_branch(trace) else {
        return vec![];
    };
    let mut out = trace
        .operands(site)
        .map_or_else(Vec::new, |rec| copies(domain, x, rec));
    add_string_copies(domain, x, trace, site, &mut out);
    out
}

/// Append the [`string_copies`] of `site`'s string compare, if it ran, to `out` (no duplicates).
fn add_string_copies(domain: &Domain, x: &Input, trace: &Trace, site: u32, out: &mut Vec<Input>) {
    if let Some(rec) = trace.str_operands(site) {
        for y in string_copies(domain, x, rec) {
            if !out.contains(&y) {
                out.push(y);
            }
        }
    }
}

/// A parameter made of one-byte integer elements (`char`, `unsigned char`, `int8_t`, …) named
/// `P[0]`, `P[1]`, …: a string or buffer with its length field `P.len`, or a fixed-length array.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ByteGroup {
    /// The length field (a string or buffer), or `None` (an array: every element counts).
    pub len_field: Option<usize>,
    /// The first element's field.
    pub first: usize,
    /// Number of element fields (the most elements).
    pub max: usize,
}

/// The [`ByteGroup`]s of `domain`, in field order.
pub fn byte_groups(domain: &Domain) -> Vec<ByteGroup> {
    let f = &domain.fields;
    let byte = |i: usize| {
        matches!(f[i].ty, ScalarType::I8 | ScalarType::U8)
            && matches!(f[i].role, Role::Value | Role::Char { .. })
    };
    // elements named `{p}[0]`, `{p}[1]`, … from field `first`
    let run = |p: &str, first: usize| {
        (first..f.len())
            .take_while(|&j| byte(j) && f[j].name == format!("{p}[{}]", j - first))
            .count()
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < f.len() {
        if f[i].role == Role::Length {
            if let Some(p) = f[i].name.strip_suffix(".len") {
                let max = run(p, i + 1);
                if max > 0 {
                    out.push(ByteGroup {
                        len_field: Some(i),
                        first: i + 1,
                        max,
                    });
                    i += 1 + max;
                    continue;
                }
            }
        } else if let Some(p) = f[i].name.strip_suffix("[0]") {
            let max = run(p, i);
            if max > 0 {
                out.push(ByteGroup {
                    len_field: None,
                    first: i,
                    max,
                });
                i += max;
                continue;
            }
        }
        i += 1;
    }
    out
}

/// The bytes group `g` holds in `x`: its first `len` elements (a string or buffer), or all of
/// them (an array).
pub fn group_bytes(domain: &Domain, x: &Input, g: &ByteGroup) -> Vec<u8> {
    let n = match g.len_field {
        Some(l) => (domain.get(x, l).as_i128().clamp(0, g.max as i128)) as usize,
        None => g.max,
    };
    (g.first..g.first + n)
        .map(|i| domain.get(x, i).as_i128() as u8)
        .collect()
}

/// `x` with group `g` holding `bytes` (cut to its most elements; an array keeps its other
/// elements), each element normalised into its field (a character outside a string's alphabet
/// is snapped into it).
fn set_group_bytes(domain: &Domain, x: &Input, g: &ByteGroup, bytes: &[u8]) -> Input {
    let mut y = x.clone();
    let n = bytes.len().min(g.max);
    if let Some(l) = g.len_field {
        domain.set(&mut y, l, Value::Int(n as i128));
    }
    for (k, &b) in bytes[..n].iter().enumerate() {
        let i = g.first + k;
        let v = if domain.fields[i].ty == ScalarType::I8 {
            b as i8 as i128
        } else {
            b as i128
        };
        domain.set(&mut y, i, Value::Int(v));
    }
    y
}

/// Input-to-state copies for the string compare `rec` (Aschermann et al. 2019, REDQUEEN's routine
/// operands): for each [`ByteGroup`] of `x` and each direction (operand `s` found, operand `t`
/// written), where the group's content equals `s`, or equals the part of `s` before its first NUL
/// (`memcmp` or `strncmp` read past the end of a C string), the content becomes `t`; where it
/// contains `s` (non-empty), that occurrence is replaced by `t`. Into a string (characters), `t`
/// goes up to its first NUL, which would end the C string; a buffer or array takes all its bytes.
/// The result is cut to the group's most elements, and the length field set to match; an array
/// keeps its size (`t` is written over the occurrence). In group order, then direction (a → b
/// first); without duplicates or `x` itself.
pub fn string_copies(domain: &Domain, x: &Input, rec: &StrOperandRec) -> Vec<Input> {
    let mut out: Vec<Input> = Vec::new();
    let mut push = |y: Input| {
        if y != *x && !out.contains(&y) {
            out.push(y);
        }
    };
    for g in byte_groups(domain) {
        let content = group_bytes(domain, x, &g);
        let chars = matches!(domain.fields[g.first].role, Role::Char { .. });
        for (s, t) in [(rec.a(), rec.b()), (rec.b(), rec.a())] {
            if s == t {
                continue;
            }
            let t = if chars {
                t.split(|&c| c == 0).next().unwrap_or(&[])
            } else {
                t
            };
            let before_nul = s.split(|&c| c == 0).next().unwrap_or(&[]);
            let whole = content == s || (before_nul.len() < s.len() && content == before_nul);
            let at = if whole {
                Some((0, content.len()))
            } else if s.is_empty() {
                None
            } else {
                content
                    .windows(s.len())
                    .position(|w| w == s)
                    .map(|p| (p, s.len()))
            };
            let Some((p, n)) = at else { continue };
            let bytes = match g.len_field {
                Some(_) => [&content[..p], t, &content[p + n..]].concat(),
                None => {
                    // an array keeps its size: `t` over the occurrence, as far as it fits
                    let mut b = content.clone();
                    let k = t.len().min(b.len() - p);
                    b[p..p + k].copy_from_slice(&t[..k]);
                    b
                }
            };
            push(set_group_bytes(domain, x, &g, &bytes));
        }
    }
    out
}

/// The *flips* of the goal's critical branch: for each field equal to one operand of its compare
/// (of the same kind: an integer field of an integer compare, a float field of a float compare,
/// which may also equal the operand negated, as `x` does in `fabs(x) == c`, and then takes the
/// value with its own sign; a float compared with itself also gets [`nan_flips`]),
/// the input with that field set to the value nearest the other operand that turns the compare's
/// outcome around (`x < c` true: `x := c`; false: `x := c − 1`; `x == c` false: `x := c`). A float
/// field is moved past the other operand by `margin(field index)` (the search's additive step; at
/// least one ulp in the field's precision), so that `x < c` false becomes `x := c − margin`, not
/// a value one ulp below `c` that the next exploratory move undoes. One input per matching field
/// and side, in field order, so they are
/// cheap enough to try at the start of every local search, before any move (as CmpLog tries its
/// replacements before havoc). For a string compare, the [`string_copies`] (which make the two
/// strings equal). Empty when the critical branch is not a compare that ran.
pub fn flips(
    domain: &Domain,
    goal: &dyn Goal,
    x: &Input,
    trace: &Trace,
    margin: &dyn Fn(usize) -> f64,
) -> Vec<Input> {
    let Some(site) = goal.critical_branch(trace) else {
        return vec![];
    };
    let mut out = trace
        .operands(site)
        .map_or_else(Vec::new, |rec| flips_of(domain, x, rec, margin));
    // an integer the program parsed from a string (`atoi`, `sscanf`): its decimal text there
    if let Some(rec) = trace.operands(site) {
        for c in decimal_flips(domain, x, rec) {
            if !out.contains(&c) {
                out.push(c);
            }
        }
    }
    // a string compare's outcome turns around when the strings become equal
    add_string_copies(domain, x, trace, site, &mut out);
    out
}

/// `this r other` read with `this` on the right-hand side: `other r' this`.
fn mirror(r: Rel) -> Rel {
    match r {
        Rel::Lt => Rel::Gt,
        Rel::Le => Rel::Ge,
        Rel::Gt => Rel::Lt,
        Rel::Ge => Rel::Le,
        r => r,
    }
}

/// The value nearest `o` that turns `this r o` around (`holds`: whether it holds now), as
/// [`flips`] takes it for an integer.
fn int_flip_target(r: Rel, holds: bool, o: i128) -> i128 {
    match (r, holds) {
        (Rel::Eq, false) | (Rel::Ne, true) => o,
        (Rel::Eq, true) | (Rel::Ne, false) => o.saturating_add(1),
        (Rel::Lt, true) | (Rel::Ge, false) | (Rel::Gt, true) | (Rel::Le, false) => o,
        (Rel::Lt, false) | (Rel::Ge, true) => o.saturating_sub(1),
        (Rel::Le, true) | (Rel::Gt, false) => o.saturating_add(1),
    }
}

/// Most [`decimal_flips`] of one compare (a string of isolated digits would give one per digit).
pub const MAX_DECIMAL_FLIPS: usize = 8;

/// The *decimal flips* of an integer compare: where a [`ByteGroup`] of `x` (a string, buffer or
/// array of characters) holds one operand as decimal text (a maximal run of digits, leading
/// zeros allowed, with its `-` if negative), that text replaced by the [`int_flip_target`] of the
/// other operand, written in decimal: the input-to-state of a number the program parsed from the
/// input (`atoi`, `strtol`, `sscanf`; REDQUEEN's ASCII encodings, Aschermann et al. 2019). A
/// target shorter than the text is also written zero-padded to the text's width, first, so that
/// a fixed-width field keeps its width (`"2024-07-15"`'s month 7 becomes 12, its day 15 becomes
/// `03`, and the string stays ten characters long). In group order, then direction (a → b
/// first), then occurrence; without duplicates or `x` itself; at most [`MAX_DECIMAL_FLIPS`].
pub fn decimal_flips(domain: &Domain, x: &Input, rec: &OperandRec) -> Vec<Input> {
    let mut out: Vec<Input> = Vec::new();
    if rec.kind & OPERANDS_FLOAT != 0 {
        return out;
    }
    let (Some(pred), Some(rel)) = (rec.pred(), rec.pred().and_then(Pred::rel)) else {
        return out;
    };
    let signed = pred.int_operands_signed();
    let value = |v: u64| if signed { v as i64 as i128 } else { v as i128 };
    for g in byte_groups(domain) {
        let content = group_bytes(domain, x, &g);
        let runs = digit_runs(&content);
        for (this, other, r) in [(rec.a, rec.b, rel), (rec.b, rec.a, mirror(rel))] {
            let (v, o) = (value(this), value(other));
            let new = int_flip_target(r, holds(r, v.cmp(&o)), o);
            for &(p, q, mag) in &runs {
                let negative = p > 0 && content[p - 1] == b'-';
                // the digits alone (a number read without its sign, or with none), or with the
                // `-` before them (a negative number)
                let start = if Some(v) == mag {
                    p
                } else if negative && mag.map(|m| -m) == Some(v) {
                    p - 1
                } else {
                    continue;
                };
                for text in decimal_texts(new, q - p) {
                    let bytes = [&content[..start], text.as_bytes(), &content[q..]].concat();
                    let y = set_group_bytes(domain, x, &g, &bytes);
                    if y != *x && !out.contains(&y) {
                        out.push(y);
                        if out.len() == MAX_DECIMAL_FLIPS {
                            return out;
                        }
                    }
                }
            }
        }
    }
    out
}

/// The maximal runs of ASCII digits in `content`: (start, end, value), the value `None` past
/// 38 digits.
fn digit_runs(content: &[u8]) -> Vec<(usize, usize, Option<i128>)> {
    let mut runs = Vec::new();
    let mut i = 0;
    while i < content.len() {
        if !content[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let p = i;
        while i < content.len() && content[i].is_ascii_digit() {
            i += 1;
        }
        let value = std::str::from_utf8(&content[p..i])
            .ok()
            .filter(|t| t.len() <= 38)
            .and_then(|t| t.parse::<i128>().ok());
        runs.push((p, i, value));
    }
    runs
}

/// `n` in decimal for a run of `width` digits: zero-padded to the width first, when shorter
/// (`-` before the padded magnitude), then as it is.
fn decimal_texts(n: i128, width: usize) -> Vec<String> {
    let plain = n.to_string();
    let digits = n.unsigned_abs().to_string();
    let mut out = Vec::with_capacity(2);
    if digits.len() < width {
        let sign = if n < 0 { "-" } else { "" };
        out.push(format!("{sign}{digits:0>width$}"));
    }
    out.push(plain);
    out
}

/// *Lattice snaps* of the numbers written in `x`'s [`ByteGroup`]s (a year parsed with `atoi`):
/// each maximal run of digits, read as a number v, set to the multiples of each lattice step m
/// of the domain next to it (m·⌊v/m⌋ and the next one up), written back zero-padded to the run's
/// width. `y % 100 == 0` inside `y % 4 == 0`, where y is the `"2136"` of `"2136-12-31"`, is
/// reached in one move; character steps break `y % 4 == 0` at each step. In group, run, step
/// order; without `x` itself. Empty when the program has no lattice step above 1.
pub fn text_snaps(domain: &Domain, x: &Input) -> Vec<Input> {
    let steps: Vec<i128> = domain.lattice.iter().copied().filter(|&m| m > 1).collect();
    let mut out = Vec::new();
    if steps.is_empty() {
        return out;
    }
    for g in byte_groups(domain) {
        let content = group_bytes(domain, x, &g);
        for (p, q, v) in digit_runs(&content) {
            let Some(v) = v else { continue };
            for &m in &steps {
                let below = v.div_euclid(m).saturating_mul(m);
                for c in [below, below.saturating_add(m)]
                    .into_iter()
                    .filter(|&c| c != v)
                {
                    let text = decimal_texts(c, q - p).swap_remove(0);
                    let bytes = [&content[..p], text.as_bytes(), &content[q..]].concat();
                    let y = set_group_bytes(domain, x, &g, &bytes);
                    if y != *x {
                        out.push(y);
                    }
                }
            }
        }
    }
    out
}

/// The inputs of [`flips`] for one operand record.
pub fn flips_of(
    domain: &Domain,
    x: &Input,
    rec: &OperandRec,
    margin: &dyn Fn(usize) -> f64,
) -> Vec<Input> {
    flips_where(domain, x, rec, margin, &|_, _| true)
}

/// *Repairs* of a move that broke a condition on the way to the goal: `y` is the current input
/// `x` with field `moved` changed, and `y`'s execution left the goal's path earlier than `x`'s
/// (a worse approach level), at `y`'s critical branch. The repairs are the [`flips`] of that
/// branch on `y` that leave field `moved` as it is, made from the fields equal to the compare
/// operand that the move did not change (its value in `x`'s first evaluation of the same compare,
/// `before`): in `digits[12] == checksum(digits[0..12])` the moved digit changed the checksum, and
/// the check digit, which still equals the other operand, is set to the new checksum. When
/// both operands or neither changed (or `before` did not reach the compare), fields equal to
/// either operand are used. In field order, without duplicates; for a string compare, the
/// [`string_copies`] that leave field `moved` as it is.
///
/// This is input-to-state's checksum repair (Aschermann et al. 2019, REDQUEEN fixes checksums
/// after mutating what they cover) inside a local search: a move that would help the goal is
/// not rejected because it broke a guard another field can restore in one evaluation, so AVM can
/// walk a variable that a checksum, a length field or an equality with another input depends on.
pub fn repairs(
    domain: &Domain,
    goal: &dyn Goal,
    before: &Trace,
    y: &Input,
    after: &Trace,
    moved: usize,
    margin: &dyn Fn(usize) -> f64,
) -> Vec<Input> {
    let Some(site) = goal.critical_branch(after) else {
        return vec![];
    };
    let keeps = |c: &Input| crate::input::same(domain.get(c, moved), domain.get(y, moved));
    let mut out: Vec<Input> = match after.operands(site) {
        Some(rec) => {
            let sides = match before.operands(site) {
                Some(old) if (old.a == rec.a) != (old.b == rec.b) => {
                    [old.a == rec.a, old.b == rec.b]
                }
                _ => [true, true],
            };
            flips_where(domain, y, rec, margin, &|i, left| {
                i != moved && sides[if left { 0 } else { 1 }]
            })
        }
        None => vec![],
    };
    if let Some(rec) = after.str_operands(site) {
        for c in string_copies(domain, y, rec) {
            if keeps(&c) && !out.contains(&c) {
                out.push(c);
            }
        }
    }
    out
}

/// [`flips_of`] for the fields `i` and sides that `keep(i, left)` allows (`left`: the field equals
/// the compare's left operand `rec.a` and takes a value from the right one).
fn flips_where(
    domain: &Domain,
    x: &Input,
    rec: &OperandRec,
    margin: &dyn Fn(usize) -> f64,
    keep: &dyn Fn(usize, bool) -> bool,
) -> Vec<Input> {
    let float = rec.kind & OPERANDS_FLOAT != 0;
    let mut out = if float {
        nan_flips(domain, x, rec, keep)
    } else {
        vec![]
    };
    let Some(rel) = rec.pred().and_then(Pred::rel) else {
        return out;
    };
    for i in 0..domain.fields.len() {
        let old = domain.get(x, i);
        let mut targets: Vec<Value> = Vec::new();
        match (old, float) {
            (Value::Int(v), false) => {
                for (left, this, other, r) in [
                    (true, rec.a, rec.b, rel),
                    (false, rec.b, rec.a, mirror(rel)),
                ] {
                    if !keep(i, left) {
                        continue;
                    }
                    let o = if domain.fields[i].ty.is_signed() {
                        other as i64 as i128
                    } else {
                        other as i128
                    };
                    if int_matches(v, this) && fits(domain, i, o) {
                        let t = int_flip_target(r, holds(r, v.cmp(&o)), o);
                        targets.push(Value::Int(t));
                    } else if !rec.constant(left) {
                        // a part of the field: the flip in the compare's own signedness
                        let signed = rec.pred().is_some_and(Pred::int_operands_signed);
                        let val = |u: u64| if signed { u as i64 as i128 } else { u as i128 };
                        let (this_v, o) = (val(this), val(other));
                        let t = int_flip_target(r, holds(r, this_v.cmp(&o)), o);
                        targets.extend(
                            slices(domain, i, v, this, other_part(domain, i, v, rec, left))
                                .into_iter()
                                .filter_map(|sl| sl.set(v, t))
                                .map(Value::Int),
                        );
                    }
                }
            }
            (Value::Float(v), true) => {
                let (a, b) = (f64::from_bits(rec.a), f64::from_bits(rec.b));
                // neighbours in the field's own precision
                let single = domain.fields[i].ty == crate::input::ScalarType::F32;
                // an ordering is turned with a margin of one additive step, so that the search's
                // next exploratory move does not turn it back; never less than one ulp
                let m = margin(i);
                let up = |f: f64| {
                    let u = if single {
                        (f as f32).next_up() as f64
                    } else {
                        f.next_up()
                    };
                    if f + m > u {
                        f + m
                    } else {
                        u
                    }
                };
                let down = |f: f64| {
                    let u = if single {
                        (f as f32).next_down() as f64
                    } else {
                        f.next_down()
                    };
                    if f - m < u {
                        f - m
                    } else {
                        u
                    }
                };
                for (left, this, other, r) in [(true, a, b, rel), (false, b, a, mirror(rel))] {
                    if other.is_nan() || !keep(i, left) {
                        continue;
                    }
                    // the field as the operand, or negated (`fabs(x) == c`, as `isinf` tests it,
                    // with `x` negative): the operand's flip, with the field's sign
                    let sign = if v == this {
                        1.0
                    } else if v == -this && v != 0.0 {
                        -1.0
                    } else {
                        continue;
                    };
                    let Some(ord) = this.partial_cmp(&other) else {
                        continue;
                    };
                    let t = match (r, holds(r, ord)) {
                        (Rel::Eq, false) | (Rel::Ne, true) => other,
                        (Rel::Eq, true) | (Rel::Ne, false) => up(other),
                        (Rel::Lt, true) | (Rel::Ge, false) | (Rel::Gt, true) | (Rel::Le, false) => {
                            other
                        }
                        (Rel::Lt, false) | (Rel::Ge, true) => down(other),
                        (Rel::Le, true) | (Rel::Gt, false) => up(other),
                    };
                    targets.push(Value::Float(sign * t));
                }
            }
            _ => {}
        }
        push_settings(domain, x, i, targets, &mut out);
    }
    out
}

/// The NaN flips of a float compare of a value with itself (`x != x`, `isnan(x)` as `fcmp uno x,
/// x`): both operands are the same number, so setting a field equal to it to any other number
/// moves both and leaves the outcome as it is; only a NaN turns it around (an unordered predicate
/// holds on NaN, an ordered one does not). For each float field over its type's whole range (the
/// only ones that may hold a NaN) equal to the operand, the input with that field NaN, when the
/// predicate's outcome on two NaNs differs from its outcome now and `keep` allows both sides.
fn nan_flips(
    domain: &Domain,
    x: &Input,
    rec: &OperandRec,
    keep: &dyn Fn(usize, bool) -> bool,
) -> Vec<Input> {
    let mut out = Vec::new();
    let Some(pred) = rec.pred() else { return out };
    let a = f64::from_bits(rec.a);
    if rec.a != rec.b || fcmp_holds(pred, a, a) == fcmp_holds(pred, f64::NAN, f64::NAN) {
        return out;
    }
    for i in 0..domain.fields.len() {
        let matches = matches!(domain.get(x, i), Value::Float(v) if v == a);
        if matches && domain.fields[i].full && keep(i, true) && keep(i, false) {
            push_settings(domain, x, i, vec![Value::Float(f64::NAN)], &mut out);
        }
    }
    out
}

/// Append `x` with field `i` set to each of `targets` to `out`, leaving out `x` itself and
/// inputs already there.
fn push_settings(domain: &Domain, x: &Input, i: usize, targets: Vec<Value>, out: &mut Vec<Input>) {
    for t in targets {
        let mut y = x.clone();
        domain.set(&mut y, i, t);
        if y != *x && !out.contains(&y) {
            out.push(y);
        }
    }
}

/// Operand moves over the whole operand log of an execution that ran a compare in a loop (every
/// logged evaluation of every compare, whichever goal is searched): for each integer compare
/// whose operand equals an integer field of `x`, the field set to the other operand or a
/// neighbour of it (±1) **where that turns the compare's outcome around** at that evaluation.
/// Without a loop (no later evaluation in the log) there are none: in straight-line code the
/// goal's own input-to-state moves ([`candidates`], [`flips`]) see the compare that decides it,
/// and trying every other compare at each local optimum cost tritype 1.3–1.6× the executions
/// (30 runs); with loops, the goal's compare often reads a value the loop computed. At most `max`
/// inputs, latest compare first (the last compares ran where the execution turned away), without
/// duplicates and without `x`.
///
/// This is the field-level form of CmpLog's all-compares substitution (Aschermann et al. 2019):
/// it reaches goals whose own compare holds a value computed from the input (a counter, an
/// index, a sum), e.g. `n == 10` where `n` counts the characters that pass `*p >= '0' && *p <=
/// '9'` in a loop: the compares of the loop show each character, and setting the one that failed
/// to `'0'` or `'9'` raises `n` by one.
pub fn operand_moves(domain: &Domain, x: &Input, trace: &Trace, max: usize) -> Vec<Input> {
    let mut out: Vec<Input> = Vec::new();
    // only where some compare ran in a loop (a later evaluation in the log)
    if !trace
        .operands
        .iter()
        .any(|r| r.kind & OPERANDS_REPEATED != 0)
    {
        return out;
    }
    let values: Vec<Option<i128>> = (0..domain.fields.len())
        .map(|i| match (domain.get(x, i), &domain.fields[i].role) {
            (Value::Int(v), Role::Value | Role::Char { .. })
                if !matches!(domain.fields[i].ty, ScalarType::Bool) =>
            {
                Some(v)
            }
            _ => None,
        })
        .collect();
    let mut seen = std::collections::HashSet::new();
    for rec in trace.operands.iter().rev() {
        if out.len() >= max {
            break;
        }
        let kind = rec.kind & !OPERANDS_REPEATED;
        if kind & OPERANDS_FLOAT != 0 || !seen.insert((kind, rec.a, rec.b)) {
            continue;
        }
        let Some(p) = rec.pred().filter(|p| p.is_int() && p.rel().is_some()) else {
            continue;
        };
        let before = evotest_abi::distance::icmp_holds(p, rec.a, rec.b);
        for (i, v) in values.iter().enumerate() {
            let Some(v) = *v else { continue };
            let mut targets = Vec::new();
            for left in [true, false] {
                let (this, other) = if left { (rec.a, rec.b) } else { (rec.b, rec.a) };
                if !int_matches(v, this) {
                    continue;
                }
                for by in [0i64, 1, -1] {
                    let o = (other as i64).wrapping_add(by) as u64;
                    let (a, b) = if left { (o, rec.b) } else { (rec.a, o) };
                    if evotest_abi::distance::icmp_holds(p, a, b) != before {
                        let t = if domain.fields[i].ty.is_signed() {
                            o as i64 as i128
                        } else {
                            o as i128
                        };
                        targets.push(domain.normalise(i, Value::Int(t)));
                    }
                }
            }
            push_settings(domain, x, i, targets, &mut out);
            out.truncate(max);
        }
    }
    out
}

/// Whether `rel` holds for operands ordered `ord` (left against right).
fn holds(rel: Rel, ord: std::cmp::Ordering) -> bool {
    use std::cmp::Ordering::*;
    match rel {
        Rel::Eq => ord == Equal,
        Rel::Ne => ord != Equal,
        Rel::Lt => ord == Less,
        Rel::Le => ord != Greater,
        Rel::Gt => ord == Greater,
        Rel::Ge => ord != Less,
    }
}

/// The inputs of [`candidates`] for one operand record.
pub fn copies(domain: &Domain, x: &Input, rec: &OperandRec) -> Vec<Input> {
    let mut out: Vec<Input> = Vec::new();
    let float = rec.kind & OPERANDS_FLOAT != 0;
    for i in 0..domain.fields.len() {
        let old = domain.get(x, i);
        let targets: Vec<Value> = match (old, float) {
            (Value::Int(v), false) => {
                let mut t = Vec::new();
                for (left, this, other) in [(true, rec.a, rec.b), (false, rec.b, rec.a)] {
                    let o = if domain.fields[i].ty.is_signed() {
                        other as i64 as i128
                    } else {
                        other as i128
                    };
                    if int_matches(v, this) && fits(domain, i, o) {
                        t.extend([o, o.saturating_add(1), o.saturating_sub(1)].map(Value::Int));
                    } else if !rec.constant(left) {
                        let o = other as i64 as i128;
                        for sl in slices(domain, i, v, this, other_part(domain, i, v, rec, left)) {
                            t.extend(
                                [o, o + 1, o - 1]
                                    .into_iter()
                                    .filter_map(|o| sl.set(v, o))
                                    .map(Value::Int),
                            );
                        }
                    }
                }
                t
            }
            (Value::Float(v), true) => {
                let (a, b) = (f64::from_bits(rec.a), f64::from_bits(rec.b));
                let mut t = Vec::new();
                for (this, other) in [(a, b), (b, a)] {
                    if v == this || (v.is_nan() && this.is_nan()) {
                        t.extend([other, other.next_up(), other.next_down()].map(Value::Float));
                    }
                }
                t
            }
            // a float compared with a converted integer, or the reverse
            (Value::Int(v), true) => {
                let (a, b) = (f64::from_bits(rec.a), f64::from_bits(rec.b));
                let mut t = Vec::new();
                for (this, other) in [(a, b), (b, a)] {
                    if v as f64 == this && other.is_finite() {
                        t.extend(
                            [
                                other.round(),
                                other.floor(),
                                other.ceil(),
                                other.round() + 1.0,
                                other.round() - 1.0,
                            ]
                            .map(|f| Value::Int(f as i128)),
                        );
                    }
                }
                t
            }
            (Value::Float(v), false) => {
                let mut t = Vec::new();
                for (this, other) in [(rec.a, rec.b), (rec.b, rec.a)] {
                    if v.fract() == 0.0 && int_matches(v as i128, this) {
                        let o = other as i64 as f64;
                        t.extend([o, o + 1.0, o - 1.0].map(Value::Float));
                    }
                }
                t
            }
        };
        // a NaN field stays NaN under a NaN target (another payload is no move)
        let targets = targets
            .into_iter()
            .filter(|t| {
                !(t.as_f64().is_nan()
                    && old.as_f64().is_nan()
                    && matches!(domain.fields[i].range, Range::Float { .. }))
            })
            .collect();
        push_settings(domain, x, i, targets, &mut out);
    }
    out
}

/// Whether field value `v` is what a compare saw as the 64-bit operand `op` (sign- or
/// zero-extended from the field's width by the pass).
fn int_matches(v: i128, op: u64) -> bool {
    v == op as i64 as i128 || v == op as i128
}

/// Whether `o` lies in the range of integer field `i`'s type: a field equal to an operand that
/// the other operand does not fit was compared through a narrower type (`(short)w < -30000` with
/// `w` unsigned), so its [`slices`] are tried instead.
fn fits(domain: &Domain, i: usize, o: i128) -> bool {
    let (lo, hi) = domain.fields[i].ty.int_bounds();
    (lo..=hi).contains(&o)
}

/// A byte-aligned bit slice of an integer field: bits `shift .. shift + width`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slice {
    /// Lowest bit of the slice.
    pub shift: u32,
    /// Bits in the slice: 8, 16 or 32, less than the field's.
    pub width: u32,
    /// Bits in the field (its type's size).
    pub bits: u32,
    /// Whether the field's type is signed (its value is read back sign-extended).
    pub signed: bool,
}

impl Slice {
    /// Field value `v` with the slice set to `t`, or `None` when `t` does not fit in the slice's
    /// width (as an unsigned or a two's-complement number) or leaves `v` as it is.
    pub fn set(&self, v: i128, t: i128) -> Option<i128> {
        let w = self.width;
        if !(-(1i128 << (w - 1))..(1i128 << w)).contains(&t) {
            return None;
        }
        let mask = ((1u128 << w) - 1) << self.shift;
        let field = (1u128 << self.bits) - 1;
        let u = ((v as u128 & field & !mask) | (((t as u128) << self.shift) & mask)) & field;
        let y = if self.signed {
            sign_extend(u, self.bits)
        } else {
            u as i128
        };
        (y != v).then_some(y)
    }
}

/// The `bits`-bit two's-complement number in the low bits of `u` (`bits` at most 64).
fn sign_extend(u: u128, bits: u32) -> i128 {
    if u >> (bits - 1) & 1 == 1 {
        u as i128 - (1i128 << bits)
    } else {
        u as i128
    }
}

/// Whether the operand of `rec` that is not the `left` one (the other side) is computed and
/// shows another part of integer field `i` (value `v`), a field over its type's whole range (a
/// word, not a small number whose upper bytes a write would take out of its range): then a zero
/// on this side is matched by [`slices`] too.
fn other_part(domain: &Domain, i: usize, v: i128, rec: &OperandRec, left: bool) -> bool {
    let other = if left { rec.b } else { rec.a };
    domain.fields[i].full && !rec.constant(!left) && !slices(domain, i, v, other, false).is_empty()
}

/// The byte-aligned slices of field `i` (value `v`, an integer of at least 2 bytes read as a
/// number) that hold operand `op`, zero- or sign-extended from the slice's width, as `x &
/// 0xffff`, `x >> 16`, `(x >> 8) & 0xff` or a cast to a narrower type show a part of `x` to a
/// compare: the partial-width operands of input-to-state (Aschermann et al. 2019, REDQUEEN, which
/// also matches an operand against the input's bytes at every width). Narrowest first, then from
/// the lowest bit. A zero operand is not matched: zero bytes are everywhere (the upper bytes of
/// small numbers), and so are compares of a computed zero (`count == 10` with no count yet), so
/// the slices that hold it would cost an evaluation each for nothing (measured: luhn's and
/// counter's executions up by 1.1-2.4x when it was matched against constants; EAN-13's 1.5-7x
/// when matched wherever the other operand was computed too), unless `zero` says so: where the
/// other operand shows another part of the same field, two parts of one word are compared
/// (`(x & 0xffff) == (x >> 16)` with x < 2^16) and one of them has only a zero to show.
pub fn slices(domain: &Domain, i: usize, v: i128, op: u64, zero: bool) -> Vec<Slice> {
    let f = &domain.fields[i];
    let bits = f.ty.size() as u32 * 8;
    if (op == 0 && !zero)
        || bits < 16
        || bits > 64
        || f.ty == ScalarType::Bool
        || !matches!(f.role, Role::Value | Role::Char { .. })
    {
        return vec![];
    }
    let mut out = Vec::new();
    for width in [8u32, 16, 32].into_iter().filter(|&w| w < bits) {
        for shift in (0..=bits - width).step_by(8) {
            let part = (v as u128 >> shift) & ((1u128 << width) - 1);
            if part == op as u128 || sign_extend(part, width) == op as i64 as i128 {
                out.push(Slice {
                    shift,
                    width,
                    bits,
                    signed: f.ty.is_signed(),
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::Field;
    use evotest_abi::shm::OPERAND_B_CONST;

    fn rec(a: u64, b: u64, float: bool) -> OperandRec {
        OperandRec {
            site: 0,
            kind: if float { OPERANDS_FLOAT } else { 0 },
            a,
            b,
        }
    }

    #[test]
    fn an_int_field_equal_to_one_operand_takes_the_other() {
        let d = Domain::packed(vec![
            Field::full("x", ScalarType::I32),
            Field::full("y", ScalarType::I32),
        ]);
        let x = d.from_values(&[Value::Int(-5), Value::Int(9)]);
        // x == 3 * y + 1 compared as (-5, 28)
        let c = copies(&d, &x, &rec(-5i64 as u64, 28, false));
        let xs: Vec<i128> = c
            .iter()
            .map(|y| match d.get(y, 0) {
                Value::Int(v) => v,
                _ => 0,
            })
            .collect();
        assert_eq!(xs, vec![28, 29, 27]);
        assert!(c.iter().all(|y| d.get(y, 1) == Value::Int(9)));
    }

    #[test]
    fn a_double_equal_to_one_operand_takes_the_other_and_its_neighbours() {
        let d = Domain::packed(vec![
            Field::full("x", ScalarType::F64),
            Field::full("y", ScalarType::F64),
        ]);
        let x = d.from_values(&[Value::Float(1e300), Value::Float(-3.5)]);
        // x == y
        let c = copies(&d, &x, &rec(1e300f64.to_bits(), (-3.5f64).to_bits(), true));
        // x := y (and neighbours), y := x (and neighbours)
        assert!(c.iter().any(|y| d.get(y, 0) == Value::Float(-3.5)));
        assert!(c.iter().any(|y| d.get(y, 1) == Value::Float(1e300)));
        assert_eq!(c.len(), 6);
    }

    /// A compare of parts of an integer (`(x & 0xffff) == (x >> 16)`, `(x >> 8 & 0xff) == 0x7f`
    /// with `0x7f` a program constant): the part that holds an operand takes the other, the
    /// rest of the field kept; a constant operand is not looked for, nor is zero against a
    /// constant.
    #[test]
    fn a_part_of_an_int_field_equal_to_an_operand_takes_the_other() {
        let d = Domain::packed(vec![Field::full("x", ScalarType::U32)]);
        let x = d.from_values(&[Value::Int(0xAD01_4A76)]);
        let eq = |a: u64, b: u64, kind: u32| OperandRec {
            site: 0,
            kind: Pred::Eq as u32 | kind,
            a,
            b,
        };
        let flipped: Vec<i128> = flips_of(&d, &x, &eq(0x4A76, 0xAD01, 0), &|_| 1.0)
            .iter()
            .map(|y| d.get(y, 0).as_i128())
            .collect();
        assert_eq!(flipped, vec![0xAD01_AD01, 0x4A76_4A76]);
        let copied: Vec<i128> = copies(&d, &x, &eq(0x4A76, 0xAD01, 0))
            .iter()
            .map(|y| d.get(y, 0).as_i128())
            .collect();
        assert_eq!(
            copied,
            vec![
                0xAD01_AD01,
                0xAD01_AD02,
                0xAD01_AD00,
                0x4A76_4A76,
                0x4A77_4A76,
                0x4A75_4A76
            ]
        );
        // byte 1 (0x4A) against the constant 0x7f: the byte becomes 0x7f, the constant is not
        // looked for in x
        let c = flips_of(&d, &x, &eq(0x4A, 0x7F, OPERAND_B_CONST), &|_| 1.0);
        assert_eq!(
            c.iter().map(|y| d.get(y, 0).as_i128()).collect::<Vec<_>>(),
            vec![0xAD01_7F76]
        );
        // a signed byte compared sign-extended: (signed char)(x >> 24) < -100 with x >> 24 = 0xAD
        // (-83) becomes -101 there
        let lt = OperandRec {
            site: 0,
            kind: Pred::Slt as u32 | OPERAND_B_CONST,
            a: -83i64 as u64,
            b: -100i64 as u64,
        };
        let c = flips_of(&d, &x, &lt, &|_| 1.0);
        assert_eq!(
            c.iter().map(|y| d.get(y, 0).as_i128()).collect::<Vec<_>>(),
            vec![0x9B01_4A76]
        );
        // zero is everywhere: no part matches it
        let z = d.from_values(&[Value::Int(0x0000_0005)]);
        assert!(flips_of(&d, &z, &eq(0, 9, OPERAND_B_CONST), &|_| 1.0).is_empty());
        // ... unless both operands are computed: `(x & 0xffff) == (x >> 16)` with x = 0x3f0, whose
        // upper half shows only a zero, takes the lower half's value there
        let z = d.from_values(&[Value::Int(0x0000_03F0)]);
        let c = flips_of(&d, &z, &eq(0x3F0, 0, 0), &|_| 1.0);
        assert!(
            c.iter().any(|y| d.get(y, 0).as_i128() == 0x03F0_03F0),
            "{:x?}",
            c.iter().map(|y| d.get(y, 0).as_i128()).collect::<Vec<_>>()
        );
        // a whole match whose other operand does not fit the field's type: `(short)w < -30000`
        // with w = 32531 unsigned, compared sign-extended; the low half takes -30001
        let w = d.from_values(&[Value::Int(32531)]);
        let lt = OperandRec {
            site: 0,
            kind: Pred::Slt as u32 | OPERAND_B_CONST,
            a: 32531,
            b: -30000i64 as u64,
        };
        let c = flips_of(&d, &w, &lt, &|_| 1.0);
        assert_eq!(
            c.iter().map(|y| d.get(y, 0).as_i128()).collect::<Vec<_>>(),
            vec![(-30001i128) & 0xffff]
        );
        // a target that does not fit the part is not written
        assert!(flips_of(&d, &x, &eq(0x4A, 0x1234, OPERAND_B_CONST), &|_| 1.0).is_empty());
    }

    /// A signed field keeps its sign through a part: `short` x = -2 (0xfffe), its low byte 0xfe
    /// compared with 7 becomes 0xff07 = -249.
    #[test]
    fn a_part_of_a_signed_field_reads_back_signed() {
        let d = Domain::packed(vec![Field::full("x", ScalarType::I16)]);
        let x = d.from_values(&[Value::Int(-2)]);
        let rec = OperandRec {
            site: 0,
            kind: Pred::Eq as u32 | OPERAND_B_CONST,
            a: 0xFE,
            b: 7,
        };
        let c = flips_of(&d, &x, &rec, &|_| 1.0);
        assert_eq!(
            c.iter().map(|y| d.get(y, 0).as_i128()).collect::<Vec<_>>(),
            vec![-249]
        );
    }

    fn pred_rec(p: Pred, a: u64, b: u64) -> OperandRec {
        OperandRec {
            site: 0,
            kind: p as u32 | if p.is_int() { 0 } else { OPERANDS_FLOAT },
            a,
            b,
        }
    }

    /// Operand moves read every evaluation in the log, latest first, and keep only the values
    /// that turn that evaluation's outcome around: `*p >= '0' && *p <= '9'` over "12a" (the loop
    /// stops at 'a') gives 'a' := '9' or '8' first; the digits' records give only values that make
    /// them fail (`'1' >= '0'` true: '1' := '/').
    #[test]
    fn operand_moves_flip_the_latest_compares_first() {
        let d = Domain::packed(
            (0..3)
                .map(|i| Field::full(&format!("s[{i}]"), ScalarType::I8))
                .collect(),
        );
        let x = d.from_values(&[
            Value::Int(b'1' as i128),
            Value::Int(b'2' as i128),
            Value::Int(b'a' as i128),
        ]);
        let later = |p: Pred, a: u8, b: u8| OperandRec {
            site: 0,
            kind: p as u32 | OPERANDS_REPEATED,
            a: a as u64,
            b: b as u64,
        };
        let first = |p: Pred, a: u8, b: u8| OperandRec {
            site: 0,
            kind: p as u32,
            a: a as u64,
            b: b as u64,
        };
        let mut t = Trace::default();
        t.operands = vec![
            first(Pred::Sge, b'1', b'0'),
            OperandRec {
                site: 1,
                ..first(Pred::Sle, b'1', b'9')
            },
            later(Pred::Sge, b'2', b'0'),
            OperandRec {
                site: 1,
                ..later(Pred::Sle, b'2', b'9')
            },
            later(Pred::Sge, b'a', b'0'),
            OperandRec {
                site: 1,
                ..later(Pred::Sle, b'a', b'9')
            },
        ];
        let moves: Vec<Vec<Value>> = operand_moves(&d, &x, &t, 32)
            .iter()
            .map(|y| d.values(y))
            .collect();
        let s = |a: u8, b: u8, c: u8| {
            vec![
                Value::Int(a as i128),
                Value::Int(b as i128),
                Value::Int(c as i128),
            ]
        };
        assert_eq!(&moves[..2], &[s(b'1', b'2', b'9'), s(b'1', b'2', b'8')]);
        // 'a' >= '0' holds: only '/' turns it around
        assert_eq!(moves[2], s(b'1', b'2', b'/'));
        assert!(moves.contains(&s(b'/', b'2', b'a')) && moves.contains(&s(b'1', b':', b'a')));
        // nothing keeps an outcome as it was: '1' := '0' or '2' := '9' would
        assert!(!moves.contains(&s(b'0', b'2', b'a')) && !moves.contains(&s(b'1', b'9', b'a')));
        assert_eq!(operand_moves(&d, &x, &t, 1).len(), 1);
        // no compare ran twice: no loop, no operand moves
        t.operands.retain(|r| r.kind & OPERANDS_REPEATED == 0);
        assert!(operand_moves(&d, &x, &t, 32).is_empty());
    }

    /// Flips turn the compare's outcome around with the value nearest the other operand, for the
    /// field on either side of the compare.
    #[test]
    fn flips_turn_the_outcome_around_nearest_the_other_operand() {
        let d = Domain::packed(vec![
            Field::full("x", ScalarType::I32),
            Field::full("y", ScalarType::I32),
        ]);
        let x = d.from_values(&[Value::Int(15), Value::Int(-3)]);
        let first = |c: Vec<Input>| c.iter().map(|y| d.values(y)).collect::<Vec<_>>();
        // x < 10 false: x := 9
        assert_eq!(
            first(flips_of(&d, &x, &pred_rec(Pred::Slt, 15, 10), &|_| 0.0)),
            vec![vec![Value::Int(9), Value::Int(-3)]]
        );
        // x <= 20 true: x := 21
        assert_eq!(
            first(flips_of(&d, &x, &pred_rec(Pred::Sle, 15, 20), &|_| 0.0)),
            vec![vec![Value::Int(21), Value::Int(-3)]]
        );
        // 1 == x false (x on the right): x := 1
        assert_eq!(
            first(flips_of(&d, &x, &pred_rec(Pred::Eq, 1, 15), &|_| 0.0)),
            vec![vec![Value::Int(1), Value::Int(-3)]]
        );
        // 0 > y true (y on the right, i.e. y < 0): y := 0
        assert_eq!(
            first(flips_of(
                &d,
                &x,
                &pred_rec(Pred::Sgt, 0, -3i64 as u64),
                &|_| 0.0
            )),
            vec![vec![Value::Int(15), Value::Int(0)]]
        );
        // x > y true: x := y (false), or y := x (false)
        let c = first(flips_of(
            &d,
            &x,
            &pred_rec(Pred::Sgt, 15, -3i64 as u64),
            &|_| 0.0,
        ));
        assert_eq!(
            c,
            vec![
                vec![Value::Int(-3), Value::Int(-3)],
                vec![Value::Int(15), Value::Int(15)]
            ]
        );
        // no field holds an operand
        assert!(flips_of(&d, &x, &pred_rec(Pred::Eq, 4, 5), &|_| 0.0).is_empty());
    }

    /// Float flips step past the other operand by the margin, at least to the neighbour in the
    /// field's own precision.
    #[test]
    fn float_flips_use_the_fields_precision() {
        let d = Domain::packed(vec![Field::full("f", ScalarType::F32)]);
        let x = d.from_values(&[Value::Float(1.0)]);
        // f > 2.5 false: f := the float just above 2.5
        let c = flips_of(
            &d,
            &x,
            &pred_rec(Pred::Ogt, 1.0f64.to_bits(), 2.5f64.to_bits()),
            &|_| 0.0,
        );
        assert_eq!(c.len(), 1);
        assert_eq!(d.get(&c[0], 0), Value::Float(2.5f32.next_up() as f64));
        // f == 2.5 false: f := 2.5
        let c = flips_of(
            &d,
            &x,
            &pred_rec(Pred::Oeq, 1.0f64.to_bits(), 2.5f64.to_bits()),
            &|_| 0.0,
        );
        assert_eq!(d.get(&c[0], 0), Value::Float(2.5));
        // a margin of one step: f > 2.5 false: f := 3.5; f < 2.5 true: f := 2.5 (exactly)
        let c = flips_of(
            &d,
            &x,
            &pred_rec(Pred::Ogt, 1.0f64.to_bits(), 2.5f64.to_bits()),
            &|_| 1.0,
        );
        assert_eq!(d.get(&c[0], 0), Value::Float(3.5));
        let c = flips_of(
            &d,
            &x,
            &pred_rec(Pred::Olt, 1.0f64.to_bits(), 2.5f64.to_bits()),
            &|_| 1.0,
        );
        assert_eq!(d.get(&c[0], 0), Value::Float(2.5));
        // a margin below one ulp of a large value: the next float
        let big = 1e9f64;
        let c = flips_of(
            &d,
            &x,
            &pred_rec(Pred::Ogt, 1.0f64.to_bits(), big.to_bits()),
            &|_| 1e-3,
        );
        assert_eq!(d.get(&c[0], 0), Value::Float((big as f32).next_up() as f64));
    }

    /// A float compared with itself (`x != x`, `isnan(x)`) turns around only at a NaN: the NaN
    /// flip is offered for the whole-range field equal to the operand, whatever the predicate's
    /// relation (`uno` has none), and not where a NaN would not change the outcome, the operands
    /// differ, or the field's range holds no NaN.
    #[test]
    fn a_float_compared_with_itself_is_flipped_by_a_nan() {
        let mut ranged = Field::full("y", ScalarType::F64);
        ranged.range = Range::Float { lo: 0.0, hi: 10.0 };
        ranged.full = false;
        let d = Domain::packed(vec![Field::full("x", ScalarType::F64), ranged]);
        let x = d.from_values(&[Value::Float(1.5), Value::Float(1.5)]);
        let v = 1.5f64.to_bits();
        let nan_x = |c: &[Input]| {
            c.iter()
                .filter(|y| matches!(d.get(y, 0), Value::Float(f) if f.is_nan()))
                .count()
        };
        for pred in [Pred::Une, Pred::Uno, Pred::Oeq, Pred::Ord] {
            let c = flips_of(&d, &x, &pred_rec(pred, v, v), &|_| 0.0);
            assert_eq!(nan_x(&c), 1, "{pred:?}");
            // the ranged field keeps its number
            assert!(
                c.iter()
                    .all(|y| !matches!(d.get(y, 1), Value::Float(f) if f.is_nan())),
                "{pred:?}"
            );
        }
        // `x <= x` is false on a NaN too, so it turns around; `x < x` is false already
        assert_eq!(
            nan_x(&flips_of(&d, &x, &pred_rec(Pred::Ole, v, v), &|_| 0.0)),
            1
        );
        assert_eq!(
            nan_x(&flips_of(&d, &x, &pred_rec(Pred::Olt, v, v), &|_| 0.0)),
            0
        );
        // different operands: the usual flips, no NaN
        assert_eq!(
            nan_x(&flips_of(
                &d,
                &x,
                &pred_rec(Pred::Une, v, 2.5f64.to_bits()),
                &|_| 0.0
            )),
            0
        );
    }

    /// A float field equal to an operand negated (`fabs(x) == inf` with `x` negative, as `isinf`
    /// tests it) takes the flip of the operand with its own sign.
    #[test]
    fn a_negated_float_operand_is_flipped_with_the_fields_sign() {
        let d = Domain::packed(vec![Field::full("x", ScalarType::F64)]);
        let x = d.from_values(&[Value::Float(-5.0)]);
        // fabs(x) == inf false, seen as (5, inf): x := -inf
        let c = flips_of(
            &d,
            &x,
            &pred_rec(Pred::Oeq, 5.0f64.to_bits(), f64::INFINITY.to_bits()),
            &|_| 0.0,
        );
        assert_eq!(
            c.iter().map(|y| d.get(y, 0)).collect::<Vec<_>>(),
            vec![Value::Float(f64::NEG_INFINITY)]
        );
        // fabs(x) < 2 false: x := -(2 - margin), still negative
        let c = flips_of(
            &d,
            &x,
            &pred_rec(Pred::Olt, 5.0f64.to_bits(), 2.0f64.to_bits()),
            &|_| 0.5,
        );
        assert_eq!(
            c.iter().map(|y| d.get(y, 0)).collect::<Vec<_>>(),
            vec![Value::Float(-1.5)]
        );
        // 0 is its own negation: the plain flip only
        let z = d.from_values(&[Value::Float(0.0)]);
        let c = flips_of(
            &d,
            &z,
            &pred_rec(Pred::Oeq, 0.0f64.to_bits(), 3.0f64.to_bits()),
            &|_| 0.0,
        );
        assert_eq!(
            c.iter().map(|y| d.get(y, 0)).collect::<Vec<_>>(),
            vec![Value::Float(3.0)]
        );
    }

    /// A string parameter `name` of at most `max` printable characters (as the C frontend lays
    /// it out: the length field, then the characters), after an `i32` field `k`.
    fn string_domain(name: &str, max: usize) -> Domain {
        let alphabet: Vec<u8> = (32u8..127).collect();
        let mut len = Field::full(&format!("{name}.len"), ScalarType::U32);
        len.range = Range::Int {
            lo: 0,
            hi: max as i128,
        };
        len.full = false;
        len.role = Role::Length;
        let mut fields = vec![Field::full("k", ScalarType::I32), len];
        for i in 0..max {
            let mut c = Field::full(&format!("{name}[{i}]"), ScalarType::I8);
            c.range = Range::Int { lo: 32, hi: 126 };
            c.full = false;
            c.role = Role::Char {
                alphabet: alphabet.clone(),
            };
            fields.push(c);
        }
        Domain::packed(fields)
    }

    fn with_string(d: &Domain, s: &[u8]) -> Input {
        let g = byte_groups(d)[0];
        set_group_bytes(d, &Input::new(vec![0; d.len]), &g, s)
    }

    fn srec(func: u32, n: u64, a: &[u8], b: &[u8]) -> StrOperandRec {
        StrOperandRec::new(0, func, n, a, b)
    }

    use evotest_abi::distance::{STR_MEMCMP, STR_STRCMP};

    #[test]
    fn strings_buffers_and_arrays_of_bytes_are_groups() {
        let d = string_domain("s", 4);
        assert_eq!(
            byte_groups(&d),
            vec![ByteGroup {
                len_field: Some(1),
                first: 2,
                max: 4
            }]
        );
        let d = Domain::packed(vec![
            Field::full("a[0]", ScalarType::U8),
            Field::full("a[1]", ScalarType::U8),
            Field::full("w[0]", ScalarType::I32),
            Field::full("b[0]", ScalarType::I8),
        ]);
        assert_eq!(
            byte_groups(&d),
            vec![
                ByteGroup {
                    len_field: None,
                    first: 0,
                    max: 2
                },
                ByteGroup {
                    len_field: None,
                    first: 3,
                    max: 1
                }
            ]
        );
    }

    #[test]
    fn a_string_equal_to_one_operand_takes_the_other() {
        let d = string_domain("s", 16);
        let x = with_string(&d, b"hello");
        assert_eq!(group_bytes(&d, &x, &byte_groups(&d)[0]), b"hello");
        // strcmp(s, "xK9#qZ!vR2"), with the operands either way round
        for r in [
            srec(STR_STRCMP, 0, b"hello", b"xK9#qZ!vR2"),
            srec(STR_STRCMP, 0, b"xK9#qZ!vR2", b"hello"),
        ] {
            let c = string_copies(&d, &x, &r);
            assert_eq!(c.len(), 1, "{c:?}");
            assert_eq!(group_bytes(&d, &c[0], &byte_groups(&d)[0]), b"xK9#qZ!vR2");
            assert_eq!(d.get(&c[0], 1), Value::Int(10), "the length follows");
            assert_eq!(d.get(&c[0], 0), d.get(&x, 0), "other fields are kept");
        }
        // an empty string is one too
        let e = with_string(&d, b"");
        let c = string_copies(&d, &e, &srec(STR_STRCMP, 0, b"", b"key"));
        assert_eq!(group_bytes(&d, &c[0], &byte_groups(&d)[0]), b"key");
    }

    #[test]
    fn a_number_parsed_from_a_string_is_replaced_in_its_text() {
        let d = string_domain("s", 8);
        let x = with_string(&d, b"7-34");
        let text = |y: &Input| String::from_utf8(group_bytes(&d, y, &byte_groups(&d)[0])).unwrap();
        // sscanf(s, "%d-%d", &a, &b); a == 12 compared as (7, 12): "7" becomes "12"
        let c = decimal_flips(&d, &x, &pred_rec(Pred::Eq, 7, 12));
        assert_eq!(c.iter().map(text).collect::<Vec<_>>(), vec!["12-34"]);
        // b < 30 false (34): b becomes 29; "34"'s digits are not numbers of their own
        let c = decimal_flips(&d, &x, &pred_rec(Pred::Slt, 34, 30));
        assert_eq!(c.iter().map(text).collect::<Vec<_>>(), vec!["7-29"]);
        assert!(
            decimal_flips(&d, &x, &pred_rec(Pred::Eq, 3, 5)).is_empty(),
            "the 3 of 34 is no number"
        );
        // a negative number with its sign
        let x = with_string(&d, b"x=-5;");
        let c = decimal_flips(&d, &x, &pred_rec(Pred::Eq, -5i64 as u64, 100));
        assert_eq!(c.iter().map(text).collect::<Vec<_>>(), vec!["x=100;"]);
        // fixed-width fields with leading zeros: atoi(s + 3) == 12 saw 7 in "07"; day 15 must
        // become 3, written "03" first so that the field keeps its width
        let d = string_domain("s", 10);
        let x = with_string(&d, b"20-07-15");
        let text = |y: &Input| String::from_utf8(group_bytes(&d, y, &byte_groups(&d)[0])).unwrap();
        let c = decimal_flips(&d, &x, &pred_rec(Pred::Eq, 7, 12));
        assert_eq!(c.iter().map(text).collect::<Vec<_>>(), vec!["20-12-15"]);
        let c = decimal_flips(&d, &x, &pred_rec(Pred::Eq, 15, 3));
        assert_eq!(
            c.iter().map(text).collect::<Vec<_>>(),
            vec!["20-07-03", "20-07-3"]
        );
    }

    #[test]
    fn numbers_in_text_snap_to_the_lattice_at_their_width() {
        let mut d = string_domain("s", 10);
        d.lattice = vec![1, 4, 100];
        let x = with_string(&d, b"2136-07");
        let text = |y: &Input| String::from_utf8(group_bytes(&d, y, &byte_groups(&d)[0])).unwrap();
        let got: Vec<String> = text_snaps(&d, &x).iter().map(text).collect();
        // 2136 is a multiple of 4 (only 2140 is new); 7 becomes 04 and 08, 00 and 100
        assert_eq!(
            got,
            vec!["2140-07", "2100-07", "2200-07", "2136-04", "2136-08", "2136-00", "2136-100"]
        );
        d.lattice = vec![1];
        assert!(text_snaps(&d, &x).is_empty());
    }

    #[test]
    fn an_occurrence_is_replaced_and_the_result_cut_to_the_most_characters() {
        let d = string_domain("s", 8);
        let x = with_string(&d, b"ab-cd-ef");
        // strncmp(s + 3, "WXYZ", 4) saw "cd-e"
        let c = string_copies(
            &d,
            &x,
            &srec(evotest_abi::distance::STR_STRNCMP, 4, b"cd-e", b"WXYZ"),
        );
        assert_eq!(group_bytes(&d, &c[0], &byte_groups(&d)[0]), b"ab-WXYZf");
        // longer than the string may be: cut to 8
        let c = string_copies(&d, &x, &srec(STR_STRCMP, 0, b"ab-cd-ef", b"0123456789"));
        assert_eq!(group_bytes(&d, &c[0], &byte_groups(&d)[0]), b"01234567");
        // a NUL ends what a string can take
        let c = string_copies(&d, &x, &srec(STR_MEMCMP, 4, b"ab-c", b"Q\0RS"));
        assert_eq!(group_bytes(&d, &c[0], &byte_groups(&d)[0]), b"Qd-ef");
    }

    #[test]
    fn memcmp_past_a_short_string_and_into_an_array() {
        let d = string_domain("s", 8);
        let x = with_string(&d, b"ke");
        // memcmp(s, "KEYWORD", 7) read "ke", its NUL, and bytes beyond
        let c = string_copies(
            &d,
            &x,
            &srec(STR_MEMCMP, 7, b"ke\0\x7f\x7f\x7f\x7f", b"KEYWORD"),
        );
        assert_eq!(group_bytes(&d, &c[0], &byte_groups(&d)[0]), b"KEYWORD");
        // a fixed array of bytes keeps its size; NUL bytes are data
        let d = Domain::packed(
            (0..6)
                .map(|i| Field::full(&format!("a[{i}]"), ScalarType::U8))
                .collect(),
        );
        let x = d.from_values(&[1, 2, 3, 4, 5, 6].map(Value::Int));
        let c = string_copies(
            &d,
            &x,
            &srec(STR_MEMCMP, 4, &[2, 3, 4, 5], &[0, 0xAB, 0, 0xCD]),
        );
        assert_eq!(
            d.values(&c[0]),
            [1, 0, 0xAB, 0, 0xCD, 6].map(Value::Int).to_vec()
        );
        // nothing matches: nothing
        assert!(string_copies(&d, &x, &srec(STR_MEMCMP, 2, &[9, 9], &[1, 1])).is_empty());
    }

    /// The AVM (whose flips and input-to-state moves use the string copies) takes both outcomes
    /// of `strcmp(s, "xK9#qZ!vR2") == 0` within 20 evaluations (5 suffice on seed 1); moving the
    /// characters one by one, without the copies, it takes between 100 and 400.
    #[test]
    fn the_avm_takes_a_string_equality_by_input_to_state() {
        use super::super::testkit::{branch_goals, run_per_goal, Scenario};
        let d = string_domain("s", 16);
        let dd = d.clone();
        let key = b"xK9#qZ!vR2";
        let sc = Scenario {
            sites: 1,
            outcomes: 2,
            goals: branch_goals(0, vec![]),
            program: Box::new(move |v: &[Value], r: &mut crate::exec::mock::MockRun| {
                let x = dd.from_values(v);
                let s = group_bytes(&dd, &x, &byte_groups(&dd)[0]);
                let dist = evotest_abi::distance::bytes_distance(&s, key);
                r.str_operands(0, STR_STRCMP, 0, &s, key);
                let (t, f) = evotest_abi::distance::string_compare(Pred::Eq, dist);
                r.branch(0, 0, &[t, f]);
            }),
        };
        let out = run_per_goal(&d, sc, &mut super::super::avm::Avm, 1, 20);
        assert_eq!(out.covered, 2, "{out:?}");
    }

    #[test]
    fn no_field_matches_no_candidates() {
        let d = Domain::packed(vec![Field::full("x", ScalarType::I32)]);
        let x = d.from_values(&[Value::Int(4)]);
        assert!(copies(&d, &x, &rec(5, 6, false)).is_empty());
    }
}
