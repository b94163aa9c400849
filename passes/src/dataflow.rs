//! Data-dependence metadata: tracked variables, their definition sites, and the variables each
//! branch condition reads. The engine computes reaching definitions from it and the chaining
//! approach (McMinn & Holcombe 2004) builds event sequences from it.
//!
//! What counts, at -O0:
//! * **variables**: named locals (`alloca`s with a `#dbg_declare`), parameters' local copies,
//!   globals (including function-local `static`s), and each non-void function's return value;
//! * **definitions**: a `store` to a variable (a *partial* definition when it goes through a GEP,
//!   `a[i] = …`, which does not kill earlier ones), the store of an argument into its parameter's
//!   copy at entry (`param_init`), and for the return value the stores to the function's `retval`
//!   slot, or its `ret` instructions when it has none (a return value computed from a call's
//!   result, `return f(x)` or `return n * f(n - 1)`, is a definition without a probe: a probe
//!   between the call and the `ret` would keep the optimiser from turning the call into a jump,
//!   [`tail_call_value`]);
//! * **uses** of a condition: loads of variables it is computed from, and calls to functions of
//!   the module (which use their return value).
//!
//! Memory reached through pointers other than these (`*p`, a parameter array's elements) is not
//! tracked.

use crate::condtext;
use crate::debuginfo::{inst_loc, value_name, Loc, VarNames};
use evotest_abi::meta::{VarKind, VarMeta};
use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::{LLVMOpcode, LLVMTypeKind};
use std::collections::HashMap;

/// Module-wide table of tracked variables (local IDs).
#[derive(Default)]
pub struct VarTable {
    pub vars: Vec<VarMeta>,
    /// Storage (`alloca` or global) → variable.
    pub by_storage: HashMap<LLVMValueRef, u32>,
    /// Function → its return-value variable.
    pub retval_of: HashMap<LLVMValueRef, u32>,
}

impl VarTable {
    fn add(&mut self, name: String, kind: VarKind, function: Option<u32>) -> u32 {
        let id = self.vars.len() as u32;
        self.vars.push(VarMeta {
            id,
            name,
            kind,
            function,
        });
        id
    }

    /// Globals of the module and the return values of its defined functions; `functions` are the
    /// defined functions in metadata order.
    pub fn new(module: LLVMModuleRef, functions: &[LLVMValueRef]) -> VarTable {
        let mut t = VarTable::default();
        unsafe {
            let mut g = LLVMGetFirstGlobal(module);
            while !g.is_null() {
                let name = value_name(g);
                if LLVMIsGlobalConstant(g) == 0
                    && !name.starts_with("__evotest")
                    && !name.starts_with("llvm.")
                {
                    let short = name.rsplit('.').next().unwrap_or(&name).to_string();
                    let id = t.add(short, VarKind::Global, None);
                    t.by_storage.insert(g, id);
                }
                g = LLVMGetNextGlobal(g);
            }
            for (i, &f) in functions.iter().enumerate() {
                let ret = LLVMGetReturnType(LLVMGlobalGetValueType(f));
                if LLVMGetTypeKind(ret) != LLVMTypeKind::LLVMVoidTypeKind {
                    // Rust functions by their path (`core::str::<impl str>::starts_with()`), not
                    // their mangled symbol
                    let sym = value_name(f);
                    let shown = crate::condtext::rust_legacy_demangle(&sym)
                        .or_else(|| {
                            sym.starts_with("_R")
                                .then(|| crate::debuginfo::source_name(f).map(|(n, _)| n))
                                .flatten()
                        })
                        .unwrap_or(sym);
                    let id = t.add(format!("{shown}()"), VarKind::Retval, Some(i as u32));
                    t.retval_of.insert(f, id);
                }
            }
        }
        t
    }

    /// Add the locals of function `fi` (named allocas, parameters' copies) and its `retval` slot.
    pub fn add_locals(&mut self, func: LLVMValueRef, fi: u32, names: &VarNames) {
        let mut storage: Vec<(LLVMValueRef, String)> = names
            .by_storage
            .iter()
            .map(|(k, v)| (*k, v.clone()))
            .collect();
        // deterministic order: by position in the entry block
        unsafe {
            let mut order = HashMap::new();
            let mut k = 0;
            let mut bb = LLVMGetFirstBasicBlock(func);
            while !bb.is_null() {
                let mut inst = LLVMGetFirstInstruction(bb);
                while !inst.is_null() {
                    order.insert(inst, k);
                    k += 1;
                    inst = LLVMGetNextInstruction(inst);
                }
                bb = LLVMGetNextBasicBlock(bb);
            }
            storage.sort_by_key(|(a, _)| order.get(a).copied().unwrap_or(usize::MAX));
        }
        for (alloca, name) in storage {
            unsafe {
                if LLVMIsAAllocaInst(alloca).is_null() {
                    continue;
                }
            }
            let kind = if names.param_storage.contains(&alloca) {
                VarKind::Param
            } else {
                VarKind::Local
            };
            let id = self.add(name, kind, Some(fi));
            self.by_storage.insert(alloca, id);
        }
        if let (Some(&rv), Some(slot)) = (self.retval_of.get(&func), retval_slot(func)) {
            self.by_storage.entry(slot).or_insert(rv);
        }
    }
}

/// The `retval` slot of a function at -O0: the alloca its `ret` loads from, if any.
pub fn retval_slot(func: LLVMValueRef) -> Option<LLVMValueRef> {
    unsafe {
        let mut bb = LLVMGetFirstBasicBlock(func);
        while !bb.is_null() {
            let t = LLVMGetBasicBlockTerminator(bb);
            if !t.is_null()
                && LLVMGetInstructionOpcode(t) == LLVMOpcode::LLVMRet
                && LLVMGetNumOperands(t) == 1
            {
                let v = LLVMGetOperand(t, 0);
                if !LLVMIsALoadInst(v).is_null() {
                    let p = LLVMGetOperand(v, 0);
                    if !LLVMIsAAllocaInst(p).is_null() {
                        return Some(p);
                    }
                }
            }
            bb = LLVMGetNextBasicBlock(bb);
        }
        None
    }
}

/// A definition found in a function, before numbering.
pub struct DefDraft {
    /// The defining instruction; the probe goes right after it (before it, for a `ret`).
    pub inst: LLVMValueRef,
    pub after: bool,
    pub var: u32,
    pub block: u32,
    pub index: u32,
    pub loc: Loc,
    pub text: String,
    pub param_init: bool,
    pub partial: bool,
    /// Whether a probe reports it in the ordered trace: not for a parameter's initialisation,
    /// nor for a return value computed from a call's result ([`tail_call_value`]).
    pub probed: bool,
    /// Variables the defined value reads.
    pub uses: Vec<u32>,
}

/// The variable and partiality of a store's destination, if tracked.
fn store_target(vars: &VarTable, ptr: LLVMValueRef) -> Option<(u32, bool)> {
    if let Some(&v) = vars.by_storage.get(&ptr) {
        return Some((v, false));
    }
    unsafe {
        let mut p = ptr;
        for _ in 0..8 {
            let derived = !LLVMIsAGetElementPtrInst(p).is_null()
                || !LLVMIsABitCastInst(p).is_null()
                || (!LLVMIsAConstantExpr(p).is_null() && LLVMGetNumOperands(p) > 0);
            if !derived {
                return None;
            }
            p = LLVMGetOperand(p, 0);
            if let Some(&v) = vars.by_storage.get(&p) {
                return Some((v, true));
            }
        }
    }
    None
}

/// The definitions of instruction `inst` (at `index` in block `block` of `func`), if any.
pub fn def_of(
    vars: &VarTable,
    func: LLVMValueRef,
    inst: LLVMValueRef,
    block: u32,
    index: u32,
    names: &VarNames,
) -> Option<DefDraft> {
    unsafe {
        match LLVMGetInstructionOpcode(inst) {
            LLVMOpcode::LLVMStore => {
                let value = LLVMGetOperand(inst, 0);
                let ptr = LLVMGetOperand(inst, 1);
                let (var, partial) = store_target(vars, ptr)?;
                let param_init = !LLVMIsAArgument(value).is_null();
                let lhs = &vars.vars[var as usize].name;
                let lhs = if partial {
                    format!("{lhs}[…]")
                } else {
                    lhs.clone()
                };
                let rhs = condtext::text(value, names);
                let retval = vars.vars[var as usize].kind == VarKind::Retval;
                let text = if retval {
                    format!("return {rhs}")
                } else {
                    format!("{lhs} = {rhs}")
                };
                Some(DefDraft {
                    inst,
                    after: true,
                    var,
                    block,
                    index,
                    loc: inst_loc(inst).unwrap_or_default(),
                    text,
                    param_init,
                    partial,
                    probed: !param_init && !(retval && !partial && tail_call_value(value)),
                    uses: uses_of(vars, value),
                })
            }
            LLVMOpcode::LLVMRet if LLVMGetNumOperands(inst) == 1 && retval_slot(func).is_none() => {
                let var = *vars.retval_of.get(&func)?;
                Some(DefDraft {
                    inst,
                    after: false,
                    var,
                    block,
                    index,
                    loc: inst_loc(inst).unwrap_or_default(),
                    text: format!("return {}", condtext::text(LLVMGetOperand(inst, 0), names)),
                    param_init: false,
                    partial: false,
                    probed: !tail_call_value(LLVMGetOperand(inst, 0)),
                    uses: uses_of(vars, LLVMGetOperand(inst, 0)),
                })
            }
            _ => None,
        }
    }
}

/// Whether return value `v` is a call's result, or computed from one by casts and arithmetic in
/// the call's block (`return f(x)`, `return (long)f(x)`, `return n * f(n - 1)`): the shapes that
/// tail-call and accumulator recursion elimination turn into a jump, as long as nothing but the
/// computation lies between the call and the `ret`. A definition probe there (a load of the
/// ordered trace's flag and a call) would keep the call off the tail and a deep recursion, which
/// the optimiser runs in constant stack without the pass, would overflow the stack. Such a
/// definition is left unprobed ([`DefDraft::probed`]); the callee's own return values are
/// definitions of their own.
fn tail_call_value(v: LLVMValueRef) -> bool {
    fn walk(v: LLVMValueRef, block: LLVMBasicBlockRef, depth: u32) -> bool {
        use LLVMOpcode::*;
        unsafe {
            if depth > 6 || LLVMIsAInstruction(v).is_null() || LLVMGetInstructionParent(v) != block
            {
                return false;
            }
            match LLVMGetInstructionOpcode(v) {
                LLVMCall => {
                    let callee = LLVMGetCalledValue(v);
                    // an intrinsic is no call the optimiser can turn into a jump
                    LLVMIsAFunction(callee).is_null() || LLVMGetIntrinsicID(callee) == 0
                }
                LLVMTrunc | LLVMZExt | LLVMSExt | LLVMFPTrunc | LLVMFPExt | LLVMBitCast
                | LLVMPtrToInt | LLVMIntToPtr | LLVMFNeg => {
                    walk(LLVMGetOperand(v, 0), block, depth + 1)
                }
                LLVMAdd | LLVMFAdd | LLVMSub | LLVMFSub | LLVMMul | LLVMFMul | LLVMAnd | LLVMOr
                | LLVMXor => {
                    walk(LLVMGetOperand(v, 0), block, depth + 1)
                        || walk(LLVMGetOperand(v, 1), block, depth + 1)
                }
                _ => false,
            }
        }
    }
    unsafe { !LLVMIsAInstruction(v).is_null() && walk(v, LLVMGetInstructionParent(v), 0) }
}

/// The tracked variables a condition value reads.
pub fn uses_of(vars: &VarTable, v: LLVMValueRef) -> Vec<u32> {
    let mut out = Vec::new();
    collect_uses(vars, v, 0, &mut out);
    out
}

fn collect_uses(vars: &VarTable, v: LLVMValueRef, depth: u32, out: &mut Vec<u32>) {
    if depth > 12 {
        return;
    }
    unsafe {
        if LLVMIsAInstruction(v).is_null() {
            return;
        }
        match LLVMGetInstructionOpcode(v) {
            LLVMOpcode::LLVMLoad => {
                let p = LLVMGetOperand(v, 0);
                match store_target(vars, p) {
                    Some((var, _)) => {
                        if !out.contains(&var) {
                            out.push(var);
                        }
                    }
                    // untracked memory (`palette[i]`, `a[i]`): the address depends on the index
                    None => collect_uses(vars, p, depth + 1, out),
                }
            }
            LLVMOpcode::LLVMCall => {
                let callee = LLVMGetCalledValue(v);
                if let Some(&rv) = vars.retval_of.get(&callee) {
                    if !out.contains(&rv) {
                        out.push(rv);
                    }
                }
                let n = LLVMGetNumArgOperands(v);
                for i in 0..n {
                    collect_uses(vars, LLVMGetOperand(v, i), depth + 1, out);
                }
            }
            LLVMOpcode::LLVMPHI | LLVMOpcode::LLVMAlloca => {}
            _ => {
                let n = LLVMGetNumOperands(v) as u32;
                for i in 0..n {
                    collect_uses(vars, LLVMGetOperand(v, i), depth + 1, out);
                }
            }
        }
    }
}
