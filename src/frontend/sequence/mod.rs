//! The API frontend (`evotest run --api`): the external functions of C sources as the operations
//! of an API, tested with sequences of calls (Pacheco 2009, directed random testing). The input
//! model is [`crate::input::sequence`]; a generated harness ([`harness`]) decodes a sequence, calls
//! the operations, keeps the pointers they return as values for later calls, and (when asked)
//! logs what each call took and returned, from which [`harness::render_tests`] writes `tests.c`:
//! one straight-line C function per sequence, with the recorded return values as assertions
//! (Pacheco's regression tests) and the sequences that crashed as expected faults.

pub mod harness;

use super::{Frontend, TestFile};
use crate::input::sequence::{self, Arg, ArgKind, Op, OpReturn, SequenceModel};
use crate::input::{DisplayValue, Domain, Input, ScalarType};
use anyhow::{bail, Result};
use evotest_abi::meta::{FunctionMeta, TypeMeta};
use serde_json::{json, Value as Json};
use std::path::PathBuf;
use std::sync::Arc;

/// Default most calls in one sequence.
pub const MAX_CALLS: usize = 64;

/// The C side of one operation, for generated code.
#[derive(Clone, Debug)]
pub struct OpC {
    /// The return type as the source spells it (`struct stack *`, `int`).
    pub ret_c: String,
    /// Each parameter's type as the source spells it.
    pub params_c: Vec<String>,
    /// `int stack_push(struct stack *s, int x)`.
    pub prototype: String,
    /// For the allocation of a caller-allocated object: its C type and size in bytes (the
    /// operation is `calloc`, not a function of the sources).
    pub alloc: Option<(String, u64)>,
}

/// See module docs.
#[derive(Clone, Debug)]
pub struct SequenceFrontend {
    pub model: Arc<SequenceModel>,
    pub c: Vec<OpC>,
    pub domain: Domain,
    describe: String,
    /// Functions left out, with the reason, for the notes.
    pub left_out: Vec<String>,
    /// The sources, which `tests.c` includes.
    pub sources: Vec<PathBuf>,
    pub cflags: Vec<String>,
    /// The built executable, which [`harness::replay`] runs to log a sequence for `tests.c`.
    pub exe: Option<PathBuf>,
    /// What a replay by hand ([`harness::replay`]) gets: the per-call branch-event limit
    /// (`--max-branch-events`, 0 = none) and the time after which it is killed.
    pub replay_limits: (u32, std::time::Duration),
    /// The logs of the replays made so far, by input ([`SequenceFrontend::logged`]): the console's
    /// lists and `tests.c` ask for the same faults' calls, and a hanging one costs its time limit.
    replays: std::sync::Arc<
        std::sync::Mutex<std::collections::HashMap<Vec<u8>, Vec<harness::LoggedCall>>>,
    >,
}

/// Whether `key` names an object of the C library's own (`FILE`, `DIR`, `pthread_mutex_t`, …):
/// only the library makes a valid one, never a zeroed block.
fn libc_object(key: &str) -> bool {
    let k = key.trim_start_matches("struct ");
    matches!(
        k,
        "FILE" | "DIR" | "_IO_FILE" | "jmp_buf" | "sigjmp_buf" | "va_list" | "fpos_t" | "mbstate_t"
    ) || k.starts_with("pthread_")
        || k.starts_with("__")
}

/// A caller-allocated object type: its key ([`pointee_key`]) and its handle types, uninitialized
/// (when it has an initializer) and ready.
struct Alloc {
    key: String,
    raw: Option<usize>,
    ready: usize,
}

/// A pointer type's key as a handle type: its pointee's spelling without qualifiers (`struct
/// stack`), `void` for `void *`; a named structure reached through a typedef by its tag
/// (`counter_t` and `struct counter` are one handle type).
fn pointee_key(t: &TypeMeta) -> Option<String> {
    let strip = |s: &str| {
        s.replace("const ", "")
            .replace("volatile ", "")
            .replace(" const", "")
            .trim()
            .to_string()
    };
    match &t.pointee {
        Some(p) => Some(strip(p.canonical.as_deref().unwrap_or(&p.c_spelling))),
        None if t.ir == "ptr" || t.c_spelling.trim_end().ends_with('*') => Some("void".to_string()),
        None => None,
    }
}

fn scalar_of(t: &TypeMeta) -> Option<ScalarType> {
    t.scalar.as_ref().and_then(ScalarType::from_meta)
}

/// A byte type (`char`, `unsigned char`, `uint8_t`, a typedef of one such as expat's
/// `XML_Char`): its pointers are strings.
fn is_char(t: &TypeMeta) -> bool {
    matches!(scalar_of(t), Some(ScalarType::I8 | ScalarType::U8))
}

fn spelling(t: &TypeMeta) -> String {
    let s = t.c_spelling.trim();
    if s.is_empty() {
        if t.ir == "void" {
            "void".into()
        } else {
            "void *".into()
        }
    } else {
        s.to_string()
    }
}

impl SequenceFrontend {
    /// The API of `functions` (the sources' external functions, their `main` left out), narrowed
    /// to the names matching one of `patterns` (globs with `*` and `?`; empty = all), with at
    /// most `max_calls` calls per sequence.
    ///
    /// A function is an operation when evotest can call it: scalar parameters, strings (`char
    /// *`), pointers of a type some operation returns (handles), pointers to other scalars
    /// (out-parameters); a scalar, pointer or `void` return. The others are left out with a
    /// note.
    ///
    /// Errors (one line): C++ sources, no operation left, or more than 255.
    pub fn new(
        functions: &[&FunctionMeta],
        patterns: &[String],
        max_calls: usize,
        sources: &[PathBuf],
    ) -> Result<SequenceFrontend> {
        if let Some(f) = functions
            .iter()
            .find(|f| f.language.as_deref() == Some("c++"))
        {
            bail!(
                "--api tests C APIs; `{}` is C++ (test a C++ function with --function)",
                f.source_name.as_deref().unwrap_or(&f.name)
            );
        }
        let chosen: Vec<&FunctionMeta> = functions
            .iter()
            .copied()
            .filter(|f| f.name != evotest_abi::names::RENAMED_MAIN && f.external)
            .filter(|f| patterns.is_empty() || patterns.iter().any(|p| glob(p, &f.name)))
            .collect();
        let params_of =
            |f: &FunctionMeta| f.source_params.clone().unwrap_or_else(|| f.params.clone());
        // handle types: what the chosen functions return through pointers (not strings, not
        // `void *`: values of unknown type, memory or user data, are not interchangeable)
        let mut handle_types: Vec<String> = Vec::new();
        for f in &chosen {
            if !f.variadic && f.ret.composite.is_none() && !is_char_ptr(&f.ret) {
                if let Some(k) =
                    pointee_key(&f.ret).filter(|k| scalar_of(&f.ret).is_none() && k != "void")
                {
                    if !handle_types.contains(&k) {
                        handle_types.push(k);
                    }
                }
            }
        }
        // opaque `void *` handles (`void *ctr_new(void)`, `typedef void *kv_handle`): a function
        // returning `void *` that takes no pointer but strings makes one; the non-`const` `void
        // *` parameters of the others then take what such makers returned (a `void *` that a
        // getter of a typed handle returns, or that comes with a length, is still data)
        let void_maker = |f: &FunctionMeta| {
            !f.variadic
                && is_void_ptr(&f.ret)
                && params_of(f)
                    .iter()
                    .all(|p| pointee_key(&p.ty).is_none() || is_char_ptr(&p.ty))
        };
        if chosen.iter().any(|f| void_maker(f)) {
            handle_types.push("void".into());
        }
        let mut ops = Vec::new();
        let mut c = Vec::new();
        let mut left_out = Vec::new();
        // caller-allocated objects: structures the functions take by pointer that none returns
        // (`struct stack s; stack_init(&s);`), allocated zeroed; with an initializer (a function
        // named `…init…` taking it first), a fresh one goes to it before any other function
        let mut allocs: Vec<Alloc> = Vec::new();
        for f in &chosen {
            for p in params_of(f) {
                let Some(comp) = p.ty.pointee.as_deref().and_then(|t| t.composite.as_deref())
                else {
                    continue;
                };
                let Some(key) = pointee_key(&p.ty) else {
                    continue;
                };
                if handle_types.contains(&key)
                    || allocs.iter().any(|a| a.key == key)
                    || comp.size_bits == 0
                    || libc_object(&key)
                {
                    continue;
                }
                let init = chosen.iter().any(|g| {
                    g.name.to_ascii_lowercase().contains("init")
                        && params_of(g)
                            .first()
                            .and_then(|q| pointee_key(&q.ty))
                            .as_deref()
                            == Some(&key)
                });
                let raw = if init {
                    handle_types.push(format!("{key} (uninitialized)"));
                    Some(handle_types.len() - 1)
                } else {
                    None
                };
                handle_types.push(key.clone());
                let ready = handle_types.len() - 1;
                let c_type = key.clone();
                ops.push(Op {
                    name: format!("&({c_type}){{0}}"),
                    params: vec![],
                    ret: OpReturn::Handle(raw.unwrap_or(ready)),
                    destructor: false,
                    frees: sequence::Frees::Nothing,
                    promotes: None,
                });
                c.push(OpC {
                    ret_c: format!("{c_type} *"),
                    params_c: vec![],
                    prototype: format!("{c_type} *calloc(1, sizeof({c_type}))"),
                    alloc: Some((c_type, comp.size_bits / 8)),
                });
                // a function of the sources that returns it, left out by the globs: its objects
                // are the library's to make, and a zeroed one may break what they promise
                let makers: Vec<&str> = functions
                    .iter()
                    .filter(|g| {
                        g.external
                            && !chosen.iter().any(|c| c.name == g.name)
                            && pointee_key(&g.ret).as_deref() == Some(&key)
                    })
                    .map(|g| g.name.as_str())
                    .collect();
                if !makers.is_empty() {
                    left_out.push(format!(
                        "api: `{key}` is given to the functions called as a zeroed block, as a caller-allocated object, since {} that \
                         make{} one {} left out by --api's list: a crash reached through it may be misuse of the API (add {} to the list)",
                        makers.iter().map(|m| format!("`{m}`")).collect::<Vec<_>>().join(", "),
                        if makers.len() == 1 { "s" } else { "" },
                        if makers.len() == 1 { "is" } else { "are" },
                        if makers.len() == 1 { "it" } else { "them" },
                    ));
                }
                allocs.push(Alloc { key, raw, ready });
            }
        }
        for f in &chosen {
            let why = |w: String| format!("api: `{}` left out: {w}", f.name);
            if f.variadic {
                left_out.push(why("it is variadic".into()));
                continue;
            }
            let ret = if f.ret.ir == "void"
                && scalar_of(&f.ret).is_none()
                && f.ret.pointee.is_none()
                && !f.ret.c_spelling.contains('*')
            {
                OpReturn::Void
            } else if let Some(t) = scalar_of(&f.ret) {
                OpReturn::Scalar(t)
            } else if f.ret.composite.is_some() {
                left_out.push(why(format!("it returns `{}` by value", spelling(&f.ret))));
                continue;
            } else if void_maker(f) {
                OpReturn::Handle(
                    handle_types
                        .iter()
                        .position(|h| h == "void")
                        .expect("collected above"),
                )
            } else if is_char_ptr(&f.ret) || pointee_key(&f.ret).as_deref() == Some("void") {
                // called, its pointer not kept
                OpReturn::Void
            } else if let Some(k) = pointee_key(&f.ret) {
                OpReturn::Handle(
                    handle_types
                        .iter()
                        .position(|h| *h == k)
                        .expect("collected above"),
                )
            } else {
                left_out.push(why(format!("it returns `{}`", spelling(&f.ret))));
                continue;
            };
            let mut params = Vec::new();
            let mut params_c = Vec::new();
            let mut bad = None;
            let ps = params_of(f);
            // a function that frees or reallocates memory it is given (`pool_free(p, ptr)`,
            // `mem_realloc(p, ptr, size)`) must not get the tester's own blocks: what each
            // parameter's value goes to, from the pass's data flow, or by the function's name
            // where that is not known
            let by_name = sequence::destructor_name(&f.name)
                || f.name.to_ascii_lowercase().contains("realloc");
            let fates: Vec<Fate> = (0..ps.len())
                .map(|j| match ir_index(f, &ps, j) {
                    Some(i) => param_fate(functions, f, i),
                    None => Fate::Unknown,
                })
                .collect();
            let frees_at = |j: usize| match fates[j] {
                Fate::Freed => true,
                Fate::Kept => false,
                Fate::Unknown => by_name,
            };
            for (pi, p) in ps.iter().enumerate() {
                // a pointer to scalars (not a handle) followed by a length-named integer: a buffer
                let frees = frees_at(pi);
                let buffer_elem = |p: &evotest_abi::meta::ParamMeta| {
                    let key = pointee_key(&p.ty)?;
                    if (handle_types.contains(&key) && key != "void") || frees {
                        return None;
                    }
                    match p.ty.pointee.as_deref() {
                        // `const void *` has a pointee, `const void`, of no scalar type: bytes
                        // too (it was a zeroed scratch block, with its length any integer)
                        _ if key == "void" => Some(ScalarType::U8),
                        Some(t) => scalar_of(t).filter(|t| *t != ScalarType::Bool),
                        None => Some(ScalarType::U8), // void *
                    }
                };
                let len_int = |l: &evotest_abi::meta::ParamMeta| {
                    matches!(scalar_of(&l.ty), Some(t) if !t.is_float() && t != ScalarType::Bool)
                        && crate::frontend::function::shape::length_like(&l.name)
                };
                if pi > 0 && matches!(params.last(), Some((_, ArgKind::Buffer(_)))) && len_int(p) {
                    params_c.push(spelling(&p.ty));
                    params.push((
                        p.name.clone(),
                        ArgKind::LengthOf(pi - 1, scalar_of(&p.ty).expect("an integer")),
                    ));
                    continue;
                }
                if let (Some(t), Some(l)) = (buffer_elem(p), ps.get(pi + 1)) {
                    if len_int(l) {
                        params_c.push(spelling(&p.ty));
                        params.push((p.name.clone(), ArgKind::Buffer(t)));
                        continue;
                    }
                }
                let kind = if let Some(t) = scalar_of(&p.ty) {
                    ArgKind::Scalar(t)
                } else if p.ty.composite.is_some() {
                    bad = Some(format!(
                        "parameter `{}` is a `{}` by value",
                        p.name,
                        spelling(&p.ty)
                    ));
                    break;
                } else if is_char_ptr(&p.ty) {
                    ArgKind::Str
                } else if let Some(k) = pointee_key(&p.ty) {
                    // `const void *` is data the callee reads, never an opaque handle
                    let handle = if k == "void" && is_const_ptr(&p.ty) {
                        None
                    } else {
                        handle_types.iter().position(|h| *h == k)
                    };
                    match handle {
                        Some(i) => ArgKind::Handle(i),
                        // memory the callee frees or moves cannot be the tester's zeroed block
                        None if frees => {
                            bad = Some(format!(
                                "it frees or reallocates `{}`, a `{}` no operation returns",
                                p.name,
                                spelling(&p.ty)
                            ));
                            break;
                        }
                        // user data (`void *`) or an out-parameter: a zeroed block
                        None if k == "void" => ArgKind::Scratch(ScalarType::U8),
                        None => match p.ty.pointee.as_deref().and_then(scalar_of) {
                            Some(t) => ArgKind::Scratch(t),
                            None if is_function_ptr(&p.ty) => {
                                bad = Some(format!(
                                    "parameter `{}` is a function pointer (`{}`): --api passes no callbacks",
                                    p.name,
                                    spelling(&p.ty)
                                ));
                                break;
                            }
                            None => {
                                bad = Some(format!(
                                    "parameter `{}` is a `{}`, which no operation returns",
                                    p.name,
                                    spelling(&p.ty)
                                ));
                                break;
                            }
                        },
                    }
                } else {
                    bad = Some(format!(
                        "parameter `{}` has type `{}`",
                        p.name,
                        spelling(&p.ty)
                    ));
                    break;
                };
                params_c.push(spelling(&p.ty));
                params.push((p.name.clone(), kind));
            }
            let _ = &ps;
            if let Some(b) = bad {
                left_out.push(why(b));
                continue;
            }
            // an initializer takes a fresh object first and makes it usable by the others
            let mut promotes = None;
            if f.name.to_ascii_lowercase().contains("init") {
                let first = params.first().and_then(|(_, k)| {
                    if let ArgKind::Handle(t) = k {
                        Some(*t)
                    } else {
                        None
                    }
                });
                if let Some((raw, ready)) = allocs.iter().find_map(|a| {
                    a.raw
                        .filter(|_| Some(a.ready) == first)
                        .map(|r| (r, a.ready))
                }) {
                    params[0].1 = ArgKind::Handle(raw);
                    promotes = Some((0, ready));
                }
            }
            // which handle it frees, from the data flow when every handle parameter's fate is
            // known (`ivs_iter_end(it)` calling `free(it)`; not `door_close(d)`, which only
            // sets a flag), by name otherwise
            let handles: Vec<usize> = (0..params.len())
                .filter(|&j| matches!(params[j].1, ArgKind::Handle(_)))
                .collect();
            let frees = match handles.iter().rev().find(|&&j| fates[j] == Fate::Freed) {
                Some(&j) => sequence::Frees::Param(j),
                None if handles.iter().all(|&j| fates[j] == Fate::Kept) => sequence::Frees::Nothing,
                None => sequence::Frees::ByName,
            };
            let destructor = match frees {
                sequence::Frees::Param(_) => !matches!(ret, OpReturn::Handle(_)),
                sequence::Frees::Nothing => false,
                sequence::Frees::ByName => {
                    ret == OpReturn::Void
                        && fe_void(&f.ret)
                        && !handles.is_empty()
                        && sequence::destructor_name(&f.name)
                }
            };
            let ret_c = spelling(&f.ret);
            let decl: Vec<String> = params
                .iter()
                .zip(&params_c)
                .map(|((n, _), t)| declarator(t, n))
                .collect();
            let prototype = declarator(
                &ret_c,
                &format!(
                    "{}({})",
                    f.name,
                    if decl.is_empty() {
                        "void".into()
                    } else {
                        decl.join(", ")
                    }
                ),
            );
            ops.push(Op {
                name: f.name.clone(),
                params,
                ret,
                destructor,
                frees,
                promotes,
            });
            c.push(OpC {
                ret_c,
                params_c,
                prototype,
                alloc: None,
            });
        }
        // a handle type that no operation left makes (its constructor takes a callback, returns
        // through `T **`, …): the functions that need one could never be called, so they are
        // left out with the reason, to a fixed point (removing one may remove a maker)
        loop {
            let made: Vec<usize> = ops
                .iter()
                .flat_map(|o: &Op| {
                    let ret = match o.ret {
                        OpReturn::Handle(t) => Some(t),
                        _ => None,
                    };
                    ret.into_iter().chain(o.promotes.map(|(_, to)| to))
                })
                .collect();
            let Some((oi, t)) = ops.iter().enumerate().find_map(|(oi, o)| {
                o.params.iter().find_map(|(n, k)| match k {
                    ArgKind::Handle(t) if !made.contains(t) => Some((oi, (n.clone(), *t))),
                    _ => None,
                })
            }) else {
                break;
            };
            let (pname, ht) = t;
            let key = handle_types[ht]
                .trim_end_matches(" (uninitialized)")
                .to_string();
            let makers: Vec<String> = functions
                .iter()
                .filter(|g| pointee_key(&g.ret).as_deref() == Some(key.as_str()))
                .map(|g| format!("`{}`", g.name))
                .collect();
            let name = ops[oi].name.clone();
            left_out.push(format!(
                "api: `{name}` left out: parameter `{pname}` is a `{key} *`, which no operation called makes{}",
                if makers.is_empty() {
                    String::new()
                } else {
                    format!(" ({} returns one but is itself left out)", makers.join(", "))
                }
            ));
            ops.remove(oi);
            c.remove(oi);
        }
        if ops.is_empty() {
            let what = if chosen.is_empty() {
                "no external function matches".to_string()
            } else {
                left_out.join("; ")
            };
            bail!("--api: no function of the sources can be called as an operation ({what})");
        }
        if ops.len() > 255 {
            bail!(
                "--api: {} operations; at most 255 (narrow them with --api 'PREFIX*')",
                ops.len()
            );
        }
        let model = Arc::new(SequenceModel {
            ops,
            handle_types,
            max_calls: max_calls.max(1),
        });
        let domain = Domain {
            len: model.max_len(),
            sequence: Some(model.clone()),
            ..Default::default()
        };
        let describe = format!(
            "the API of {} ({} operations)",
            sources
                .iter()
                .map(|s| s.display().to_string())
                .collect::<Vec<_>>()
                .join(" "),
            model.ops.len()
        );
        Ok(SequenceFrontend {
            model,
            c,
            domain,
            describe,
            left_out,
            sources: sources.to_vec(),
            cflags: vec![],
            exe: None,
            replay_limits: (0, std::time::Duration::from_secs(2)),
            replays: Default::default(),
        })
    }

    /// The calls of `input` for people: `v0 = stack_new(4); stack_push(v0, 3)`, each handle named
    /// after the call that made it, assuming every constructor returned a value (the run may
    /// differ: `tests.c` shows what it did).
    pub fn display_calls(&self, input: &Input) -> String {
        self.display_calls_with(input, 0)
    }

    /// [`SequenceFrontend::display_calls`] knowing the calls that returned NULL (as
    /// [`SequenceModel::live_after_with`]): those show `= NULL or a value already held`.
    pub fn display_calls_with(&self, input: &Input, nulls: u64) -> String {
        self.display_calls_upto(input, nulls, usize::MAX)
    }

    /// [`SequenceFrontend::display_calls_with`], only the first `upto` of the input's calls
    /// (made or skipped): those a run that ended in a fault reached.
    fn display_calls_upto(&self, input: &Input, nulls: u64, upto: usize) -> String {
        let m = &self.model;
        let calls = m.parse(&input.bytes);
        let mut out = Vec::new();
        for (ci, c) in calls.iter().enumerate().take(upto) {
            let live = m.live_after_with(&calls[..ci], nulls);
            let counts: Vec<usize> = live.iter().map(Vec::len).collect();
            if !m.callable(c.op, &counts) {
                continue;
            }
            let op = &m.ops[c.op];
            let args: Vec<String> = op
                .params
                .iter()
                .zip(&c.args)
                .map(|((_, k), a)| match (k, a) {
                    (ArgKind::Handle(t), Arg::Handle(i)) => {
                        format!("v{}", live[*t][*i as usize % live[*t].len()])
                    }
                    (ArgKind::Scalar(t), Arg::Scalar(v)) => DisplayValue(*t, *v).to_string(),
                    (_, Arg::Str(s)) => super::bytes::escape(s, sequence::MAX_STR),
                    (ArgKind::Buffer(t), Arg::Buffer(b)) if t.size() == 1 => {
                        super::bytes::escape(b, sequence::MAX_BUF)
                    }
                    (ArgKind::Buffer(t), Arg::Buffer(b)) => format!(
                        "[{}]",
                        sequence::buffer_values(*t, b)
                            .into_iter()
                            .map(|v| DisplayValue(*t, v).to_string())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                    (ArgKind::LengthOf(b, _), _) => match (&op.params[*b].1, &c.args[*b]) {
                        (ArgKind::Buffer(t), Arg::Buffer(bytes)) => {
                            (bytes.len() / t.size()).to_string()
                        }
                        _ => "0".to_string(),
                    },
                    _ => "&out".to_string(),
                })
                .collect();
            let null = ci < 64 && (nulls >> ci) & 1 == 1;
            let lhs = if matches!(op.ret, OpReturn::Handle(_)) && !null {
                format!("v{ci} = ")
            } else {
                String::new()
            };
            // no new value: NULL, or a value given to a call that returns its type and does not
            // replace it (`dup(v)` returning `v`); one that replaces it gave the value up first
            let may_return_given = match op.ret {
                OpReturn::Handle(t) => {
                    op.consumes().is_none()
                        && op
                            .params
                            .iter()
                            .any(|(_, k)| matches!(k, ArgKind::Handle(u) if *u == t))
                }
                _ => false,
            };
            let rhs = match (&op.ret, null) {
                (OpReturn::Handle(_), true) if may_return_given => {
                    " = NULL or a value it was given"
                }
                // the harness keeps no value twice: a block the library freed and malloc
                // handed out again, or a singleton, reads as no new value
                (OpReturn::Handle(_), true) => " = NULL or a value already held",
                _ => "",
            };
            if self.c[c.op].alloc.is_some() {
                // a caller-allocated object: `v0 = &(struct stack){0}`
                out.push(format!("{lhs}{}", op.name));
                continue;
            }
            out.push(format!("{lhs}{}({}){rhs}", op.name, args.join(", ")));
        }
        if out.is_empty() {
            "(no call)".into()
        } else {
            out.join("; ")
        }
    }
}

impl SequenceFrontend {
    /// The call log of a run by hand of the executable on `bytes` ([`harness::replay`], under
    /// [`SequenceFrontend::replay_limits`]), made once per input; `None` when there is no
    /// executable or it cannot be run.
    pub fn logged(&self, bytes: &[u8]) -> Option<Vec<harness::LoggedCall>> {
        if let Some(l) = self.replays.lock().ok().and_then(|m| m.get(bytes).cloned()) {
            return Some(l);
        }
        let exe = self.exe.as_deref()?;
        let (events, timeout) = self.replay_limits;
        // twice, in two processes: a number that differs (memory never written, an address) is
        // not compared by tests.c
        let log = harness::replay(exe, bytes, timeout, events).ok()?;
        let log = match harness::replay(exe, bytes, timeout, events) {
            Ok(again) => harness::mark_varying(log, &again),
            Err(_) => log,
        };
        if let Ok(mut m) = self.replays.lock() {
            m.insert(bytes.to_vec(), log.clone());
        }
        Some(log)
    }

    /// What the harness's call log `log` ([`harness::parse_log`]) of a run of `input` says: the
    /// mask of the input's calls that returned NULL ([`sequence::null_mask`]'s bits: a call's
    /// index among the input's calls, made or skipped), and how many of the input's calls the run
    /// reached: up to and including a call that did not return (a fault), or every call.
    fn nulls_from_log(&self, input: &Input, log: &[harness::LoggedCall]) -> (u64, usize) {
        let m = &self.model;
        let calls = m.parse(&input.bytes);
        let (mut nulls, mut k) = (0u64, 0usize);
        for ci in 0..calls.len() {
            let live = m.live_after_with(&calls[..ci], nulls);
            let counts: Vec<usize> = live.iter().map(Vec::len).collect();
            if !m.callable(calls[ci].op, &counts) {
                continue;
            }
            let Some(l) = log.get(k) else {
                // the run ended before this call
                return (nulls, ci);
            };
            k += 1;
            match &l.ret {
                None => return (nulls, ci + 1),
                Some(harness::LoggedRet::Handle(None)) if ci < 64 => nulls |= 1 << ci,
                _ => {}
            }
        }
        (nulls, calls.len())
    }

    /// The calls of `input` that ended in a fault, as a run by hand makes them (which returned
    /// NULL, and none after the one that did not return); [`SequenceFrontend::display_calls`]
    /// when the executable cannot be run.
    fn fault_text(&self, input: &Input) -> String {
        match self.logged(&input.bytes) {
            Some(log) if !log.is_empty() => {
                let (nulls, upto) = self.nulls_from_log(input, &log);
                self.display_calls_upto(input, nulls, upto)
            }
            _ => self.display_calls(input),
        }
    }
}

/// Whether `t` is `void` (not a pointer evotest calls as `void`).
fn fe_void(t: &TypeMeta) -> bool {
    t.ir == "void" && t.pointee.is_none() && !t.c_spelling.contains('*')
}

/// What a function does with the value of one of its parameters, as far as the pass's data flow
/// ([`FunctionMeta::param_calls`]) tells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fate {
    /// Given to `free` or `realloc`, directly or through functions of the sources.
    Freed,
    /// Never given to a call that may free it.
    Kept,
    /// Given to a call through a pointer, or to a function outside the sources named like a
    /// deallocator (`pool_release`).
    Unknown,
}

/// The C library's functions that free or move the block given as their first argument.
const DEALLOCATORS: [&str; 3] = ["free", "realloc", "reallocarray"];

/// The fate of IR parameter `i` of `f` (see [`Fate`]), following the calls it is given to
/// through the functions of `all` (recursion counts as keeping it).
fn param_fate(all: &[&FunctionMeta], f: &FunctionMeta, i: u32) -> Fate {
    fn walk(
        all: &[&FunctionMeta],
        f: &FunctionMeta,
        i: u32,
        seen: &mut Vec<(String, u32)>,
    ) -> Fate {
        if seen.iter().any(|(n, k)| *n == f.name && *k == i) {
            return Fate::Kept;
        }
        seen.push((f.name.clone(), i));
        let mut unknown = false;
        for c in f.param_calls.iter().filter(|c| c.param == i) {
            if c.arg == 0 && DEALLOCATORS.contains(&c.callee.as_str()) {
                return Fate::Freed;
            }
            match all.iter().find(|g| g.name == c.callee) {
                Some(g) => match walk(all, g, c.arg, seen) {
                    Fate::Freed => return Fate::Freed,
                    Fate::Unknown => unknown = true,
                    Fate::Kept => {}
                },
                None => unknown |= c.callee.is_empty() || sequence::destructor_name(&c.callee),
            }
        }
        if unknown {
            Fate::Unknown
        } else {
            Fate::Kept
        }
    }
    walk(all, f, i, &mut Vec::new())
}

/// The IR parameter index of source parameter `j` of `f` (`ps`: its source parameters): the
/// same index when the pass gave no separate source parameters, else the IR parameter of the
/// same name.
fn ir_index(f: &FunctionMeta, ps: &[evotest_abi::meta::ParamMeta], j: usize) -> Option<u32> {
    if f.source_params.is_none() {
        return Some(j as u32);
    }
    let name = &ps.get(j)?.name;
    f.params
        .iter()
        .position(|p| p.name == *name)
        .map(|i| i as u32)
}

/// A pointer to a function (a callback): the pass spells a subroutine type `function`.
fn is_function_ptr(t: &TypeMeta) -> bool {
    t.pointee
        .as_deref()
        .is_some_and(|p| p.c_spelling.trim() == "function")
}

/// `void *` (also through a typedef), not `char *`.
fn is_void_ptr(t: &TypeMeta) -> bool {
    scalar_of(t).is_none()
        && t.composite.is_none()
        && !is_char_ptr(t)
        && pointee_key(t).as_deref() == Some("void")
}

/// A pointer to `const` (`const void *`, `const struct s *`).
fn is_const_ptr(t: &TypeMeta) -> bool {
    crate::frontend::function::shape::points_to_const(&t.c_spelling)
}

fn is_char_ptr(t: &TypeMeta) -> bool {
    t.pointee.as_deref().is_some_and(is_char)
}

/// `int x`, `struct s *p`, `char *name` (a pointer's `*` next to the name).
pub fn declarator(ty: &str, name: &str) -> String {
    if ty.ends_with('*') {
        format!("{ty}{name}")
    } else {
        format!("{ty} {name}")
    }
}

/// Whether `name` matches `pattern` (`*` any run of characters, `?` one).
pub fn glob(pattern: &str, name: &str) -> bool {
    fn go(p: &[u8], n: &[u8]) -> bool {
        match (p.first(), n.first()) {
            (None, None) => true,
            (Some(b'*'), _) => go(&p[1..], n) || (!n.is_empty() && go(p, &n[1..])),
            (Some(b'?'), Some(_)) => go(&p[1..], &n[1..]),
            (Some(a), Some(b)) if a == b => go(&p[1..], &n[1..]),
            _ => false,
        }
    }
    go(pattern.as_bytes(), name.as_bytes())
}

impl Frontend for SequenceFrontend {
    fn domain(&self) -> &Domain {
        &self.domain
    }
    fn name(&self) -> &str {
        "api"
    }
    fn describe(&self) -> &str {
        &self.describe
    }
    fn display(&self, input: &Input) -> String {
        self.display_calls(input)
    }
    fn call_text(&self, input: &Input, ret: Option<&crate::exec::RetVal>) -> String {
        // each call's value is in tests.c; the harness returns the calls that returned NULL; a
        // fault returns nothing, so a run by hand says which calls it made
        match ret {
            Some(_) => self.display_calls_with(input, sequence::null_mask(ret)),
            None => self.fault_text(input),
        }
    }
    fn json(&self, input: &Input) -> Json {
        let calls: Vec<Json> = self
            .model
            .parse(&input.bytes)
            .iter()
            .map(|c| {
                let op = &self.model.ops[c.op];
                let args: Vec<Json> = op
                    .params
                    .iter()
                    .zip(&c.args)
                    .map(|((n, _), a)| {
                        let v = match a {
                            Arg::Scalar(v) => serde_json::to_value(v).unwrap_or(Json::Null),
                            Arg::Handle(i) => json!({ "value_byte": i }),
                            Arg::Str(s) => json!(String::from_utf8_lossy(s)),
                            Arg::Scratch => json!("out"),
                            Arg::Length => json!("length"),
                            Arg::Buffer(b) => json!({ "hex": crate::util::hex(b) }),
                        };
                        json!({ "name": n, "value": v })
                    })
                    .collect();
                json!({ "op": op.name, "args": args })
            })
            .collect();
        json!({ "calls": calls, "text": self.display_calls(input) })
    }
    fn params_json(&self) -> Json {
        json!({
            "kind": "api",
            "max_calls": self.model.max_calls,
            "operations": self.c.iter().map(|c| c.prototype.clone()).collect::<Vec<_>>(),
            "destructors": self.model.ops.iter().filter(|o| o.destructor).map(|o| o.name.clone()).collect::<Vec<_>>(),
        })
    }
    fn peer_harness(
        &self,
        peer: super::Peer,
        _encoding: crate::input::mapped::PeerEncoding,
    ) -> Option<String> {
        Some(harness::generate_peer(self, peer))
    }
    fn replay_program(&self, inputs: &[Input]) -> Option<String> {
        Some(harness::replay_program(self, inputs))
    }
    fn test_file(&self, file: &TestFile) -> Option<(String, String)> {
        Some(("tests.c".to_string(), harness::render_tests(self, file)))
    }
    fn called_functions(&self) -> Option<Vec<String>> {
        // the operations that are functions (not a caller-allocated object's zeroed block)
        Some(
            self.model
                .ops
                .iter()
                .zip(&self.c)
                .filter(|(_, c)| c.alloc.is_none())
                .map(|(o, _)| o.name.clone())
                .collect(),
        )
    }
    fn notes(&self) -> Vec<String> {
        let mut n = self.left_out.clone();
        let d: Vec<String> = self
            .model
            .ops
            .iter()
            .filter(|o| o.destructor)
            .map(|o| {
                if o.frees == sequence::Frees::ByName {
                    format!("`{}` (by name)", o.name)
                } else {
                    format!(
                        "`{}` (it frees `{}`)",
                        o.name,
                        o.freed().map_or("", |(j, _)| o.params[j].0.as_str())
                    )
                }
            })
            .collect();
        if !d.is_empty() {
            n.push(format!(
                "api: {} taken as destructor{}: a value passed to one is never used again",
                d.join(", "),
                if d.len() == 1 { "" } else { "s" }
            ));
        }
        let c: Vec<&str> = self
            .model
            .ops
            .iter()
            .filter(|o| o.consumes().is_some())
            .map(|o| o.name.as_str())
            .collect();
        if !c.is_empty() {
            n.push(format!(
                "api: {} return{} a value of a type {} given, taken to replace it (`v = grow(v, x)`, as `realloc` does): \
                 later calls use the value returned",
                c.iter().map(|s| format!("`{s}`")).collect::<Vec<_>>().join(", "),
                if c.len() == 1 { "s" } else { "" },
                if c.len() == 1 { "it is" } else { "they are" }
            ));
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_names() {
        assert!(glob("stack_*", "stack_push"));
        assert!(glob("*", "x"));
        assert!(glob("s?ack*", "stack"));
        assert!(!glob("stack_*", "queue_push"));
        assert_eq!(declarator("struct s *", "p"), "struct s *p");
        assert_eq!(declarator("int", "x"), "int x");
    }
}
