//! Coverage-only clones: a second copy of every function body, for the executions that read
//! only which outcomes were taken ([`evotest_abi::shm::FLAG_LITE`]).
//!
//! The probes are placed before optimisation, so that the optimiser cannot fold the branches
//! they describe. The price is paid in every execution, also in those that need no distances:
//! each probe is a call the optimiser cannot see through, which keeps operands alive, blocks
//! the motion of loads across it and stops the vectoriser. A coverage-only execution counted
//! the outcomes inline, yet still ran that code (measured: 4× the program's own time, against
//! 6% for libFuzzer's counters, placed after optimisation).
//!
//! So each function `f` that can be cloned ([`evotest_can_clone`]: optimised, not variadic, not
//! naked, not `returns_twice`, no address-taken block, no inline asm, whose text the assembler
//! would get twice) gets an internal clone `f.evotest_lite`, made after all probes are in
//! place, in which
//! * every inline quiet path calls its coverage-only twin instead, which counts the outcome in
//!   the lite map and never calls a probe (the compares' operands become dead code);
//! * a conditional `br` or `select` (its probe stands right before it and carries
//!   [`names::LITE_BRANCH_MD`]) counts through a **mark** instead of its twin: the site's
//!   condition becomes `h = `[`names::LITE_MARK`]`(&desc->lite, ob, holds)`, a call that touches
//!   only memory the program cannot reach, so that the optimiser moves the program's loads and
//!   stores across it, but never removes, merges or hoists it, and it stays in the branch's block.
//!   After optimisation the shim's `EvotestLowerMarks` makes each mark the count itself, on the
//!   branch's edges at constant offsets. A twin's counts were stores placed before optimisation,
//!   which the optimiser had to keep in order with the program's memory, and at an address
//!   computed from the condition (measured by replaying AFL++'s sqlite3 queue through the
//!   clones: 75 µs per execution with twins, 66 µs with marks counted at `ob + !holds`, 46 µs
//!   with marks counted on edges; 22 µs without any instrumentation, 26 µs with
//!   SanitizerCoverage's counters);
//! * the probes that feed only distances and traces are removed: definition probes, routine
//!   operand logging, the flag functions' frames, and flag distances (NaN);
//! * a `switch` counts on its edges (`evotest_lite_switch_edges` in the C++ shim): each
//!   successor's edge gets a block that counts its outcome;
//! * string and byte compares keep their probes, which count in the lite map by themselves;
//! * direct calls of a cloned function call its clone.
//!
//! At `f`'s entry, a test of the flag word sends a coverage-only execution to the clone (two
//! loads and a branch in the others). What the clone counts is what the original counts in a
//! coverage-only execution; `tests/lite.rs` checks it. The code grows about twofold.
//!
//! A function without a clone (one with inline asm, or any at -O0) runs its original in
//! coverage-only executions: its probes' inline quiet paths count the outcomes in the lite map
//! themselves, so it reads the same, only slower.

use evotest_abi::names;
use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::module::Module;
use inkwell::values::{AsValueRef, FunctionValue};
use std::collections::HashMap;
use std::ffi::{CStr, CString};

extern "C" {
    fn evotest_can_clone(f: LLVMValueRef) -> bool;
    fn evotest_clone_function(f: LLVMValueRef, name: *const std::ffi::c_char) -> LLVMValueRef;
    fn evotest_lite_dispatch(f: LLVMValueRef, lite: LLVMValueRef, flags: LLVMValueRef, mask: u32);
    fn evotest_lite_marks(
        f: LLVMValueRef,
        twins: *const LLVMValueRef,
        n: u32,
        lite_offset: u64,
    ) -> u32;
    fn evotest_lite_switch_edges(
        f: LLVMValueRef,
        switch_lite: LLVMValueRef,
        lite_offset: u64,
    ) -> u32;
}

/// What a clone does with a call of a runtime function.
enum Action {
    /// Call this function instead (same type).
    Retarget(LLVMValueRef),
    /// Remove the call; a result is replaced by NaN (a flag distance).
    Remove,
    Keep,
}

/// Give each function of `bodies` that can be cloned its coverage-only clone and the dispatch
/// at its entry (see the module docs). `twins` pairs each inline quiet path with its
/// coverage-only twin; `flags` is the runtime's pointer to its flag word ([`names::FLAGS`]);
/// with `marks`, the clones' branches and selects count through marks (module docs).
/// Returns the number of functions cloned.
///
/// # Safety
/// `bodies` must be function definitions of `module`, instrumented and with all probes in place.
pub(crate) unsafe fn clone_bodies<'ctx>(
    module: &Module<'ctx>,
    bodies: &[LLVMValueRef],
    twins: &[(FunctionValue<'ctx>, FunctionValue<'ctx>)],
    flags: LLVMValueRef,
    marks: bool,
) -> Result<usize, String> {
    let mut clones: HashMap<LLVMValueRef, LLVMValueRef> = HashMap::new();
    for &f in bodies {
        if !evotest_can_clone(f) {
            continue;
        }
        let name = CString::new(format!("{}{}", value_name(f), names::LITE_CLONE_SUFFIX))
            .map_err(|e| e.to_string())?;
        let c = evotest_clone_function(f, name.as_ptr());
        if c.is_null() {
            return Err(format!("cannot clone {}", value_name(f)));
        }
        clones.insert(f, c);
    }
    if clones.is_empty() {
        return Ok(0);
    }
    let twins: HashMap<LLVMValueRef, LLVMValueRef> = twins
        .iter()
        .map(|(q, l)| (q.as_value_ref(), l.as_value_ref()))
        .collect();
    let action = |callee: LLVMValueRef| -> Action {
        if let Some(&c) = clones.get(&callee).or_else(|| twins.get(&callee)) {
            return Action::Retarget(c);
        }
        let name = value_name(callee);
        let removed = name == names::DEF_IF_TRACING
            || name == names::RTN_IF_LOGGING
            || name == names::LOOSE_IF_LOGGING
            || name == names::FLAG_OF_IF_ON
            || name.starts_with(names::FRAME_IF_ON);
        if removed {
            Action::Remove
        } else {
            Action::Keep
        }
    };
    let ctx = LLVMGetModuleContext(module.as_mut_ptr());
    let nan = LLVMConstReal(LLVMDoubleTypeInContext(ctx), f64::NAN);
    for &c in clones.values() {
        let mut remove = Vec::new();
        let mut bb = LLVMGetFirstBasicBlock(c);
        while !bb.is_null() {
            let mut i = LLVMGetFirstInstruction(bb);
            while !i.is_null() {
                if !LLVMIsACallInst(i).is_null() || !LLVMIsAInvokeInst(i).is_null() {
                    let n = LLVMGetNumOperands(i);
                    let callee = LLVMGetOperand(i, (n - 1) as u32);
                    if !LLVMIsAFunction(callee).is_null() {
                        match action(callee) {
                            Action::Retarget(to) => LLVMSetOperand(i, (n - 1) as u32, to),
                            Action::Remove if !LLVMIsACallInst(i).is_null() => remove.push(i),
                            _ => {}
                        }
                    }
                }
                i = LLVMGetNextInstruction(i);
            }
            bb = LLVMGetNextBasicBlock(bb);
        }
        for i in remove {
            if LLVMGetTypeKind(LLVMTypeOf(i)) == inkwell::llvm_sys::LLVMTypeKind::LLVMDoubleTypeKind
            {
                LLVMReplaceAllUsesWith(i, nan);
            } else if !LLVMGetFirstUse(i).is_null() {
                continue; // a result of another type: not a probe this module knows
            }
            LLVMInstructionEraseFromParent(i);
        }
    }
    // a switch counts on its edges, not through the probe's binary search
    let switch_lite = CString::new(format!("{}{}", names::PROBE_SWITCH, names::LITE_SUFFIX))
        .map_err(|e| e.to_string())?;
    let switch_lite = LLVMGetNamedFunction(module.as_mut_ptr(), switch_lite.as_ptr());
    if !switch_lite.is_null() {
        let offset = std::mem::offset_of!(evotest_abi::shm::ModuleDesc, lite) as u64;
        for &c in clones.values() {
            evotest_lite_switch_edges(c, switch_lite, offset);
        }
    }
    // a conditional `br` or `select` counts through a mark, made the count after optimisation
    if marks {
        let tw: Vec<LLVMValueRef> = twins.values().copied().collect();
        let offset = std::mem::offset_of!(evotest_abi::shm::ModuleDesc, lite) as u64;
        for &c in clones.values() {
            evotest_lite_marks(c, tw.as_ptr(), tw.len() as u32, offset);
        }
    }
    for (&f, &c) in &clones {
        evotest_lite_dispatch(f, c, flags, evotest_abi::shm::FLAG_LITE);
    }
    Ok(clones.len())
}

/// The name of a global value, lossily as UTF-8.
unsafe fn value_name(v: LLVMValueRef) -> String {
    let mut len = 0usize;
    let p = LLVMGetValueName2(v, &mut len);
    if p.is_null() {
        return String::new();
    }
    CStr::from_ptr(p).to_string_lossy().into_owned()
}
