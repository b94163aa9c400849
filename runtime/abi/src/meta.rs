//! Static metadata of one instrumented translation unit (module), written by the pass and read
//! by the engine.
//!
//! **Where it lives.** The pass serialises a [`ModuleMeta`] as JSON and stores it, framed by
//! [`frame`], in a constant global placed in the ELF section `evotest_meta` (kept by `llvm.used`,
//! so it survives `--gc-sections`). The linker concatenates the sections of all units, so the
//! finished executable carries the metadata of every instrumented unit it contains; the engine
//! reads the section with the `object` crate and splits it with [`unframe_all`]. We chose a
//! section over a sidecar file so that metadata cannot get out of step with the binary it
//! describes, and so that binaries linked by foreign build systems (libFuzzer harnesses) need no
//! extra files.
//!
//! **Numbering.** Sites and outcomes are numbered locally per module (0..n). At run time each
//! module registers itself and is given global bases (see [`crate::shm::ModuleEntry`]), so IDs stay
//! unique however many units are linked. Module IDs are a 64-bit FNV-1a hash of the metadata.

use crate::pred::Pred;
use serde::{Deserialize, Serialize};

/// Version of the metadata format; bumped on incompatible change.
pub const META_VERSION: u32 = 1;
/// Magic that starts each framed blob in the section.
pub const FRAME_MAGIC: [u8; 8] = *b"EVOTMETA";

/// Metadata of one instrumented module.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ModuleMeta {
    pub version: u32,
    /// Filled in after serialisation of the rest (hash of it); see module docs.
    pub module_id: u64,
    /// The module's source file name as clang recorded it.
    pub source_file: String,
    pub functions: Vec<FunctionMeta>,
    /// Sites by local ID (`sites[i].id == i`).
    pub sites: Vec<SiteMeta>,
    /// Total outcomes of all sites (sum of `n_outcomes`).
    pub n_outcomes: u32,
    /// Integer and float constants that appear as compare operands or switch cases in the module:
    /// a seed pool for the search (after Anjum & Ryan's (2021) constant-seeded grammar).
    #[serde(default)]
    pub constants: Vec<ConstantMeta>,
    /// Variables whose definitions are tracked (by local ID).
    #[serde(default)]
    pub vars: Vec<VarMeta>,
    /// Definition sites (by local ID).
    #[serde(default)]
    pub defs: Vec<DefMeta>,
    /// Source decisions of more than one atomic condition (short-circuit chains of `&&`/`||`,
    /// non-short-circuit `&`/`|` of compares), for condition-decision coverage (Anjum & Ryan
    /// 2021). A decision of one condition is implicit: every `br`/`select` site that is neither a
    /// condition nor the decision site of one of these.
    #[serde(default)]
    pub decisions: Vec<DecisionMeta>,
    /// Its mutable global variables ([`GlobalMeta`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub globals: Vec<GlobalMeta>,
    /// The names of its other mutable global variables of the source: those of a type
    /// [`GlobalMeta`] cannot describe (a pointer, a union, …), which cannot be inputs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub other_globals: Vec<String>,
    /// The names of its thread-local global variables of the source (`_Thread_local`,
    /// `thread_local`), also in `other_globals`: each thread has its own copy, which the harness
    /// does not set, so they cannot be inputs; for the error that names one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub thread_locals: Vec<String>,
    /// The symbols of its function-local `static` variables (`counter.calls`: the function, a
    /// dot, the variable), which cannot be inputs: for the error that names one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub local_statics: Vec<String>,
    /// The string literals its tables point to (`static const char *kw[] = {"if", …}`) and that
    /// its functions pass to calls other than output (`u == "admin"` on a `std::string`), for
    /// the string pools of the function-level searches (a name looked up through `bsearch`, or
    /// compared inside a library's code, is compared by no probe).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub table_strings: Vec<String>,
    /// Whether the module registered all its mutable global variables for restoring
    /// ([`crate::names::REGISTER_GLOBALS`]): false for a module with constructors of its own (a
    /// C++ dynamic initializer, `__attribute__((constructor))`), whose globals may point to memory
    /// those allocated, which a restored pointer could outlive, and for one with thread-local
    /// globals or globals in sections of their own, which the copy would miss. When some function
    /// writes a global, the engine has a persistent child restore the globals only if every
    /// module is restorable (a global written in one module may be defined in another), and
    /// otherwise forks a process per input.
    #[serde(default)]
    pub globals_restorable: bool,
}

/// How the conditions of a [`DecisionMeta`] were combined in the IR.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Hash)]
#[serde(rename_all = "snake_case")]
pub enum DecisionForm {
    /// `&&`/`||` lowered to conditional branches (an `if` condition at -O0): every condition is a
    /// `br` site, and the decision's outcome is decided by the last condition evaluated.
    Branches,
    /// `&&`/`||` lowered to a `phi` of `i1` (a loop condition, a `?:` condition, a value such as
    /// `return a || b`): the last condition is a [`SiteKind::Cond`] site before the join, and
    /// [`DecisionMeta::site`] is the branch, `select` or [`SiteKind::Cond`] site on the `phi`.
    Phi,
    /// `&` or `|` of compares (no short circuit): every condition is evaluated, each a
    /// [`SiteKind::Cond`] site; [`DecisionMeta::site`] branches on the combined value.
    And,
    /// See [`DecisionForm::And`].
    Or,
    /// A mix of `&` and `|` (see [`DecisionForm::And`]).
    Bitwise,
}

/// One source decision with more than one atomic condition (see [`ModuleMeta::decisions`]).
///
/// Coverage of its outcomes: outcome 0 (true) / 1 (false) of [`DecisionMeta::site`] when there is
/// one; otherwise any of [`DecisionMeta::ends`]`[0]` / `[1]`, the (site, outcome) pairs whose
/// taking ends the evaluation with the decision true / false.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct DecisionMeta {
    /// Index into `ModuleMeta::functions`.
    pub function: u32,
    pub file: String,
    pub line: u32,
    pub col: u32,
    /// Printable decision such as `a > 0 && (b < 5 || c == 1)`, rebuilt from the IR.
    pub text: String,
    pub form: DecisionForm,
    /// Local site IDs of its atomic conditions, in evaluation order.
    pub conditions: Vec<u32>,
    /// Local ID of the site whose outcomes are the decision's (true = outcome 0), if any.
    #[serde(default)]
    pub site: Option<u32>,
    /// `ends[0]`: (local site ID, outcome) pairs after which the decision is true; `ends[1]`: false.
    #[serde(default)]
    pub ends: [Vec<(u32, u32)>; 2],
}

/// What kind of storage a tracked variable is.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Hash)]
#[serde(rename_all = "snake_case")]
pub enum VarKind {
    /// A local (an `alloca` at -O0) with a source name.
    Local,
    /// A parameter's local copy (its first definition is the argument itself).
    Param,
    /// A global variable or function-local `static`.
    Global,
    /// The return value of a function: defined by the stores to its `retval` slot (or by its
    /// `ret`), used at every call site.
    Retval,
}

/// A variable whose definitions are tracked, for data dependence (reaching definitions and
/// the chaining approach, McMinn & Holcombe 2004).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct VarMeta {
    pub id: u32,
    pub name: String,
    pub kind: VarKind,
    /// Index into `ModuleMeta::functions` of the function it belongs to (`None` for globals).
    pub function: Option<u32>,
}

/// A definition site: an instruction that writes a tracked variable.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct DefMeta {
    pub id: u32,
    /// Local variable ID.
    pub var: u32,
    pub function: u32,
    pub block: u32,
    /// Position of the defining instruction in its block (instruction index).
    pub index: u32,
    pub file: String,
    pub line: u32,
    pub col: u32,
    /// Printable text such as `flag = 0` or `count = count + 1`.
    pub text: String,
    /// The store of a parameter's argument into its local copy at entry (always executed).
    pub param_init: bool,
    /// A write through an element (`a[i] = …`): it may define the variable but does not kill
    /// earlier definitions.
    pub partial: bool,
    /// Whether a probe reports it in the ordered trace (`param_init` definitions have none).
    pub probed: bool,
    /// Local IDs of the tracked variables the defined value is computed from (the chaining
    /// approach's influencing set).
    #[serde(default)]
    pub uses: Vec<u32>,
}

/// A constant harvested from a compare or switch, or a lattice step.
///
/// In JSON a float is a number when finite and one of the strings `"inf"`, `"-inf"` and `"nan"`
/// otherwise (JSON has no literal for them, and serde_json would write `null`, which does not read
/// back), as the engine does for input values.
///
/// Equality compares floats by bit pattern, so a NaN constant equals itself (the pass deduplicates
/// constants with `contains`, and a metadata round trip compares equal) and `0.0` and `-0.0` are
/// distinct constants.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", content = "value", rename_all = "snake_case")]
pub enum ConstantMeta {
    Int(i64),
    Float(#[serde(with = "json_f64")] f64),
    /// The step of a lattice the program's arithmetic lives on: the modulus or divisor of a
    /// `%` or `/` by a constant, 2^k for a shift by k, or for a mask the step that changes its
    /// lowest bit. Moving a value by a multiple of it keeps the remainder, quotient or masked
    /// bits it determines.
    Lattice(i64),
    /// A string literal compared with `strcmp`, `strncmp`, `memcmp` or `bcmp` (its bytes without
    /// the terminating NUL, as a string when they are UTF-8; the pass keeps only those).
    Str(String),
}

impl PartialEq for ConstantMeta {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (ConstantMeta::Int(a), ConstantMeta::Int(b)) => a == b,
            (ConstantMeta::Float(a), ConstantMeta::Float(b)) => a.to_bits() == b.to_bits(),
            (ConstantMeta::Lattice(a), ConstantMeta::Lattice(b)) => a == b,
            (ConstantMeta::Str(a), ConstantMeta::Str(b)) => a == b,
            _ => false,
        }
    }
}

/// Serde for an `f64` that may be infinite or NaN: finite values are numbers, the others the
/// strings `"inf"`, `"-inf"` and `"nan"`. Integers are read as floats.
pub mod json_f64 {
    use serde::{Deserializer, Serializer};

    pub fn serialize<S: Serializer>(f: &f64, s: S) -> Result<S::Ok, S::Error> {
        if f.is_nan() {
            s.serialize_str("nan")
        } else if f.is_infinite() {
            s.serialize_str(if *f > 0.0 { "inf" } else { "-inf" })
        } else {
            s.serialize_f64(*f)
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = f64;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a number, \"inf\", \"-inf\" or \"nan\"")
            }
            fn visit_f64<E>(self, v: f64) -> Result<f64, E> {
                Ok(v)
            }
            fn visit_i64<E>(self, v: i64) -> Result<f64, E> {
                Ok(v as f64)
            }
            fn visit_u64<E>(self, v: u64) -> Result<f64, E> {
                Ok(v as f64)
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<f64, E> {
                match v {
                    "inf" => Ok(f64::INFINITY),
                    "-inf" => Ok(f64::NEG_INFINITY),
                    "nan" => Ok(f64::NAN),
                    _ => Err(E::custom(format!("not a float: {v:?}"))),
                }
            }
        }
        d.deserialize_any(V)
    }
}

/// One defined function.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct FunctionMeta {
    /// Linkage name (after any renaming by the pass).
    pub name: String,
    /// False for `static` functions.
    pub external: bool,
    pub file: String,
    pub line: u32,
    pub params: Vec<ParamMeta>,
    pub ret: TypeMeta,
    /// True for variadic functions.
    pub variadic: bool,
    /// Basic blocks in layout order; block 0 is the entry.
    pub blocks: Vec<BlockMeta>,
    /// Names of the functions it calls directly (the call graph; indirect calls are not known).
    #[serde(default)]
    pub calls: Vec<String>,
    /// Names of the functions whose address its code uses other than as a direct call's callee:
    /// passed as an argument (`qsort(…, cmp)`), stored, or held in a global it refers to (a
    /// table of handlers, a C++ vtable), so possibly called through a pointer.
    /// [`Self::calls`] and these together over-approximate what it can call.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub address_refs: Vec<String>,
    /// Whether it stores to a global variable (or a function-local `static`), directly or through
    /// an address derived from one: state that could leak from one input to the next if inputs
    /// ran in the same process.
    #[serde(default)]
    pub writes_globals: bool,
    /// The source-level name from the `DISubprogram` (`samples::kinds::ints`,
    /// `samples::shapes::first_even::{closure#0}`), when it differs in kind from the linkage
    /// name (Rust's mangled symbols); `None` without debug info.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_name: Option<String>,
    /// The language of its compile unit (`rust`, `c`, `c++`), from debug info.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    /// The parameters as the source declares them (from the `DISubprogram`'s types and the
    /// parameters' debug records), with their structures described ([`TypeMeta::composite`]);
    /// given only when some parameter is a structure, union or class, or points to one or to a
    /// fixed-size array ([`TypeMeta::array`]), where
    /// the IR arguments of [`Self::params`] may split or coerce them (`struct { double w, h; }`
    /// by value is two `double` arguments on x86-64).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_params: Option<Vec<ParamMeta>>,
    /// The mutable global variables of the module it reads (loads from, directly or through an
    /// address derived from one), by name: inputs it does not take as parameters, which
    /// `evotest run --global NAME` makes fields of the input.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reads_globals: Vec<String>,
    /// Where its pointer parameters go: each direct or indirect call that is given a parameter's
    /// value (through the parameter's local copy, further locals it is copied to, and casts; not
    /// an address computed from it), once per (parameter, callee, argument). Which functions free
    /// or reallocate what they are given follows from it (`free(p)`, or a call that passes `p` on
    /// to one that does): the API frontend's destructors.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub param_calls: Vec<ParamCall>,
    /// Source lines of the function's indirect jumps (`goto *tbl[op]`, GNU C's computed goto):
    /// the labels such a jump may reach are no branch sites, so a report says what the coverage
    /// figure leaves out.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub indirect_jumps: Vec<u32>,
    /// The constants its own compares and switches use, as indices into
    /// [`ModuleMeta::constants`]: with [`Self::calls`], the seed pool of a search on this
    /// function and what it calls, without the constants of the module's unrelated functions.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub constants: Vec<u32>,
    /// The strings of tables and calls ([`ModuleMeta::table_strings`], as indices into it) that
    /// it uses: the literals it passes to calls and those of the tables (global initializers) its
    /// instructions refer to, directly or through a pointer to the table.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub strings: Vec<u32>,
}

/// A call that is given the value of a function's parameter ([`FunctionMeta::param_calls`]).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct ParamCall {
    /// The parameter's index among the IR parameters ([`FunctionMeta::params`]).
    pub param: u32,
    /// The function called, by symbol; empty for a call through a pointer.
    pub callee: String,
    /// The argument's index in the call.
    pub arg: u32,
}

impl FunctionMeta {
    /// The name a user knows the function by: the qualified source name of a C++ or Rust
    /// function (`geo::area`), else its symbol.
    pub fn display_name(&self) -> &str {
        match (&self.source_name, self.language.as_deref()) {
            (Some(n), Some("rust" | "c++")) if !n.is_empty() => n,
            _ => &self.name,
        }
    }
}

/// A mutable global variable defined in the module, with debug info (function-local `static`s
/// left out): what a harness needs to set it before each call (`evotest run --global NAME`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct GlobalMeta {
    /// Its symbol (a `static` one is given external linkage when `EVOTEST_EXPOSE` names it).
    pub name: String,
    /// Its type as the source declares it, structures described ([`TypeMeta::composite`]); for
    /// an array, the element type.
    pub ty: TypeMeta,
    /// For an array, its number of elements (all dimensions multiplied out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
    /// Whether the source declares it `static` (internal linkage, before the pass exposed it):
    /// code compiled from the sources without the pass, such as a `tests.c` that does not
    /// include its source, cannot reach it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub internal: bool,
}

/// A basic block and its place in the CFG.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct BlockMeta {
    /// Successor blocks (indices into `FunctionMeta::blocks`) in the terminator's successor order:
    /// `br`: [true, false]; `switch`: [default, case 0, case 1, …].
    pub succs: Vec<u32>,
    /// Local ID of the branch site that ends this block (a conditional `br` or `switch`), if any.
    /// Successor `i` is that site's outcome `i`.
    pub site: Option<u32>,
    /// Local IDs of `select` sites inside the block.
    #[serde(default)]
    pub selects: Vec<u32>,
    /// Source line of the block's first located instruction (0 when unknown).
    pub line: u32,
    /// The direct calls in the block, as indices into `FunctionMeta::calls`, one per call
    /// instruction in order (an index occurs twice when the block calls that function twice); for
    /// approach levels across calls and for counting how often a function may run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub calls: Vec<u32>,
}

/// What kind of instruction a site is.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Hash)]
#[serde(rename_all = "snake_case")]
pub enum SiteKind {
    Br,
    Switch,
    Select,
    /// A condition-only site: an atomic condition that is not a branch of its own (the last
    /// condition of a `&&`/`||` lowered to a `phi`, a compare under `&`/`|`, a compare stored in a
    /// variable), or the value of a `&&`/`||` used as a value. Probed for condition-decision
    /// coverage; branch coverage ignores it. Numbered after every other site of its module, so
    /// that the branch sites keep their IDs, and its probe does not count as a branch event.
    Cond,
}

impl SiteKind {
    /// Whether sites of this kind are branch-coverage goals (all but [`SiteKind::Cond`]).
    pub fn is_branch(self) -> bool {
        self != SiteKind::Cond
    }
}

/// One branch site: a decision with `n_outcomes` outcomes.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct SiteMeta {
    pub id: u32,
    /// Local index of outcome 0; outcome `k` of this site is `outcome_base + k`.
    pub outcome_base: u32,
    pub n_outcomes: u32,
    pub kind: SiteKind,
    /// Index into `ModuleMeta::functions`.
    pub function: u32,
    /// Index into that function's `blocks`.
    pub block: u32,
    pub file: String,
    pub line: u32,
    pub col: u32,
    /// Printable condition such as `a <= 0`, rebuilt from the IR and debug names.
    pub cond: String,
    /// The compare predicate, when the condition is an `icmp`/`fcmp`.
    pub pred: Option<Pred>,
    /// LLVM type of the compared operands (`i32`, `double`, `ptr`), or of the switch value.
    pub operand_type: String,
    /// Local IDs of the tracked variables the condition reads (a call reads its callee's
    /// [`VarKind::Retval`]).
    #[serde(default)]
    pub uses: Vec<u32>,
    /// Position in its block of the instruction the site's probe precedes (the terminator, or the
    /// `select`), for reaching definitions.
    #[serde(default)]
    pub index: u32,
    /// For a `switch`: the case values, in outcome order (outcome k + 1 is case k).
    #[serde(default)]
    pub case_values: Vec<i64>,
    /// For a compare of `strcmp`/`strncmp`/`memcmp`'s result with 0: the function's name (the
    /// probe then measures the distance between the compared strings).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub string_compare: Option<String>,
    /// Label of each outcome: `true`/`false`, or `default`/`case 3`.
    pub outcome_labels: Vec<String>,
    /// Set when one outcome of the site only leads to a panic or another call that does not
    /// return: a check the compiler (rustc's overflow, bounds, unwrap checks) or an assertion put
    /// there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check: Option<CheckMeta>,
}

/// A check site (see [`SiteMeta::check`]).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct CheckMeta {
    /// `overflow`, `div_by_zero`, `bounds`, `slice_index`, `str_index`, `unwrap`, `ub_check`,
    /// `pointer_check`, `alloc`, `unreachable` (compiler-inserted), `panic` (an explicit
    /// `panic!`/`assert!`), `noreturn` (any other call that does not return, e.g. C's
    /// `__assert_fail`).
    pub kind: String,
    /// The outcome that takes the failing path.
    pub outcome: u32,
    /// The called function (its linkage name), empty for `unreachable`.
    #[serde(default)]
    pub callee: String,
}

impl CheckMeta {
    /// Whether the compiler put the check there (as opposed to an explicit `panic!`, `assert!`
    /// or a call of a function that does not return, which the programmer wrote).
    pub fn is_compiler_inserted(&self) -> bool {
        !matches!(self.kind.as_str(), "panic" | "noreturn")
    }
}

/// A parameter of a function.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ParamMeta {
    /// Source name from debug info (`arg0`, `arg1`, … when there is none).
    pub name: String,
    pub ty: TypeMeta,
}

/// A type as the engine needs it: the C spelling for messages and generated C, plus the
/// canonical scalar it reduces to once typedefs and qualifiers are stripped.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct TypeMeta {
    /// C spelling from debug info (`unsigned int`, `uint8_t`, `struct node *`), or the LLVM type
    /// when there is no debug info.
    pub c_spelling: String,
    /// LLVM IR type (`i32`, `double`, `ptr`, `void`).
    pub ir: String,
    /// The scalar this type is, after stripping typedefs and cv-qualifiers; `None` for anything
    /// else (pointers, arrays, structs, `void`).
    pub scalar: Option<ScalarMeta>,
    /// For a pointer type, what it points to (`ir` is empty there); `None` otherwise and for
    /// `void *`.
    #[serde(default)]
    pub pointee: Option<Box<TypeMeta>>,
    /// For a structure, union or class (after typedefs and cv-qualifiers), its members; only in
    /// [`FunctionMeta::source_params`] (and the pointees there), `None` elsewhere.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub composite: Option<Box<CompositeMeta>>,
    /// For an array type of fixed dimensions, its dimensions and element type; only as the
    /// pointee of a parameter in [`FunctionMeta::source_params`] (a parameter declared `int
    /// m[3][4]` or `int (*m)[4]` has type `int (*)[4]`: the pointee is `int[4]`, `dims` `[4]`).
    /// `None` elsewhere; `scalar` and `composite` of the array type itself are `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub array: Option<Box<ArrayMeta>>,
    /// A C++ reference: 1 for `T &`, 2 for `T &&`, 0 for any other type. A reference is described
    /// as a pointer ([`TypeMeta::pointee`] is `T`), which is how the ABI passes it; a harness
    /// passes the address of one object, a `tests.cpp` the object itself.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub reference: u8,
    /// For a named structure or union reached through typedefs or qualifiers (`counter_t`,
    /// `const vec_t`), its spelling without them (`struct counter`), so that two spellings of one
    /// type compare equal (an API whose constructor returns `struct counter *` while its
    /// operations take `counter_t *`); `None` when `c_spelling` already is that, or for other
    /// types.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub canonical: Option<String>,
}

fn is_zero(v: &u8) -> bool {
    *v == 0
}

/// The dimensions and element type of a fixed-size array type ([`TypeMeta::array`]).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ArrayMeta {
    /// Number of elements in each dimension, outermost first (`int[3][4]`: `[3, 4]`); each ≥ 1.
    pub dims: Vec<u64>,
    /// The element type (a scalar, or a structure described member by member).
    pub elem: TypeMeta,
}

/// A structure, union or class type, from its `DICompositeType`: what a harness needs to build
/// a value of it member by member.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct CompositeMeta {
    /// `struct`, `union` or `class`.
    pub tag: String,
    /// Size in bits.
    pub size_bits: u64,
    /// Data members in declaration order (static members and methods left out).
    pub members: Vec<MemberMeta>,
    /// Why evotest cannot build a value of this type member by member (a pointer or bit-field
    /// member, a union, a base class, a flexible array, too many members), in words for an
    /// error message; the members are then left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unsupported: Option<String>,
    /// A C++ class that is not trivial for the purpose of calls (a user-provided copy constructor
    /// or destructor): the ABI passes it by value through a hidden pointer to a copy, so a
    /// harness cannot pass it by value as a C structure. Through a pointer or a reference it is
    /// built like any structure.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub passed_indirectly: bool,
}

/// A data member of a [`CompositeMeta`].
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct MemberMeta {
    pub name: String,
    /// Offset from the start of the enclosing type, in bits.
    pub offset_bits: u64,
    /// The member's type; for an array member, its element type (a scalar or a composite).
    pub ty: TypeMeta,
    /// For an array member, its number of elements (all dimensions multiplied out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
    /// A pointer to the enclosing structure's own type (`struct node *next`): a link of a list
    /// or a tree, only in a structure that is not nested in another.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub link: bool,
}

/// A scalar C type.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Hash)]
pub struct ScalarMeta {
    pub kind: ScalarKind,
    /// Width in bits (1 is not used: `_Bool` is `Bool` with 8 bits).
    pub bits: u32,
}

/// Scalar categories, from the DWARF base-type encoding.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Hash)]
#[serde(rename_all = "snake_case")]
pub enum ScalarKind {
    Bool,
    Signed,
    Unsigned,
    Float,
}

/// FNV-1a 64-bit hash; used for module IDs.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= *b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// Frame a serialised blob: `FRAME_MAGIC`, little-endian `u32` length, bytes.
pub fn frame(payload: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(payload.len() + 12);
    v.extend_from_slice(&FRAME_MAGIC);
    v.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    v.extend_from_slice(payload);
    v
}

/// Split a section's bytes into framed payloads, skipping zero padding between them.
///
/// Errors: returns the byte offset of the first position that is neither padding nor a valid frame.
pub fn unframe_all(section: &[u8]) -> Result<Vec<&[u8]>, usize> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < section.len() {
        if section[i] == 0 {
            i += 1;
            continue;
        }
        if section.len() < i + 12 || section[i..i + 8] != FRAME_MAGIC {
            return Err(i);
        }
        let len = u32::from_le_bytes(section[i + 8..i + 12].try_into().unwrap()) as usize;
        let start = i + 12;
        if section.len() < start + len {
            return Err(i);
        }
        out.push(&section[start..start + len]);
        i = start + len;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_survive_padding_between_units() {
        let mut sec = frame(b"{\"a\":1}");
        sec.extend_from_slice(&[0, 0, 0]);
        sec.extend_from_slice(&frame(b"[]"));
        let parts = unframe_all(&sec).unwrap();
        assert_eq!(parts, vec![&b"{\"a\":1}"[..], &b"[]"[..]]);
        assert_eq!(unframe_all(b"junk-junk-junk"), Err(0));
    }

    #[test]
    fn non_finite_float_constants_round_trip_through_json() {
        let consts = vec![
            ConstantMeta::Float(f64::INFINITY),
            ConstantMeta::Float(f64::NEG_INFINITY),
            ConstantMeta::Float(f64::NAN),
            ConstantMeta::Float(-0.0),
            ConstantMeta::Float(0.1),
            ConstantMeta::Float(f64::MAX),
            ConstantMeta::Float(f64::MIN_POSITIVE / 4.0),
            ConstantMeta::Int(i64::MIN),
        ];
        let json = serde_json::to_string(&consts).unwrap();
        assert!(!json.contains("null"), "{json}");
        assert!(json.contains(r#"{"kind":"float","value":"inf"}"#), "{json}");
        assert!(
            json.contains(r#"{"kind":"float","value":"-inf"}"#),
            "{json}"
        );
        assert!(json.contains(r#"{"kind":"float","value":"nan"}"#), "{json}");
        // finite floats stay JSON numbers, as before
        assert!(json.contains(r#"{"kind":"float","value":0.1}"#), "{json}");
        let back: Vec<ConstantMeta> = serde_json::from_str(&json).unwrap();
        assert_eq!(back, consts);
        match back[2] {
            ConstantMeta::Float(f) => assert!(f.is_nan()),
            _ => panic!("not a float"),
        }
        // bit-exact: -0.0 keeps its sign, 0.0 is a different constant
        assert_ne!(ConstantMeta::Float(0.0), ConstantMeta::Float(-0.0));
        // integers written where a float is expected read as floats; other strings are errors
        let c: ConstantMeta = serde_json::from_str(r#"{"kind":"float","value":2}"#).unwrap();
        assert_eq!(c, ConstantMeta::Float(2.0));
        assert!(
            serde_json::from_str::<ConstantMeta>(r#"{"kind":"float","value":"infinity"}"#).is_err()
        );
        assert!(serde_json::from_str::<ConstantMeta>(r#"{"kind":"float","value":null}"#).is_err());
    }

    #[test]
    fn module_meta_with_non_finite_constants_round_trips() {
        let m = ModuleMeta {
            version: META_VERSION,
            module_id: 7,
            source_file: "f.c".into(),
            functions: vec![],
            sites: vec![],
            n_outcomes: 0,
            constants: vec![
                ConstantMeta::Float(f64::INFINITY),
                ConstantMeta::Float(f64::NAN),
                ConstantMeta::Int(3),
            ],
            vars: vec![],
            defs: vec![],
            decisions: vec![],
            globals: vec![],
            other_globals: vec![],
            thread_locals: vec![],
            local_statics: vec![],
            table_strings: vec![],
            globals_restorable: false,
        };
        let bytes = serde_json::to_vec(&m).unwrap();
        let back: ModuleMeta = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(back, m);
    }
}
