//! Function-assigned flags: the distance of a helper's `bool` result, carried to its caller.
//!
//! A condition on what a call returns (`if (valid(x))`, `if (!in_band(f))`) is a flag: the call
//! gives 0 or 1, and the branch distance of the caller's compare is 0 or K whatever the inputs.
//! Wappler, Baresel & Wegener (2007) remove such flags by a testability transformation of the
//! function that assigns them; this module does it by instrumentation instead. A **flag function**
//! is one whose result only ever holds constants or a compare's truth value ([`analyse`]), with
//! or without a loop (a validation loop, `for (…) if (!isdigit(s[i])) return 0; return 1;`, is
//! one: the last condition it evaluated and how many it evaluated tell how near it came to the
//! other result, per call, where the probes of its sites keep only the minimum over all calls).
//! The pass gives it a frame ([`evotest_abi::shm::FlagFrame`], a local): each of its conditions
//! (compares, switches, conditions on the results of calls) counts itself there and keeps the
//! distance to its other outcome, and each return records, for the caller, the flag distance of
//! the result ([`evotest_abi::distance::flag_distance`]). The caller's probe of a
//! compare of that result with 0 ([`source`]) takes it as the distance of the outcome not taken,
//! also when the result was kept in a local first (`int ok = valid(x); … if (!ok)`): such a
//! local ([`flag_locals`]) gets a shadow that each store into it sets to the flag distance of
//! what it stores. All of it runs only while the trace map's flags have
//! [`evotest_abi::shm::FLAG_RETURN_DISTANCES`] (function-level searches); otherwise a frame costs
//! two stores at the function's entry and a load and a branch per condition.

use crate::collect::int_width;
use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::{LLVMIntPredicate, LLVMOpcode, LLVMTypeKind};
use std::collections::{HashMap, HashSet};

/// Where a condition's truth value comes from, when it tests a flag for zero ([`source`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// The result of a call of this called value.
    Call(LLVMValueRef),
    /// A load of this local (an `alloca`), whose shadow holds the flag distance of what was
    /// stored in it last, when it is one of [`flag_locals`].
    Local(LLVMValueRef),
}

/// A condition of a flag function, where its frame probe goes.
pub enum Point {
    /// An `icmp` on integers of at most 64 bits (the probe goes right after it); `source` when
    /// it tests a flag for zero.
    Int {
        cmp: LLVMValueRef,
        source: Option<Source>,
    },
    /// An `fcmp` on floats of at most 64 bits (right after it).
    Float { cmp: LLVMValueRef },
    /// A `switch` on an integer of at most 64 bits (right before it), with its case values.
    Switch {
        inst: LLVMValueRef,
        value: LLVMValueRef,
        cases: Vec<i64>,
    },
    /// Any other condition the function evaluates (a compare of pointers or of wide integers,
    /// right after it; a branch on a flag, a call's `bool` result or a local's, right before the
    /// branch; a call of a flag function, right after it), with the flag it tests.
    Other {
        at: LLVMValueRef,
        after: bool,
        value: LLVMValueRef,
        source: Option<Source>,
    },
}

/// A flag function: its conditions and its `ret` instructions.
pub struct FlagFunction {
    pub points: Vec<Point>,
    pub rets: Vec<LLVMValueRef>,
    /// Its CFG has a cycle (a loop), so one call may evaluate a condition many times.
    pub cyclic: bool,
}

impl FlagFunction {
    /// The `points` its returns pass to [`evotest_abi::distance::flag_distance`], whose
    /// approach part is `points - evaluated`: the number of its conditions; for a function with
    /// a loop, which may evaluate more conditions than it has, [`LOOP_EVALS`] per condition (at
    /// least 256), so that a call that fails at a later iteration (`for (…) if (!isdigit(s[i]))
    /// return 0;` at the fifth character rather than the first) is nearer to returning the other
    /// value.
    pub fn points_bound(&self) -> u32 {
        let n = self.points.len() as u32;
        if self.cyclic {
            n.saturating_mul(LOOP_EVALS).max(256)
        } else {
            n
        }
    }
}

/// Evaluations of each condition of a flag function with a loop that its flag distance tells
/// apart ([`FlagFunction::points_bound`]).
pub const LOOP_EVALS: u32 = 16;

/// The called value of the call whose result `v` tests for zero, if it does: `v` is the call
/// (an integer or `bool` result), or reaches it through casts, `icmp eq/ne x, 0` and `xor x,
/// true`: `f(x)`, `f(x) != 0`, `!f(x)`, `(bool)f(x)`. Calls of intrinsics and of evotest's own
/// functions are not such calls.
///
/// # Safety
/// `v` must be a value of a valid module.
pub unsafe fn call_result(v: LLVMValueRef) -> Option<LLVMValueRef> {
    match source(v)? {
        Source::Call(c) => Some(c),
        Source::Local(_) => None,
    }
}

/// The flag that `v` tests for zero, if it does ([`call_result`]'s calls, and the loads of an
/// integer local: `ok`, `!ok`, `ok != 0`). Whether a local's shadow exists is the caller's to
/// check ([`flag_locals`]).
///
/// # Safety
/// `v` must be a value of a valid module.
pub unsafe fn source(v: LLVMValueRef) -> Option<Source> {
    let mut v = v;
    for _ in 0..8 {
        if LLVMIsAInstruction(v).is_null() {
            return None;
        }
        match LLVMGetInstructionOpcode(v) {
            LLVMOpcode::LLVMZExt | LLVMOpcode::LLVMSExt | LLVMOpcode::LLVMTrunc => {
                v = LLVMGetOperand(v, 0)
            }
            LLVMOpcode::LLVMXor => {
                let (a, b) = (LLVMGetOperand(v, 0), LLVMGetOperand(v, 1));
                v = if is_all_ones(b) {
                    a
                } else if is_all_ones(a) {
                    b
                } else {
                    return None;
                };
            }
            LLVMOpcode::LLVMICmp => {
                if !matches!(
                    LLVMGetICmpPredicate(v),
                    LLVMIntPredicate::LLVMIntEQ | LLVMIntPredicate::LLVMIntNE
                ) {
                    return None;
                }
                let (a, b) = (LLVMGetOperand(v, 0), LLVMGetOperand(v, 1));
                v = if is_zero_int(b) {
                    a
                } else if is_zero_int(a) {
                    b
                } else {
                    return None;
                };
            }
            LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke => {
                let t = LLVMTypeOf(v);
                if LLVMGetTypeKind(t) != LLVMTypeKind::LLVMIntegerTypeKind
                    || LLVMGetIntTypeWidth(t) > 64
                {
                    return None;
                }
                let callee = LLVMGetCalledValue(v);
                let f = LLVMIsAFunction(callee);
                if !f.is_null() {
                    if LLVMGetIntrinsicID(f) != 0 {
                        return None;
                    }
                    let mut len = 0usize;
                    let name = LLVMGetValueName2(f, &mut len);
                    let name = std::slice::from_raw_parts(name as *const u8, len);
                    if name.starts_with(b"__evotest") || name.starts_with(b"llvm.") {
                        return None;
                    }
                }
                return Some(Source::Call(callee));
            }
            LLVMOpcode::LLVMLoad => {
                let a = LLVMGetOperand(v, 0);
                let t = LLVMTypeOf(v);
                let int = LLVMGetTypeKind(t) == LLVMTypeKind::LLVMIntegerTypeKind
                    && LLVMGetIntTypeWidth(t) <= 64;
                return (!LLVMIsAAllocaInst(a).is_null() && int).then_some(Source::Local(a));
            }
            _ => return None,
        }
    }
    None
}

/// A local that holds a call's result (`int ok = valid(x);`): its `alloca`, and each store into
/// it with the callee whose result it stores, if it stores one.
pub struct FlagLocal {
    pub alloca: LLVMValueRef,
    pub stores: Vec<(LLVMValueRef, Option<LLVMValueRef>)>,
}

/// The locals of `func` that some condition tests for zero ([`source`]) and that hold a call's
/// result: integer `alloca`s whose address is used only to load and store (and by debug and
/// lifetime markers), at least one store storing a call's result ([`call_result`]).
///
/// # Safety
/// `func` must be a function with a body in a valid module, not yet instrumented.
pub unsafe fn flag_locals(func: LLVMValueRef) -> Vec<FlagLocal> {
    let mut tested: HashSet<LLVMValueRef> = HashSet::new();
    let mut allocas = Vec::new();
    let mut bb = LLVMGetFirstBasicBlock(func);
    while !bb.is_null() {
        let mut i = LLVMGetFirstInstruction(bb);
        while !i.is_null() {
            match LLVMGetInstructionOpcode(i) {
                LLVMOpcode::LLVMAlloca => allocas.push(i),
                op => {
                    let cond = match op {
                        LLVMOpcode::LLVMBr if LLVMIsConditional(i) != 0 => LLVMGetCondition(i),
                        LLVMOpcode::LLVMSelect => LLVMGetOperand(i, 0),
                        LLVMOpcode::LLVMICmp => i,
                        _ => std::ptr::null_mut(),
                    };
                    if !cond.is_null() {
                        if let Some(Source::Local(a)) = source(cond) {
                            tested.insert(a);
                        }
                    }
                }
            }
            i = LLVMGetNextInstruction(i);
        }
        bb = LLVMGetNextBasicBlock(bb);
    }
    let mut out = Vec::new();
    for a in allocas.into_iter().filter(|a| tested.contains(a)) {
        let t = LLVMGetAllocatedType(a);
        if LLVMGetTypeKind(t) != LLVMTypeKind::LLVMIntegerTypeKind || LLVMGetIntTypeWidth(t) > 64 {
            continue;
        }
        let mut stores = Vec::new();
        let mut ok = true;
        let mut u = LLVMGetFirstUse(a);
        while !u.is_null() {
            let user = LLVMGetUser(u);
            match LLVMGetInstructionOpcode(user) {
                LLVMOpcode::LLVMLoad => {}
                LLVMOpcode::LLVMStore if LLVMGetOperand(user, 1) == a => {
                    stores.push((user, call_result(LLVMGetOperand(user, 0))))
                }
                LLVMOpcode::LLVMCall
                    if {
                        let f = LLVMIsAFunction(LLVMGetCalledValue(user));
                        !f.is_null() && LLVMGetIntrinsicID(f) != 0
                    } => {}
                _ => ok = false,
            }
            u = LLVMGetNextUse(u);
        }
        if ok && stores.iter().any(|(_, c)| c.is_some()) {
            out.push(FlagLocal { alloca: a, stores });
        }
    }
    out
}

/// Whether `v` is a scalar integer constant 0 (not a vector splat, which LLVM may also keep as
/// a `ConstantInt`).
unsafe fn is_zero_int(v: LLVMValueRef) -> bool {
    !LLVMIsAConstantInt(v).is_null()
        && LLVMGetTypeKind(LLVMTypeOf(v)) == LLVMTypeKind::LLVMIntegerTypeKind
        && LLVMConstIntGetZExtValue(v) == 0
        && LLVMGetIntTypeWidth(LLVMTypeOf(v)) <= 64
}

/// Whether `v` is a scalar integer constant with all bits set (`true`, `-1`).
unsafe fn is_all_ones(v: LLVMValueRef) -> bool {
    if LLVMIsAConstantInt(v).is_null()
        || LLVMGetTypeKind(LLVMTypeOf(v)) != LLVMTypeKind::LLVMIntegerTypeKind
    {
        return false;
    }
    let w = LLVMGetIntTypeWidth(LLVMTypeOf(v));
    w <= 64 && LLVMConstIntGetZExtValue(v) == (u64::MAX >> (64 - w))
}

/// The flag functions among `bodies` (functions with bodies in one module, not yet
/// instrumented), each as a [`FlagFunction`]: a function that returns an integer of at most 64
/// bits, every value it returns a constant or a truth value (an `i1`, through casts, `phi`s,
/// `select`s, local variables that only ever hold such values, and the results of calls of flag
/// functions: `return a && b;`, `if (c) return 1; return 0;`, `bool result = …; return result;`,
/// `return match(p + 1, s);`), and which evaluates at least one condition; loops allowed
/// ([`FlagFunction::points_bound`]). Calls between them, recursion included, are resolved as a
/// greatest fixpoint: a function stays a flag function while every call its results come from
/// is of one.
///
/// # Safety
/// `bodies` must be functions with bodies in a valid module, not yet instrumented.
pub unsafe fn analyse(bodies: &[LLVMValueRef]) -> Vec<(LLVMValueRef, FlagFunction)> {
    let mut candidates: Vec<(LLVMValueRef, FlagFunction)> = bodies
        .iter()
        .filter_map(|&f| candidate(f).map(|c| (f, c)))
        .collect();
    loop {
        let set: HashSet<LLVMValueRef> = candidates.iter().map(|(f, _)| *f).collect();
        let before = candidates.len();
        candidates.retain(|(_, ff)| {
            ff.rets
                .iter()
                .all(|&r| truth_value(LLVMGetOperand(r, 0), &set, &mut HashSet::new()))
        });
        if candidates.len() == before {
            break;
        }
    }
    let set: HashSet<LLVMValueRef> = candidates.iter().map(|(f, _)| *f).collect();
    // a call of a flag function is a condition of its caller: its result decides what the
    // caller returns (`return match(p + 1, s)`), or a condition on it does
    for (func, ff) in &mut candidates {
        let mut bb = LLVMGetFirstBasicBlock(*func);
        while !bb.is_null() {
            let mut i = LLVMGetFirstInstruction(bb);
            while !i.is_null() {
                if !LLVMIsACallInst(i).is_null() && set.contains(&LLVMGetCalledValue(i)) {
                    ff.points.push(Point::Other {
                        at: i,
                        after: true,
                        value: i,
                        source: Some(Source::Call(LLVMGetCalledValue(i))),
                    });
                }
                i = LLVMGetNextInstruction(i);
            }
            bb = LLVMGetNextBasicBlock(bb);
        }
    }
    candidates
}

/// `func` as a flag function if its results are truth values (see [`analyse`]): its conditions
/// and `ret`s, or `None` when it cannot be one.
unsafe fn candidate(func: LLVMValueRef) -> Option<FlagFunction> {
    let ret_ty = LLVMGetReturnType(LLVMGlobalGetValueType(func));
    if LLVMGetTypeKind(ret_ty) != LLVMTypeKind::LLVMIntegerTypeKind
        || LLVMGetIntTypeWidth(ret_ty) > 64
    {
        return None;
    }
    let cyclic = has_cycle(func);
    let mut points = Vec::new();
    let mut rets = Vec::new();
    let mut bb = LLVMGetFirstBasicBlock(func);
    while !bb.is_null() {
        let mut i = LLVMGetFirstInstruction(bb);
        while !i.is_null() {
            match LLVMGetInstructionOpcode(i) {
                LLVMOpcode::LLVMICmp => {
                    let a = LLVMGetOperand(i, 0);
                    let narrow = int_width(a).is_some_and(|w| w <= 64);
                    if narrow && LLVMGetTypeKind(LLVMTypeOf(a)) == LLVMTypeKind::LLVMIntegerTypeKind
                    {
                        points.push(Point::Int {
                            cmp: i,
                            source: source(i),
                        });
                    } else {
                        points.push(Point::Other {
                            at: i,
                            after: true,
                            value: i,
                            source: None,
                        });
                    }
                }
                LLVMOpcode::LLVMFCmp => {
                    let t = LLVMGetTypeKind(LLVMTypeOf(LLVMGetOperand(i, 0)));
                    if matches!(
                        t,
                        LLVMTypeKind::LLVMHalfTypeKind
                            | LLVMTypeKind::LLVMFloatTypeKind
                            | LLVMTypeKind::LLVMDoubleTypeKind
                            | LLVMTypeKind::LLVMBFloatTypeKind
                    ) {
                        points.push(Point::Float { cmp: i });
                    } else {
                        points.push(Point::Other {
                            at: i,
                            after: true,
                            value: i,
                            source: None,
                        });
                    }
                }
                LLVMOpcode::LLVMSwitch => {
                    let value = LLVMGetOperand(i, 0);
                    if int_width(value).is_some_and(|w| w <= 64) {
                        // successor 0 is the default, successor k > 0 case k - 1 (LLVM 22
                        // keeps case values out of the operand list: ask for them)
                        let cases = (1..LLVMGetNumSuccessors(i))
                            .map(|k| LLVMConstIntGetSExtValue(LLVMGetSwitchCaseValue(i, k)))
                            .collect();
                        points.push(Point::Switch {
                            inst: i,
                            value,
                            cases,
                        });
                    }
                }
                LLVMOpcode::LLVMBr if LLVMIsConditional(i) != 0 => {
                    let c = LLVMGetCondition(i);
                    let compare = !LLVMIsAInstruction(c).is_null()
                        && matches!(
                            LLVMGetInstructionOpcode(c),
                            LLVMOpcode::LLVMICmp | LLVMOpcode::LLVMFCmp
                        );
                    if !compare {
                        if let Some(src) = source(c) {
                            points.push(Point::Other {
                                at: i,
                                after: false,
                                value: c,
                                source: Some(src),
                            });
                        }
                    }
                }
                LLVMOpcode::LLVMRet => {
                    if LLVMGetNumOperands(i) != 1 {
                        return None;
                    }
                    // nothing may come between a `musttail` call and its `ret`
                    let before = LLVMGetPreviousInstruction(i);
                    if !before.is_null()
                        && !LLVMIsACallInst(before).is_null()
                        && LLVMGetTailCallKind(before)
                            == inkwell::llvm_sys::LLVMTailCallKind::LLVMTailCallKindMustTail
                    {
                        return None;
                    }
                    rets.push(i);
                }
                _ => {}
            }
            i = LLVMGetNextInstruction(i);
        }
        bb = LLVMGetNextBasicBlock(bb);
    }
    if points.is_empty() || rets.is_empty() {
        return None;
    }
    Some(FlagFunction {
        points,
        rets,
        cyclic,
    })
}

/// Whether `v` only ever holds a constant or a truth value (see [`analyse`]), the results of
/// calls of the functions of `flags` counting as truth values. `seen` guards against cycles
/// through `phi`s and locals.
unsafe fn truth_value(
    v: LLVMValueRef,
    flags: &HashSet<LLVMValueRef>,
    seen: &mut HashSet<LLVMValueRef>,
) -> bool {
    if !LLVMIsAConstantInt(v).is_null() {
        return true;
    }
    let t = LLVMTypeOf(v);
    if LLVMGetTypeKind(t) == LLVMTypeKind::LLVMIntegerTypeKind && LLVMGetIntTypeWidth(t) == 1 {
        return true;
    }
    if LLVMIsAInstruction(v).is_null() || !seen.insert(v) || seen.len() > 64 {
        return false;
    }
    match LLVMGetInstructionOpcode(v) {
        LLVMOpcode::LLVMZExt | LLVMOpcode::LLVMSExt | LLVMOpcode::LLVMTrunc => {
            truth_value(LLVMGetOperand(v, 0), flags, seen)
        }
        LLVMOpcode::LLVMPHI => {
            (0..LLVMCountIncoming(v)).all(|k| truth_value(LLVMGetIncomingValue(v, k), flags, seen))
        }
        LLVMOpcode::LLVMSelect => {
            truth_value(LLVMGetOperand(v, 1), flags, seen)
                && truth_value(LLVMGetOperand(v, 2), flags, seen)
        }
        LLVMOpcode::LLVMCall => flags.contains(&LLVMGetCalledValue(v)),
        LLVMOpcode::LLVMLoad => {
            let a = LLVMGetOperand(v, 0);
            if LLVMIsAAllocaInst(a).is_null() {
                return false;
            }
            // every use of the local is a load, a store of a truth value into it, or a debug or
            // lifetime marker (its address never escapes)
            let mut u = LLVMGetFirstUse(a);
            while !u.is_null() {
                let user = LLVMGetUser(u);
                let ok = match LLVMGetInstructionOpcode(user) {
                    LLVMOpcode::LLVMLoad => true,
                    LLVMOpcode::LLVMStore => {
                        LLVMGetOperand(user, 1) == a
                            && truth_value(LLVMGetOperand(user, 0), flags, seen)
                    }
                    LLVMOpcode::LLVMCall => {
                        let f = LLVMIsAFunction(LLVMGetCalledValue(user));
                        !f.is_null() && LLVMGetIntrinsicID(f) != 0
                    }
                    _ => false,
                };
                if !ok {
                    return false;
                }
                u = LLVMGetNextUse(u);
            }
            true
        }
        _ => false,
    }
}

/// Whether the CFG of `func` has a cycle (a loop, or a `goto` back): a depth-first search from
/// the entry that meets a block on its own path.
unsafe fn has_cycle(func: LLVMValueRef) -> bool {
    let entry = LLVMGetEntryBasicBlock(func);
    // 1 = on the current path, 2 = done
    let mut state: HashMap<LLVMBasicBlockRef, u8> = HashMap::new();
    let mut stack: Vec<(LLVMBasicBlockRef, u32)> = vec![(entry, 0)];
    state.insert(entry, 1);
    while let Some(&mut (bb, ref mut next)) = stack.last_mut() {
        let term = LLVMGetBasicBlockTerminator(bb);
        let n = if term.is_null() {
            0
        } else {
            LLVMGetNumSuccessors(term)
        };
        if *next < n {
            let s = LLVMGetSuccessor(term, *next);
            *next += 1;
            match state.get(&s) {
                Some(1) => return true,
                Some(_) => {}
                None => {
                    state.insert(s, 1);
                    stack.push((s, 0));
                }
            }
        } else {
            state.insert(bb, 2);
            stack.pop();
        }
    }
    false
}
