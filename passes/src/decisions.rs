//! Source decisions and their atomic conditions, for condition-decision coverage (Anjum & Ryan
//! 2021: every atomic condition and every decision takes both outcomes).
//!
//! At -O0 clang lowers one source decision in one of three ways, and this module finds each:
//!
//! * **Branches** (an `if` condition, a `?:` condition with non-constant arms): `a && b || c`
//!   becomes a chain of blocks, each ending in a conditional `br` on one atomic condition, that
//!   leaves towards exactly two blocks, the decision's true and false targets. The blocks after
//!   the first hold nothing but the computation of their condition, and every `br` of the chain
//!   carries a debug location in the same lexical scope (clang gives every `if` a scope of its
//!   own, which tells `if (a && b)` from `if (a) if (b)`). Every condition already is a `br` site.
//! * **Phi** (a loop condition, a `?:` condition with constant arms, a value such as `return a ||
//!   b`): the chain ends in a join block with a `phi i1` whose incoming values are constants from
//!   the short-circuiting `br`s and the value of the last condition from a block that ends in an
//!   unconditional `br` (a nested `&&`/`||` in the last operand is an inner `phi` of the same
//!   shape). The last condition gets a [`SiteKind::Cond`] site; the decision's own site is the
//!   `br` or `select` on the `phi`, or a [`SiteKind::Cond`] site on the `phi` in a value context.
//! * **Bitwise** `(a > 0) & (b > 0)`, `|`: one `br` (or `select`) on the `and`/`or` of
//!   zero-extended `i1`s; each `i1` gets a [`SiteKind::Cond`] site, and the `br` is the decision.
//!
//! Scalar compares whose result is stored into a variable (`int t = a > b;`, not a vector mask
//! `v4i m = a < b;`, which has no one outcome) get a [`SiteKind::Cond`]
//! site of their own as well: a condition that belongs to no decision in the IR.
//!
//! Everything else (a `br` or `select` on one condition, a `switch`) is a decision of one
//! condition, implicit in the metadata.

use crate::collect::{self, Cond, SiteDraft};
use crate::condtext;
use crate::debuginfo::{inst_loc, Loc, VarNames};
use evotest_abi::meta::{ConstantMeta, DecisionForm, SiteKind};
use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::debuginfo::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::{LLVMOpcode, LLVMTypeKind};
use std::collections::{HashMap, HashSet};

/// A decision found in a function, before numbering (site indices into the function's sites).
pub struct DecisionDraft {
    pub loc: Loc,
    pub text: String,
    pub form: DecisionForm,
    pub conditions: Vec<usize>,
    pub site: Option<usize>,
    pub ends: [Vec<(usize, u32)>; 2],
}

/// Where one exit of a condition goes: another condition of the decision, or the decision's
/// outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Exit {
    Leaf(usize),
    True,
    False,
}

/// The function's blocks and the sites found so far (see [`analyse`]).
struct Func<'a> {
    bbs: &'a [LLVMBasicBlockRef],
    index: &'a HashMap<LLVMBasicBlockRef, u32>,
    preds: Vec<Vec<usize>>,
    /// Block index → index of the `br` site ending it.
    br_site: HashMap<usize, usize>,
}

impl Func<'_> {
    fn term(&self, b: usize) -> LLVMValueRef {
        unsafe { LLVMGetBasicBlockTerminator(self.bbs[b]) }
    }

    fn succs(&self, b: usize) -> Vec<usize> {
        unsafe {
            let t = self.term(b);
            if t.is_null() {
                return vec![];
            }
            (0..LLVMGetNumSuccessors(t))
                .map(|i| self.index[&LLVMGetSuccessor(t, i)] as usize)
                .collect()
        }
    }

    fn block_of(&self, v: LLVMValueRef) -> Option<usize> {
        unsafe {
            if LLVMIsAInstruction(v).is_null() {
                return None;
            }
            self.index
                .get(&LLVMGetInstructionParent(v))
                .map(|&b| b as usize)
        }
    }

    /// Whether block `b` holds nothing but the computation of its terminator's condition (loads,
    /// address arithmetic, casts, arithmetic, compares, calls).
    fn pure(&self, b: usize) -> bool {
        use LLVMOpcode::*;
        unsafe {
            let mut i = LLVMGetFirstInstruction(self.bbs[b]);
            let t = self.term(b);
            while !i.is_null() && i != t {
                let ok = matches!(
                    LLVMGetInstructionOpcode(i),
                    LLVMLoad
                        | LLVMGetElementPtr
                        | LLVMTrunc
                        | LLVMZExt
                        | LLVMSExt
                        | LLVMFPTrunc
                        | LLVMFPExt
                        | LLVMFPToUI
                        | LLVMFPToSI
                        | LLVMUIToFP
                        | LLVMSIToFP
                        | LLVMPtrToInt
                        | LLVMIntToPtr
                        | LLVMBitCast
                        | LLVMAdd
                        | LLVMFAdd
                        | LLVMSub
                        | LLVMFSub
                        | LLVMMul
                        | LLVMFMul
                        | LLVMUDiv
                        | LLVMSDiv
                        | LLVMFDiv
                        | LLVMURem
                        | LLVMSRem
                        | LLVMFRem
                        | LLVMShl
                        | LLVMLShr
                        | LLVMAShr
                        | LLVMAnd
                        | LLVMOr
                        | LLVMXor
                        | LLVMFNeg
                        | LLVMICmp
                        | LLVMFCmp
                        | LLVMCall
                );
                if !ok {
                    return false;
                }
                i = LLVMGetNextInstruction(i);
            }
            true
        }
    }
}

/// The lexical scope of an instruction's debug location (null without one).
fn scope_of(inst: LLVMValueRef) -> LLVMMetadataRef {
    unsafe {
        let loc = LLVMInstructionGetDebugLoc(inst);
        if loc.is_null() {
            std::ptr::null_mut()
        } else {
            LLVMDILocationGetScope(loc)
        }
    }
}

fn is_i1(v: LLVMValueRef) -> bool {
    unsafe {
        let t = LLVMTypeOf(v);
        LLVMGetTypeKind(t) == LLVMTypeKind::LLVMIntegerTypeKind && LLVMGetIntTypeWidth(t) == 1
    }
}

fn const_bool(v: LLVMValueRef) -> Option<bool> {
    unsafe {
        if !LLVMIsAConstantInt(v).is_null() && is_i1(v) {
            Some(LLVMConstIntGetZExtValue(v) != 0)
        } else {
            None
        }
    }
}

fn opcode(v: LLVMValueRef) -> Option<LLVMOpcode> {
    unsafe {
        if LLVMIsAInstruction(v).is_null() {
            None
        } else {
            Some(LLVMGetInstructionOpcode(v))
        }
    }
}

fn users(v: LLVMValueRef) -> Vec<LLVMValueRef> {
    let mut out = Vec::new();
    unsafe {
        let mut u = LLVMGetFirstUse(v);
        while !u.is_null() {
            out.push(LLVMGetUser(u));
            u = LLVMGetNextUse(u);
        }
    }
    out
}

/// Position of `inst` in its block.
fn index_in_block(inst: LLVMValueRef) -> u32 {
    unsafe {
        let mut i = LLVMGetFirstInstruction(LLVMGetInstructionParent(inst));
        let mut k = 0;
        while !i.is_null() && i != inst {
            i = LLVMGetNextInstruction(i);
            k += 1;
        }
        k
    }
}

/// A [`SiteKind::Cond`] site on `value` whose probe goes right before `at` (in block `block`).
fn cond_site(
    value: LLVMValueRef,
    at: LLVMValueRef,
    block: u32,
    names: &VarNames,
    constants: &mut Vec<ConstantMeta>,
    vars: &crate::dataflow::VarTable,
) -> SiteDraft {
    let mut s = collect::branch_like(SiteKind::Cond, at, value, block, names, constants);
    if let Cond::Str { .. } = s.cond {
        // a string compare stored or combined: probed as its integer compare with 0
        if let (Some(LLVMOpcode::LLVMICmp), Some(p)) = (
            opcode(value),
            evotest_abi::pred::Pred::from_u32(unsafe { LLVMGetICmpPredicate(value) } as u32),
        ) {
            s.cond = Cond::Int {
                pred: p,
                a: unsafe { LLVMGetOperand(value, 0) },
                b: unsafe { LLVMGetOperand(value, 1) },
            };
        }
    }
    s.uses = crate::dataflow::uses_of(vars, value);
    s.index = index_in_block(at);
    s
}

/// The instruction after `v` (where a probe of `v`'s value goes).
fn next_of(v: LLVMValueRef) -> LLVMValueRef {
    unsafe {
        let mut n = LLVMGetNextInstruction(v);
        // never between phis
        while !n.is_null() && !LLVMIsAPHINode(n).is_null() {
            n = LLVMGetNextInstruction(n);
        }
        n
    }
}

/// Rebuild `&&`/`||` text from the conditions' exits: leaves `i..k` form one expression whose
/// exits are `t` and `f`; returns the text and its top operator (`None` for one leaf).
///
/// The first split point (in order, `&&` before `||`) whose two sides both rebuild wins. Every
/// sub-range's answer is memoised (it depends only on `(i, k, t, f)`), and a range is only tried
/// when its last leaf's exits are exactly `(t, f)` (true of every expression the recursion can
/// build), so a chain that no `&&`/`||` expression fits (e.g. `!f() && …`, whose `br`s swap
/// their targets) costs polynomial time, not one attempt per way of splitting it.
fn rebuild(
    exits: &[(Exit, Exit)],
    texts: &[String],
    i: usize,
    k: usize,
    t: Exit,
    f: Exit,
) -> Option<(String, Option<&'static str>)> {
    rebuild_memo(exits, texts, i, k, t, f, &mut HashMap::new())
}

/// Most conditions of a chain for which [`rebuild_negated`] tries negated conditions.
const MAX_NEGATED_CHAIN: usize = 8;

/// The text of the `&&`/`||` expression of a whole chain with exits `exits` (towards
/// [`Exit::True`] and [`Exit::False`]), allowing negated conditions: `a > 0 && !f` branches on
/// `f != 0` with its targets swapped, which no expression of the plain conditions fits. Tries
/// the plain conditions first, then sets of negated ones, fewest first (chains of at most
/// [`MAX_NEGATED_CHAIN`] conditions); a negated `x != 0` reads `!x`, any other condition `!(c)`.
fn rebuild_negated(exits: &[(Exit, Exit)], texts: &[String]) -> Option<String> {
    let n = exits.len();
    if let Some((t, _)) = rebuild(exits, texts, 0, n, Exit::True, Exit::False) {
        return Some(t);
    }
    if n > MAX_NEGATED_CHAIN {
        return None;
    }
    let mut masks: Vec<u32> = (1..1u32 << n).collect();
    masks.sort_by_key(|m| m.count_ones());
    for m in masks {
        let neg = |j: usize| m & (1 << j) != 0;
        let ex: Vec<(Exit, Exit)> = exits
            .iter()
            .enumerate()
            .map(|(j, &(a, b))| if neg(j) { (b, a) } else { (a, b) })
            .collect();
        let tx: Vec<String> = texts
            .iter()
            .enumerate()
            .map(|(j, t)| {
                if !neg(j) {
                    t.clone()
                } else {
                    match t.strip_suffix(" != 0") {
                        Some(x) if primary(x) => format!("!{x}"),
                        _ => format!("!({t})"),
                    }
                }
            })
            .collect();
        if let Some((t, _)) = rebuild(&ex, &tx, 0, n, Exit::True, Exit::False) {
            return Some(t);
        }
    }
    None
}

/// Whether the condition text `t` is a primary expression that `!` may prefix without
/// parentheses: no space outside parentheses, brackets and quotes (`f`, `p->x`, `reg(c, "x", 1)`,
/// `a[i + 1]`).
fn primary(t: &str) -> bool {
    let (mut depth, mut quote) = (0i32, None::<char>);
    let mut prev = ' ';
    for c in t.chars() {
        match quote {
            Some(q) => {
                if c == q && prev != '\\' {
                    quote = None;
                }
            }
            None => match c {
                '"' | '\'' => quote = Some(c),
                '(' | '[' => depth += 1,
                ')' | ']' => depth -= 1,
                ' ' if depth == 0 => return false,
                _ => {}
            },
        }
        prev = c;
    }
    !t.is_empty()
}

/// A rebuilt sub-expression: its text and top operator (see [`rebuild`]).
type Rebuilt = Option<(String, Option<&'static str>)>;

/// [`rebuild`] with the answers of the sub-ranges tried so far, keyed by `(i, k, t, f)`.
fn rebuild_memo(
    exits: &[(Exit, Exit)],
    texts: &[String],
    i: usize,
    k: usize,
    t: Exit,
    f: Exit,
    memo: &mut HashMap<(usize, usize, Exit, Exit), Rebuilt>,
) -> Rebuilt {
    if k - i == 1 {
        return (exits[i] == (t, f)).then(|| (texts[i].clone(), None));
    }
    // the last leaf of any expression built below leaves towards exactly its exits
    if exits[k - 1] != (t, f) {
        return None;
    }
    if let Some(r) = memo.get(&(i, k, t, f)) {
        return r.clone();
    }
    let inside = |e: Exit, lo: usize, hi: usize| matches!(e, Exit::Leaf(j) if j > lo && j < hi);
    let mut found = None;
    'split: for m in i + 1..k {
        for (op, lt, lf) in [("&&", Exit::Leaf(m), f), ("||", t, Exit::Leaf(m))] {
            // the left side's last leaf must leave towards its exits (as above)
            if exits[m - 1] != (lt, lf) {
                continue;
            }
            let ok = (i..m).all(|j| {
                let (a, b) = exits[j];
                [a, b]
                    .iter()
                    .all(|&e| inside(e, j, m) || e == lt || e == lf)
            });
            if !ok {
                continue;
            }
            let Some((l, lop)) = rebuild_memo(exits, texts, i, m, lt, lf, memo) else {
                continue;
            };
            let Some((r, rop)) = rebuild_memo(exits, texts, m, k, t, f, memo) else {
                continue;
            };
            let wrap = |s: String, o: Option<&str>| {
                if o.is_some_and(|o| o != op) {
                    format!("({s})")
                } else {
                    s
                }
            };
            found = Some((format!("{} {op} {}", wrap(l, lop), wrap(r, rop)), Some(op)));
            break 'split;
        }
    }
    memo.insert((i, k, t, f), found.clone());
    found
}

/// One leaf of a chain: the block holding it and, for the last condition of a `phi` chain, its
/// value (the other leaves are `br` sites).
struct Leaf {
    block: usize,
    value: Option<LLVMValueRef>,
}

/// A `phi i1` short-circuit chain: its blocks, the inner join blocks (with the constant each
/// incoming edge carries), and its last condition.
struct PhiChain {
    group: HashSet<usize>,
    /// Join block → (incoming block → constant).
    joins: HashMap<usize, HashMap<usize, bool>>,
    rhs: (usize, LLVMValueRef),
}

/// The chain of `phi` (in block `j`), if it is one (see module docs).
fn phi_chain(f: &Func, phi: LLVMValueRef, depth: u32) -> Option<PhiChain> {
    if depth > 8 || !is_i1(phi) {
        return None;
    }
    let j = f.block_of(phi)?;
    let n = unsafe { LLVMCountIncoming(phi) };
    if n < 2 {
        return None;
    }
    let mut group = HashSet::new();
    let mut consts = HashMap::new();
    let mut joins = HashMap::new();
    let mut rhs = None;
    for i in 0..n {
        let (v, from) = unsafe { (LLVMGetIncomingValue(phi, i), LLVMGetIncomingBlock(phi, i)) };
        let x = *f.index.get(&from)? as usize;
        let t = f.term(x);
        if let Some(c) = const_bool(v) {
            // a short-circuiting `br` site straight to the join
            if !f.br_site.contains_key(&x) || !f.succs(x).contains(&j) {
                return None;
            }
            consts.insert(x, c);
            group.insert(x);
            continue;
        }
        // the last condition: its block ends in `br label %j`
        if rhs.is_some() || unsafe { LLVMIsConditional(t) } != 0 || f.succs(x) != vec![j] {
            return None;
        }
        if unsafe { !LLVMIsAPHINode(v).is_null() } && f.block_of(v) == Some(x) {
            let inner = phi_chain(f, v, depth + 1)?;
            if users(v).len() != 1 {
                return None;
            }
            group.extend(inner.group);
            joins.extend(inner.joins);
            group.insert(x);
            rhs = Some(inner.rhs);
        } else {
            if !is_i1(v) || !f.pure(x) {
                return None;
            }
            group.insert(x);
            rhs = Some((x, v));
        }
    }
    joins.insert(j, consts);
    let rhs = rhs?;
    // close over the `br` sites that lead into the chain
    let targets: HashSet<usize> = group.iter().copied().chain(joins.keys().copied()).collect();
    loop {
        let mut added = false;
        for y in group.clone() {
            if !f.pure(y) {
                continue;
            }
            for &z in &f.preds[y] {
                if group.contains(&z) || !f.br_site.contains_key(&z) {
                    continue;
                }
                if f.succs(z)
                    .iter()
                    .all(|s| targets.contains(s) || group.contains(s))
                {
                    group.insert(z);
                    added = true;
                }
            }
        }
        if !added {
            break;
        }
    }
    // exactly one entry, and it comes first
    let entries: Vec<usize> = group
        .iter()
        .copied()
        .filter(|&y| f.preds[y].iter().any(|p| !group.contains(p)) || f.preds[y].is_empty())
        .collect();
    if entries.len() != 1 || group.iter().any(|&y| y < entries[0]) {
        return None;
    }
    Some(PhiChain { group, joins, rhs })
}

/// Find the decisions of a function whose blocks are `bbs` and whose sites (so far only `br`,
/// `switch` and `select`) are `sites`; condition-only sites are appended to `sites`.
pub fn analyse(
    func: LLVMValueRef,
    bbs: &[LLVMBasicBlockRef],
    index: &HashMap<LLVMBasicBlockRef, u32>,
    sites: &mut Vec<SiteDraft>,
    names: &VarNames,
    constants: &mut Vec<ConstantMeta>,
    vars: &crate::dataflow::VarTable,
) -> Vec<DecisionDraft> {
    let _ = func;
    let mut preds = vec![Vec::new(); bbs.len()];
    let mut br_site = HashMap::new();
    for (i, s) in sites.iter().enumerate() {
        if s.kind == SiteKind::Br {
            br_site.insert(s.block as usize, i);
        }
    }
    let f0 = Func {
        bbs,
        index,
        preds: vec![],
        br_site,
    };
    for b in 0..bbs.len() {
        for s in f0.succs(b) {
            if !preds[s].contains(&b) {
                preds[s].push(b);
            }
        }
    }
    let f = Func { preds, ..f0 };
    let mut decisions = Vec::new();
    // values that are conditions or sites already
    let mut taken: HashSet<LLVMValueRef> = sites
        .iter()
        .map(|s| match s.cond {
            Cond::Int { .. }
            | Cond::Ptr { .. }
            | Cond::Float { .. }
            | Cond::Str { .. }
            | Cond::Bytes { .. }
            | Cond::Bool(_) => unsafe {
                match s.kind {
                    SiteKind::Br => LLVMGetCondition(s.inst),
                    SiteKind::Select => LLVMGetOperand(s.inst, 0),
                    _ => std::ptr::null_mut(),
                }
            },
            Cond::Switch { .. } => std::ptr::null_mut(),
        })
        .collect();
    let mut in_phi_chain: HashSet<usize> = HashSet::new();

    // --- phi chains: outermost first (an inner phi is used only by its outer one)
    let mut phis = Vec::new();
    for (b, &bb) in bbs.iter().enumerate() {
        unsafe {
            let mut i = LLVMGetFirstInstruction(bb);
            while !i.is_null() && !LLVMIsAPHINode(i).is_null() {
                phis.push((b, i));
                i = LLVMGetNextInstruction(i);
            }
        }
    }
    let inner_phi = |p: LLVMValueRef| {
        users(p)
            .iter()
            .any(|&u| unsafe { !LLVMIsAPHINode(u).is_null() })
    };
    for &(j, phi) in &phis {
        if inner_phi(phi) {
            continue;
        }
        let Some(chain) = phi_chain(&f, phi, 0) else {
            continue;
        };
        if chain.group.iter().any(|b| in_phi_chain.contains(b)) {
            continue;
        }
        // leaves in layout order: the `br` sites of the group and the last condition
        let mut blocks: Vec<usize> = chain
            .group
            .iter()
            .copied()
            .filter(|b| f.br_site.contains_key(b))
            .collect();
        blocks.push(chain.rhs.0);
        blocks.sort();
        blocks.dedup();
        let leaves: Vec<Leaf> = blocks
            .iter()
            .map(|&b| Leaf {
                block: b,
                value: (b == chain.rhs.0).then_some(chain.rhs.1),
            })
            .collect();
        if leaves.len() < 2 || leaves.last().map(|l| l.value.is_none()).unwrap_or(true) {
            continue;
        }
        let leaf_at = |b: usize| leaves.iter().position(|l| l.block == b);
        let mut exits = Vec::new();
        let mut ok = true;
        for l in &leaves {
            if l.value.is_some() {
                exits.push((Exit::True, Exit::False));
                continue;
            }
            let e: Vec<Exit> = f
                .succs(l.block)
                .iter()
                .map(|&s| {
                    match (
                        leaf_at(s),
                        chain.joins.get(&s).and_then(|m| m.get(&l.block)),
                    ) {
                        (_, Some(true)) => Exit::True,
                        (_, Some(false)) => Exit::False,
                        (Some(k), None) => Exit::Leaf(k),
                        (None, None) => {
                            ok = false;
                            Exit::False
                        }
                    }
                })
                .collect();
            if e.len() != 2 {
                ok = false;
                break;
            }
            exits.push((e[0], e[1]));
        }
        if !ok {
            continue;
        }
        // condition-only site for the last condition, before its block's terminator
        let (rb, rv) = chain.rhs;
        let rsite = sites.len();
        sites.push(cond_site(rv, f.term(rb), rb as u32, names, constants, vars));
        taken.insert(rv);
        let site_of_leaf: Vec<usize> = leaves
            .iter()
            .map(|l| {
                if l.value.is_some() {
                    rsite
                } else {
                    f.br_site[&l.block]
                }
            })
            .collect();
        let texts: Vec<String> = site_of_leaf
            .iter()
            .map(|&s| sites[s].text.clone())
            .collect();
        // the decision's own site: the br or select on the phi, or a condition-only site on it
        let dsite = users(phi).iter().find_map(|&u| {
            sites.iter().position(|s| {
                (s.kind == SiteKind::Br && s.inst == u && unsafe { LLVMGetCondition(u) } == phi)
                    || (s.kind == SiteKind::Select
                        && s.inst == u
                        && unsafe { LLVMGetOperand(u, 0) } == phi)
            })
        });
        let dsite = match dsite {
            Some(s) => s,
            None => {
                let at = next_of(phi);
                if at.is_null() {
                    continue;
                }
                let mut s = cond_site(phi, at, j as u32, names, constants, vars);
                s.loc = inst_loc(sites[site_of_leaf[0]].inst)
                    .filter(|l| l.line != 0)
                    .unwrap_or(sites[site_of_leaf[0]].loc.clone());
                sites.push(s);
                sites.len() - 1
            }
        };
        let text =
            rebuild_negated(&exits, &texts).unwrap_or_else(|| format!("{{{}}}", texts.join(", ")));
        sites[dsite].text = text.clone();
        let mut ends = [Vec::new(), Vec::new()];
        for (k, &(t, e)) in exits.iter().enumerate() {
            for (o, x) in [(0u32, t), (1u32, e)] {
                match x {
                    Exit::True => ends[0].push((site_of_leaf[k], o)),
                    Exit::False => ends[1].push((site_of_leaf[k], o)),
                    Exit::Leaf(_) => {}
                }
            }
        }
        in_phi_chain.extend(chain.group.iter().copied());
        decisions.push(DecisionDraft {
            loc: sites[site_of_leaf[0]].loc.clone(),
            text,
            form: DecisionForm::Phi,
            conditions: site_of_leaf,
            site: Some(dsite),
            ends,
        });
    }

    // --- branch chains (if conditions)
    let mut parent: Vec<usize> = (0..bbs.len()).collect();
    fn find(p: &mut [usize], x: usize) -> usize {
        let mut r = x;
        while p[r] != r {
            r = p[r];
        }
        let mut y = x;
        while p[y] != r {
            let n = p[y];
            p[y] = r;
            y = n;
        }
        r
    }
    let mut brs: Vec<usize> = f
        .br_site
        .keys()
        .copied()
        .filter(|b| !in_phi_chain.contains(b))
        .collect();
    brs.sort();
    for &s in &brs {
        if s == 0 || !f.pure(s) || f.preds[s].is_empty() {
            continue;
        }
        let scope = scope_of(f.term(s));
        if scope.is_null() {
            continue;
        }
        if f.preds[s]
            .iter()
            .all(|p| brs.contains(p) && scope_of(f.term(*p)) == scope)
        {
            for &p in &f.preds[s] {
                let (a, b) = (find(&mut parent, p), find(&mut parent, s));
                parent[a] = b;
            }
        }
    }
    let mut groups: HashMap<usize, Vec<usize>> = HashMap::new();
    for &b in &brs {
        let r = find(&mut parent, b);
        groups.entry(r).or_default().push(b);
    }
    let mut groups: Vec<Vec<usize>> = groups.into_values().filter(|g| g.len() >= 2).collect();
    groups.sort();
    for mut g in groups {
        g.sort();
        let last = *g.last().unwrap();
        let ls = f.succs(last);
        if ls.len() != 2 || ls[0] == ls[1] || g.contains(&ls[0]) || g.contains(&ls[1]) {
            continue;
        }
        // each condition's exits, with `t` the decision's true target and `fl` its false one
        let exits_towards = |t: usize, fl: usize| -> Option<Vec<(Exit, Exit)>> {
            let mut exits = Vec::new();
            for &b in &g {
                let mut e = [Exit::False; 2];
                for (slot, &s) in e.iter_mut().zip(f.succs(b).iter()) {
                    *slot = if s == t {
                        Exit::True
                    } else if s == fl {
                        Exit::False
                    } else {
                        Exit::Leaf(g.iter().position(|&x| x == s)?)
                    };
                }
                exits.push((e[0], e[1]));
            }
            Some(exits)
        };
        // The decision's true target is the one clang lays out first: an `if`'s then block, a
        // loop's body, a `?:`'s true arm, a `do`'s body before its test. It is not always the
        // last condition's true target: `a > 0 && !f` branches on `f != 0` towards the false
        // one, and `!(a > 3) || !b` reads as its complement `a > 3 && b != 0` that way round.
        let (t, fl) = (ls[0].min(ls[1]), ls[0].max(ls[1]));
        let Some(exits) = exits_towards(t, fl) else {
            continue;
        };
        // only the first block may be entered from outside the chain
        if g[1..]
            .iter()
            .any(|&b| f.preds[b].iter().any(|p| !g.contains(p)))
        {
            continue;
        }
        let site_of: Vec<usize> = g.iter().map(|b| f.br_site[b]).collect();
        let texts: Vec<String> = site_of.iter().map(|&s| sites[s].text.clone()).collect();
        let text =
            rebuild_negated(&exits, &texts).unwrap_or_else(|| format!("{{{}}}", texts.join(", ")));
        let mut ends = [Vec::new(), Vec::new()];
        for (k, &(a, b)) in exits.iter().enumerate() {
            for (o, x) in [(0u32, a), (1u32, b)] {
                match x {
                    Exit::True => ends[0].push((site_of[k], o)),
                    Exit::False => ends[1].push((site_of[k], o)),
                    Exit::Leaf(_) => {}
                }
            }
        }
        decisions.push(DecisionDraft {
            loc: sites[site_of[0]].loc.clone(),
            text,
            form: DecisionForm::Branches,
            conditions: site_of,
            site: None,
            ends,
        });
    }

    // --- bitwise & / | of conditions
    let n_sites = sites.len();
    for si in 0..n_sites {
        let s = &sites[si];
        if !matches!(s.kind, SiteKind::Br | SiteKind::Select) {
            continue;
        }
        let c = unsafe {
            if s.kind == SiteKind::Br {
                LLVMGetCondition(s.inst)
            } else {
                LLVMGetOperand(s.inst, 0)
            }
        };
        // `icmp ne (and|or …), 0`, `trunc (and|or …)`, or an `and`/`or` of i1
        let top = unsafe {
            match opcode(c) {
                Some(LLVMOpcode::LLVMICmp)
                    if matches!(
                        evotest_abi::pred::Pred::from_u32(LLVMGetICmpPredicate(c) as u32),
                        Some(evotest_abi::pred::Pred::Ne)
                    ) && !LLVMIsAConstantInt(LLVMGetOperand(c, 1)).is_null()
                        && LLVMConstIntGetZExtValue(LLVMGetOperand(c, 1)) == 0 =>
                {
                    LLVMGetOperand(c, 0)
                }
                Some(LLVMOpcode::LLVMTrunc) => LLVMGetOperand(c, 0),
                Some(LLVMOpcode::LLVMAnd | LLVMOpcode::LLVMOr) => c,
                _ => continue,
            }
        };
        if !matches!(opcode(top), Some(LLVMOpcode::LLVMAnd | LLVMOpcode::LLVMOr)) {
            continue;
        }
        let mut leaves = Vec::new();
        let mut ops = HashSet::new();
        fn walk(v: LLVMValueRef, leaves: &mut Vec<LLVMValueRef>, ops: &mut HashSet<bool>) -> bool {
            match opcode(v) {
                Some(o @ (LLVMOpcode::LLVMAnd | LLVMOpcode::LLVMOr)) => {
                    ops.insert(o == LLVMOpcode::LLVMAnd);
                    unsafe {
                        walk(LLVMGetOperand(v, 0), leaves, ops)
                            && walk(LLVMGetOperand(v, 1), leaves, ops)
                    }
                }
                Some(LLVMOpcode::LLVMZExt | LLVMOpcode::LLVMSExt)
                    if is_i1(unsafe { LLVMGetOperand(v, 0) }) =>
                {
                    let l = unsafe { LLVMGetOperand(v, 0) };
                    if opcode(l).is_none() {
                        return false;
                    }
                    leaves.push(l);
                    true
                }
                Some(_) if is_i1(v) => {
                    leaves.push(v);
                    true
                }
                _ => false,
            }
        }
        if !walk(top, &mut leaves, &mut ops)
            || leaves.len() < 2
            || leaves.iter().any(|l| taken.contains(l))
        {
            continue;
        }
        let mut conds = Vec::new();
        for &l in &leaves {
            let at = next_of(l);
            let Some(b) = f.block_of(l) else { continue };
            if at.is_null() {
                continue;
            }
            conds.push(sites.len());
            sites.push(cond_site(l, at, b as u32, names, constants, vars));
            taken.insert(l);
        }
        if conds.len() < 2 {
            continue;
        }
        let form = match (ops.contains(&true), ops.contains(&false)) {
            (true, false) => DecisionForm::And,
            (false, true) => DecisionForm::Or,
            _ => DecisionForm::Bitwise,
        };
        decisions.push(DecisionDraft {
            loc: sites[si].loc.clone(),
            text: condtext::text(top, names),
            form,
            conditions: conds,
            site: Some(si),
            ends: [vec![], vec![]],
        });
    }

    // --- compares stored into a variable
    for (b, &bb) in bbs.iter().enumerate() {
        unsafe {
            let mut i = LLVMGetFirstInstruction(bb);
            while !i.is_null() {
                let next = LLVMGetNextInstruction(i);
                // a scalar compare only: a vector compare (`v4i m = a < b;`) has no one outcome
                if matches!(opcode(i), Some(LLVMOpcode::LLVMICmp | LLVMOpcode::LLVMFCmp))
                    && is_i1(i)
                    && !taken.contains(&i)
                    && stored(i, names, 0)
                {
                    let at = next_of(i);
                    if !at.is_null() {
                        sites.push(cond_site(i, at, b as u32, names, constants, vars));
                        taken.insert(i);
                    }
                }
                i = next;
            }
        }
    }
    decisions
}

/// Whether `v` (through casts) is stored into a named local or a global.
fn stored(v: LLVMValueRef, names: &VarNames, depth: u32) -> bool {
    if depth > 3 {
        return false;
    }
    users(v).into_iter().any(|u| match opcode(u) {
        Some(LLVMOpcode::LLVMZExt | LLVMOpcode::LLVMSExt | LLVMOpcode::LLVMTrunc) => {
            stored(u, names, depth + 1)
        }
        Some(LLVMOpcode::LLVMStore) => unsafe {
            let ptr = crate::debuginfo::through_threadlocal(LLVMGetOperand(u, 1));
            LLVMGetOperand(u, 0) != ptr
                && (names.by_storage.contains_key(&ptr) || !LLVMIsAGlobalVariable(ptr).is_null())
        },
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rebuilds_and_or_with_parentheses() {
        let texts: Vec<String> = ["a", "b", "c"].iter().map(|s| s.to_string()).collect();
        // (a || b) && c: a: T->c F->b; b: T->c F->F; c: T, F
        let ex = [
            (Exit::Leaf(2), Exit::Leaf(1)),
            (Exit::Leaf(2), Exit::False),
            (Exit::True, Exit::False),
        ];
        assert_eq!(
            rebuild(&ex, &texts, 0, 3, Exit::True, Exit::False)
                .unwrap()
                .0,
            "(a || b) && c"
        );
        // a && b && c
        let ex = [
            (Exit::Leaf(1), Exit::False),
            (Exit::Leaf(2), Exit::False),
            (Exit::True, Exit::False),
        ];
        assert_eq!(
            rebuild(&ex, &texts, 0, 3, Exit::True, Exit::False)
                .unwrap()
                .0,
            "a && b && c"
        );
        // a || b && c
        let ex = [
            (Exit::True, Exit::Leaf(1)),
            (Exit::Leaf(2), Exit::False),
            (Exit::True, Exit::False),
        ];
        assert_eq!(
            rebuild(&ex, &texts, 0, 3, Exit::True, Exit::False)
                .unwrap()
                .0,
            "a || (b && c)"
        );
        // (a && b) || c
        let ex = [
            (Exit::Leaf(1), Exit::Leaf(2)),
            (Exit::True, Exit::Leaf(2)),
            (Exit::True, Exit::False),
        ];
        assert_eq!(
            rebuild(&ex, &texts, 0, 3, Exit::True, Exit::False)
                .unwrap()
                .0,
            "(a && b) || c"
        );
        // exits that no && / || expression has: no text
        let ex = [(Exit::False, Exit::True), (Exit::True, Exit::False)];
        assert!(rebuild(&ex, &texts, 0, 2, Exit::True, Exit::False).is_none());
    }

    /// Negated conditions: `!a && b` (a's targets swapped) and `a > 0 && !f`; plain chains keep
    /// their plain text.
    #[test]
    fn rebuilds_negated_conditions_fewest_first() {
        let texts: Vec<String> = ["a", "b"].iter().map(|s| s.to_string()).collect();
        let ex = [(Exit::False, Exit::Leaf(1)), (Exit::True, Exit::False)];
        assert_eq!(rebuild_negated(&ex, &texts).unwrap(), "!(a) && b");
        let texts: Vec<String> = ["a > 0", "f != 0"].iter().map(|s| s.to_string()).collect();
        let ex = [(Exit::Leaf(1), Exit::False), (Exit::False, Exit::True)];
        assert_eq!(rebuild_negated(&ex, &texts).unwrap(), "a > 0 && !f");
        let ex = [(Exit::Leaf(1), Exit::False), (Exit::True, Exit::False)];
        assert_eq!(rebuild_negated(&ex, &texts).unwrap(), "a > 0 && f != 0");
        // a call negated reads `!reg(…)`; an operator inside keeps the parentheses
        let texts: Vec<String> = ["reg(c, \"x y\", 1) != 0", "a + b != 0"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let ex = [(Exit::False, Exit::Leaf(1)), (Exit::False, Exit::True)];
        assert_eq!(
            rebuild_negated(&ex, &texts).unwrap(),
            "!reg(c, \"x y\", 1) && !(a + b != 0)"
        );
    }

    /// The search [`rebuild`] replaced: every split point, recursively, without memoising
    /// (exponential on a chain that no `&&`/`||` expression fits).
    fn rebuild_naive(
        exits: &[(Exit, Exit)],
        texts: &[String],
        i: usize,
        k: usize,
        t: Exit,
        f: Exit,
    ) -> Option<(String, Option<&'static str>)> {
        if k - i == 1 {
            return (exits[i] == (t, f)).then(|| (texts[i].clone(), None));
        }
        let inside = |e: Exit, lo: usize, hi: usize| matches!(e, Exit::Leaf(j) if j > lo && j < hi);
        for m in i + 1..k {
            for (op, lt, lf) in [("&&", Exit::Leaf(m), f), ("||", t, Exit::Leaf(m))] {
                let ok = (i..m).all(|j| {
                    let (a, b) = exits[j];
                    [a, b]
                        .iter()
                        .all(|&e| inside(e, j, m) || e == lt || e == lf)
                });
                if !ok {
                    continue;
                }
                if let (Some((l, lop)), Some((r, rop))) = (
                    rebuild_naive(exits, texts, i, m, lt, lf),
                    rebuild_naive(exits, texts, m, k, t, f),
                ) {
                    let wrap = |s: String, o: Option<&str>| {
                        if o.is_some_and(|o| o != op) {
                            format!("({s})")
                        } else {
                            s
                        }
                    };
                    return Some((format!("{} {op} {}", wrap(l, lop), wrap(r, rop)), Some(op)));
                }
            }
        }
        None
    }

    /// The exits leaf `j` of `n` may have: a later leaf, or either outcome.
    fn exit_choices(j: usize, n: usize) -> Vec<Exit> {
        (j + 1..n)
            .map(Exit::Leaf)
            .chain([Exit::True, Exit::False])
            .collect()
    }

    /// The memoised [`rebuild`] gives what the exhaustive search gives: on every exit table of up
    /// to 4 leaves, and on random ones of up to 10.
    #[test]
    fn memoised_rebuild_matches_the_exhaustive_search() {
        let texts: Vec<String> = (0..10).map(|k| format!("c{k}")).collect();
        let check = |ex: &[(Exit, Exit)]| {
            let n = ex.len();
            assert_eq!(
                rebuild(ex, &texts, 0, n, Exit::True, Exit::False),
                rebuild_naive(ex, &texts, 0, n, Exit::True, Exit::False),
                "{ex:?}"
            );
        };
        let mut found = 0;
        for n in 1..=4 {
            let mut tables: Vec<Vec<(Exit, Exit)>> = vec![vec![]];
            for j in 0..n {
                let c = exit_choices(j, n);
                tables = tables
                    .into_iter()
                    .flat_map(|t| {
                        let c = &c;
                        c.iter().flat_map(move |&a| {
                            c.iter().map({
                                let t = t.clone();
                                move |&b| {
                                    let mut t = t.clone();
                                    t.push((a, b));
                                    t
                                }
                            })
                        })
                    })
                    .collect();
            }
            for t in &tables {
                check(t);
                found += rebuild(t, &texts, 0, n, Exit::True, Exit::False).is_some() as usize;
            }
        }
        assert!(found > 20, "{found}");
        // random tables, biased towards the next leaf so that many rebuild
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = |m: usize| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % m as u64) as usize
        };
        for _ in 0..20_000 {
            let n = 2 + next(9);
            let t: Vec<(Exit, Exit)> = (0..n)
                .map(|j| {
                    let c = exit_choices(j, n);
                    let pick = |next: &mut dyn FnMut(usize) -> usize| {
                        if j + 1 < n && next(3) == 0 {
                            Exit::Leaf(j + 1)
                        } else {
                            c[next(c.len())]
                        }
                    };
                    (pick(&mut next), pick(&mut next))
                })
                .collect();
            check(&t);
        }
    }

    /// A chain of `!f()` conditions (whose `br`s leave towards the false outcome when the call
    /// returns non-zero) fits no `&&`/`||` expression; 60 of them are answered at once.
    #[test]
    fn rebuild_gives_up_on_a_long_unfit_chain_quickly() {
        let n = 60;
        let texts: Vec<String> = (0..n).map(|k| format!("g{k}() != 0")).collect();
        let mut ex: Vec<(Exit, Exit)> = (0..n - 1)
            .map(|j| (Exit::False, Exit::Leaf(j + 1)))
            .collect();
        ex[0] = (Exit::Leaf(1), Exit::False);
        ex.push((Exit::False, Exit::True));
        let t = std::time::Instant::now();
        assert!(rebuild(&ex, &texts, 0, n, Exit::True, Exit::False).is_none());
        assert!(
            t.elapsed() < std::time::Duration::from_secs(1),
            "{:?}",
            t.elapsed()
        );
    }
}
