//! Call sequences as inputs: the input model of API testing (Pacheco 2009, *Directed Random
//! Testing*). The operations are the C functions of an API; an input is a sequence of calls, each
//! an operation and its arguments. A pointer an operation returns is a *value* later calls can
//! take (a handle: `struct stack *s = stack_new(4); stack_push(s, 3);`).
//!
//! The byte encoding, which the generated harness (`frontend::sequence`) decodes the same way
//! ([`SequenceModel::parse`] is its mirror):
//!
//! * a call starts with one byte `b`: `0` ends the sequence (so an input zero-padded to the
//!   domain's length is the same sequence), otherwise the operation is `(b − 1) mod n` of the
//!   model's `n` operations;
//! * then each argument in order: a scalar as its C type's bytes, little-endian (a `_Bool` one
//!   byte, its lowest bit); a handle as one byte `i`, the `(i mod k)`-th of the `k` values of its
//!   type alive at that point (a call whose handle type has no value alive is skipped); a string
//!   as one length byte `l` (`l mod (MAX_STR + 1)` characters) and that many bytes; an
//!   out-parameter (a pointer to scalars no operation returns) takes no bytes: the harness passes
//!   a zeroed buffer of [`SCRATCH_ELEMS`] elements; a buffer and its length parameter (`const
//!   void *data, size_t len`) one count byte `c` (`c mod (MAX_BUF + 1)` elements) and the
//!   elements' bytes, the length parameter none (it receives the count);
//! * a call whose bytes are cut off by the end of the input, or beyond [`SequenceModel::max_calls`],
//!   ends the sequence.
//!
//! Values enter the pool of their type when a call returns them non-NULL, and leave it when a
//! destructor (an operation [`Op::destructor`]) is called on them, so the harness never passes a
//! NULL or freed handle: in C a crash on one would be the tester's fault, not the program's
//! (Pacheco's "illegal" inputs).

use super::{ScalarType, Value};
use rand::Rng;

/// Most characters of a string argument.
pub const MAX_STR: usize = 16;
/// Most values of one handle type alive at once in a sequence (more are not kept).
pub const MAX_HANDLES: usize = 64;
/// Elements of the zeroed buffer passed to an out-parameter.
pub const SCRATCH_ELEMS: usize = 16;
/// Most elements of a buffer argument.
pub const MAX_BUF: usize = 32;

/// What an argument is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArgKind {
    /// A scalar in its C type.
    Scalar(ScalarType),
    /// A value of handle type `i` ([`SequenceModel::handle_types`]), returned by an earlier call.
    Handle(usize),
    /// A NUL-terminated string (`char *`, `const char *`).
    Str,
    /// A pointer to scalars of this type that no operation returns: an out-parameter, given a
    /// zeroed buffer.
    Scratch(ScalarType),
    /// A pointer to elements of this type followed by a parameter named as a length (`const
    /// char *data, size_t len`, `int *a, int n`): 0 to [`MAX_BUF`] elements (and a NUL byte
    /// after them).
    Buffer(ScalarType),
    /// The length parameter of the buffer parameter at this index, of this type: the buffer's
    /// number of elements.
    LengthOf(usize, ScalarType),
}

/// What an operation returns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OpReturn {
    Void,
    Scalar(ScalarType),
    /// A value of handle type `i`; NULL is not kept, nor a value the harness already holds (a
    /// call that returns the value it was given, `v = grow(v, x)`): both count as NULL returns
    /// ([`null_mask`]), so that a destructor frees that value once.
    Handle(usize),
}

/// One operation: a C function of the API.
#[derive(Clone, Debug)]
pub struct Op {
    pub name: String,
    /// Parameter names and kinds, in order.
    pub params: Vec<(String, ArgKind)>,
    pub ret: OpReturn,
    /// A destructor frees a handle parameter ([`Op::freed`]), which leaves the pool: one the
    /// data flow shows it frees ([`Frees::Param`]) while returning no value of a handle type; or,
    /// where the flow cannot tell ([`Frees::ByName`]), a `void` function with a handle parameter
    /// whose name ends in `free`, `destroy`, `delete`, `release`, `dispose`, `close`, `fini`,
    /// `finalize`, `unref`, `deinit` or `cleanup` (the C naming conventions; `pool_free(pool,
    /// obj)` frees `obj`, its last handle parameter).
    pub destructor: bool,
    /// What the operation frees or reallocates of the values it is given, when the pass's data
    /// flow tells ([`Frees`]); [`Frees::ByName`] leaves it to `destructor` and [`Op::consumes`]'s
    /// naming rules.
    pub frees: Frees,
    /// An initializer of a caller-allocated object (`stack_init(struct stack *s)`): after the call
    /// its parameter at this index, a value of an uninitialized type, moves to the pool of the
    /// initialized type given (the same object, now usable by every operation).
    pub promotes: Option<(usize, usize)>,
}

/// What an operation frees of the values it is given, from the data flow of its parameters
/// (`evotest_abi::meta::FunctionMeta::param_calls`): a parameter's value passed to `free` or
/// `realloc`, directly or through functions of the sources that do.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Frees {
    /// Not known (a parameter goes to a call through a pointer, or to a function outside the
    /// sources named like a deallocator): the naming rules decide.
    #[default]
    ByName,
    /// None of its handle parameters.
    Nothing,
    /// Its parameter at this index (a handle), which leaves the pool with the call.
    Param(usize),
}

impl Op {
    /// The parameter whose value leaves the pool with the call, and its handle type: for a
    /// destructor, its last handle parameter; for an operation that returns a value of a handle
    /// type it is also given ([`Op::consumes`]), its first parameter of that type.
    pub fn freed(&self) -> Option<(usize, usize)> {
        match self.frees {
            Frees::Param(j) => {
                return match self.params.get(j) {
                    Some((_, ArgKind::Handle(t))) => Some((j, *t)),
                    _ => None,
                }
            }
            Frees::Nothing => return None,
            Frees::ByName => {}
        }
        if self.destructor {
            return self
                .params
                .iter()
                .enumerate()
                .rev()
                .find_map(|(j, (_, k))| match k {
                    ArgKind::Handle(t) => Some((j, *t)),
                    _ => None,
                });
        }
        self.consumes()
    }

    /// For an operation that returns a value of a handle type it is also given (`v = grow(v,
    /// x)`, C's `realloc` idiom: the value given may have been freed or moved, and the one
    /// returned replaces it), its first parameter of that type and the type; `None` for others,
    /// and for one whose name says it copies (`copy`, `clone`, `dup`), after which both values
    /// are alive.
    pub fn consumes(&self) -> Option<(usize, usize)> {
        let OpReturn::Handle(t) = self.ret else {
            return None;
        };
        match self.frees {
            Frees::Param(j) => {
                return matches!(self.params.get(j), Some((_, ArgKind::Handle(u))) if *u == t)
                    .then_some((j, t))
            }
            Frees::Nothing => return None,
            Frees::ByName => {}
        }
        let n = self.name.to_ascii_lowercase();
        if ["copy", "clone", "dup"].iter().any(|w| n.contains(w)) {
            return None;
        }
        self.params
            .iter()
            .position(|(_, k)| matches!(k, ArgKind::Handle(u) if *u == t))
            .map(|j| (j, t))
    }
}

/// The operations and the handle types of an API.
#[derive(Clone, Debug)]
pub struct SequenceModel {
    pub ops: Vec<Op>,
    /// The C spelling of each handle type (`struct stack *`).
    pub handle_types: Vec<String>,
    /// Most calls in one sequence.
    pub max_calls: usize,
}

/// One argument of a call.
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    Scalar(Value),
    /// The byte choosing among the values of the handle type alive at the call.
    Handle(u8),
    Str(Vec<u8>),
    Scratch,
    /// A buffer's elements, as bytes (little-endian).
    Buffer(Vec<u8>),
    /// A length parameter (the buffer's count).
    Length,
}

/// One call: operation `op` of the model with its arguments.
#[derive(Clone, Debug, PartialEq)]
pub struct Call {
    pub op: usize,
    pub args: Vec<Arg>,
}

/// Whether a function named `name` is a destructor by the C naming conventions (see
/// [`Op::destructor`]; the caller checks the signature).
pub fn destructor_name(name: &str) -> bool {
    const WORDS: [&str; 11] = [
        "free", "destroy", "delete", "release", "dispose", "close", "fini", "finalize", "unref",
        "deinit", "cleanup",
    ];
    let lower = name.to_ascii_lowercase();
    WORDS.iter().any(|w| lower.ends_with(w))
}

fn scalar_bytes(t: ScalarType) -> usize {
    t.size()
}

fn read_scalar(t: ScalarType, b: &[u8]) -> Value {
    let f = super::Field {
        offset: 0,
        ..super::Field::full("", t)
    };
    f.read(b)
}

fn write_scalar(t: ScalarType, v: Value, out: &mut Vec<u8>) {
    let f = super::Field {
        offset: 0,
        ..super::Field::full("", t)
    };
    let mut b = Vec::new();
    f.write(&mut b, v);
    out.extend_from_slice(&b);
}

impl SequenceModel {
    /// Most bytes one call of operation `op` takes.
    pub fn call_bytes(&self, op: usize) -> usize {
        1 + self.ops[op]
            .params
            .iter()
            .map(|(_, k)| match k {
                ArgKind::Scalar(t) => scalar_bytes(*t),
                ArgKind::Handle(_) => 1,
                ArgKind::Str => 1 + MAX_STR,
                ArgKind::Scratch(_) | ArgKind::LengthOf(..) => 0,
                ArgKind::Buffer(t) => 1 + MAX_BUF * t.size(),
            })
            .sum::<usize>()
    }

    /// The length of the domain: [`SequenceModel::max_calls`] of the longest call.
    pub fn max_len(&self) -> usize {
        self.max_calls
            * (0..self.ops.len())
                .map(|o| self.call_bytes(o))
                .max()
                .unwrap_or(1)
    }

    /// The calls `bytes` encode (see module docs), as the harness decodes them; a handle byte is
    /// kept as it is (which value it picks depends on the values the earlier calls returned).
    pub fn parse(&self, bytes: &[u8]) -> Vec<Call> {
        let mut calls = Vec::new();
        let mut pos = 0;
        let n = self.ops.len();
        while calls.len() < self.max_calls && pos < bytes.len() && n > 0 {
            let b = bytes[pos];
            pos += 1;
            if b == 0 {
                break;
            }
            let op = (b as usize - 1) % n;
            let mut args = Vec::new();
            for (_, k) in &self.ops[op].params {
                let a = match k {
                    ArgKind::Scalar(t) => {
                        let w = scalar_bytes(*t);
                        if pos + w > bytes.len() {
                            return calls;
                        }
                        let v = read_scalar(*t, &bytes[pos..pos + w]);
                        pos += w;
                        Arg::Scalar(v)
                    }
                    ArgKind::Handle(_) => {
                        if pos >= bytes.len() {
                            return calls;
                        }
                        pos += 1;
                        Arg::Handle(bytes[pos - 1])
                    }
                    ArgKind::Str => {
                        if pos >= bytes.len() {
                            return calls;
                        }
                        let l = bytes[pos] as usize % (MAX_STR + 1);
                        pos += 1;
                        if pos + l > bytes.len() {
                            return calls;
                        }
                        let s = bytes[pos..pos + l].to_vec();
                        pos += l;
                        Arg::Str(s)
                    }
                    ArgKind::Scratch(_) => Arg::Scratch,
                    ArgKind::LengthOf(..) => Arg::Length,
                    ArgKind::Buffer(t) => {
                        if pos >= bytes.len() {
                            return calls;
                        }
                        let w = (bytes[pos] as usize % (MAX_BUF + 1)) * t.size();
                        pos += 1;
                        if pos + w > bytes.len() {
                            return calls;
                        }
                        pos += w;
                        Arg::Buffer(bytes[pos - w..pos].to_vec())
                    }
                };
                args.push(a);
            }
            calls.push(Call { op, args });
        }
        calls
    }

    /// The bytes of `calls` (see module docs); [`SequenceModel::parse`] reads them back.
    pub fn encode(&self, calls: &[Call]) -> Vec<u8> {
        let mut out = Vec::new();
        for c in calls {
            out.push((c.op + 1) as u8);
            for ((_, k), a) in self.ops[c.op].params.iter().zip(&c.args) {
                match (k, a) {
                    (ArgKind::Scalar(t), Arg::Scalar(v)) => write_scalar(*t, *v, &mut out),
                    (ArgKind::Handle(_), Arg::Handle(i)) => out.push(*i),
                    (ArgKind::Str, Arg::Str(s)) => {
                        let s = &s[..s.len().min(MAX_STR)];
                        out.push(s.len() as u8);
                        out.extend_from_slice(s);
                    }
                    (ArgKind::Scratch(_), _) | (ArgKind::LengthOf(..), _) => {}
                    (ArgKind::Buffer(t), Arg::Buffer(b)) => {
                        let n = (b.len() / t.size()).min(MAX_BUF);
                        out.push(n as u8);
                        out.extend_from_slice(&b[..n * t.size()]);
                    }
                    // a mismatched argument: its kind's zero
                    (ArgKind::Scalar(t), _) => out.extend(std::iter::repeat_n(0, scalar_bytes(*t))),
                    (ArgKind::Handle(_), _) | (ArgKind::Str, _) | (ArgKind::Buffer(_), _) => {
                        out.push(0)
                    }
                }
            }
        }
        out
    }

    /// Whether operation `op` can be called after `live` (the number of values of each handle type
    /// alive): every handle parameter has a value.
    pub fn callable(&self, op: usize, live: &[usize]) -> bool {
        self.ops[op]
            .params
            .iter()
            .all(|(_, k)| !matches!(k, ArgKind::Handle(t) if live[*t] == 0))
    }

    /// The values of each handle type alive after `calls`, assuming every handle a call returns is
    /// non-NULL (what the engine knows without running them): per type, the indices of the calls
    /// that made them, in pool order (a destructor's value leaves by swap-remove, as in the harness).
    pub fn live_after(&self, calls: &[Call]) -> Vec<Vec<usize>> {
        self.live_after_with(calls, 0)
    }

    /// [`SequenceModel::live_after`] knowing which calls returned NULL: bit `i` of `nulls` set
    /// for call `i` (the first 64 calls; the harness reports them as its return value,
    /// [`null_mask`]).
    pub fn live_after_with(&self, calls: &[Call], nulls: u64) -> Vec<Vec<usize>> {
        let mut live: Vec<Vec<usize>> = vec![Vec::new(); self.handle_types.len()];
        for (ci, c) in calls.iter().enumerate() {
            self.step(&mut live, ci, c, nulls);
        }
        live
    }

    /// Call `c`, the `ci`-th, as the harness makes it, on the values alive `live` (per type, the
    /// indices of the calls that made them, in pool order): skipped when a handle type has no
    /// value; a destructor's value leaves by swap-remove; a returned handle not NULL (`nulls`)
    /// joins. Returns whether the call was made.
    fn step(&self, live: &mut [Vec<usize>], ci: usize, c: &Call, nulls: u64) -> bool {
        let op = &self.ops[c.op];
        let counts: Vec<usize> = live.iter().map(Vec::len).collect();
        if !self.callable(c.op, &counts) {
            return false;
        }
        if let Some((j, t)) = op.freed() {
            if let Some(Arg::Handle(i)) = c.args.get(j) {
                let k = *i as usize % live[t].len();
                live[t].swap_remove(k);
            }
        }
        if let Some((j, to)) = op.promotes {
            if let (Some(ArgKind::Handle(t)), Some(Arg::Handle(i))) =
                (op.params.get(j).map(|p| &p.1), c.args.get(j))
            {
                let k = *i as usize % live[*t].len();
                let v = live[*t].swap_remove(k);
                if live[to].len() < MAX_HANDLES {
                    live[to].push(v);
                }
            }
        }
        if let OpReturn::Handle(t) = op.ret {
            if live[t].len() < MAX_HANDLES && !is_null(nulls, ci) {
                live[t].push(ci);
            }
        }
        true
    }
}

impl SequenceModel {
    /// For each call of `calls`, for each argument: the index of the call that made the value a
    /// handle argument picks (as [`SequenceModel::live_after`] assumes), `None` for other
    /// arguments and for the arguments of a call that is skipped.
    pub fn creators(&self, calls: &[Call], nulls: u64) -> Vec<Vec<Option<usize>>> {
        let mut live: Vec<Vec<usize>> = vec![Vec::new(); self.handle_types.len()];
        let mut out = Vec::with_capacity(calls.len());
        for (ci, c) in calls.iter().enumerate() {
            // the picks before the call changes the pool
            let picks: Vec<Option<usize>> = self.ops[c.op]
                .params
                .iter()
                .zip(&c.args)
                .map(|((_, k), a)| match (k, a) {
                    (ArgKind::Handle(t), Arg::Handle(i)) if !live[*t].is_empty() => {
                        Some(live[*t][*i as usize % live[*t].len()])
                    }
                    _ => None,
                })
                .collect();
            let made = self.step(&mut live, ci, c, nulls);
            out.push(if made {
                picks
            } else {
                vec![None; c.args.len()]
            });
        }
        out
    }

    /// `calls` without call `i`, every later handle argument re-pointed at the value it picked
    /// before (the handle bytes index the values alive, so removing a call shifts them), and the
    /// NULL returns (`nulls`, as in [`SequenceModel::live_after_with`]) renumbered; `None` when a
    /// later call uses a value call `i` made or cannot pick its value any more.
    pub fn without(&self, calls: &[Call], i: usize, nulls: u64) -> Option<(Vec<Call>, u64)> {
        let old = self.creators(calls, nulls);
        let low = if i >= 64 {
            nulls
        } else {
            nulls & ((1u64 << i) - 1)
        };
        let high = if i >= 63 { 0 } else { (nulls >> (i + 1)) << i };
        let new_nulls = low | high;
        let mut out: Vec<Call> = Vec::with_capacity(calls.len().saturating_sub(1));
        let mut live: Vec<Vec<usize>> = vec![Vec::new(); self.handle_types.len()];
        for (oj, c) in calls.iter().enumerate() {
            if oj == i {
                continue;
            }
            let nj = out.len();
            let mut c = c.clone();
            for (a, ((_, k), creator)) in self.ops[c.op].params.iter().zip(&old[oj]).enumerate() {
                if let (ArgKind::Handle(t), Some(cr)) = (k, creator) {
                    if *cr == i {
                        return None;
                    }
                    let ncr = if *cr > i { cr - 1 } else { *cr };
                    let pos = live[*t].iter().position(|&x| x == ncr)?;
                    c.args[a] = Arg::Handle(pos as u8);
                }
            }
            self.step(&mut live, nj, &c, new_nulls);
            out.push(c);
        }
        Some((out, new_nulls))
    }
}

fn is_null(nulls: u64, call: usize) -> bool {
    call < 64 && (nulls >> call) & 1 == 1
}

/// The NULL returns of a run, from the value the harness returned (`RET_UNSIGNED`, bit `i` for
/// call `i`); 0 when there is none.
pub fn null_mask(ret: Option<&crate::exec::RetVal>) -> u64 {
    match ret {
        Some(crate::exec::RetVal::Unsigned(m)) => *m,
        _ => 0,
    }
}

/// Values a generated scalar argument draws from: the program's constants and those its compares
/// saw at run time.
#[derive(Clone, Debug, Default)]
pub struct ValuePools {
    pub ints: Vec<i128>,
    pub floats: Vec<f64>,
    pub strs: Vec<Vec<u8>>,
}

impl ValuePools {
    /// The program's constants and string literals of `d` (its `int_pool`, `float_pool`,
    /// `str_pool`).
    pub fn of(d: &super::Domain) -> ValuePools {
        ValuePools {
            ints: d.int_pool.clone(),
            floats: d.float_pool.clone(),
            strs: d.str_pool.clone(),
        }
    }
}

/// A random scalar of type `t`: Randoop's primitive values (0, 1, −1, small numbers) half the time,
/// a pooled constant a quarter of the time, otherwise any value of the type.
pub fn random_scalar<R: Rng>(t: ScalarType, pools: &ValuePools, rng: &mut R) -> Value {
    let (lo, hi) = if t.is_float() {
        (i128::MIN, i128::MAX)
    } else {
        t.int_bounds()
    };
    let fits = |v: i128| v >= lo && v <= hi;
    let r: f64 = rng.random();
    if t.is_float() {
        if r < 0.4 {
            let small = [0.0, 1.0, -1.0, 0.5, 2.0, 10.0, 100.0];
            return Value::Float(small[rng.random_range(0..small.len())]);
        }
        if r < 0.7 && !pools.floats.is_empty() {
            return Value::Float(pools.floats[rng.random_range(0..pools.floats.len())]);
        }
        if r < 0.85 {
            return Value::Float(rng.random_range(-1000.0..1000.0));
        }
        return Value::Float(if t == ScalarType::F32 {
            f32::from_bits(rng.random()) as f64
        } else {
            f64::from_bits(rng.random())
        });
    }
    if t == ScalarType::Bool {
        return Value::Int(rng.random_range(0..2));
    }
    if r < 0.25 {
        let small = [0i128, 1, -1, 2, 10, 100];
        let v = small[rng.random_range(0..small.len())];
        if fits(v) {
            return Value::Int(v);
        }
    }
    if r < 0.5 {
        let v = rng.random_range(-10i128..=100);
        if fits(v) {
            return Value::Int(v);
        }
    }
    if r < 0.8 {
        let ok: Vec<i128> = pools.ints.iter().copied().filter(|v| fits(*v)).collect();
        if !ok.is_empty() {
            return Value::Int(ok[rng.random_range(0..ok.len())]);
        }
    }
    Value::Int(rng.random_range(lo..=hi))
}

/// A random string: a pooled one (a literal of the program, or a string a compare saw) 40% of the
/// time, otherwise 0 to 8 printable characters, or (a fifth of those times) 9 to [`MAX_STR`] (a
/// `strlen(key) > 12` was never true with 8 at most).
pub fn random_str<R: Rng>(pools: &ValuePools, rng: &mut R) -> Vec<u8> {
    if !pools.strs.is_empty() && rng.random_bool(0.4) {
        let s = &pools.strs[rng.random_range(0..pools.strs.len())];
        return s
            .iter()
            .copied()
            .take_while(|&c| c != 0)
            .take(MAX_STR)
            .collect();
    }
    let n = if rng.random_bool(0.2) {
        rng.random_range(9..=MAX_STR)
    } else {
        rng.random_range(0..=8)
    };
    (0..n).map(|_| rng.random_range(b' '..=b'~')).collect()
}

/// The arguments of a call of `op` with fresh scalars and strings and the given handle bytes (one
/// per handle parameter, in order; missing ones random).
pub fn random_args<R: Rng>(
    model: &SequenceModel,
    op: usize,
    handles: &[u8],
    pools: &ValuePools,
    rng: &mut R,
) -> Vec<Arg> {
    let mut h = handles.iter();
    model.ops[op]
        .params
        .iter()
        .map(|(_, k)| match k {
            ArgKind::Scalar(t) => Arg::Scalar(random_scalar(*t, pools, rng)),
            ArgKind::Handle(_) => Arg::Handle(h.next().copied().unwrap_or_else(|| rng.random())),
            ArgKind::Str => Arg::Str(random_str(pools, rng)),
            ArgKind::Scratch(_) => Arg::Scratch,
            ArgKind::LengthOf(..) => Arg::Length,
            ArgKind::Buffer(t) => Arg::Buffer(random_buffer(*t, pools, rng)),
        })
        .collect()
}

/// A random buffer of elements of type `t`, as bytes: for characters a pooled or random string
/// (as [`random_str`]), otherwise 0 to 8 elements drawn by [`random_scalar`].
pub fn random_buffer<R: Rng>(t: ScalarType, pools: &ValuePools, rng: &mut R) -> Vec<u8> {
    if t.size() == 1 && t != ScalarType::Bool {
        return random_str(pools, rng);
    }
    let n = rng.random_range(0..=8);
    let mut out = Vec::new();
    for _ in 0..n {
        write_scalar(t, random_scalar(t, pools, rng), &mut out);
    }
    out
}

/// The elements of a buffer argument's bytes.
pub fn buffer_values(t: ScalarType, b: &[u8]) -> Vec<Value> {
    b.chunks_exact(t.size())
        .map(|c| read_scalar(t, c))
        .collect()
}

/// A sequence of 1 to [`SequenceModel::max_calls`] calls built without feedback: each call an
/// operation picked uniformly among those callable at that point, its handles any live value
/// (undirected random testing, the baseline of Pacheco 2009).
pub fn random_sequence<R: Rng>(
    model: &SequenceModel,
    pools: &ValuePools,
    rng: &mut R,
) -> Vec<Call> {
    let n = rng.random_range(1..=model.max_calls.max(1));
    let mut calls: Vec<Call> = Vec::new();
    for _ in 0..n {
        let counts: Vec<usize> = model.live_after(&calls).iter().map(Vec::len).collect();
        let ok: Vec<usize> = (0..model.ops.len())
            .filter(|&o| model.callable(o, &counts))
            .collect();
        if ok.is_empty() {
            break;
        }
        let op = ok[rng.random_range(0..ok.len())];
        let args = random_args(model, op, &[], pools, rng);
        calls.push(Call { op, args });
    }
    calls
}

/// One to three random changes of `calls` (structure-aware havoc on a call sequence): a scalar
/// or string argument replaced (a fresh value, a pooled one, or a neighbour of the old value), a
/// call inserted, deleted or repeated, a handle argument pointed at another value, or the tail
/// replaced by the tail of `other` (splicing). The result has at most
/// [`SequenceModel::max_calls`] calls.
pub fn mutate<R: Rng>(
    m: &SequenceModel,
    calls: &[Call],
    other: Option<&[Call]>,
    pools: &ValuePools,
    rng: &mut R,
) -> Vec<Call> {
    let mut c = calls.to_vec();
    let n = rng.random_range(1..=3);
    for _ in 0..n {
        match rng.random_range(0..7) {
            // a scalar or string argument
            0 | 1 if !c.is_empty() => {
                let i = rng.random_range(0..c.len());
                let op = c[i].op;
                let ks: Vec<usize> = (0..c[i].args.len())
                    .filter(|&j| {
                        matches!(
                            m.ops[op].params[j].1,
                            ArgKind::Scalar(_) | ArgKind::Str | ArgKind::Buffer(_)
                        )
                    })
                    .collect();
                if ks.is_empty() {
                    continue;
                }
                let j = ks[rng.random_range(0..ks.len())];
                c[i].args[j] = match (&m.ops[op].params[j].1, &c[i].args[j]) {
                    (ArgKind::Scalar(t), Arg::Scalar(Value::Int(v)))
                        if !t.is_float() && *t != ScalarType::Bool && rng.random_bool(0.3) =>
                    {
                        let (lo, hi) = t.int_bounds();
                        let d = [1i128, -1, 2, -2, 10, -10][rng.random_range(0..6)];
                        Arg::Scalar(Value::Int((v + d).clamp(lo, hi)))
                    }
                    (ArgKind::Scalar(t), _) => Arg::Scalar(random_scalar(*t, pools, rng)),
                    (ArgKind::Buffer(t), Arg::Buffer(b))
                        if b.len() >= t.size() && rng.random_bool(0.5) =>
                    {
                        let mut b = b.clone();
                        let k = rng.random_range(0..b.len() / t.size()) * t.size();
                        let mut v = Vec::new();
                        write_scalar(*t, random_scalar(*t, pools, rng), &mut v);
                        b[k..k + t.size()].copy_from_slice(&v);
                        Arg::Buffer(b)
                    }
                    (ArgKind::Buffer(t), _) => Arg::Buffer(random_buffer(*t, pools, rng)),
                    (_, Arg::Str(s)) if !s.is_empty() && rng.random_bool(0.3) => {
                        let mut s = s.clone();
                        let k = rng.random_range(0..s.len());
                        s[k] = rng.random_range(b' '..=b'~');
                        Arg::Str(s)
                    }
                    _ => Arg::Str(random_str(pools, rng)),
                };
            }
            // a call inserted
            2 => {
                let op = rng.random_range(0..m.ops.len());
                let args = random_args(m, op, &[], pools, rng);
                let at = rng.random_range(0..=c.len());
                c.insert(at, Call { op, args });
            }
            // a call deleted
            3 if c.len() > 1 => {
                let i = rng.random_range(0..c.len());
                c.remove(i);
            }
            // a call repeated (filling a container)
            4 if !c.is_empty() => {
                let i = rng.random_range(0..c.len());
                let k = rng.random_range(1..=8);
                let call = c[i].clone();
                for _ in 0..k {
                    c.insert(i, call.clone());
                }
            }
            // a handle argument
            5 if !c.is_empty() => {
                let i = rng.random_range(0..c.len());
                let hs: Vec<usize> = (0..c[i].args.len())
                    .filter(|&j| matches!(c[i].args[j], Arg::Handle(_)))
                    .collect();
                if let Some(&j) = hs.get(rng.random_range(0..hs.len().max(1))) {
                    c[i].args[j] = Arg::Handle(rng.random_range(0..MAX_HANDLES as u8));
                }
            }
            // splicing
            6 => {
                if let Some(o) = other.filter(|o| !o.is_empty()) {
                    let a = rng.random_range(0..=c.len());
                    let b = rng.random_range(0..o.len());
                    c.truncate(a);
                    c.extend_from_slice(&o[b..]);
                }
            }
            _ => {}
        }
    }
    c.truncate(m.max_calls);
    c
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn stack() -> SequenceModel {
        SequenceModel {
            ops: vec![
                Op {
                    name: "stack_new".into(),
                    params: vec![("cap".into(), ArgKind::Scalar(ScalarType::I32))],
                    ret: OpReturn::Handle(0),
                    destructor: false,
                    frees: Frees::ByName,
                    promotes: None,
                },
                Op {
                    name: "stack_push".into(),
                    params: vec![
                        ("s".into(), ArgKind::Handle(0)),
                        ("x".into(), ArgKind::Scalar(ScalarType::I16)),
                    ],
                    ret: OpReturn::Scalar(ScalarType::I32),
                    destructor: false,
                    frees: Frees::ByName,
                    promotes: None,
                },
                Op {
                    name: "stack_name".into(),
                    params: vec![("s".into(), ArgKind::Handle(0)), ("n".into(), ArgKind::Str)],
                    ret: OpReturn::Void,
                    destructor: false,
                    frees: Frees::ByName,
                    promotes: None,
                },
                Op {
                    name: "stack_free".into(),
                    params: vec![("s".into(), ArgKind::Handle(0))],
                    ret: OpReturn::Void,
                    destructor: true,
                    frees: Frees::ByName,
                    promotes: None,
                },
            ],
            handle_types: vec!["struct stack *".into()],
            max_calls: 8,
        }
    }

    #[test]
    fn sequences_round_trip_through_their_bytes_and_zero_padding_ends_them() {
        let m = stack();
        let calls = vec![
            Call {
                op: 0,
                args: vec![Arg::Scalar(Value::Int(-4))],
            },
            Call {
                op: 1,
                args: vec![Arg::Handle(7), Arg::Scalar(Value::Int(-300))],
            },
            Call {
                op: 2,
                args: vec![Arg::Handle(0), Arg::Str(b"ab".to_vec())],
            },
            Call {
                op: 3,
                args: vec![Arg::Handle(1)],
            },
        ];
        let mut b = m.encode(&calls);
        assert_eq!(b[0], 1, "operation 0 is byte 1");
        assert_eq!(m.parse(&b), calls);
        b.resize(m.max_len(), 0);
        assert_eq!(m.parse(&b), calls, "zero padding adds no call");
        // a call cut off by the end of the input is dropped
        let cut = m.encode(&calls[..2]);
        assert_eq!(m.parse(&cut[..cut.len() - 1]), calls[..1].to_vec());
        // operations wrap around: byte 5 is operation (5 - 1) mod 4 = 0
        assert_eq!(m.parse(&[5, 1, 0, 0, 0])[0].op, 0);
    }

    #[test]
    fn destructors_take_values_out_of_the_pool() {
        let m = stack();
        let calls = vec![
            Call {
                op: 0,
                args: vec![Arg::Scalar(Value::Int(1))],
            },
            Call {
                op: 0,
                args: vec![Arg::Scalar(Value::Int(2))],
            },
            Call {
                op: 3,
                args: vec![Arg::Handle(2)],
            },
        ];
        // handle byte 2 picks value 2 mod 2 = 0 (call 0's); swap-remove leaves call 1's
        assert_eq!(m.live_after(&calls), vec![vec![1]]);
        assert!(!m.callable(1, &[0]));
        assert!(m.callable(1, &[1]));
        assert!(
            destructor_name("list_free")
                && destructor_name("ObjRelease")
                && !destructor_name("map_delete_key")
        );
    }

    #[test]
    fn removing_a_call_keeps_the_values_later_calls_picked() {
        let m = stack();
        let calls = vec![
            Call {
                op: 0,
                args: vec![Arg::Scalar(Value::Int(1))],
            },
            Call {
                op: 0,
                args: vec![Arg::Scalar(Value::Int(2))],
            },
            Call {
                op: 0,
                args: vec![Arg::Scalar(Value::Int(3))],
            },
            // picks value 2 of 3: call 2's
            Call {
                op: 1,
                args: vec![Arg::Handle(2), Arg::Scalar(Value::Int(9))],
            },
        ];
        assert_eq!(m.creators(&calls, 0)[3][0], Some(2));
        let (w, n) = m.without(&calls, 0, 0).expect("call 0's value is not used");
        assert_eq!((w.len(), n), (3, 0));
        assert_eq!(
            m.creators(&w, 0)[2][0],
            Some(1),
            "still the third constructor's value: {w:?}"
        );
        assert!(
            m.without(&calls, 2, 0).is_none(),
            "call 2 made the value call 3 uses"
        );
        // with call 1 returning NULL, byte 2 of 2 values picks call 0's value
        assert_eq!(m.creators(&calls, 0b10)[3][0], Some(0));
        let (w, n) = m
            .without(&calls, 2, 0b10)
            .expect("call 2's value is not used now");
        assert_eq!(n, 0b10, "call 1 is still the NULL one");
        assert_eq!(m.creators(&w, n)[2][0], Some(0));
    }

    #[test]
    fn mutants_stay_within_the_limit_and_round_trip() {
        let m = stack();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let pools = ValuePools {
            ints: vec![77],
            floats: vec![],
            strs: vec![b"key".to_vec()],
        };
        let a = random_sequence(&m, &pools, &mut rng);
        let b = random_sequence(&m, &pools, &mut rng);
        let mut changed = 0;
        for _ in 0..500 {
            let c = mutate(&m, &a, Some(&b), &pools, &mut rng);
            assert!(c.len() <= m.max_calls);
            assert_eq!(m.parse(&m.encode(&c)), c, "{c:?}");
            changed += (c != a) as u32;
        }
        assert!(changed > 400, "{changed}");
    }

    #[test]
    fn random_sequences_call_nothing_before_a_value_exists() {
        let m = stack();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        for _ in 0..50 {
            let s = random_sequence(&m, &ValuePools::default(), &mut rng);
            assert!(!s.is_empty() && s.len() <= m.max_calls);
            assert_eq!(s[0].op, 0, "only the constructor is callable first: {s:?}");
            let b = m.encode(&s);
            assert!(b.len() <= m.max_len());
            assert_eq!(m.parse(&b), s);
        }
    }
}
