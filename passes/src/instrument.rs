//! Phase 2 of the pass: number the sites of all functions, insert one probe call before each
//! site, create the module descriptor and its registration constructor, and embed the metadata.

use crate::collect::{self, Cond, FunctionDraft};
use crate::condtext;
use crate::dataflow;
use crate::debuginfo;
use crate::Options;
use evotest_abi::meta::{self, ConstantMeta, DefMeta, ModuleMeta, SiteMeta, META_VERSION};
use evotest_abi::names;
use inkwell::builder::Builder;
use inkwell::context::AsContextRef;
use inkwell::context::ContextRef;
use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::{LLVMLinkage, LLVMTypeKind, LLVMVisibility};
use inkwell::module::{Linkage, Module};
use inkwell::values::AsValueRef;
use inkwell::values::{BasicValueEnum, FunctionValue, GlobalValue, InstructionValue};
use inkwell::AddressSpace;
use std::collections::HashMap;
use std::ffi::CString;

/// The probe functions, declared once per module.
struct Probes<'ctx> {
    cmp_int: FunctionValue<'ctx>,
    cmp_float: FunctionValue<'ctx>,
    cond: FunctionValue<'ctx>,
    /// Condition-only variants (sites of kind `Cond`): not branch events.
    ccmp_int: FunctionValue<'ctx>,
    ccmp_float: FunctionValue<'ctx>,
    ccond: FunctionValue<'ctx>,
    switch: FunctionValue<'ctx>,
    def: FunctionValue<'ctx>,
    str: FunctionValue<'ctx>,
    bytes: FunctionValue<'ctx>,
    rtn: FunctionValue<'ctx>,
    loose: FunctionValue<'ctx>,
    register: FunctionValue<'ctx>,
    /// A compare of a flag with 0, and a branch on a flag that is not compared
    /// ([`crate::flags::source`]): with the flag's distance.
    cmp_flag: FunctionValue<'ctx>,
    cond_flag: FunctionValue<'ctx>,
    /// Each inline quiet path and its coverage-only twin ([`lite_twin`]), which the
    /// coverage-only clones call instead ([`crate::lite`]).
    lite_twins: Vec<(FunctionValue<'ctx>, FunctionValue<'ctx>)>,
}

impl<'ctx> Probes<'ctx> {
    /// Route the probes of compares, conditions and switches through an inline quiet path
    /// ([`quiet_path`]): what a fully covered site in a hot loop costs, most of a fuzzer's probe
    /// evaluations.
    fn quiet_paths(
        &mut self,
        module: &Module<'ctx>,
        ctx: &ContextRef<'ctx>,
        desc_ty: inkwell::types::StructType<'ctx>,
    ) -> Result<(), String> {
        for (probe, name) in [
            (&mut self.cmp_int, "__evotest_cmp_int_q"),
            (&mut self.cmp_float, "__evotest_cmp_float_q"),
            (&mut self.cond, "__evotest_cond_q"),
            (&mut self.ccmp_int, "__evotest_ccmp_int_q"),
            (&mut self.ccmp_float, "__evotest_ccmp_float_q"),
            (&mut self.ccond, "__evotest_ccond_q"),
            (&mut self.switch, "__evotest_switch_q"),
            (&mut self.cmp_flag, "__evotest_cmp_flag_q"),
            (&mut self.cond_flag, "__evotest_cond_flag_q"),
        ] {
            let holds = name != "__evotest_switch_q";
            let twin = lite_twin(
                module,
                ctx,
                &format!("{}_l", name.trim_end_matches("_q")),
                *probe,
                desc_ty,
                holds,
            )?;
            *probe = quiet_path(module, ctx, name, *probe, twin, desc_ty, holds)?;
            self.lite_twins.push((*probe, twin));
        }
        Ok(())
    }
}

const _: () = assert!(
    evotest_abi::shm::FIRST_SEQ_QUIET == 1 << 31,
    "the quiet path tests the sign bit"
);

/// An internal, always-inlined function `name` with `probe`'s signature (its first three
/// parameters the module descriptor, the site and the site's first outcome), and, when `holds`,
/// one more `i1` parameter at the end: whether the site's condition holds (its outcome 0 is
/// taken). When the site's record, read through the descriptor's `recs`
/// ([`evotest_abi::shm::ModuleDesc::recs`]), has [`evotest_abi::shm::FIRST_SEQ_QUIET`] in its
/// `first_seq`, it adds one to the record's `hits` (saturating at `u32::MAX`) and returns;
/// otherwise it calls `probe` (see [`evotest_abi::names::PROBE_CMP_INT`]).
///
/// At a site that is not quiet, in a coverage-only execution ([`evotest_abi::shm::FLAG_LITE`] in
/// `*`[`names::FLAGS`]; its probes mark no record quiet), it calls `twin` instead of `probe`
/// ([`lite_twin`]: the outcome taken counted in the lite map, inline when the outcome is known).
/// The quiet test comes first, so that a full execution's fast path costs what it did.
fn quiet_path<'ctx>(
    module: &Module<'ctx>,
    ctx: &ContextRef<'ctx>,
    name: &str,
    probe: FunctionValue<'ctx>,
    twin: FunctionValue<'ctx>,
    desc_ty: inkwell::types::StructType<'ctx>,
    holds: bool,
) -> Result<FunctionValue<'ctx>, String> {
    use inkwell::IntPredicate;
    let p = ctx.ptr_type(AddressSpace::default());
    let (i32t, i64t) = (ctx.i32_type(), ctx.i64_type());
    let f = always_inlined(module, ctx, name, probe_type(ctx, probe, holds));
    // the quiet test is the entry: a full execution's hot path pays nothing for the lite one
    let block = |n: &str| ctx.append_basic_block(f, n);
    let (check, quiet, mode, lite, call) = (
        block("check"),
        block("quiet"),
        block("mode"),
        block("lite"),
        block("call"),
    );
    let b = ctx.create_builder();
    let all: Vec<_> = f.get_param_iter().map(Into::into).collect();
    // the probe has no `holds` parameter
    let args = &all[..all.len() - holds as usize];
    let desc = f
        .get_nth_param(0)
        .ok_or("probe without parameters")?
        .into_pointer_value();
    // not quiet: a coverage-only execution (whose probes never mark a record quiet) counts in
    // the lite map; any other calls the probe
    b.position_at_end(mode);
    let is_lite = flag_test(
        &b,
        ctx,
        runtime_pointer(module, ctx, names::FLAGS),
        evotest_abi::shm::FLAG_LITE,
    )?;
    e(b.build_conditional_branch(is_lite, lite, call))?;
    b.position_at_end(lite);
    e(b.build_call(twin, &all, ""))?;
    e(b.build_return(None))?;
    b.position_at_end(check);
    let site = f
        .get_nth_param(1)
        .ok_or("probe without a site")?
        .into_int_value();
    let recs_at = e(b.build_struct_gep(desc_ty, desc, evotest_abi::shm::DESC_RECS_FIELD, ""))?;
    let recs = e(b.build_load(p, recs_at, ""))?.into_pointer_value();
    let site64 = e(b.build_int_z_extend(site, i64t, ""))?;
    // SAFETY: the record index is within the module's n_sites records (the pass numbered them)
    let rec = unsafe { e(b.build_in_bounds_gep(i64t, recs, &[site64], ""))? };
    let first_seq_at =
        unsafe { e(b.build_in_bounds_gep(i32t, rec, &[i64t.const_int(1, false)], ""))? };
    let first_seq = e(b.build_load(i32t, first_seq_at, ""))?.into_int_value();
    let is_quiet = e(b.build_int_compare(IntPredicate::SLT, first_seq, i32t.const_zero(), ""))?;
    e(b.build_conditional_branch(is_quiet, quiet, mode))?;
    b.position_at_end(quiet);
    saturating_increment(&b, i32t, rec)?;
    e(b.build_return(None))?;
    b.position_at_end(call);
    e(b.build_call(probe, args, ""))?;
    e(b.build_return(None))?;
    Ok(f)
}

/// The coverage-only twin of the inline quiet path of `probe` ([`quiet_path`]), which the
/// coverage-only clones call instead ([`crate::lite`]), with the same parameters. With `holds`,
/// an internal, always-inlined function `name` that adds one to the outcome taken in the lite map
/// (through the descriptor's `lite`, which points at a private array until the module registers)
/// and does nothing else. Without, the probe's lite variant ([`names::LITE_SUFFIX`]).
///
/// No quiet test: a coverage-only execution starts with every site record zeroed and writes
/// none (`SharedMemory::scan_coverage`), so no site is quiet in it.
fn lite_twin<'ctx>(
    module: &Module<'ctx>,
    ctx: &ContextRef<'ctx>,
    name: &str,
    probe: FunctionValue<'ctx>,
    desc_ty: inkwell::types::StructType<'ctx>,
    holds: bool,
) -> Result<FunctionValue<'ctx>, String> {
    let probe_name = probe
        .get_name()
        .to_str()
        .map_err(|e| e.to_string())?
        .to_string();
    if !holds {
        return Ok(declare(
            module,
            &format!("{probe_name}{}", names::LITE_SUFFIX),
            probe.get_type(),
        ));
    }
    let f = always_inlined(module, ctx, name, probe_type(ctx, probe, true));
    let b = ctx.create_builder();
    b.position_at_end(ctx.append_basic_block(f, "count"));
    let desc = f
        .get_nth_param(0)
        .ok_or("probe without parameters")?
        .into_pointer_value();
    let ob = f
        .get_nth_param(2)
        .ok_or("probe without an outcome base")?
        .into_int_value();
    let holds = f
        .get_last_param()
        .ok_or("probe without parameters")?
        .into_int_value();
    let (i8t, i32t, i64t) = (ctx.i8_type(), ctx.i32_type(), ctx.i64_type());
    let lite_at = e(b.build_struct_gep(desc_ty, desc, evotest_abi::shm::DESC_LITE_FIELD, ""))?;
    let counts =
        e(b.build_load(ctx.ptr_type(AddressSpace::default()), lite_at, ""))?.into_pointer_value();
    // outcome 0 when the condition holds, 1 when not
    let not = e(b.build_not(holds, ""))?;
    let k = e(b.build_int_z_extend(not, i32t, ""))?;
    let o = e(b.build_int_add(ob, k, ""))?;
    let o = e(b.build_int_z_extend(o, i64t, ""))?;
    // SAFETY: the outcome is within the module's n_outcomes bytes of the lite map (or of the
    // private array)
    let at = unsafe { e(b.build_in_bounds_gep(i8t, counts, &[o], ""))? };
    saturating_increment(&b, i8t, at)?;
    e(b.build_return(None))?;
    Ok(f)
}

/// The type of a wrapper of `probe`: its parameters, and with `holds` one more `i1` (whether the
/// site's condition holds).
fn probe_type<'ctx>(
    ctx: &ContextRef<'ctx>,
    probe: FunctionValue<'ctx>,
    holds: bool,
) -> inkwell::types::FunctionType<'ctx> {
    let mut params = probe.get_type().get_param_types();
    if holds {
        params.push(ctx.bool_type().into());
    }
    ctx.void_type().fn_type(&params, false)
}

/// A new internal function `name` of type `ty`, always inlined and not unwinding (the pass's
/// inline wrappers).
fn always_inlined<'ctx>(
    module: &Module<'ctx>,
    ctx: &ContextRef<'ctx>,
    name: &str,
    ty: inkwell::types::FunctionType<'ctx>,
) -> FunctionValue<'ctx> {
    use inkwell::attributes::{Attribute, AttributeLoc};
    let f = module.add_function(name, ty, Some(Linkage::Internal));
    for attr in ["alwaysinline", "nounwind"] {
        f.add_attribute(
            AttributeLoc::Function,
            ctx.create_enum_attribute(Attribute::get_named_enum_kind_id(attr), 0),
        );
    }
    f
}

/// At `b`'s position: add one to the `ty` integer at `at`, unless it is all ones (a saturating
/// count: the quiet path's hits, the lite map's bytes).
fn saturating_increment<'ctx>(
    b: &Builder<'ctx>,
    ty: inkwell::types::IntType<'ctx>,
    at: inkwell::values::PointerValue<'ctx>,
) -> Result<(), String> {
    let c = e(b.build_load(ty, at, ""))?.into_int_value();
    let below_max = e(b.build_int_compare(inkwell::IntPredicate::NE, c, ty.const_all_ones(), ""))?;
    let inc = e(b.build_int_z_extend(below_max, ty, ""))?;
    let c = e(b.build_int_add(c, inc, ""))?;
    e(b.build_store(at, c))?;
    Ok(())
}

/// The runtime's pointer-sized global `name` ([`names::FLAGS`], [`names::EVENTS_FLAG`]: the
/// address of a word of the trace map's header), declared in `module` if it is not yet.
fn runtime_pointer<'ctx>(
    module: &Module<'ctx>,
    ctx: &ContextRef<'ctx>,
    name: &str,
) -> GlobalValue<'ctx> {
    module.get_global(name).unwrap_or_else(|| {
        let g = module.add_global(ctx.ptr_type(AddressSpace::default()), None, name);
        g.set_linkage(Linkage::External);
        g
    })
}

/// At `b`'s position: whether the word the runtime's pointer `global` points at has any bit of
/// `mask` set (`u32::MAX`: is not 0), as an `i1`.
fn flag_test<'ctx>(
    b: &Builder<'ctx>,
    ctx: &ContextRef<'ctx>,
    global: GlobalValue<'ctx>,
    mask: u32,
) -> Result<inkwell::values::IntValue<'ctx>, String> {
    let i32t = ctx.i32_type();
    let at = e(b.build_load(
        ctx.ptr_type(AddressSpace::default()),
        global.as_pointer_value(),
        "",
    ))?
    .into_pointer_value();
    let v = e(b.build_load(i32t, at, ""))?.into_int_value();
    let bits = if mask == u32::MAX {
        v
    } else {
        e(b.build_and(v, i32t.const_int(mask as u64, false), ""))?
    };
    e(b.build_int_compare(inkwell::IntPredicate::NE, bits, i32t.const_zero(), ""))
}

/// Integer `v` as the `i32` truth value a probe takes: `v` zero-extended when it has at most 32
/// bits, `v != 0` when wider (a `size_t` or `long` truth value of a flag function). Not
/// `zext_or_bit_cast`: LLVM's builder makes a `zext` to a narrower type without a check, which is
/// invalid IR that the backend then fails on ("Cannot select").
fn truth_i32<'ctx>(
    b: &Builder<'ctx>,
    v: inkwell::values::IntValue<'ctx>,
) -> Result<inkwell::values::IntValue<'ctx>, String> {
    let i32t = v.get_type().get_context().i32_type();
    if v.get_type().get_bit_width() > 32 {
        let nz =
            e(b.build_int_compare(inkwell::IntPredicate::NE, v, v.get_type().const_zero(), ""))?;
        return e(b.build_int_z_extend(nz, i32t, ""));
    }
    e(b.build_int_z_extend_or_bit_cast(v, i32t, ""))
}

/// A builder's result with its error as text (the pass's errors are strings).
fn e<T>(r: Result<T, inkwell::builder::BuilderError>) -> Result<T, String> {
    r.map_err(|e| e.to_string())
}

fn declare<'ctx>(
    module: &Module<'ctx>,
    name: &str,
    ty: inkwell::types::FunctionType<'ctx>,
) -> FunctionValue<'ctx> {
    module
        .get_function(name)
        .unwrap_or_else(|| module.add_function(name, ty, Some(Linkage::External)))
}

impl<'ctx> Probes<'ctx> {
    fn declare(module: &Module<'ctx>, ctx: &ContextRef<'ctx>) -> Self {
        let void = ctx.void_type();
        let p = ctx.ptr_type(AddressSpace::default());
        let i32t = ctx.i32_type();
        let i64t = ctx.i64_type();
        let f64t = ctx.f64_type();
        Probes {
            cmp_int: declare(
                module,
                names::PROBE_CMP_INT,
                void.fn_type(
                    &[
                        p.into(),
                        i32t.into(),
                        i32t.into(),
                        i32t.into(),
                        i64t.into(),
                        i64t.into(),
                    ],
                    false,
                ),
            ),
            cmp_float: declare(
                module,
                names::PROBE_CMP_FLOAT,
                void.fn_type(
                    &[
                        p.into(),
                        i32t.into(),
                        i32t.into(),
                        i32t.into(),
                        f64t.into(),
                        f64t.into(),
                    ],
                    false,
                ),
            ),
            cond: declare(
                module,
                names::PROBE_COND,
                void.fn_type(&[p.into(), i32t.into(), i32t.into(), i32t.into()], false),
            ),
            ccmp_int: declare(
                module,
                names::PROBE_CMP_INT_COND,
                void.fn_type(
                    &[
                        p.into(),
                        i32t.into(),
                        i32t.into(),
                        i32t.into(),
                        i64t.into(),
                        i64t.into(),
                    ],
                    false,
                ),
            ),
            ccmp_float: declare(
                module,
                names::PROBE_CMP_FLOAT_COND,
                void.fn_type(
                    &[
                        p.into(),
                        i32t.into(),
                        i32t.into(),
                        i32t.into(),
                        f64t.into(),
                        f64t.into(),
                    ],
                    false,
                ),
            ),
            ccond: declare(
                module,
                names::PROBE_COND_COND,
                void.fn_type(&[p.into(), i32t.into(), i32t.into(), i32t.into()], false),
            ),
            switch: declare(
                module,
                names::PROBE_SWITCH,
                void.fn_type(
                    &[
                        p.into(),
                        i32t.into(),
                        i32t.into(),
                        i64t.into(),
                        i32t.into(),
                        i32t.into(),
                        p.into(),
                        p.into(),
                    ],
                    false,
                ),
            ),
            def: declare(
                module,
                names::PROBE_DEF,
                void.fn_type(&[p.into(), i32t.into()], false),
            ),
            str: declare(
                module,
                names::PROBE_STR,
                void.fn_type(
                    &[
                        p.into(),
                        i32t.into(),
                        i32t.into(),
                        i32t.into(),
                        i32t.into(),
                        p.into(),
                        p.into(),
                        i64t.into(),
                    ],
                    false,
                ),
            ),
            bytes: declare(
                module,
                names::PROBE_BYTES,
                void.fn_type(
                    &[
                        p.into(),
                        i32t.into(),
                        i32t.into(),
                        i32t.into(),
                        i32t.into(),
                        p.into(),
                        i64t.into(),
                        p.into(),
                        i64t.into(),
                    ],
                    false,
                ),
            ),
            rtn: declare(
                module,
                names::PROBE_RTN,
                void.fn_type(&[p.into(), p.into(), p.into(), i64t.into()], false),
            ),
            loose: declare(
                module,
                names::PROBE_LOOSE,
                void.fn_type(&[p.into(), i32t.into(), i64t.into(), i64t.into()], false),
            ),
            register: declare(
                module,
                names::REGISTER_MODULE,
                void.fn_type(&[p.into()], false),
            ),
            cmp_flag: declare(
                module,
                names::PROBE_CMP_FLAG,
                void.fn_type(
                    &[
                        p.into(),
                        i32t.into(),
                        i32t.into(),
                        i32t.into(),
                        i64t.into(),
                        i64t.into(),
                        f64t.into(),
                    ],
                    false,
                ),
            ),
            cond_flag: declare(
                module,
                names::PROBE_COND_FLAG,
                void.fn_type(
                    &[p.into(), i32t.into(), i32t.into(), i32t.into(), f64t.into()],
                    false,
                ),
            ),
            lite_twins: Vec::new(),
        }
    }
}

/// The resolvers of the module's ifuncs (`__attribute__((ifunc))`, `target_clones`, C++
/// `target(…)` overloads): the dynamic loader (or a static program's start-up code) runs them
/// while it relocates, before the program's environment and libc are ready, so they get no probe
/// and no coverage-only clone (a probe there started the runtime too early: the program could not
/// start as a fork server, and a static one crashed before `main`).
fn ifunc_resolvers(module: &Module<'_>) -> std::collections::HashSet<LLVMValueRef> {
    let mut out = std::collections::HashSet::new();
    // SAFETY: walking the module's ifunc list; the module outlives the call
    unsafe {
        let mut i = LLVMGetFirstGlobalIFunc(module.as_mut_ptr());
        while !i.is_null() {
            let r = LLVMGetGlobalIFuncResolver(i);
            if !r.is_null() && !LLVMIsAFunction(r).is_null() {
                out.insert(r);
            }
            i = LLVMGetNextGlobalIFunc(i);
        }
    }
    out
}

/// Clear the `nnan` and `ninf` fast-math flags (`-ffast-math`, `-ffinite-math-only`) of the
/// floating-point instructions in `bodies`. A compare's probe computes its outcome from its
/// operands as IEEE does; with the flags, a NaN or an infinity makes an operation's result poison
/// and the optimiser may fold the compare either way (`(a + b) - a != b` became `false`), so the
/// probe would claim an outcome the program never took. Without them (always a legal
/// refinement: what was undefined becomes IEEE's answer) the branch and the probe agree; the
/// program loses only the folds that assumed finite values. Reassociation and the other flags
/// stay.
///
/// # Safety
/// `bodies` are valid functions.
unsafe fn keep_nans_and_infinities(bodies: &[LLVMValueRef]) {
    use inkwell::llvm_sys::{LLVMAttributeFunctionIndex, LLVMFastMathNoInfs, LLVMFastMathNoNaNs};
    let nofpclass = {
        let name = "nofpclass";
        LLVMGetEnumAttributeKindForName(name.as_ptr().cast(), name.len())
    };
    for &f in bodies {
        // the function's promise that its parameters and result are never NaN or infinite
        // (`nofpclass(nan inf)`), and its attributes that say so for all its code
        for idx in 0..=LLVMCountParams(f) {
            LLVMRemoveEnumAttributeAtIndex(f, idx, nofpclass);
        }
        for a in ["no-nans-fp-math", "no-infs-fp-math"] {
            LLVMRemoveStringAttributeAtIndex(
                f,
                LLVMAttributeFunctionIndex,
                a.as_ptr().cast(),
                a.len() as u32,
            );
        }
        // compares with the flags; LLVM's C API can only add flags, so each is rebuilt without
        // them
        let mut compares = Vec::new();
        let mut bb = LLVMGetFirstBasicBlock(f);
        while !bb.is_null() {
            let mut i = LLVMGetFirstInstruction(bb);
            while !i.is_null() {
                if LLVMGetInstructionOpcode(i) == inkwell::llvm_sys::LLVMOpcode::LLVMFCmp
                    && LLVMGetFastMathFlags(i) & (LLVMFastMathNoNaNs | LLVMFastMathNoInfs) != 0
                {
                    compares.push(i);
                }
                if !LLVMIsACallInst(i).is_null() || !LLVMIsAInvokeInst(i).is_null() {
                    for idx in 0..=LLVMGetNumArgOperands(i) {
                        LLVMRemoveCallSiteEnumAttribute(i, idx, nofpclass);
                    }
                }
                i = LLVMGetNextInstruction(i);
            }
            bb = LLVMGetNextBasicBlock(bb);
        }
        if compares.is_empty() {
            continue;
        }
        let b = LLVMCreateBuilderInContext(LLVMGetModuleContext(LLVMGetGlobalParent(f)));
        for old in compares {
            let kept = LLVMGetFastMathFlags(old) & !(LLVMFastMathNoNaNs | LLVMFastMathNoInfs);
            LLVMPositionBuilderBefore(b, old);
            let new = LLVMBuildFCmp(
                b,
                LLVMGetFCmpPredicate(old),
                LLVMGetOperand(old, 0),
                LLVMGetOperand(old, 1),
                c"".as_ptr(),
            );
            LLVMSetFastMathFlags(new, kept);
            inkwell::llvm_sys::debuginfo::LLVMInstructionSetDebugLoc(
                new,
                inkwell::llvm_sys::debuginfo::LLVMInstructionGetDebugLoc(old),
            );
            LLVMReplaceAllUsesWith(old, new);
            LLVMInstructionEraseFromParent(old);
        }
        LLVMDisposeBuilder(b);
    }
}

/// Instrument `module`. Returns `Ok(false)` when there was nothing to do (already instrumented, or
/// no function bodies).
pub fn run(module: &Module<'_>, opts: &Options) -> Result<bool, String> {
    if module.get_global(names::MODULE_DESC).is_some() {
        return Ok(false); // already instrumented
    }
    // SAFETY: the module is valid for the whole call
    unsafe { debuginfo::read_unit_dirs(module.as_mut_ptr()) };
    let ctx = module.get_context();

    // Options that adjust linkage, for generated harnesses.
    for f in module.get_functions() {
        if f.count_basic_blocks() == 0 {
            continue;
        }
        let name = f.get_name().to_string_lossy().into_owned();
        if opts.rename_main && name == "main" {
            f.as_global_value().set_name(names::RENAMED_MAIN);
        }
        // a C++ function is named by its source-level name (`geo::classify`, or `classify`)
        let cxx_named = || {
            debuginfo::source_name(f.as_value_ref()).is_some_and(|(n, lang)| {
                lang == "c++"
                    && opts.expose.iter().any(|e| {
                        n == *e
                            || n.strip_suffix(e.as_str())
                                .is_some_and(|p| p.ends_with("::"))
                    })
            })
        };
        if opts.expose.contains(&name) || (!opts.expose.is_empty() && cxx_named()) {
            unsafe {
                let v = f.as_value_ref();
                if matches!(
                    LLVMGetLinkage(v),
                    LLVMLinkage::LLVMInternalLinkage | LLVMLinkage::LLVMPrivateLinkage
                ) {
                    LLVMSetLinkage(v, LLVMLinkage::LLVMExternalLinkage);
                    LLVMSetVisibility(v, LLVMVisibility::LLVMDefaultVisibility);
                }
            }
        }
    }

    // Global variables a generated harness sets (`evotest run --global NAME`): a `static` one is
    // given external linkage
    let mut globals_meta = Vec::new();
    // mutable globals of the source that global_meta cannot describe (pointers, unions, …)
    let mut other_globals: Vec<String> = Vec::new();
    let mut thread_locals: Vec<String> = Vec::new();
    let mut local_statics: Vec<String> = Vec::new();
    // the string literals of the module's tables (`static const char *kw[] = {"if", …}`)
    let mut table_strings = StringTable::default();
    // each table's strings, as indices into `table_strings`, keyed by its global
    let mut global_strings: HashMap<usize, Vec<u32>> = HashMap::new();
    // The module's own mutable globals, to be restored before each input of a persistent child
    // (names::REGISTER_GLOBALS), unless the module has constructors of its own (what they
    // allocate, a restored pointer could outlive), thread-local globals or globals in sections
    // of their own (which the copy would miss).
    let has_ctors = unsafe {
        let c = CString::new("llvm.global_ctors").unwrap();
        let g = LLVMGetNamedGlobal(module.as_mut_ptr(), c.as_ptr());
        !g.is_null() && {
            let init = LLVMGetInitializer(g);
            !init.is_null() && LLVMGetNumOperands(init) > 0
        }
    };
    let mut restorable: Vec<LLVMValueRef> = Vec::new();
    let mut unrestorable = has_ctors;
    unsafe {
        let mut g = LLVMGetFirstGlobal(module.as_mut_ptr());
        while !g.is_null() {
            let name = debuginfo::value_name(g);
            // a `static` of the source, before it is exposed
            let internal = matches!(
                LLVMGetLinkage(g),
                LLVMLinkage::LLVMInternalLinkage | LLVMLinkage::LLVMPrivateLinkage
            );
            if opts.expose.contains(&name) && internal {
                LLVMSetLinkage(g, LLVMLinkage::LLVMExternalLinkage);
                LLVMSetVisibility(g, LLVMVisibility::LLVMDefaultVisibility);
            }
            if !LLVMGetInitializer(g).is_null()
                && !name.starts_with("__evotest")
                && !name.starts_with("llvm.")
            {
                let mut own = Vec::new();
                collect_table_strings(LLVMGetInitializer(g), 0, &mut own);
                if !own.is_empty() {
                    let ks = merge_strings(&mut table_strings, own);
                    global_strings.insert(g as usize, ks);
                }
            }
            if !LLVMGetInitializer(g).is_null()
                && LLVMIsGlobalConstant(g) == 0
                && !name.starts_with("__evotest")
            {
                let thread_local = LLVMIsThreadLocal(g) != 0;
                if thread_local && debuginfo::is_source_global(g) {
                    // each thread's own copy: the harness cannot set it as an input
                    other_globals.push(name.clone());
                    thread_locals.push(name.clone());
                }
                match debuginfo::global_meta(g, &name) {
                    _ if thread_local => {}
                    Some(m) => globals_meta.push(meta::GlobalMeta { internal, ..m }),
                    None if debuginfo::is_source_global(g) => other_globals.push(name.clone()),
                    None if debuginfo::is_local_static(g) => local_statics.push(name.clone()),
                    None => {}
                }
                let sectioned = !LLVMGetSection(g).is_null() && *LLVMGetSection(g) != 0;
                let emitted_here = LLVMGetLinkage(g) != LLVMLinkage::LLVMAvailableExternallyLinkage;
                if emitted_here && !name.starts_with("llvm.") {
                    if LLVMIsThreadLocal(g) != 0 || sectioned {
                        // state a copy of the module's globals would miss
                        unrestorable = true;
                    } else {
                        restorable.push(g);
                    }
                }
            }
            g = LLVMGetNextGlobal(g);
        }
    }

    // Phase 1: collect.
    let resolvers = ifunc_resolvers(module);
    let bodies: Vec<LLVMValueRef> = module
        .get_functions()
        .filter(|f| f.count_basic_blocks() > 0)
        .filter(|f| {
            let name = f.get_name().to_string_lossy();
            !name.starts_with("__evotest") || name == names::RENAMED_MAIN
        })
        .filter(|f| !resolvers.contains(&f.as_value_ref()))
        .map(|f| f.as_value_ref())
        .collect();
    // the string literals the source's own functions pass to calls (`u == "admin"` on a
    // `std::string`, `strstr(s, "key")`), for the same pools as the tables'; then each
    // function's strings: those it passes, and those of the tables it refers to
    // (`FunctionMeta::strings`)
    let mut function_strings: Vec<Vec<u32>> = Vec::with_capacity(bodies.len());
    for &f in &bodies {
        let mut ks = Vec::new();
        let own =
            debuginfo::subprogram_file(f).is_some_and(|file| !evotest_abi::is_library_file(&file));
        if own {
            let mut passed = Vec::new();
            // SAFETY: f is a function of the module with a body
            unsafe { collect_call_strings(f, &mut passed) };
            ks = merge_strings(&mut table_strings, passed);
        }
        // SAFETY: as above
        unsafe { table_strings_used(f, &global_strings, &mut ks) };
        function_strings.push(ks);
    }
    // SAFETY: the bodies are functions of the module
    unsafe { keep_nans_and_infinities(&bodies) };
    let mut vars = dataflow::VarTable::new(module.as_mut_ptr(), &bodies);
    let mut drafts: Vec<FunctionDraft> = Vec::new();
    let mut refs_cache = std::collections::HashMap::new();
    for (fi, &f) in bodies.iter().enumerate() {
        drafts.push(collect::function(f, fi as u32, &mut vars, &mut refs_cache));
    }
    if drafts.is_empty() {
        return Ok(false);
    }
    // the flag functions, found before any probe call exists
    let flag_functions = unsafe { crate::flags::analyse(&bodies) };
    let flag_locals: Vec<crate::flags::FlagLocal> = bodies
        .iter()
        .flat_map(|&f| unsafe { crate::flags::flag_locals(f) })
        .collect();

    // Number sites and outcomes module-wide: every branch site (`br`, `switch`, `select`) of every
    // function first, then the condition-only sites, so that branch sites keep the IDs they had
    // before condition-only sites existed.
    let mut functions = Vec::new();
    let mut constants: Vec<ConstantMeta> = Vec::new();
    let mut site_ids: Vec<Vec<u32>> = drafts.iter().map(|d| vec![0; d.sites.len()]).collect(); // per draft: local index -> module id
    let mut order: Vec<(usize, usize)> = Vec::new(); // module id -> (draft, local index)
    for cond_pass in [false, true] {
        for (fi, d) in drafts.iter().enumerate() {
            for (li, s) in d.sites.iter().enumerate() {
                if (s.kind == evotest_abi::meta::SiteKind::Cond) == cond_pass {
                    site_ids[fi][li] = order.len() as u32;
                    order.push((fi, li));
                }
            }
        }
    }
    let mut sites_meta = Vec::new();
    let mut outcome_next = 0u32;
    for &(fi, li) in &order {
        let s = &drafts[fi].sites[li];
        let id = sites_meta.len() as u32;
        sites_meta.push(SiteMeta {
            id,
            outcome_base: outcome_next,
            n_outcomes: s.labels.len() as u32,
            kind: s.kind,
            function: fi as u32,
            block: s.block,
            file: s.loc.file.clone(),
            line: s.loc.line,
            col: s.loc.col,
            cond: s.text.clone(),
            pred: match s.cond {
                Cond::Int { pred, .. }
                | Cond::Ptr { pred, .. }
                | Cond::Float { pred, .. }
                | Cond::Str { pred, .. }
                | Cond::Bytes { pred, .. } => Some(pred),
                _ => None,
            },
            operand_type: s.operand_type.clone(),
            outcome_labels: s.labels.clone(),
            uses: s.uses.clone(),
            index: s.index,
            case_values: match &s.cond {
                Cond::Switch { cases, .. } => cases.clone(),
                _ => vec![],
            },
            check: s.check.as_ref().map(|c| meta::CheckMeta {
                kind: c.kind.to_string(),
                outcome: c.outcome,
                callee: c.callee.clone(),
            }),
            string_compare: match s.cond {
                Cond::Str { func, .. } | Cond::Bytes { func, .. } => {
                    Some(evotest_abi::distance::str_func_name(func).to_string())
                }
                _ => None,
            },
        });
        outcome_next += s.labels.len() as u32;
    }
    let mut decisions_meta = Vec::new();
    for (fi, d) in drafts.iter().enumerate() {
        let ids = &site_ids[fi];
        let mut fm = d.meta.clone();
        for b in &mut fm.blocks {
            b.site = b.site.map(|i| ids[i as usize]);
            for s in &mut b.selects {
                *s = ids[*s as usize];
            }
        }
        for c in &d.constants {
            let k = match constants.iter().position(|x| x == c) {
                Some(k) => k,
                None => {
                    constants.push(c.clone());
                    constants.len() - 1
                }
            };
            fm.constants.push(k as u32);
        }
        fm.strings = std::mem::take(&mut function_strings[fi]);
        functions.push(fm);
        for dd in &d.decisions {
            let map =
                |v: &Vec<(usize, u32)>| v.iter().map(|&(s, o)| (ids[s], o)).collect::<Vec<_>>();
            decisions_meta.push(evotest_abi::meta::DecisionMeta {
                function: fi as u32,
                file: dd.loc.file.clone(),
                line: dd.loc.line,
                col: dd.loc.col,
                text: dd.text.clone(),
                form: dd.form,
                conditions: dd.conditions.iter().map(|&s| ids[s]).collect(),
                site: dd.site.map(|s| ids[s]),
                ends: [map(&dd.ends[0]), map(&dd.ends[1])],
            });
        }
    }

    // Definitions, numbered module-wide.
    let mut defs_meta = Vec::new();
    let mut def_insts = Vec::new();
    for (fi, d) in drafts.iter().enumerate() {
        for dd in &d.defs {
            let id = defs_meta.len() as u32;
            defs_meta.push(DefMeta {
                id,
                var: dd.var,
                function: fi as u32,
                block: dd.block,
                index: dd.index,
                file: dd.loc.file.clone(),
                line: dd.loc.line,
                col: dd.loc.col,
                text: dd.text.clone(),
                param_init: dd.param_init,
                partial: dd.partial,
                probed: dd.probed,
                uses: dd.uses.clone(),
            });
            def_insts.push((dd.inst, dd.after, id, dd.probed));
        }
    }

    let source_file = module.get_source_file_name().to_string_lossy().into_owned();
    let mut mmeta = ModuleMeta {
        version: META_VERSION,
        module_id: 0,
        source_file,
        functions,
        sites: sites_meta,
        n_outcomes: outcome_next,
        constants,
        vars: vars.vars,
        defs: defs_meta,
        decisions: decisions_meta,
        globals: globals_meta,
        other_globals,
        thread_locals,
        local_statics,
        table_strings: table_strings.strings,
        globals_restorable: !unrestorable,
    };
    let to_json = |m: &ModuleMeta| -> Result<Vec<u8>, String> {
        serde_json::to_vec(m).map_err(|e| e.to_string())
    };
    let unhashed = to_json(&mmeta)?;
    mmeta.module_id = meta::fnv1a(&unhashed);
    let blob = meta::frame(&to_json(&mmeta)?);

    // The module descriptor (see evotest_abi::shm::ModuleDesc).
    let i32t = ctx.i32_type();
    let i64t = ctx.i64_type();
    let desc_ty = ctx.struct_type(
        &[
            i32t.into(),
            i32t.into(),
            i32t.into(),
            i32t.into(),
            i64t.into(),
            i32t.into(),
            i32t.into(),
            i32t.into(),
            i32t.into(),
            ctx.ptr_type(AddressSpace::default()).into(),
            ctx.ptr_type(AddressSpace::default()).into(),
        ],
        false,
    );
    // the records the inline quiet path reads before the module registers: all zero (not quiet)
    let rec_ty = ctx.i64_type().array_type(mmeta.sites.len() as u32);
    let no_recs = module.add_global(rec_ty, None, "__evotest_no_recs");
    no_recs.set_linkage(Linkage::Private);
    no_recs.set_alignment(8);
    no_recs.set_initializer(&rec_ty.const_zero());
    // the lite map the coverage-only clones count in before the module registers
    let lite_ty = ctx.i8_type().array_type(mmeta.n_outcomes);
    let no_lite = module.add_global(lite_ty, None, "__evotest_no_lite");
    no_lite.set_linkage(Linkage::Private);
    no_lite.set_initializer(&lite_ty.const_zero());
    let desc = module.add_global(desc_ty, None, names::MODULE_DESC);
    desc.set_linkage(Linkage::Private);
    desc.set_alignment(8);
    desc.set_initializer(
        &desc_ty.const_named_struct(&[
            i32t.const_zero().into(),
            i32t.const_zero().into(),
            i32t.const_int(mmeta.sites.len() as u64, false).into(),
            i32t.const_int(mmeta.n_outcomes as u64, false).into(),
            i64t.const_int(mmeta.module_id, false).into(),
            i32t.const_zero().into(),
            i32t.const_zero().into(),
            i32t.const_int(mmeta.defs.len() as u64, false).into(),
            i32t.const_int(
                (evotest_abi::shm::DESC_FLAG_RECS | evotest_abi::shm::DESC_FLAG_LITE) as u64,
                false,
            )
            .into(),
            no_recs.as_pointer_value().into(),
            no_lite.as_pointer_value().into(),
        ]),
    );

    // Phase 2: inject.
    let mut probes = Probes::declare(module, &ctx);
    probes.quiet_paths(module, &ctx, desc_ty)?;
    let builder = ctx.create_builder();
    // the routine calls, found before any probe call exists
    let routines: Vec<RoutineCall> = bodies
        .iter()
        .flat_map(|&f| unsafe { routine_calls(f) })
        .collect();
    // the loose compares, found before any probe (whose own compares are not the program's)
    let loose: Vec<LLVMValueRef> = unsafe { loose_compares(&bodies, &drafts) };
    let flags = Flags::new(module, &ctx, &builder, &flag_locals)?;
    for (d, ids) in drafts.iter().zip(&site_ids) {
        for (s, &id) in d.sites.iter().zip(ids.iter()) {
            let ob = mmeta.sites[id as usize].outcome_base;
            inject(module, &ctx, &builder, &probes, &flags, desc, s, id, ob)?;
        }
    }

    // Flag functions' frames (crate::flags), after the site probes: a frame probe follows its
    // compare.
    if !flag_functions.is_empty() {
        frames(module, &ctx, &builder, &flags, &flag_functions)?;
    }

    // Definition probes: after each store (before a `ret`), except parameter initialisation and
    // return values computed from a call's result (`dataflow::DefDraft::probed`), through the
    // inline test of the ordered trace's flag.
    let mut def_if_tracing = None;
    for (inst, after, id, probed) in def_insts {
        if !probed {
            continue;
        }
        let def = match def_if_tracing {
            Some(f) => f,
            None => *def_if_tracing.insert(guard_wrapper(
                module,
                &ctx,
                names::DEF_IF_TRACING,
                probes.def,
                names::EVENTS_FLAG,
                u32::MAX,
            )?),
        };
        let at = if after {
            unsafe { LLVMGetNextInstruction(inst) }
        } else {
            inst
        };
        if at.is_null() {
            continue;
        }
        builder.position_before(&unsafe { InstructionValue::new(at) });
        let call = builder
            .build_call(
                def,
                &[
                    desc.as_pointer_value().into(),
                    i32t.const_int(id as u64, false).into(),
                ],
                "",
            )
            .map_err(|e| e.to_string())?;
        unsafe { copy_debug_loc(inst, call.as_value_ref()) };
    }

    // Routine probes: before each call of a routine whose first two parameters are pointers,
    // through the inline test of the string operand log's flag.
    if !routines.is_empty() {
        let rtn = guard_wrapper(
            module,
            &ctx,
            names::RTN_IF_LOGGING,
            probes.rtn,
            names::FLAGS,
            evotest_abi::shm::FLAG_REPEATED_STR_OPERANDS,
        )?;
        let i64t = ctx.i64_type();
        for r in routines {
            builder.position_before(&unsafe { InstructionValue::new(r.call) });
            let n: BasicValueEnum = match r.n {
                Some(n) => match unsafe { BasicValueEnum::new(n) } {
                    BasicValueEnum::IntValue(i) => builder
                        .build_int_cast_sign_flag(i, i64t, false, "")
                        .map_err(|e| e.to_string())?
                        .into(),
                    _ => i64t.const_all_ones().into(),
                },
                None => i64t.const_all_ones().into(),
            };
            let (a, b) = unsafe { (BasicValueEnum::new(r.a), BasicValueEnum::new(r.b)) };
            let call = builder
                .build_call(
                    rtn,
                    &[desc.as_pointer_value().into(), a.into(), b.into(), n.into()],
                    "",
                )
                .map_err(|e| e.to_string())?;
            unsafe { copy_debug_loc(r.call, call.as_value_ref()) };
        }
    }

    // Loose compares' operand logs: right after each compare that is no site's condition, through
    // the inline test of the loose log's flag.
    if !loose.is_empty() {
        inject_loose(module, &ctx, &builder, &probes, desc, &loose)?;
    }

    // Coverage-only clones of the function bodies, each entered from its original while a
    // coverage-only execution runs: last, so that they are clones of the whole instrumentation.
    if opts.lite_clones {
        // SAFETY: `bodies` are functions of the module, whose probes are all in place
        let flags = runtime_pointer(module, &ctx, names::FLAGS).as_value_ref();
        unsafe {
            crate::lite::clone_bodies(module, &bodies, &probes.lite_twins, flags, opts.lite_marks)?
        };
    }

    // Registration constructor.
    let ctor_ty = ctx.void_type().fn_type(&[], false);
    let ctor = module.add_function(names::MODULE_CTOR, ctor_ty, Some(Linkage::Internal));
    let entry = ctx.append_basic_block(ctor, "entry");
    builder.position_at_end(entry);
    builder.unset_current_debug_location();
    builder
        .build_call(probes.register, &[desc.as_pointer_value().into()], "")
        .map_err(|e| e.to_string())?;
    if !restorable.is_empty() && !unrestorable {
        // SAFETY: the module and the globals are valid for the whole call
        let ranges = unsafe { global_ranges(module, &restorable) };
        let ty = ctx.void_type().fn_type(
            &[ctx.ptr_type(AddressSpace::default()).into(), i64t.into()],
            false,
        );
        let f = declare(module, names::REGISTER_GLOBALS, ty);
        builder
            .build_call(
                f,
                &[
                    ranges.as_pointer_value().into(),
                    i64t.const_int(restorable.len() as u64, false).into(),
                ],
                "",
            )
            .map_err(|e| e.to_string())?;
    }
    builder.build_return(None).map_err(|e| e.to_string())?;

    // Metadata blob in its own section, kept by llvm.used.
    let blob_val = ctx.const_string(&blob, false);
    let g = module.add_global(blob_val.get_type(), None, names::META_GLOBAL);
    g.set_linkage(Linkage::Private);
    g.set_constant(true);
    g.set_alignment(1);
    g.set_section(Some(names::META_SECTION));
    g.set_initializer(&blob_val);

    unsafe {
        let m = module.as_mut_ptr();
        let c = ctx.as_ctx_ref();
        let ptr_ty = LLVMPointerTypeInContext(c, 0);
        append_global_array(
            m,
            "llvm.used",
            ptr_ty,
            &[g.as_value_ref()],
            Some("llvm.metadata"),
        );
        let mut fields = [LLVMInt32TypeInContext(c), ptr_ty, ptr_ty];
        let ctor_elem_ty = LLVMStructTypeInContext(c, fields.as_mut_ptr(), 3, 0);
        let mut vals = [
            LLVMConstInt(
                LLVMInt32TypeInContext(c),
                names::MODULE_CTOR_PRIORITY as u64,
                0,
            ),
            ctor.as_value_ref(),
            LLVMConstPointerNull(ptr_ty),
        ];
        let elem = LLVMConstStructInContext(c, vals.as_mut_ptr(), 3, 0);
        append_global_array(m, "llvm.global_ctors", ctor_elem_ty, &[elem], None);
    }
    Ok(true)
}

/// A private constant array of [`evotest_abi::shm::GlobalRange`] (address, size in bytes), one
/// per global of `globals`.
///
/// # Safety
/// `globals` must be global variables of `module`.
unsafe fn global_ranges<'ctx>(
    module: &Module<'ctx>,
    globals: &[LLVMValueRef],
) -> GlobalValue<'ctx> {
    let m = module.as_mut_ptr();
    let c = LLVMGetModuleContext(m);
    let td = inkwell::llvm_sys::target::LLVMGetModuleDataLayout(m);
    let i64t = LLVMInt64TypeInContext(c);
    let ptr_ty = LLVMPointerTypeInContext(c, 0);
    let mut fields = [ptr_ty, i64t];
    let elem_ty = LLVMStructTypeInContext(c, fields.as_mut_ptr(), 2, 0);
    let mut elems: Vec<LLVMValueRef> = globals
        .iter()
        .map(|&g| {
            let size = inkwell::llvm_sys::target::LLVMABISizeOfType(td, LLVMGlobalGetValueType(g));
            let mut vals = [g, LLVMConstInt(i64t, size, 0)];
            LLVMConstStructInContext(c, vals.as_mut_ptr(), 2, 0)
        })
        .collect();
    let arr = LLVMConstArray2(elem_ty, elems.as_mut_ptr(), elems.len() as u64);
    let name = CString::new("__evotest_global_ranges").unwrap();
    let g = LLVMAddGlobal(m, LLVMTypeOf(arr), name.as_ptr());
    LLVMSetInitializer(g, arr);
    LLVMSetGlobalConstant(g, 1);
    LLVMSetLinkage(g, LLVMLinkage::LLVMPrivateLinkage);
    GlobalValue::new(g)
}

/// An internal, always-inlined wrapper `name` with `probe`'s parameters that calls `probe` only
/// while `*flag & mask` is not 0, where `flag` names the runtime's pointer-sized global that
/// holds the address of a `u32`. The module's [`evotest_abi::names::DEF_IF_TRACING`]
/// (definition probes, under the ordered trace's flag [`evotest_abi::names::EVENTS_FLAG`]) and
/// [`evotest_abi::names::RTN_IF_LOGGING`] (routine probes, under
/// [`evotest_abi::shm::FLAG_REPEATED_STR_OPERANDS`] of [`evotest_abi::names::FLAGS`]) are such
/// wrappers: while the flag is off, as in most executions, a probe in a hot loop costs two loads
/// and a branch instead of a call (29% of libwebp's decoding time went to definition probes'
/// calls).
fn guard_wrapper<'ctx>(
    module: &Module<'ctx>,
    ctx: &ContextRef<'ctx>,
    name: &str,
    probe: FunctionValue<'ctx>,
    flag: &str,
    mask: u32,
) -> Result<FunctionValue<'ctx>, String> {
    let f = always_inlined(module, ctx, name, probe.get_type());
    let (entry, on, done) = (
        ctx.append_basic_block(f, "entry"),
        ctx.append_basic_block(f, "on"),
        ctx.append_basic_block(f, "done"),
    );
    let b = ctx.create_builder();
    b.position_at_end(entry);
    let is_on = flag_test(&b, ctx, runtime_pointer(module, ctx, flag), mask)?;
    e(b.build_conditional_branch(is_on, on, done))?;
    b.position_at_end(on);
    let args: Vec<_> = f.get_param_iter().map(Into::into).collect();
    e(b.build_call(probe, &args, ""))?;
    e(b.build_unconditional_branch(done))?;
    b.position_at_end(done);
    e(b.build_return(None))?;
    Ok(f)
}

/// Give the probe call `call` the debug location of instruction `of` (an inlinable call in a
/// function with debug information needs one).
///
/// # Safety
/// Both must be instructions of a valid module.
unsafe fn copy_debug_loc(of: LLVMValueRef, call: LLVMValueRef) {
    let loc = inkwell::llvm_sys::debuginfo::LLVMInstructionGetDebugLoc(of);
    if !loc.is_null() {
        inkwell::llvm_sys::debuginfo::LLVMInstructionSetDebugLoc(call, loc);
    }
}

/// The C library's routines that copy or convert from their second argument into their first
/// (or into what it points to): they compare nothing, and their destination holds whatever was
/// there before (on the stack, addresses).
const COPY_ROUTINES: &[&[u8]] = &[
    b"memcpy",
    b"memmove",
    b"mempcpy",
    b"memccpy",
    b"strcpy",
    b"stpcpy",
    b"strncpy",
    b"stpncpy",
    b"strcat",
    b"strncat",
    b"strlcpy",
    b"strlcat",
    b"strtod",
    b"strtof",
    b"strtold",
    b"strtol",
    b"strtoll",
    b"strtoul",
    b"strtoull",
    b"strtoimax",
    b"strtoumax",
    b"vsprintf",
    b"vsnprintf",
];

/// The probes of the loose compares `loose` ([`loose_compares`]): right after each, a call of
/// [`names::LOOSE_IF_LOGGING`] (which tests [`evotest_abi::shm::FLAG_LOOSE_OPERANDS`] inline) with
/// the compare's `kind` (predicate, constant operands, [`evotest_abi::shm::OPERANDS_FLOAT`], the
/// width in bytes in [`evotest_abi::shm::OPERANDS_WIDTH_MASK`]) and its operands widened to 64
/// bits (floats as `double` bits).
fn inject_loose<'ctx>(
    module: &Module<'ctx>,
    ctx: &ContextRef<'ctx>,
    builder: &Builder<'ctx>,
    probes: &Probes<'ctx>,
    desc: GlobalValue<'ctx>,
    loose: &[LLVMValueRef],
) -> Result<(), String> {
    let log = guard_wrapper(
        module,
        ctx,
        names::LOOSE_IF_LOGGING,
        probes.loose,
        names::FLAGS,
        evotest_abi::shm::FLAG_LOOSE_OPERANDS,
    )?;
    let i32t = ctx.i32_type();
    for &c in loose {
        // SAFETY: `c` is a compare of a body, never a terminator: it has a next instruction
        let next = unsafe { LLVMGetNextInstruction(c) };
        if next.is_null() {
            continue;
        }
        builder.position_before(&unsafe { InstructionValue::new(next) });
        let (a, b) = unsafe { (LLVMGetOperand(c, 0), LLVMGetOperand(c, 1)) };
        let float = unsafe { !LLVMIsAFCmpInst(c).is_null() };
        let (pred, bytes) = unsafe {
            if float {
                (
                    evotest_abi::pred::Pred::from_u32(LLVMGetFCmpPredicate(c) as u32),
                    if LLVMGetTypeKind(LLVMTypeOf(a)) == LLVMTypeKind::LLVMFloatTypeKind {
                        4
                    } else {
                        8
                    },
                )
            } else {
                (
                    evotest_abi::pred::Pred::from_u32(LLVMGetICmpPredicate(c) as u32),
                    LLVMGetIntTypeWidth(LLVMTypeOf(a))
                        .div_ceil(8)
                        .next_power_of_two(),
                )
            }
        };
        let Some(pred) = pred else { continue };
        let mut kind = pred_with_constants(pred, a, b) as u32
            | (bytes << evotest_abi::shm::OPERANDS_WIDTH_SHIFT);
        let (va, vb) = if float {
            kind |= evotest_abi::shm::OPERANDS_FLOAT;
            let (x, y) = (to_f64(ctx, builder, a)?, to_f64(ctx, builder, b)?);
            (
                e(builder.build_bit_cast(x, ctx.i64_type(), ""))?,
                e(builder.build_bit_cast(y, ctx.i64_type(), ""))?,
            )
        } else {
            let signed = pred.int_operands_signed();
            (
                to_i64(ctx, builder, a, signed)?,
                to_i64(ctx, builder, b, signed)?,
            )
        };
        let call = e(builder.build_call(
            log,
            &[
                desc.as_pointer_value().into(),
                i32t.const_int(kind as u64, false).into(),
                va.into(),
                vb.into(),
            ],
            "",
        ))?;
        unsafe { copy_debug_loc(c, call.as_value_ref()) };
    }
    Ok(())
}

/// The *loose* compares of `bodies` (see [`names::PROBE_LOOSE`]): `icmp`s on integers of 8 to 64
/// bits and `fcmp`s on `float` or `double`, whose operands are not those of a compare or float
/// site of `drafts` (whose probes log them already), and not both constants. A compare with the
/// constant 0 is left out: `x != 0` is how a `bool` or a flag is tested, everywhere, and writing
/// 0 over an input's bytes is what the mutations try first anyway.
///
/// # Safety
/// `bodies` must be functions with bodies in a valid module, before any probe is injected.
unsafe fn loose_compares(bodies: &[LLVMValueRef], drafts: &[FunctionDraft]) -> Vec<LLVMValueRef> {
    let mut sited: std::collections::HashSet<(LLVMValueRef, LLVMValueRef)> =
        std::collections::HashSet::new();
    for d in drafts {
        for s in &d.sites {
            if let Cond::Int { a, b, .. } | Cond::Float { a, b, .. } = &s.cond {
                sited.insert((*a, *b));
                sited.insert((*b, *a));
            }
        }
    }
    let zero = |v: LLVMValueRef| {
        !LLVMIsAConstantInt(v).is_null() && LLVMConstIntGetZExtValue(v) == 0
            || !LLVMIsAConstantPointerNull(v).is_null()
    };
    let mut out = Vec::new();
    for &f in bodies {
        let mut bb = LLVMGetFirstBasicBlock(f);
        while !bb.is_null() {
            let mut i = LLVMGetFirstInstruction(bb);
            while !i.is_null() {
                let int = !LLVMIsAICmpInst(i).is_null();
                if int || !LLVMIsAFCmpInst(i).is_null() {
                    let (a, b) = (LLVMGetOperand(i, 0), LLVMGetOperand(i, 1));
                    let t = LLVMTypeOf(a);
                    let fits = if int {
                        LLVMGetTypeKind(t) == LLVMTypeKind::LLVMIntegerTypeKind
                            && (8..=64).contains(&LLVMGetIntTypeWidth(t))
                    } else {
                        matches!(
                            LLVMGetTypeKind(t),
                            LLVMTypeKind::LLVMFloatTypeKind | LLVMTypeKind::LLVMDoubleTypeKind
                        )
                    };
                    let both_constant =
                        !LLVMIsAConstant(a).is_null() && !LLVMIsAConstant(b).is_null();
                    if fits
                        && !both_constant
                        && !(int && (zero(a) || zero(b)))
                        && !sited.contains(&(a, b))
                    {
                        out.push(i);
                    }
                }
                i = LLVMGetNextInstruction(i);
            }
            bb = LLVMGetNextBasicBlock(bb);
        }
    }
    out
}

/// A call of a routine whose first two parameters are pointers and that returns a value: the
/// program's own compare routines among them (AFL++'s CmpLog "rtn" calls).
struct RoutineCall {
    call: LLVMValueRef,
    a: LLVMValueRef,
    b: LLVMValueRef,
    /// The third argument, when the routine's third parameter is a 32- or 64-bit integer (a
    /// length, as `memcmp`'s).
    n: Option<LLVMValueRef>,
}

/// The routine calls of function `f` ([`RoutineCall`]): direct calls with the C calling
/// convention of a function (not an intrinsic, not evotest's, not variadic, not one of
/// [`COPY_ROUTINES`]) that has at least two parameters, the first two pointers, and a non-void
/// result.
///
/// # Safety
/// `f` must be a function with a body in a valid module.
unsafe fn routine_calls(f: LLVMValueRef) -> Vec<RoutineCall> {
    let mut out = Vec::new();
    let mut bb = LLVMGetFirstBasicBlock(f);
    while !bb.is_null() {
        let mut i = LLVMGetFirstInstruction(bb);
        while !i.is_null() {
            if let Some(r) = routine_call(i) {
                out.push(r);
            }
            i = LLVMGetNextInstruction(i);
        }
        bb = LLVMGetNextBasicBlock(bb);
    }
    out
}

/// [`RoutineCall`] of instruction `i`, if it is one.
unsafe fn routine_call(i: LLVMValueRef) -> Option<RoutineCall> {
    if LLVMIsACallInst(i).is_null() || LLVMGetInstructionCallConv(i) != 0 {
        return None;
    }
    let callee = LLVMIsAFunction(LLVMGetCalledValue(i));
    if callee.is_null() || LLVMGetIntrinsicID(callee) != 0 {
        return None;
    }
    let mut len = 0usize;
    let name = LLVMGetValueName2(callee, &mut len);
    let name = std::slice::from_raw_parts(name as *const u8, len);
    if name.starts_with(b"__evotest") || name.starts_with(b"llvm.") || COPY_ROUTINES.contains(&name)
    {
        return None;
    }
    let ty = LLVMGlobalGetValueType(callee);
    if LLVMIsFunctionVarArg(ty) != 0 {
        // `sprintf(buf, fmt, …)` and kin: formats, not compares (and a destination buffer's
        // uninitialised bytes hold addresses, which change from run to run)
        return None;
    }
    let np = LLVMCountParamTypes(ty) as usize;
    if np < 2
        || LLVMGetNumArgOperands(i) < 2
        || LLVMGetTypeKind(LLVMGetReturnType(ty)) == LLVMTypeKind::LLVMVoidTypeKind
    {
        return None;
    }
    let mut params = vec![std::ptr::null_mut(); np];
    LLVMGetParamTypes(ty, params.as_mut_ptr());
    let is_ptr = |t: LLVMTypeRef| LLVMGetTypeKind(t) == LLVMTypeKind::LLVMPointerTypeKind;
    if !is_ptr(params[0]) || !is_ptr(params[1]) {
        return None;
    }
    let n = (np >= 3
        && LLVMGetNumArgOperands(i) >= 3
        && LLVMGetTypeKind(params[2]) == LLVMTypeKind::LLVMIntegerTypeKind
        && matches!(LLVMGetIntTypeWidth(params[2]), 32 | 64))
    .then(|| LLVMGetOperand(i, 2));
    Some(RoutineCall {
        call: i,
        a: LLVMGetOperand(i, 0),
        b: LLVMGetOperand(i, 1),
        n,
    })
}

/// The flag distances of the module's conditions on flags ([`crate::flags`]): the inline
/// [`names::FLAG_OF_IF_ON`] for a call's result, and the shadows of the locals that hold one.
struct Flags<'ctx> {
    ctx: ContextRef<'ctx>,
    of_if_on: FunctionValue<'ctx>,
    /// Local (`alloca`) → its shadow, a `double` local holding the flag distance of what was
    /// stored in it last (NaN: none).
    shadows: std::collections::HashMap<LLVMValueRef, inkwell::values::PointerValue<'ctx>>,
}

impl<'ctx> Flags<'ctx> {
    /// Declare what flag values need, and give each local of `locals` its shadow: NaN at the
    /// function's entry, and after each store into the local the flag distance of the call whose
    /// result it stores, or NaN.
    fn new(
        module: &Module<'ctx>,
        ctx: &ContextRef<'ctx>,
        builder: &Builder<'ctx>,
        locals: &[crate::flags::FlagLocal],
    ) -> Result<Flags<'ctx>, String> {
        let mut flags = Flags {
            ctx: *ctx,
            of_if_on: flag_of_wrapper(module, ctx)?,
            shadows: std::collections::HashMap::new(),
        };
        let f64t = ctx.f64_type();
        for l in locals {
            let entry = unsafe { LLVMGetInstructionParent(l.alloca) };
            let first = unsafe { LLVMGetFirstInstruction(entry) };
            builder.position_before(&unsafe { InstructionValue::new(first) });
            builder.unset_current_debug_location();
            let shadow = e(builder.build_alloca(f64t, "evotest.flag"))?;
            e(builder.build_store(shadow, f64t.const_float(f64::NAN)))?;
            for &(store, callee) in &l.stores {
                let next = unsafe { LLVMGetNextInstruction(store) };
                if next.is_null() {
                    continue;
                }
                builder.position_before(&unsafe { InstructionValue::new(next) });
                let v = flags.value_or_nan(builder, callee.map(crate::flags::Source::Call))?;
                if callee.is_some() {
                    unsafe { copy_debug_loc(store, v.as_value_ref()) };
                }
                e(builder.build_store(shadow, v))?;
            }
            flags.shadows.insert(l.alloca, shadow);
        }
        Ok(flags)
    }

    /// The flag distance of the flag `source`, computed at the builder's position (a call of
    /// [`names::FLAG_OF_IF_ON`] right after the call, or the local's shadow), or `None` when there
    /// is none to compute (a local without a shadow).
    fn value(
        &self,
        builder: &Builder<'ctx>,
        source: Option<crate::flags::Source>,
    ) -> Result<Option<inkwell::values::FloatValue<'ctx>>, String> {
        use crate::flags::Source;
        Ok(match source {
            Some(Source::Call(c)) => {
                let call = e(builder.build_call(
                    self.of_if_on,
                    &[unsafe { BasicValueEnum::new(c) }.into()],
                    "",
                ))?;
                Some(
                    call.try_as_basic_value()
                        .basic()
                        .ok_or("flag_of returns nothing")?
                        .into_float_value(),
                )
            }
            Some(Source::Local(a)) => match self.shadows.get(&a) {
                Some(&shadow) => {
                    Some(e(builder.build_load(self.ctx.f64_type(), shadow, ""))?.into_float_value())
                }
                None => None,
            },
            None => None,
        })
    }

    /// [`Flags::value`], NaN when there is none.
    fn value_or_nan(
        &self,
        builder: &Builder<'ctx>,
        source: Option<crate::flags::Source>,
    ) -> Result<inkwell::values::FloatValue<'ctx>, String> {
        Ok(self
            .value(builder, source)?
            .unwrap_or_else(|| self.ctx.f64_type().const_float(f64::NAN)))
    }
}

/// The module's [`names::FLAG_OF_IF_ON`]: `double (const void *callee)`, always inlined, that
/// calls [`names::FLAG_OF`] while the trace map's flags have
/// [`evotest_abi::shm::FLAG_RETURN_DISTANCES`] and gives NaN otherwise.
fn flag_of_wrapper<'ctx>(
    module: &Module<'ctx>,
    ctx: &ContextRef<'ctx>,
) -> Result<FunctionValue<'ctx>, String> {
    let p = ctx.ptr_type(AddressSpace::default());
    let f64t = ctx.f64_type();
    let fty = f64t.fn_type(&[p.into()], false);
    let of = declare(module, names::FLAG_OF, fty);
    let f = always_inlined(module, ctx, names::FLAG_OF_IF_ON, fty);
    let (entry, on, off) = (
        ctx.append_basic_block(f, "entry"),
        ctx.append_basic_block(f, "on"),
        ctx.append_basic_block(f, "off"),
    );
    let b = ctx.create_builder();
    b.position_at_end(entry);
    let is_on = flag_test(
        &b,
        ctx,
        runtime_pointer(module, ctx, names::FLAGS),
        evotest_abi::shm::FLAG_RETURN_DISTANCES,
    )?;
    e(b.build_conditional_branch(is_on, on, off))?;
    b.position_at_end(on);
    let callee = f.get_nth_param(0).ok_or("no parameter")?;
    let r = e(b.build_call(of, &[callee.into()], ""))?
        .try_as_basic_value()
        .basic()
        .ok_or("flag_of returns nothing")?;
    e(b.build_return(Some(&r)))?;
    b.position_at_end(off);
    e(b.build_return(Some(&f64t.const_float(f64::NAN))))?;
    Ok(f)
}

/// Give each flag function of `flags` its frame ([`crate::flags`]): a zeroed
/// [`evotest_abi::shm::FlagFrame`] at its entry, a frame probe at each of its conditions and one
/// before each `ret`, each through an inline test of [`evotest_abi::shm::FLAG_RETURN_DISTANCES`].
fn frames<'ctx>(
    module: &Module<'ctx>,
    ctx: &ContextRef<'ctx>,
    builder: &Builder<'ctx>,
    values: &Flags<'ctx>,
    flags: &[(LLVMValueRef, crate::flags::FlagFunction)],
) -> Result<(), String> {
    use crate::flags::Point;
    let void = ctx.void_type();
    let p = ctx.ptr_type(AddressSpace::default());
    let (i32t, i64t, f64t) = (ctx.i32_type(), ctx.i64_type(), ctx.f64_type());
    let on = evotest_abi::shm::FLAG_RETURN_DISTANCES;
    let wrap = |probe: &str,
                params: &[inkwell::types::BasicMetadataTypeEnum<'ctx>]|
     -> Result<FunctionValue<'ctx>, String> {
        let f = declare(module, probe, void.fn_type(params, false));
        guard_wrapper(
            module,
            ctx,
            &format!("{}{}", names::FRAME_IF_ON, probe),
            f,
            names::FLAGS,
            on,
        )
    };
    let icmp = wrap(
        names::FRAME_CMP_INT,
        &[p.into(), i32t.into(), i64t.into(), i64t.into(), f64t.into()],
    )?;
    let fcmp = wrap(
        names::FRAME_CMP_FLOAT,
        &[p.into(), i32t.into(), f64t.into(), f64t.into()],
    )?;
    let switch = wrap(
        names::FRAME_SWITCH,
        &[p.into(), i64t.into(), i32t.into(), p.into()],
    )?;
    let cond = wrap(names::FRAME_COND, &[p.into(), i32t.into(), f64t.into()])?;
    let ret = wrap(names::FRAME_RET, &[p.into(), p.into(), i32t.into()])?;
    let frame_ty = ctx.struct_type(&[i32t.into(), f64t.into()], false);
    for (func, ff) in flags {
        let func = *func;
        // the frame, zeroed, at the very start of the entry block
        let entry = unsafe { LLVMGetEntryBasicBlock(func) };
        let first = unsafe { LLVMGetFirstInstruction(entry) };
        builder.position_before(&unsafe { InstructionValue::new(first) });
        builder.unset_current_debug_location();
        let frame = e(builder.build_alloca(frame_ty, "evotest.frame"))?;
        e(builder.build_store(frame, frame_ty.const_zero()))?;
        for point in &ff.points {
            let (at, after) = match point {
                Point::Int { cmp, .. } | Point::Float { cmp } => (*cmp, true),
                Point::Switch { inst, .. } => (*inst, false),
                Point::Other { at, after, .. } => (*at, *after),
            };
            let pos = if after {
                unsafe { LLVMGetNextInstruction(at) }
            } else {
                at
            };
            if pos.is_null() {
                continue;
            }
            builder.position_before(&unsafe { InstructionValue::new(pos) });
            let call = match point {
                Point::Int { cmp, source } => unsafe {
                    let (a, b) = (LLVMGetOperand(*cmp, 0), LLVMGetOperand(*cmp, 1));
                    let pred = evotest_abi::pred::Pred::from_u32(LLVMGetICmpPredicate(*cmp) as u32)
                        .unwrap_or(evotest_abi::pred::Pred::Eq);
                    let signed = pred.int_operands_signed();
                    let a = to_i64(ctx, builder, a, signed)?;
                    let b = to_i64(ctx, builder, b, signed)?;
                    let flag = values.value_or_nan(builder, *source)?;
                    e(builder.build_call(
                        icmp,
                        &[
                            frame.into(),
                            i32t.const_int(pred as u64, false).into(),
                            a.into(),
                            b.into(),
                            flag.into(),
                        ],
                        "",
                    ))?
                },
                Point::Float { cmp } => unsafe {
                    let pred = evotest_abi::pred::Pred::from_u32(LLVMGetFCmpPredicate(*cmp) as u32)
                        .unwrap_or(evotest_abi::pred::Pred::Eq);
                    let a = to_f64(ctx, builder, LLVMGetOperand(*cmp, 0))?;
                    let b = to_f64(ctx, builder, LLVMGetOperand(*cmp, 1))?;
                    e(builder.build_call(
                        fcmp,
                        &[
                            frame.into(),
                            i32t.const_int(pred as u64, false).into(),
                            a.into(),
                            b.into(),
                        ],
                        "",
                    ))?
                },
                Point::Switch { value, cases, .. } => {
                    let v = to_i64(ctx, builder, *value, true)?;
                    let vals: Vec<_> = cases
                        .iter()
                        .map(|c| i64t.const_int(*c as u64, true))
                        .collect();
                    let arr = i64t.const_array(&vals);
                    let g = module.add_global(arr.get_type(), None, "__evotest_frame_cases");
                    g.set_linkage(Linkage::Private);
                    g.set_constant(true);
                    g.set_initializer(&arr);
                    let n = i32t.const_int(cases.len() as u64, false);
                    e(builder.build_call(
                        switch,
                        &[
                            frame.into(),
                            v.into(),
                            n.into(),
                            g.as_pointer_value().into(),
                        ],
                        "",
                    ))?
                }
                Point::Other { value, source, .. } => {
                    let v = match unsafe { BasicValueEnum::new(*value) } {
                        BasicValueEnum::IntValue(i) => truth_i32(builder, i)?,
                        _ => continue,
                    };
                    let flag = values.value_or_nan(builder, *source)?;
                    e(builder.build_call(cond, &[frame.into(), v.into(), flag.into()], ""))?
                }
            };
            unsafe { copy_debug_loc(at, call.as_value_ref()) };
        }
        let points = i32t.const_int(ff.points_bound() as u64, false);
        let function = unsafe { BasicValueEnum::new(func) };
        for &r in &ff.rets {
            builder.position_before(&unsafe { InstructionValue::new(r) });
            let call =
                e(builder.build_call(ret, &[frame.into(), function.into(), points.into()], ""))?;
            unsafe { copy_debug_loc(r, call.as_value_ref()) };
        }
    }
    Ok(())
}

/// The probe's operands of a compare of integers wider than 64 bits (`__int128`, Rust's `u128`):
/// truncating them to 64 bits, as narrower ones are extended, kept only their low halves, so the
/// distance of `v == 12345` was 0 whenever the low half matched, whatever the high half (a
/// deceptive landscape: the goal was set aside as infeasible). Instead the probe gets `0` and the
/// difference `b - a`, its magnitude exact below 2^62 and compressed monotonically above, under
/// the signed form of the predicate (which holds of `(0, b - a)` exactly when the original holds
/// of `(a, b)`), and `holds` from the original operands. Returns (predicate, a, b, holds).
fn wide_int_operands<'ctx>(
    ctx: &ContextRef<'ctx>,
    builder: &Builder<'ctx>,
    pred: evotest_abi::pred::Pred,
    a: LLVMValueRef,
    b: LLVMValueRef,
) -> Result<
    (
        inkwell::values::BasicMetadataValueEnum<'ctx>,
        BasicValueEnum<'ctx>,
        BasicValueEnum<'ctx>,
        inkwell::values::IntValue<'ctx>,
    ),
    String,
> {
    use evotest_abi::pred::Pred::*;
    let e = |r: Result<inkwell::values::IntValue<'ctx>, inkwell::builder::BuilderError>| {
        r.map_err(|e| e.to_string())
    };
    let (a, b) = unsafe {
        (
            inkwell::values::IntValue::new(a),
            inkwell::values::IntValue::new(b),
        )
    };
    let i64t = ctx.i64_type();
    let holds = e(builder.build_int_compare(int_predicate(pred), a, b, ""))?;
    let unsigned = matches!(pred, IUlt | IUle | IUgt | IUge);
    let lt = e(builder.build_int_compare(
        if unsigned {
            inkwell::IntPredicate::ULT
        } else {
            inkwell::IntPredicate::SLT
        },
        a,
        b,
        "",
    ))?;
    // |b - a| as an unsigned number of the operands' width: exact, whatever their signs
    let up = e(builder.build_int_sub(b, a, ""))?;
    let down = e(builder.build_int_sub(a, b, ""))?;
    let mag = builder
        .build_select(lt, up, down, "")
        .map_err(|e| e.to_string())?
        .into_int_value();
    // below 2^62 exactly; above, 2^62 plus how far the magnitude's double lies above 2^62's
    // (its bit pattern: monotone, each doubling adds 2^52), so that the high half still has a
    // gradient (saturating left every value with a non-zero high half at one distance)
    let knee = 1u64 << 62;
    let small = e(builder.build_int_compare(
        inkwell::IntPredicate::ULT,
        mag,
        a.get_type().const_int(knee, false),
        "",
    ))?;
    let exact = e(builder.build_int_truncate(mag, i64t, ""))?;
    let f = builder
        .build_unsigned_int_to_float(mag, ctx.f64_type(), "")
        .map_err(|e| e.to_string())?;
    let bits = builder
        .build_bit_cast(f, i64t, "")
        .map_err(|e| e.to_string())?
        .into_int_value();
    let above = e(builder.build_int_sub(bits, i64t.const_int((knee as f64).to_bits(), false), ""))?;
    let scaled = e(builder.build_int_add(above, i64t.const_int(knee, false), ""))?;
    let mag = builder
        .build_select(small, exact, scaled, "")
        .map_err(|e| e.to_string())?
        .into_int_value();
    let neg = e(builder.build_int_neg(mag, ""))?;
    let diff = builder
        .build_select(lt, mag, neg, "")
        .map_err(|e| e.to_string())?;
    let signed = match pred {
        IUlt => Slt,
        IUle => Sle,
        IUgt => Sgt,
        IUge => Sge,
        p => p,
    };
    let p = ctx.i32_type().const_int(signed as u64, false).into();
    Ok((p, i64t.const_zero().into(), diff, holds))
}

/// Convert an integer or pointer operand to i64 (sign- or zero-extending).
fn to_i64<'ctx>(
    ctx: &ContextRef<'ctx>,
    builder: &Builder<'ctx>,
    v: LLVMValueRef,
    signed: bool,
) -> Result<BasicValueEnum<'ctx>, String> {
    let i64t = ctx.i64_type();
    let v = unsafe { BasicValueEnum::new(v) };
    Ok(match v {
        BasicValueEnum::PointerValue(p) => builder
            .build_ptr_to_int(p, i64t, "")
            .map_err(|e| e.to_string())?
            .into(),
        BasicValueEnum::IntValue(i) => builder
            .build_int_cast_sign_flag(i, i64t, signed, "")
            .map_err(|e| e.to_string())?
            .into(),
        _ => return Err("integer compare on a non-integer operand".into()),
    })
}

/// Convert a floating operand to double (exactly for half/float; rounding for wider types).
fn to_f64<'ctx>(
    ctx: &ContextRef<'ctx>,
    builder: &Builder<'ctx>,
    v: LLVMValueRef,
) -> Result<BasicValueEnum<'ctx>, String> {
    let v = unsafe { BasicValueEnum::new(v) };
    match v {
        BasicValueEnum::FloatValue(f) => Ok(builder
            .build_float_cast(f, ctx.f64_type(), "")
            .map_err(|e| e.to_string())?
            .into()),
        _ => Err("float compare on a non-float operand".into()),
    }
}

/// inkwell's predicate of an `icmp` predicate (`eq` for a float one, which never reaches here).
fn int_predicate(p: evotest_abi::pred::Pred) -> inkwell::IntPredicate {
    use evotest_abi::pred::Pred::*;
    use inkwell::IntPredicate as I;
    match p {
        Ne => I::NE,
        IUgt => I::UGT,
        IUge => I::UGE,
        IUlt => I::ULT,
        IUle => I::ULE,
        Sgt => I::SGT,
        Sge => I::SGE,
        Slt => I::SLT,
        Sle => I::SLE,
        _ => I::EQ,
    }
}

/// inkwell's predicate of an `fcmp` predicate; `None` for `false` and `true`.
fn float_predicate(p: evotest_abi::pred::Pred) -> Option<inkwell::FloatPredicate> {
    use evotest_abi::pred::Pred::*;
    use inkwell::FloatPredicate as F;
    Some(match p {
        Oeq => F::OEQ,
        Ogt => F::OGT,
        Oge => F::OGE,
        Olt => F::OLT,
        Ole => F::OLE,
        One => F::ONE,
        Ord => F::ORD,
        Uno => F::UNO,
        Ueq => F::UEQ,
        Ugt => F::UGT,
        Uge => F::UGE,
        Ult => F::ULT,
        Ule => F::ULE,
        Une => F::UNE,
        _ => return None,
    })
}

/// A compare probe's `pred` argument: the predicate, with [`evotest_abi::shm::OPERAND_A_CONST`] /
/// [`evotest_abi::shm::OPERAND_B_CONST`] set for an operand that is an IR constant, and
/// [`evotest_abi::shm::OPERANDS_POINTER`] for a compare of pointers.
fn pred_with_constants(pred: evotest_abi::pred::Pred, a: LLVMValueRef, b: LLVMValueRef) -> u64 {
    use evotest_abi::shm::{OPERANDS_POINTER, OPERAND_A_CONST, OPERAND_B_CONST};
    let constant = |v: LLVMValueRef| unsafe { !LLVMIsAConstant(v).is_null() };
    let mut p = pred as u32;
    if unsafe { LLVMGetTypeKind(LLVMTypeOf(a)) == LLVMTypeKind::LLVMPointerTypeKind } {
        p |= OPERANDS_POINTER;
    }
    if constant(a) {
        p |= OPERAND_A_CONST;
    }
    if constant(b) {
        p |= OPERAND_B_CONST;
    }
    p as u64
}

#[allow(clippy::too_many_arguments)]
fn inject<'ctx>(
    module: &Module<'ctx>,
    ctx: &ContextRef<'ctx>,
    builder: &Builder<'ctx>,
    probes: &Probes<'ctx>,
    flags: &Flags<'ctx>,
    desc: GlobalValue<'ctx>,
    s: &collect::SiteDraft,
    id: u32,
    outcome_base: u32,
) -> Result<(), String> {
    let inst = unsafe { InstructionValue::new(s.inst) };
    builder.position_before(&inst);
    let i32t = ctx.i32_type();
    let d = desc.as_pointer_value().into();
    let site = i32t.const_int(id as u64, false).into();
    let ob = i32t.const_int(outcome_base as u64, false).into();
    let quiet = s.kind == evotest_abi::meta::SiteKind::Cond;
    // a branch or select on a flag tested for zero: the flag's distance
    let flag = if quiet || !matches!(s.cond, Cond::Int { .. } | Cond::Bool(_)) {
        None
    } else {
        let c = unsafe {
            match LLVMGetInstructionOpcode(s.inst) {
                inkwell::llvm_sys::LLVMOpcode::LLVMBr => LLVMGetCondition(s.inst),
                inkwell::llvm_sys::LLVMOpcode::LLVMSelect => LLVMGetOperand(s.inst, 0),
                _ => std::ptr::null_mut(),
            }
        };
        if c.is_null() {
            None
        } else {
            flags.value(builder, unsafe { crate::flags::source(c) })?
        }
    };
    // the wrapped probes' last argument: whether the condition holds (outcome 0), computed from
    // the operands the probe gets (after optimisation, the program's own compare), for the
    // inline count of a coverage-only execution (quiet_path)
    let e = |r: Result<inkwell::values::IntValue<'ctx>, inkwell::builder::BuilderError>| {
        r.map_err(|e| e.to_string())
    };
    let call = match &s.cond {
        Cond::Int { pred, a, b } => {
            let signed = pred.int_operands_signed();
            let wide = unsafe {
                LLVMGetTypeKind(LLVMTypeOf(*a)) == LLVMTypeKind::LLVMIntegerTypeKind
                    && LLVMGetIntTypeWidth(LLVMTypeOf(*a)) > 64
            };
            let (p, a, b, holds) = if wide {
                wide_int_operands(ctx, builder, *pred, *a, *b)?
            } else {
                let p = i32t
                    .const_int(pred_with_constants(*pred, *a, *b), false)
                    .into();
                let a = to_i64(ctx, builder, *a, signed)?;
                let b = to_i64(ctx, builder, *b, signed)?;
                let holds = e(builder.build_int_compare(
                    int_predicate(*pred),
                    a.into_int_value(),
                    b.into_int_value(),
                    "",
                ))?;
                (p, a, b, holds)
            };
            match flag {
                Some(f) => builder.build_call(
                    probes.cmp_flag,
                    &[d, site, ob, p, a.into(), b.into(), f.into(), holds.into()],
                    "",
                ),
                None => {
                    let probe = if quiet {
                        probes.ccmp_int
                    } else {
                        probes.cmp_int
                    };
                    builder.build_call(
                        probe,
                        &[d, site, ob, p, a.into(), b.into(), holds.into()],
                        "",
                    )
                }
            }
        }
        Cond::Float { pred, a, b } => {
            let p = i32t
                .const_int(pred_with_constants(*pred, *a, *b), false)
                .into();
            let a = to_f64(ctx, builder, *a)?;
            let b = to_f64(ctx, builder, *b)?;
            let holds = match float_predicate(*pred) {
                Some(fp) => e(builder.build_float_compare(
                    fp,
                    a.into_float_value(),
                    b.into_float_value(),
                    "",
                ))?,
                None => ctx
                    .bool_type()
                    .const_int((*pred == evotest_abi::pred::Pred::FTrue) as u64, false),
            };
            let probe = if quiet {
                probes.ccmp_float
            } else {
                probes.cmp_float
            };
            builder.build_call(
                probe,
                &[d, site, ob, p, a.into(), b.into(), holds.into()],
                "",
            )
        }
        // a compare of pointers: its outcome only (collect::Cond::Ptr)
        Cond::Bool(c) | Cond::Ptr { c, .. } => {
            let c = unsafe { BasicValueEnum::new(*c) };
            let c = match c {
                BasicValueEnum::IntValue(i) => truth_i32(builder, i)?,
                // no one truth value (a vector compare's mask: collect and decisions make no
                // site of one; this guards the rest): the site stays without a probe rather
                // than fail the build
                _ => return Ok(()),
            };
            let holds =
                e(builder.build_int_compare(inkwell::IntPredicate::NE, c, i32t.const_zero(), ""))?;
            match (flag, &s.cond) {
                (Some(f), Cond::Bool(_)) => builder.build_call(
                    probes.cond_flag,
                    &[d, site, ob, c.into(), f.into(), holds.into()],
                    "",
                ),
                _ => builder.build_call(
                    if quiet { probes.ccond } else { probes.cond },
                    &[d, site, ob, c.into(), holds.into()],
                    "",
                ),
            }
        }
        Cond::Str {
            pred,
            func,
            a,
            b,
            n,
        } => {
            let a = unsafe { BasicValueEnum::new(*a) };
            let b = unsafe { BasicValueEnum::new(*b) };
            let n = match n {
                Some(n) => to_i64(ctx, builder, *n, false)?,
                None => ctx.i64_type().const_zero().into(),
            };
            let p = i32t.const_int(*pred as u64, false).into();
            let f = i32t.const_int(*func as u64, false).into();
            builder.build_call(
                probes.str,
                &[d, site, ob, p, f, a.into(), b.into(), n.into()],
                "",
            )
        }
        Cond::Bytes {
            pred,
            func,
            a,
            la,
            b,
            lb,
        } => {
            let a = unsafe { BasicValueEnum::new(*a) };
            let b = unsafe { BasicValueEnum::new(*b) };
            let la = to_i64(ctx, builder, *la, false)?;
            let lb = to_i64(ctx, builder, *lb, false)?;
            let p = i32t.const_int(*pred as u64, false).into();
            let f = i32t.const_int(*func as u64, false).into();
            builder.build_call(
                probes.bytes,
                &[d, site, ob, p, f, a.into(), la.into(), b.into(), lb.into()],
                "",
            )
        }
        Cond::Switch { value, cases } => {
            let v = to_i64(ctx, builder, *value, true)?;
            let i64t = ctx.i64_type();
            let vals: Vec<_> = cases
                .iter()
                .map(|c| i64t.const_int(*c as u64, true))
                .collect();
            let arr = i64t.const_array(&vals);
            let g = module.add_global(arr.get_type(), None, "__evotest_switch_cases");
            g.set_linkage(Linkage::Private);
            g.set_constant(true);
            g.set_initializer(&arr);
            // the case indices in ascending order of their (signed) values, for the probe's
            // binary search
            let mut order: Vec<u32> = (0..cases.len() as u32).collect();
            order.sort_by_key(|&k| cases[k as usize]);
            let ord: Vec<_> = order
                .iter()
                .map(|&k| i32t.const_int(k as u64, false))
                .collect();
            let ord = i32t.const_array(&ord);
            let og = module.add_global(ord.get_type(), None, "__evotest_switch_order");
            og.set_linkage(Linkage::Private);
            og.set_constant(true);
            og.set_initializer(&ord);
            builder.build_call(
                probes.switch,
                &[
                    d,
                    site,
                    ob,
                    v.into(),
                    i32t.const_int(1, false).into(),
                    i32t.const_int(cases.len() as u64, false).into(),
                    g.as_pointer_value().into(),
                    og.as_pointer_value().into(),
                ],
                "",
            )
        }
    }
    .map_err(|e| e.to_string())?;
    // Give the probe the branch's location, so a backtrace inside a probe points at the source.
    unsafe { copy_debug_loc(s.inst, call.as_value_ref()) };
    // the probe of a `br` or `select` right before it: a coverage-only clone counts it through
    // a mark on the branch's own condition (crate::lite)
    if matches!(
        s.kind,
        evotest_abi::meta::SiteKind::Br | evotest_abi::meta::SiteKind::Select
    ) {
        unsafe {
            let c = LLVMGetModuleContext(module.as_mut_ptr());
            let kind = LLVMGetMDKindIDInContext(
                c,
                names::LITE_BRANCH_MD.as_ptr() as *const _,
                names::LITE_BRANCH_MD.len() as u32,
            );
            LLVMSetMetadata(
                call.as_value_ref(),
                kind,
                LLVMMetadataAsValue(c, LLVMMDNodeInContext2(c, std::ptr::null_mut(), 0)),
            );
        }
    }
    Ok(())
}

/// Append `new` to the appending-linkage array global `name` (creating it if absent), as LLVM's
/// `appendToUsed` / `appendToGlobalCtors` do.
unsafe fn append_global_array(
    m: LLVMModuleRef,
    name: &str,
    elem_ty: LLVMTypeRef,
    new: &[LLVMValueRef],
    section: Option<&str>,
) {
    let cname = CString::new(name).unwrap();
    let old = LLVMGetNamedGlobal(m, cname.as_ptr());
    let mut elems: Vec<LLVMValueRef> = Vec::new();
    if !old.is_null() {
        let init = LLVMGetInitializer(old);
        if !init.is_null() && LLVMGetTypeKind(LLVMTypeOf(init)) == LLVMTypeKind::LLVMArrayTypeKind {
            let n = LLVMGetNumOperands(init);
            for i in 0..n {
                elems.push(LLVMGetOperand(init, i as u32));
            }
        }
        LLVMDeleteGlobal(old);
    }
    elems.extend_from_slice(new);
    let arr = LLVMConstArray2(elem_ty, elems.as_mut_ptr(), elems.len() as u64);
    let g = LLVMAddGlobal(m, LLVMTypeOf(arr), cname.as_ptr());
    LLVMSetInitializer(g, arr);
    LLVMSetLinkage(g, LLVMLinkage::LLVMAppendingLinkage);
    if let Some(s) = section {
        let cs = CString::new(s).unwrap();
        LLVMSetSection(g, cs.as_ptr());
    }
}

/// Whether a call to `callee` takes its string literal for output or an error, not for a
/// comparison: printing, logging, assertions, throwing.
fn output_callee(callee: &str) -> bool {
    let c = callee.trim_start_matches('_');
    ["printf", "fprintf", "sprintf", "snprintf", "vprintf", "vfprintf", "vsnprintf", "vsprintf",
     "dprintf", "puts", "fputs", "putchar", "perror", "syslog", "vsyslog", "err", "errx", "warn",
     "warnx", "assert", "assert_fail", "builtin_printf"]
        .iter()
        .any(|o| c == *o || c.starts_with(&format!("{o}_chk")))
        || callee.contains("throw")
        || callee.starts_with("_ZStls") // operator<< of an ostream
        || callee.starts_with("_ZNSo") // std::ostream's members
}

/// Append to `out` the string literals (non-empty, valid UTF-8, at most
/// [`MAX_TABLE_STRING_LEN`] bytes, no `%`: not a format) that the calls of function `f` pass as
/// arguments, but those of [`output_callee`]s: a literal compared through a routine the pass
/// does not see into (`std::string`'s `operator==`, `strstr`, a hash lookup) has no probe's
/// operand log, so this is its only trace. At most [`MAX_TABLE_STRINGS`] in `out`.
///
/// # Safety
/// `f` is a function with a body.
unsafe fn collect_call_strings(f: LLVMValueRef, out: &mut Vec<String>) {
    let mut bb = LLVMGetFirstBasicBlock(f);
    while !bb.is_null() {
        let mut i = LLVMGetFirstInstruction(bb);
        while !i.is_null() {
            if !LLVMIsACallInst(i).is_null() || !LLVMIsAInvokeInst(i).is_null() {
                let callee = LLVMGetCalledValue(i);
                let name = if callee.is_null() || LLVMIsAFunction(callee).is_null() {
                    String::new()
                } else {
                    debuginfo::value_name(callee)
                };
                if !name.starts_with("llvm.")
                    && !name.starts_with("__evotest")
                    && !output_callee(&name)
                {
                    for k in 0..LLVMGetNumArgOperands(i) {
                        if out.len() >= MAX_TABLE_STRINGS {
                            return;
                        }
                        let op = LLVMGetOperand(i, k);
                        if LLVMGetTypeKind(LLVMTypeOf(op))
                            != inkwell::llvm_sys::LLVMTypeKind::LLVMPointerTypeKind
                        {
                            continue;
                        }
                        if let Some(t) = pool_string(op).filter(|t| !t.contains('%')) {
                            if !out.contains(&t) {
                                out.push(t);
                            }
                        }
                    }
                }
            }
            i = LLVMGetNextInstruction(i);
        }
        bb = LLVMGetNextBasicBlock(bb);
    }
}

/// The module's table strings, each once, with each one's index.
#[derive(Default)]
struct StringTable {
    strings: Vec<String>,
    index: HashMap<String, usize>,
}

/// Append `found` to the module's table strings `all` (each once, at most
/// [`MAX_MODULE_TABLE_STRINGS`]) and return their indices in `all`, in `found`'s order; a
/// string left out by the cap has none.
fn merge_strings(all: &mut StringTable, found: Vec<String>) -> Vec<u32> {
    let mut ks = Vec::with_capacity(found.len());
    for t in found {
        let k = match all.index.get(&t) {
            Some(&k) => k,
            None if all.strings.len() < MAX_MODULE_TABLE_STRINGS => {
                all.index.insert(t.clone(), all.strings.len());
                all.strings.push(t);
                all.strings.len() - 1
            }
            None => continue,
        };
        if !ks.contains(&(k as u32)) {
            ks.push(k as u32);
        }
    }
    ks
}

/// Add to `out` the table strings (`global_strings`: per global, indices into the module's
/// table strings) of the globals function `f`'s instructions refer to, directly, through
/// constant expressions, or through the initializers of the globals they refer to (a pointer
/// to a table), at most 8 levels deep; `out` at most [`MAX_TABLE_STRINGS`] long.
unsafe fn table_strings_used(
    f: LLVMValueRef,
    global_strings: &HashMap<usize, Vec<u32>>,
    out: &mut Vec<u32>,
) {
    unsafe fn walk(
        v: LLVMValueRef,
        global_strings: &HashMap<usize, Vec<u32>>,
        seen: &mut std::collections::HashSet<usize>,
        out: &mut Vec<u32>,
        depth: u32,
    ) {
        if depth > 8 || v.is_null() || LLVMIsAConstant(v).is_null() {
            return;
        }
        if !LLVMIsAGlobalVariable(v).is_null() {
            if !seen.insert(v as usize) {
                return;
            }
            for &k in global_strings.get(&(v as usize)).into_iter().flatten() {
                if out.len() < MAX_TABLE_STRINGS && !out.contains(&k) {
                    out.push(k);
                }
            }
            walk(LLVMGetInitializer(v), global_strings, seen, out, depth + 1);
        } else if !LLVMIsAConstantExpr(v).is_null()
            || !LLVMIsAConstantStruct(v).is_null()
            || !LLVMIsAConstantArray(v).is_null()
            || !LLVMIsAConstantVector(v).is_null()
        {
            for i in 0..LLVMGetNumOperands(v).max(0) as u32 {
                walk(LLVMGetOperand(v, i), global_strings, seen, out, depth + 1);
            }
        }
    }
    if global_strings.is_empty() {
        return;
    }
    let mut seen = std::collections::HashSet::new();
    let mut bb = LLVMGetFirstBasicBlock(f);
    while !bb.is_null() {
        let mut i = LLVMGetFirstInstruction(bb);
        while !i.is_null() {
            for k in 0..LLVMGetNumOperands(i).max(0) as u32 {
                walk(LLVMGetOperand(i, k), global_strings, &mut seen, out, 0);
            }
            i = LLVMGetNextInstruction(i);
        }
        bb = LLVMGetNextBasicBlock(bb);
    }
}

/// The string literal `op` points to, for a string pool: non-empty, valid UTF-8 and at most
/// [`MAX_TABLE_STRING_LEN`] bytes.
fn pool_string(op: LLVMValueRef) -> Option<String> {
    condtext::string_bytes(op)
        .filter(|b| !b.is_empty() && b.len() <= MAX_TABLE_STRING_LEN)
        .and_then(|b| String::from_utf8(b).ok())
}

/// Most table strings kept per module ([`collect_table_strings`]).
const MAX_TABLE_STRINGS: usize = 256;
/// Most table strings kept per module, from all its tables and calls ([`merge_strings`]): each
/// function's search takes only those it uses ([`table_strings_used`]), so one file's many
/// tables do not crowd out the table of the function under test.
const MAX_MODULE_TABLE_STRINGS: usize = 4096;
/// Longest table string kept, in bytes.
const MAX_TABLE_STRING_LEN: usize = 64;

/// The string literals that the aggregate initializer `init` (an array or structure, nested up
/// to three levels) points to: the names of a keyword table, a command table, a table of
/// structures with a name member. A program that looks such a name up through a routine the
/// pass does not see (`bsearch` with a comparison callback, a hash) compares nothing a probe
/// records, so these are its only trace. At most [`MAX_TABLE_STRINGS`], each non-empty, valid
/// UTF-8 and at most [`MAX_TABLE_STRING_LEN`] bytes.
fn collect_table_strings(init: LLVMValueRef, depth: u32, out: &mut Vec<String>) {
    unsafe {
        if depth > 3
            || (LLVMIsAConstantArray(init).is_null() && LLVMIsAConstantStruct(init).is_null())
        {
            return;
        }
        for i in 0..LLVMGetNumOperands(init).max(0) as u32 {
            if out.len() >= MAX_TABLE_STRINGS {
                return;
            }
            let op = LLVMGetOperand(init, i);
            if LLVMGetTypeKind(LLVMTypeOf(op))
                == inkwell::llvm_sys::LLVMTypeKind::LLVMPointerTypeKind
            {
                if let Some(t) = pool_string(op) {
                    if !out.contains(&t) {
                        out.push(t);
                    }
                }
            } else {
                collect_table_strings(op, depth + 1, out);
            }
        }
    }
}
