//! Reading debug information: source locations, variable names, and C types of parameters.
//!
//! LLVM-C can give an instruction's `DILocation` and the variable of a debug record, but not a
//! variable's name or type; those few accessors are in the C++ shim (`shim/shim.cpp`).

use evotest_abi::meta::{
    ArrayMeta, CompositeMeta, GlobalMeta, MemberMeta, ScalarKind, ScalarMeta, TypeMeta,
};
use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::debuginfo::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::target::{LLVMABISizeOfType, LLVMGetModuleDataLayout, LLVMSizeOfTypeInBits};
use inkwell::llvm_sys::LLVMDbgRecordKind;
use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_uint};

extern "C" {
    fn evotest_divar_name(var: LLVMMetadataRef, buf: *mut c_char, cap: usize) -> usize;
    fn evotest_divar_arg(var: LLVMMetadataRef) -> c_uint;
    fn evotest_divar_type(var: LLVMMetadataRef) -> LLVMMetadataRef;
    fn evotest_disubprogram_types(
        sp: LLVMMetadataRef,
        out: *mut LLVMMetadataRef,
        cap: c_uint,
    ) -> c_int;
    fn evotest_disubprogram_line(sp: LLVMMetadataRef) -> c_uint;
    fn evotest_ditype_spelling(ty: LLVMMetadataRef, buf: *mut c_char, cap: usize) -> usize;
    fn evotest_ditype_scalar(ty: LLVMMetadataRef, bits: *mut u64) -> c_uint;
    fn evotest_ditype_pointee(ty: LLVMMetadataRef) -> LLVMMetadataRef;
    fn evotest_divar_subprogram(var: LLVMMetadataRef) -> LLVMMetadataRef;
    fn evotest_ditype_size_bits(ty: LLVMMetadataRef) -> u64;
    fn evotest_ditype_member_at(
        ty: LLVMMetadataRef,
        offset_bits: u64,
        buf: *mut c_char,
        cap: usize,
    ) -> LLVMMetadataRef;
    fn evotest_arg_is_sret(arg: LLVMValueRef) -> bool;
    fn evotest_disubprogram_qualified_name(
        sp: LLVMMetadataRef,
        buf: *mut c_char,
        cap: usize,
    ) -> usize;
    fn evotest_disubprogram_language(sp: LLVMMetadataRef) -> c_uint;
    fn evotest_pointer_base(
        inst: LLVMValueRef,
        ptr: LLVMValueRef,
        offset: *mut i64,
    ) -> LLVMValueRef;
    fn evotest_ditype_composite_tag(ty: LLVMMetadataRef, size_bits: *mut u64) -> c_uint;
    fn evotest_ditype_members(ty: LLVMMetadataRef, out: *mut LLVMMetadataRef, cap: c_uint)
        -> c_int;
    fn evotest_dimember(
        member: LLVMMetadataRef,
        offset_bits: *mut u64,
        bit_field: *mut c_int,
        buf: *mut c_char,
        cap: usize,
    ) -> LLVMMetadataRef;
    fn evotest_ditype_array(ty: LLVMMetadataRef, count: *mut u64) -> LLVMMetadataRef;
    fn evotest_ditype_array_dim(ty: LLVMMetadataRef, index: u32) -> i64;
    fn evotest_ditype_strip(ty: LLVMMetadataRef) -> LLVMMetadataRef;
    fn evotest_ditype_reference(ty: LLVMMetadataRef) -> c_uint;
    fn evotest_ditype_composite_flags(ty: LLVMMetadataRef) -> c_uint;
    fn evotest_global_ditype(global: LLVMValueRef, local: *mut c_int) -> LLVMMetadataRef;
}

// DWARF base type encodings (DW_ATE_*).
const DW_ATE_BOOLEAN: u32 = 0x02;
const DW_ATE_FLOAT: u32 = 0x04;
const DW_ATE_SIGNED: u32 = 0x05;
const DW_ATE_SIGNED_CHAR: u32 = 0x06;
const DW_ATE_UNSIGNED: u32 = 0x07;
const DW_ATE_UNSIGNED_CHAR: u32 = 0x08;

/// Whether debug type `di` is an unsigned integer (through typedefs and qualifiers); false for a
/// null type.
pub fn is_unsigned_type(di: LLVMMetadataRef) -> bool {
    if di.is_null() {
        return false;
    }
    let mut bits = 0u64;
    let enc = unsafe { evotest_ditype_scalar(di, &mut bits) };
    enc == DW_ATE_UNSIGNED || enc == DW_ATE_UNSIGNED_CHAR
}

/// Call a `(buf, cap) -> needed_len` string getter, growing the buffer if needed.
fn read_string(f: impl Fn(*mut c_char, usize) -> usize) -> String {
    let mut buf = vec![0u8; 128];
    let n = f(buf.as_mut_ptr() as *mut c_char, buf.len());
    if n >= buf.len() {
        buf = vec![0u8; n + 1];
        f(buf.as_mut_ptr() as *mut c_char, buf.len());
    }
    String::from_utf8_lossy(&buf[..n]).into_owned()
}

/// A source position.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Loc {
    pub file: String,
    pub line: u32,
    pub col: u32,
}

/// The source position of an instruction, if it has a `!dbg` location. For code inlined before the
/// pass ran (`always_inline`, or rustc's own inlining when its LLVM passes ran), the position of
/// the outermost call site, i.e. a line of the function being described.
pub fn inst_loc(inst: LLVMValueRef) -> Option<Loc> {
    unsafe {
        let mut loc = LLVMInstructionGetDebugLoc(inst);
        if loc.is_null() {
            return None;
        }
        for _ in 0..64 {
            let at = LLVMDILocationGetInlinedAt(loc);
            if at.is_null() {
                break;
            }
            loc = at;
        }
        let line = LLVMDILocationGetLine(loc);
        let col = LLVMDILocationGetColumn(loc);
        let scope = LLVMDILocationGetScope(loc);
        Some(Loc {
            file: scope_file(scope),
            line,
            col,
        })
    }
}

thread_local! {
    /// The directories of the compile units of the module being instrumented (see
    /// [`read_unit_dirs`]).
    static UNIT_DIRS: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Remember the directories of `m`'s compile units (`!llvm.dbg.cu`), for [`scope_file`]. Called
/// once per module before anything reads a location.
///
/// # Safety
/// `m` must be a valid module.
pub unsafe fn read_unit_dirs(m: LLVMModuleRef) {
    let name = c"llvm.dbg.cu";
    let n = LLVMGetNamedMetadataNumOperands(m, name.as_ptr());
    let mut cus: Vec<LLVMValueRef> = vec![std::ptr::null_mut(); n as usize];
    if n > 0 {
        LLVMGetNamedMetadataOperands(m, name.as_ptr(), cus.as_mut_ptr());
    }
    let dirs = cus
        .into_iter()
        .filter(|v| !v.is_null())
        .map(|v| {
            let file = LLVMDIScopeGetFile(LLVMValueAsMetadata(v));
            if file.is_null() {
                String::new()
            } else {
                file_part(file, LLVMDIFileGetDirectory)
            }
        })
        .filter(|d| !d.is_empty())
        .collect();
    UNIT_DIRS.with(|u| *u.borrow_mut() = dirs);
}

/// One string of a `DIFile` (its name or directory).
unsafe fn file_part(
    file: LLVMMetadataRef,
    get: unsafe extern "C" fn(LLVMMetadataRef, *mut c_uint) -> *const c_char,
) -> String {
    let mut len = 0u32;
    let p = get(file, &mut len);
    if p.is_null() {
        String::new()
    } else {
        String::from_utf8_lossy(std::slice::from_raw_parts(p as *const u8, len as usize))
            .into_owned()
    }
}

/// The file name of a debug-info scope (`""` when unknown): as debug info spells it (relative to
/// the compile unit's directory, for the files of the crate or directory being compiled), except
/// a relative name whose own directory is not a compile unit's, which gets that directory in
/// front. rustc records std's files as `library/core/src/…` in `/rustc/<hash>` and a registry
/// crate's as `src/lib.rs` in its package directory; joined, they say where they come from
/// (`/rustc/<hash>/library/core/src/…`) and no longer look like the user's `src/lib.rs`.
fn scope_file(scope: LLVMMetadataRef) -> String {
    unsafe {
        let file = if scope.is_null() {
            std::ptr::null_mut()
        } else {
            LLVMDIScopeGetFile(scope)
        };
        if file.is_null() {
            return String::new();
        }
        let name = file_part(file, LLVMDIFileGetFilename);
        if name.is_empty() || name.starts_with('/') || name.starts_with('<') {
            return name;
        }
        let dir = file_part(file, LLVMDIFileGetDirectory);
        let dir = dir.trim_end_matches('/');
        if !dir.starts_with('/')
            || UNIT_DIRS.with(|u| u.borrow().iter().any(|d| d.trim_end_matches('/') == dir))
        {
            return name;
        }
        format!("{dir}/{name}")
    }
}

/// The file a function is declared in, from its `DISubprogram` (`None` without debug info).
pub fn subprogram_file(func: LLVMValueRef) -> Option<String> {
    let sp = unsafe { LLVMGetSubprogram(func) };
    if sp.is_null() {
        return None;
    }
    Some(scope_file(sp)).filter(|f| !f.is_empty())
}

/// Source names of a function's locals and parameters, from its `#dbg_declare`/`#dbg_value`
/// records.
#[derive(Default)]
pub struct VarNames {
    /// Storage (an `alloca`, usually) → variable name.
    pub by_storage: HashMap<LLVMValueRef, String>,
    /// 1-based parameter number → (name, declared type).
    pub params: HashMap<u32, (String, LLVMMetadataRef)>,
    /// SSA value described by a `#dbg_value` → name (for code compiled at higher -O).
    pub by_value: HashMap<LLVMValueRef, String>,
    /// Storage of parameters (their local copies at -O0).
    pub param_storage: std::collections::HashSet<LLVMValueRef>,
    /// Debug records of the function's own parameters: (described value or storage, 1-based
    /// parameter number, variable, whether a `#dbg_declare`). Records of variables of inlined
    /// functions are left out: their argument numbers count in the inlined function.
    pub param_records: Vec<(LLVMValueRef, u32, LLVMMetadataRef, bool)>,
    /// Storage described by a `#dbg_declare` → the variable's declared type.
    pub storage_types: HashMap<LLVMValueRef, LLVMMetadataRef>,
}

/// Collect the variable names of `func` from its debug records.
pub fn var_names(func: LLVMValueRef) -> VarNames {
    let mut names = VarNames::default();
    let own_sp = unsafe { LLVMGetSubprogram(func) };
    unsafe {
        let mut bb = LLVMGetFirstBasicBlock(func);
        while !bb.is_null() {
            let mut inst = LLVMGetFirstInstruction(bb);
            while !inst.is_null() {
                let mut rec = LLVMGetFirstDbgRecord(inst);
                while !rec.is_null() {
                    let kind = LLVMDbgRecordGetKind(rec);
                    if matches!(
                        kind,
                        LLVMDbgRecordKind::LLVMDbgRecordDeclare
                            | LLVMDbgRecordKind::LLVMDbgRecordValue
                    ) {
                        let var = LLVMDbgVariableRecordGetVariable(rec);
                        let value = LLVMDbgVariableRecordGetValue(rec, 0);
                        if !var.is_null() {
                            let name = read_string(|b, c| evotest_divar_name(var, b, c));
                            let mut arg = evotest_divar_arg(var);
                            if arg > 0
                                && !own_sp.is_null()
                                && evotest_divar_subprogram(var) != own_sp
                            {
                                arg = 0; // a parameter of an inlined function: a local here
                            }
                            if arg > 0 {
                                names
                                    .params
                                    .entry(arg)
                                    .or_insert((name.clone(), evotest_divar_type(var)));
                                if !value.is_null() {
                                    let declare =
                                        matches!(kind, LLVMDbgRecordKind::LLVMDbgRecordDeclare);
                                    names.param_records.push((value, arg, var, declare));
                                }
                            }
                            if !value.is_null() && !name.is_empty() {
                                if matches!(kind, LLVMDbgRecordKind::LLVMDbgRecordDeclare) {
                                    if arg > 0 {
                                        names.param_storage.insert(value);
                                    }
                                    names.by_storage.entry(value).or_insert(name);
                                    names
                                        .storage_types
                                        .entry(value)
                                        .or_insert(evotest_divar_type(var));
                                } else {
                                    names.by_value.entry(value).or_insert(name);
                                }
                            }
                        }
                    }
                    rec = LLVMGetNextDbgRecord(rec);
                }
                inst = LLVMGetNextInstruction(inst);
            }
            bb = LLVMGetNextBasicBlock(bb);
        }
        spill_names(func, &mut names);
    }
    names
}

/// rustc (at opt-level 0) keeps an immutable local or parameter in an SSA value and stores it
/// once into a `NAME.dbg.spill` slot that only the debug record describes; conditions then use
/// the SSA value. Name such values after their slot, when the store fills the whole slot.
unsafe fn spill_names(func: LLVMValueRef, names: &mut VarNames) {
    let td = LLVMGetModuleDataLayout(LLVMGetGlobalParent(func));
    let mut bb = LLVMGetFirstBasicBlock(func);
    while !bb.is_null() {
        let mut inst = LLVMGetFirstInstruction(bb);
        while !inst.is_null() {
            if !LLVMIsAStoreInst(inst).is_null() {
                let slot = LLVMGetOperand(inst, 1);
                let value = LLVMGetOperand(inst, 0);
                if !LLVMIsAAllocaInst(slot).is_null() && value_name(slot).contains(".dbg.spill") {
                    if let Some(n) = names.by_storage.get(&slot) {
                        let whole = LLVMABISizeOfType(td, LLVMGetAllocatedType(slot))
                            == LLVMABISizeOfType(td, LLVMTypeOf(value));
                        if whole && LLVMIsAConstant(value).is_null() {
                            names.by_value.entry(value).or_insert_with(|| n.clone());
                        }
                    }
                }
            }
            inst = LLVMGetNextInstruction(inst);
        }
        bb = LLVMGetNextBasicBlock(bb);
    }
}

/// Where the value of an IR argument goes in the source: into parameter `arg` (1-based), at byte
/// `offset` of it, or (`indirect`) the argument is the address of the parameter's value (rustc
/// passes large aggregates by reference to a copy).
#[derive(Clone, Copy, Debug)]
pub struct ArgSource {
    pub arg: u32,
    pub var: LLVMMetadataRef,
    pub offset: u64,
    pub indirect: bool,
    /// Size in bits of what the argument fills (its stored value), for "is it the whole parameter".
    pub bits: u64,
}

/// Size in bits of a value of IR type `ty` for [`ArgSource::bits`]: its size in bits, except for
/// x87's `x86_fp80`, whose 80 bits fill a `long double` of 128 (its size in memory).
unsafe fn value_bits(td: inkwell::llvm_sys::target::LLVMTargetDataRef, ty: LLVMTypeRef) -> u64 {
    if LLVMGetTypeKind(ty) == inkwell::llvm_sys::LLVMTypeKind::LLVMX86_FP80TypeKind {
        LLVMABISizeOfType(td, ty) * 8
    } else {
        LLVMSizeOfTypeInBits(td, ty)
    }
}

/// Match each IR argument of `func` with the source parameter it carries, from the debug records
/// of `names`: a record describing the argument itself, or the storage the argument (possibly
/// after a `zext`/`trunc`) is stored into at entry, at a constant offset. C at -O0 maps argument
/// `i` to parameter `i + 1`; Rust splits fat pointers (`&str`, `&[T]`) and small pairs into two
/// arguments, passes big aggregates by reference, and adds an `sret` argument for big returns.
pub fn arg_sources(func: LLVMValueRef, names: &VarNames) -> Vec<Option<ArgSource>> {
    unsafe {
        let td = LLVMGetModuleDataLayout(LLVMGetGlobalParent(func));
        let n = LLVMCountParams(func);
        let mut out = Vec::with_capacity(n as usize);
        for i in 0..n {
            let p = LLVMGetParam(func, i);
            let bits = value_bits(td, LLVMTypeOf(p));
            let mut found = None;
            for &(v, arg, var, declare) in &names.param_records {
                if v == p {
                    found = Some(ArgSource {
                        arg,
                        var,
                        offset: 0,
                        indirect: declare,
                        bits,
                    });
                    break;
                }
            }
            if found.is_none() {
                found = stored_into_param(p, names, td);
            }
            out.push(found);
        }
        out
    }
}

/// The parameter storage that argument `p` is stored into (directly or after one cast).
unsafe fn stored_into_param(
    p: LLVMValueRef,
    names: &VarNames,
    td: inkwell::llvm_sys::target::LLVMTargetDataRef,
) -> Option<ArgSource> {
    let mut values = vec![p];
    let mut u = LLVMGetFirstUse(p);
    while !u.is_null() {
        let user = LLVMGetUser(u);
        if !LLVMIsACastInst(user).is_null() {
            values.push(user);
        }
        u = LLVMGetNextUse(u);
    }
    for v in values {
        let mut u = LLVMGetFirstUse(v);
        while !u.is_null() {
            let user = LLVMGetUser(u);
            u = LLVMGetNextUse(u);
            if LLVMIsAStoreInst(user).is_null() || LLVMGetOperand(user, 0) != v {
                continue;
            }
            let mut off = 0i64;
            let base = evotest_pointer_base(user, LLVMGetOperand(user, 1), &mut off);
            if off < 0 {
                continue;
            }
            for &(s, arg, var, declare) in &names.param_records {
                if s == base && declare {
                    let bits = value_bits(td, LLVMTypeOf(v));
                    return Some(ArgSource {
                        arg,
                        var,
                        offset: off as u64,
                        indirect: false,
                        bits,
                    });
                }
            }
        }
    }
    None
}

/// The base of pointer `ptr` (an operand of instruction `inst`, or the instruction itself) once
/// constant-offset GEPs and casts are stripped, with the byte offset from it in `offset`.
pub fn pointer_base(inst: LLVMValueRef, ptr: LLVMValueRef, offset: &mut i64) -> LLVMValueRef {
    unsafe { evotest_pointer_base(inst, ptr, offset) }
}

/// The debug type of global variable `g` (null without debug info).
pub fn global_type(g: LLVMValueRef) -> LLVMMetadataRef {
    let mut local = 0 as c_int;
    unsafe { evotest_global_ditype(g, &mut local) }
}

/// The type a pointer debug type points to (null when it is not a pointer).
pub fn pointee_type(ty: LLVMMetadataRef) -> LLVMMetadataRef {
    if ty.is_null() {
        return ty;
    }
    unsafe { evotest_ditype_pointee(ty) }
}

/// Whether IR argument `p` is an `sret` return slot.
pub fn is_sret(p: LLVMValueRef) -> bool {
    unsafe { evotest_arg_is_sret(p) }
}

/// The variable's name (`""` for a null variable).
pub fn var_name(var: LLVMMetadataRef) -> String {
    if var.is_null() {
        return String::new();
    }
    read_string(|b, c| unsafe { evotest_divar_name(var, b, c) })
}

/// The declared type of a variable.
pub fn var_type(var: LLVMMetadataRef) -> LLVMMetadataRef {
    unsafe { evotest_divar_type(var) }
}

/// Size in bits of a debug type (0 when unknown).
pub fn type_bits(ty: LLVMMetadataRef) -> u64 {
    if ty.is_null() {
        0
    } else {
        unsafe { evotest_ditype_size_bits(ty) }
    }
}

/// The member of structure type `ty` at bit offset `offset_bits`: (name, type).
pub fn member_at(ty: LLVMMetadataRef, offset_bits: u64) -> Option<(String, LLVMMetadataRef)> {
    if ty.is_null() {
        return None;
    }
    let mut buf = vec![0u8; 256];
    let found = unsafe {
        evotest_ditype_member_at(ty, offset_bits, buf.as_mut_ptr() as *mut c_char, buf.len())
    };
    if found.is_null() {
        return None;
    }
    let n = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    Some((String::from_utf8_lossy(&buf[..n]).into_owned(), found))
}

/// The debug types of a function: `[return, param 1, param 2, …]` (return is null for `void`),
/// or `None` without debug info.
pub fn subprogram_types(func: LLVMValueRef) -> Option<Vec<LLVMMetadataRef>> {
    unsafe {
        let sp = LLVMGetSubprogram(func);
        if sp.is_null() {
            return None;
        }
        let n = evotest_disubprogram_types(sp, std::ptr::null_mut(), 0);
        if n < 0 {
            return None;
        }
        let mut v = vec![std::ptr::null_mut(); n as usize];
        evotest_disubprogram_types(sp, v.as_mut_ptr(), n as c_uint);
        Some(v)
    }
}

/// The source-level name of a function from its `DISubprogram`: enclosing scopes and name joined
/// by `::` (`samples::kinds::generic<f32>` for a Rust function whose linkage name is mangled), and
/// its compile unit's language (`rust`, `c`, …); `None` without debug info.
pub fn source_name(func: LLVMValueRef) -> Option<(String, &'static str)> {
    unsafe {
        let sp = LLVMGetSubprogram(func);
        if sp.is_null() {
            return None;
        }
        let name = read_string(|b, c| evotest_disubprogram_qualified_name(sp, b, c));
        // DW_LANG_* codes (DWARF 5, 7.12)
        let lang = match evotest_disubprogram_language(sp) {
            0x1c => "rust",
            0x01 | 0x02 | 0x0c | 0x1d | 0x2c => "c",
            0x04 | 0x19 | 0x1a | 0x21 | 0x2b => "c++",
            _ => "other",
        };
        Some((name, lang))
    }
}

/// Declaration line of a function (0 without debug info).
pub fn subprogram_line(func: LLVMValueRef) -> u32 {
    unsafe {
        let sp = LLVMGetSubprogram(func);
        if sp.is_null() {
            0
        } else {
            evotest_disubprogram_line(sp)
        }
    }
}

/// Describe a type from its debug type `di` (null = `void`) and its LLVM IR spelling `ir`.
///
/// Without debug info (`di_known == false`) the scalar class is guessed from the IR type:
/// integers are taken as signed, `i1` as `_Bool`.
pub fn type_meta(di: LLVMMetadataRef, di_known: bool, ir: &str) -> TypeMeta {
    if di_known {
        let c_spelling = read_string(|b, c| unsafe { evotest_ditype_spelling(di, b, c) });
        let mut bits = 0u64;
        let enc = if di.is_null() {
            0
        } else {
            unsafe { evotest_ditype_scalar(di, &mut bits) }
        };
        let kind = match enc {
            DW_ATE_BOOLEAN => Some(ScalarKind::Bool),
            DW_ATE_SIGNED | DW_ATE_SIGNED_CHAR => Some(ScalarKind::Signed),
            DW_ATE_UNSIGNED | DW_ATE_UNSIGNED_CHAR => Some(ScalarKind::Unsigned),
            DW_ATE_FLOAT => Some(ScalarKind::Float),
            _ => None,
        };
        let pointee = if di.is_null() {
            None
        } else {
            let p = unsafe { evotest_ditype_pointee(di) };
            // `void *` has a null base type: no pointee description
            (!p.is_null()).then(|| Box::new(type_meta(p, true, "")))
        };
        // a named structure or union behind typedefs and qualifiers, as its tag spells it
        let canonical = if di.is_null() {
            None
        } else {
            let stripped = unsafe { evotest_ditype_strip(di) };
            let s = read_string(|b, c| unsafe { evotest_ditype_spelling(stripped, b, c) });
            let named = s
                .strip_prefix("struct ")
                .or_else(|| s.strip_prefix("union "))
                .is_some_and(|n| !n.trim().is_empty());
            (named && s != c_spelling).then_some(s)
        };
        TypeMeta {
            canonical,
            c_spelling,
            ir: ir.to_string(),
            scalar: kind.map(|kind| ScalarMeta {
                kind,
                bits: bits as u32,
            }),
            pointee,
            composite: None,
            array: None,
            reference: if di.is_null() {
                0
            } else {
                (unsafe { evotest_ditype_reference(di) }) as u8
            },
        }
    } else {
        let scalar = match ir {
            "i1" => Some(ScalarMeta {
                kind: ScalarKind::Bool,
                bits: 8,
            }),
            "i8" | "i16" | "i32" | "i64" => Some(ScalarMeta {
                kind: ScalarKind::Signed,
                bits: ir[1..].parse().unwrap_or(32),
            }),
            "float" => Some(ScalarMeta {
                kind: ScalarKind::Float,
                bits: 32,
            }),
            "double" => Some(ScalarMeta {
                kind: ScalarKind::Float,
                bits: 64,
            }),
            _ => None,
        };
        TypeMeta {
            canonical: None,
            c_spelling: ir.to_string(),
            ir: ir.to_string(),
            scalar,
            pointee: None,
            composite: None,
            array: None,
            reference: 0,
        }
    }
}

// DWARF tags of composite types (DW_TAG_*).
const DW_TAG_CLASS_TYPE: u32 = 0x02;
const DW_TAG_STRUCTURE_TYPE: u32 = 0x13;
const DW_TAG_UNION_TYPE: u32 = 0x17;

/// Most scalar members (array elements counted one by one) of a composite that evotest describes
/// member by member; a larger one is described as unsupported.
const MAX_LEAVES: u64 = 512;

/// Most levels of composites nested by value.
const MAX_NESTING: u32 = 8;

/// The member access path (`.tl.x`, `.tags[2]`, `[3].y`) of the scalar that starts `offset_bits`
/// into an object of debug type `ty` (a structure or an array, after typedefs and qualifiers):
/// `Some("")` at offset 0 of a type that is neither; `None` where no member starts there (padding,
/// the middle of a scalar, a union).
pub fn member_path(ty: LLVMMetadataRef, offset_bits: u64) -> Option<String> {
    member_path_at(ty, offset_bits, 0)
}

fn member_path_at(ty: LLVMMetadataRef, offset_bits: u64, depth: u32) -> Option<String> {
    if ty.is_null() || depth > MAX_NESTING {
        return None;
    }
    let mut count = 0u64;
    let elem = unsafe { evotest_ditype_array(ty, &mut count) };
    if !elem.is_null() {
        let size = type_bits(elem);
        if size == 0 {
            return None;
        }
        let (k, rest) = (offset_bits / size, offset_bits % size);
        // an array of arrays is one debug type with a subrange per dimension (`int[3][4]`): the
        // flat index k in row-major order, one subscript per dimension (`[2][3]`, not `[11]`)
        let mut dims = Vec::new();
        for i in 0..8 {
            let d = unsafe { evotest_ditype_array_dim(ty, i) };
            if d <= 0 {
                break;
            }
            dims.push(d as u64);
        }
        let mut subs = String::new();
        let mut stride: u64 = dims.iter().skip(1).product();
        let mut left = k;
        if dims.len() > 1 && k < dims.iter().product::<u64>() {
            for i in 0..dims.len() {
                subs.push_str(&format!("[{}]", left / stride.max(1)));
                left %= stride.max(1);
                stride /= dims.get(i + 1).copied().unwrap_or(1).max(1);
            }
        } else {
            subs = format!("[{k}]");
        }
        return Some(format!("{subs}{}", member_path_at(elem, rest, depth + 1)?));
    }
    let mut size_bits = 0u64;
    let tag = unsafe { evotest_ditype_composite_tag(ty, &mut size_bits) };
    if tag != DW_TAG_STRUCTURE_TYPE && tag != DW_TAG_CLASS_TYPE {
        return (offset_bits == 0 && tag != DW_TAG_UNION_TYPE).then(String::new);
    }
    // the last member that starts at or before the offset
    let m = members(ty)?
        .into_iter()
        .filter(|m| m.offset_bits <= offset_bits && !m.bit_field)
        .last()?;
    let (name, off, mty) = (m.name, m.offset_bits, m.ty);
    Some(format!(
        ".{name}{}",
        member_path_at(mty, offset_bits - off, depth + 1)?
    ))
}

/// Whether `ty` (after typedefs and qualifiers) is an array type of fixed size.
pub fn is_array_type(ty: LLVMMetadataRef) -> bool {
    let mut count = 0u64;
    !ty.is_null() && !unsafe { evotest_ditype_array(ty, &mut count) }.is_null() && count > 0
}

/// A parameter's type as the source declares it: [`type_meta`], with its structure, union or
/// class described member by member ([`TypeMeta::composite`]), or that of the type it points to.
pub fn source_type_meta(di: LLVMMetadataRef) -> TypeMeta {
    let mut t = type_meta(di, true, "");
    t.composite = composite_meta(di, 0).map(|(c, _)| Box::new(c));
    if let Some(p) = t.pointee.as_mut() {
        let pd = unsafe { evotest_ditype_pointee(di) };
        p.composite = composite_meta(pd, 0).map(|(c, _)| Box::new(c));
        p.array = array_meta(pd).map(Box::new);
    }
    t
}

/// The dimensions and element type of the fixed-size array type `di` (after typedefs and
/// qualifiers); `None` for any other type and for an array with a dimension that is not a
/// positive constant (`int[]`, a variable-length array).
fn array_meta(di: LLVMMetadataRef) -> Option<ArrayMeta> {
    if di.is_null() {
        return None;
    }
    let mut count = 0u64;
    let elem = unsafe { evotest_ditype_array(di, &mut count) };
    if elem.is_null() || count == 0 {
        return None;
    }
    let mut dims = Vec::new();
    for i in 0.. {
        let d = unsafe { evotest_ditype_array_dim(di, i) };
        if d < 0 {
            break;
        }
        dims.push(d as u64);
    }
    if dims.is_empty() || dims.iter().product::<u64>() != count {
        return None;
    }
    let mut elem_meta = type_meta(elem, true, "");
    elem_meta.composite = composite_meta(elem, 0).map(|(c, _)| Box::new(c));
    Some(ArrayMeta {
        dims,
        elem: elem_meta,
    })
}

/// Whether global variable `g` has debug info of its own and is not a function-local `static`:
/// a variable of the source.
pub fn is_source_global(g: LLVMValueRef) -> bool {
    let mut local = 0 as c_int;
    let di = unsafe { evotest_global_ditype(g, &mut local) };
    !di.is_null() && local == 0
}

/// Whether `g` is a function-local `static` of the source (its debug info says so).
pub fn is_local_static(g: LLVMValueRef) -> bool {
    let mut local = 0 as c_int;
    let di = unsafe { evotest_global_ditype(g, &mut local) };
    !di.is_null() && local != 0
}

/// The description of global variable `g` (symbol `name`) from its debug info: `None` without
/// any, for a function-local `static`, and for a type evotest cannot describe (a pointer, a
/// union, …; a structure it cannot build is described with the reason).
pub fn global_meta(g: LLVMValueRef, name: &str) -> Option<GlobalMeta> {
    let mut local = 0 as c_int;
    let di = unsafe { evotest_global_ditype(g, &mut local) };
    if di.is_null() || local != 0 {
        return None;
    }
    let mut count = 0u64;
    let elem = unsafe { evotest_ditype_array(di, &mut count) };
    let (ty, count) = if elem.is_null() {
        (source_type_meta(di), None)
    } else if count == 0 {
        return None;
    } else {
        (source_type_meta(elem), Some(count))
    };
    if ty.scalar.is_none() && ty.composite.is_none() {
        return None;
    }
    Some(GlobalMeta {
        name: name.to_string(),
        ty,
        count,
        internal: false,
    })
}

/// Whether `member` is a pointer to the structure `owner` itself (after typedefs and
/// qualifiers on both): a link of a list or a tree.
unsafe fn self_link(member: LLVMMetadataRef, owner: LLVMMetadataRef) -> bool {
    let p = evotest_ditype_pointee(member);
    !p.is_null() && !owner.is_null() && evotest_ditype_strip(p) == evotest_ditype_strip(owner)
}

/// Whether `t` is, or points to, a composite, or points to a fixed-size array
/// ([`source_type_meta`]).
pub fn has_composite(t: &TypeMeta) -> bool {
    t.composite.is_some()
        || t.pointee
            .as_ref()
            .is_some_and(|p| p.composite.is_some() || p.array.is_some())
}

/// The description of a structure, union or class type `di` and its number of scalar leaves;
/// `None` when `di` is not one of them. A type evotest cannot build member by member is given with
/// its reason in [`CompositeMeta::unsupported`] and no members.
fn composite_meta(di: LLVMMetadataRef, depth: u32) -> Option<(CompositeMeta, u64)> {
    if di.is_null() {
        return None;
    }
    let mut size_bits = 0u64;
    let tag = unsafe { evotest_ditype_composite_tag(di, &mut size_bits) };
    let tag = match tag {
        DW_TAG_STRUCTURE_TYPE => "struct",
        DW_TAG_UNION_TYPE => "union",
        DW_TAG_CLASS_TYPE => "class",
        _ => return None,
    };
    let flags = unsafe { evotest_ditype_composite_flags(di) };
    let passed_indirectly = flags & 1 != 0;
    let refuse = |why: String| {
        Some((
            CompositeMeta {
                tag: tag.into(),
                size_bits,
                members: vec![],
                unsupported: Some(why),
                passed_indirectly,
            },
            0,
        ))
    };
    if tag == "union" {
        return refuse("a union".into());
    }
    if depth >= MAX_NESTING {
        return refuse("nested too deeply".into());
    }
    let Some(ms) = members(di) else {
        return refuse("a class with a base class".into());
    };
    if ms.is_empty() {
        return refuse("a type without data members".into());
    }
    // a tests.cpp could not initialise them member by member
    if flags & 2 != 0 {
        return refuse("a class with private or protected data members".into());
    }
    if flags & 4 != 0 {
        return refuse("a class with a constructor of its own".into());
    }
    let mut out = Vec::new();
    let mut leaves = 0u64;
    for Member {
        name,
        offset_bits: off,
        bit_field,
        ty: mty,
    } in ms
    {
        if bit_field {
            return refuse(format!("bit-field member `{name}`"));
        }
        if name.is_empty() {
            return refuse("an unnamed member".into());
        }
        if name.starts_with("_vptr") {
            // clang's hidden pointer to the virtual table
            return refuse("a class with virtual functions".into());
        }
        // an array member: its element type and count
        let mut count = 0u64;
        let elem = unsafe { evotest_ditype_array(mty, &mut count) };
        let (ety, count) = if elem.is_null() {
            (mty, None)
        } else if count == 0 {
            return refuse(format!("array member `{name}` without a constant length"));
        } else {
            (elem, Some(count))
        };
        let mut t = type_meta(ety, true, "");
        let mut link = false;
        let k = count.unwrap_or(1);
        if t.scalar.is_some() {
            leaves += k;
        } else if let Some((c, l)) = composite_meta(ety, depth + 1) {
            if let Some(why) = &c.unsupported {
                return refuse(format!("member `{name}` is {why}"));
            }
            leaves += k * l;
            t.composite = Some(Box::new(c));
        } else if count.is_none() && t.pointee.as_ref().is_some_and(|p| is_char(p)) {
            // a string: a length and its characters
            leaves += 1 + STRING_MEMBER_MAX;
        } else if count.is_none() && depth == 0 && unsafe { self_link(ety, di) } {
            // a link to another node of the same type (`struct node *next`): one leaf
            leaves += 1;
            link = true;
        } else if t.pointee.is_some() || t.c_spelling.ends_with('*') {
            return refuse(format!("pointer member `{name}`"));
        } else {
            return refuse(format!("member `{name}` of type `{}`", t.c_spelling));
        }
        if leaves > MAX_LEAVES {
            return refuse(format!("more than {MAX_LEAVES} scalar members"));
        }
        out.push(MemberMeta {
            name,
            offset_bits: off,
            ty: t,
            count,
            link,
        });
    }
    Some((
        CompositeMeta {
            tag: tag.into(),
            size_bits,
            members: out,
            unsupported: None,
            passed_indirectly,
        },
        leaves,
    ))
}

/// Most characters of a `char *` member, built as a NUL-terminated string (the engine's default
/// for `char *` parameters).
const STRING_MEMBER_MAX: u64 = 16;

/// Whether `t` is a plain, signed or unsigned `char` (the pointee of a string).
fn is_char(t: &TypeMeta) -> bool {
    t.scalar
        .is_some_and(|s| s.bits == 8 && s.kind != ScalarKind::Bool)
        && t.c_spelling.contains("char")
}

/// A data member as the debug info gives it.
struct Member {
    name: String,
    offset_bits: u64,
    bit_field: bool,
    ty: LLVMMetadataRef,
}

/// The data members of structure, union or class type `ty` in declaration order; `None` when it
/// has a base class or is not such a type.
fn members(ty: LLVMMetadataRef) -> Option<Vec<Member>> {
    let n = unsafe { evotest_ditype_members(ty, std::ptr::null_mut(), 0) };
    if n < 0 {
        return None;
    }
    let mut ms = vec![std::ptr::null_mut(); n as usize];
    unsafe { evotest_ditype_members(ty, ms.as_mut_ptr(), n as c_uint) };
    let out = ms
        .into_iter()
        .map(|m| {
            let (mut offset_bits, mut bit_field) = (0u64, 0 as c_int);
            let mut buf = vec![0u8; 256];
            let ty = unsafe {
                evotest_dimember(
                    m,
                    &mut offset_bits,
                    &mut bit_field,
                    buf.as_mut_ptr() as *mut c_char,
                    buf.len(),
                )
            };
            let name = String::from_utf8_lossy(
                &buf[..buf.iter().position(|&b| b == 0).unwrap_or(buf.len())],
            )
            .into_owned();
            Member {
                name,
                offset_bits,
                bit_field: bit_field != 0,
                ty,
            }
        })
        .collect();
    Some(out)
}

/// LLVM's printed spelling of a type (`i32`, `double`, `ptr`).
pub fn type_string(ty: LLVMTypeRef) -> String {
    unsafe {
        let p = LLVMPrintTypeToString(ty);
        let s = std::ffi::CStr::from_ptr(p).to_string_lossy().into_owned();
        LLVMDisposeMessage(p);
        s
    }
}

/// The thread-local global behind `v` when `v` is a call `llvm.threadlocal.address(@g)` (how
/// clang addresses a `_Thread_local` or `thread_local` variable); otherwise `v` itself.
pub fn through_threadlocal(v: LLVMValueRef) -> LLVMValueRef {
    unsafe {
        if v.is_null() || LLVMIsACallInst(v).is_null() {
            return v;
        }
        let callee = LLVMGetCalledValue(v);
        if !callee.is_null()
            && !LLVMIsAFunction(callee).is_null()
            && value_name(callee).starts_with("llvm.threadlocal.address")
        {
            let g = LLVMGetOperand(v, 0);
            if !LLVMIsAGlobalVariable(g).is_null() {
                return g;
            }
        }
        v
    }
}

/// A value's name (`""` when unnamed).
pub fn value_name(v: LLVMValueRef) -> String {
    unsafe {
        let mut len = 0usize;
        let p = LLVMGetValueName2(v, &mut len);
        if p.is_null() {
            String::new()
        } else {
            String::from_utf8_lossy(std::slice::from_raw_parts(p as *const u8, len)).into_owned()
        }
    }
}
