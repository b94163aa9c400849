//! Reading debug information: source locations, variable names, and C types of parameters.
//!
//! LLVM-C can give an instruction's `DILocation` and the variable of a debug record, but not a
//! variable's name or type; those few accessors are in the C++ shim (`shim/shim.cpp`).

use evotest_abi::meta::{ScalarKind, ScalarMeta, TypeMeta};
use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::debuginfo::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::LLVMDbgRecordKind;
use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_uint};

extern "C" {
    fn evotest_divar_name(var: LLVMMetadataRef, buf: *mut c_char, cap: usize) -> usize;
    fn evotest_divar_arg(var: LLVMMetadataRef) -> c_uint;
    fn evotest_divar_type(var: LLVMMetadataRef) -> LLVMMetadataRef;
    fn evotest_disubprogram_types(sp: LLVMMetadataRef, out: *mut LLVMMetadataRef, cap: c_uint) -> c_int;
    fn evotest_disubprogram_line(sp: LLVMMetadataRef) -> c_uint;
    fn evotest_ditype_spelling(ty: LLVMMetadataRef, buf: *mut c_char, cap: usize) -> usize;
    fn evotest_ditype_scalar(ty: LLVMMetadataRef, bits: *mut u64) -> c_uint;
    fn evotest_ditype_pointee(ty: LLVMMetadataRef) -> LLVMMetadataRef;
}

// DWARF base type encodings (DW_ATE_*).
const DW_ATE_BOOLEAN: u32 = 0x02;
const DW_ATE_FLOAT: u32 = 0x04;
const DW_ATE_SIGNED: u32 = 0x05;
const DW_ATE_SIGNED_CHAR: u32 = 0x06;
const DW_ATE_UNSIGNED: u32 = 0x07;
const DW_ATE_UNSIGNED_CHAR: u32 = 0x08;

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

/// The source position of an instruction, if it has a `!dbg` location.
pub fn inst_loc(inst: LLVMValueRef) -> Option<Loc> {
    unsafe {
        let loc = LLVMInstructionGetDebugLoc(inst);
        if loc.is_null() {
            return None;
        }
        let line = LLVMDILocationGetLine(loc);
        let col = LLVMDILocationGetColumn(loc);
        let scope = LLVMDILocationGetScope(loc);
        let file = if scope.is_null() { std::ptr::null_mut() } else { LLVMDIScopeGetFile(scope) };
        let file = if file.is_null() {
            String::new()
        } else {
            let mut len = 0u32;
            let p = LLVMDIFileGetFilename(file, &mut len);
            if p.is_null() {
                String::new()
            } else {
                String::from_utf8_lossy(std::slice::from_raw_parts(p as *const u8, len as usize)).into_owned()
            }
        };
        Some(Loc { file, line, col })
    }
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
}

/// Collect the variable names of `func` from its debug records.
pub fn var_names(func: LLVMValueRef) -> VarNames {
    let mut names = VarNames::default();
    unsafe {
        let mut bb = LLVMGetFirstBasicBlock(func);
        while !bb.is_null() {
            let mut inst = LLVMGetFirstInstruction(bb);
            while !inst.is_null() {
                let mut rec = LLVMGetFirstDbgRecord(inst);
                while !rec.is_null() {
                    let kind = LLVMDbgRecordGetKind(rec);
                    if matches!(kind, LLVMDbgRecordKind::LLVMDbgRecordDeclare | LLVMDbgRecordKind::LLVMDbgRecordValue) {
                        let var = LLVMDbgVariableRecordGetVariable(rec);
                        let value = LLVMDbgVariableRecordGetValue(rec, 0);
                        if !var.is_null() {
                            let name = read_string(|b, c| evotest_divar_name(var, b, c));
                            let arg = evotest_divar_arg(var);
                            if arg > 0 {
                                names.params.entry(arg).or_insert((name.clone(), evotest_divar_type(var)));
                            }
                            if !value.is_null() && !name.is_empty() {
                                if matches!(kind, LLVMDbgRecordKind::LLVMDbgRecordDeclare) {
                                    if arg > 0 {
                                        names.param_storage.insert(value);
                                    }
                                    names.by_storage.entry(value).or_insert(name);
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
    }
    names
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
        let enc = if di.is_null() { 0 } else { unsafe { evotest_ditype_scalar(di, &mut bits) } };
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
        TypeMeta {
            c_spelling,
            ir: ir.to_string(),
            scalar: kind.map(|kind| ScalarMeta { kind, bits: bits as u32 }),
            pointee,
        }
    } else {
        let scalar = match ir {
            "i1" => Some(ScalarMeta { kind: ScalarKind::Bool, bits: 8 }),
            "i8" | "i16" | "i32" | "i64" => {
                Some(ScalarMeta { kind: ScalarKind::Signed, bits: ir[1..].parse().unwrap_or(32) })
            }
            "float" => Some(ScalarMeta { kind: ScalarKind::Float, bits: 32 }),
            "double" => Some(ScalarMeta { kind: ScalarKind::Float, bits: 64 }),
            _ => None,
        };
        TypeMeta { c_spelling: ir.to_string(), ir: ir.to_string(), scalar, pointee: None }
    }
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
