//! Printable condition texts such as `a <= 0` or `a + b <= c`, rebuilt from IR.
//!
//! At `-O0` clang loads every variable from its `alloca`, so a compare's operands are trees of
//! loads, casts, arithmetic and constants; the names come from the `#dbg_declare` records
//! ([`crate::debuginfo::VarNames`]). Casts are not shown. The result is for people reading reports,
//! not for parsing: depth is limited and anything unrecognised prints as `?`.

use crate::debuginfo::{through_threadlocal, value_name, VarNames};
use evotest_abi::pred::Pred;
use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::LLVMOpcode;

const MAX_DEPTH: u32 = 6;

/// Text of `v`, as an operand of a compare (no outer parentheses).
pub fn text(v: LLVMValueRef, names: &VarNames) -> String {
    expr(v, names, 0, false)
}

/// Text of a compare `a op b`, printing a small integer constant as a character literal when
/// the other side is a `char` that was promoted, and constants of an unsigned compare as unsigned.
pub fn compare(a: LLVMValueRef, pred: Pred, b: LLVMValueRef, names: &VarNames) -> String {
    if matches!(pred, Pred::Eq | Pred::Ne) && constant(b).as_deref() == Some("0") {
        if let Some(t) = ctype_test(a, names) {
            return if pred == Pred::Eq { format!("!{t}") } else { t };
        }
    }
    let op = pred.c_operator();
    let unsigned = matches!(pred, Pred::IUlt | Pred::IUle | Pred::IUgt | Pred::IUge);
    // an equality with a variable of an unsigned type: its constant as unsigned (Rust's
    // `a == 200` for `a: u8` compares the i8 -56, which C's promotion to int hides)
    let eq = matches!(pred, Pred::Eq | Pred::Ne);
    let side = |v: LLVMValueRef, other: LLVMValueRef| {
        if eq && !unsigned {
            if let Some(t) = unsigned_constant(v, other, names) {
                return t;
            }
        }
        operand_near_char(v, other, names, unsigned)
    };
    format!("{} {op} {}", side(a, b), side(b, a))
}

/// A constant compared for equality with a variable of an unsigned type, when LLVM holds it
/// negative: its unsigned value, or the hex digits [`bit_pattern`] would give (`0xdeadbeef`).
fn unsigned_constant(v: LLVMValueRef, other: LLVMValueRef, names: &VarNames) -> Option<String> {
    unsafe {
        if LLVMIsAConstantInt(v).is_null() || LLVMGetIntTypeWidth(LLVMTypeOf(v)) > 64 {
            return None;
        }
        let width = LLVMGetIntTypeWidth(LLVMTypeOf(v));
        let signed = constant(v)?;
        if !signed.starts_with('-') || !unsigned_source(other, names) {
            return None;
        }
        Some(
            bit_pattern(&signed, width, false)
                .unwrap_or_else(|| LLVMConstIntGetZExtValue(v).to_string()),
        )
    }
}

/// Whether `v` (through casts) is a variable of an unsigned integer type by its debug
/// information: a load from a described local, or a described parameter.
pub(crate) fn unsigned_source(v: LLVMValueRef, names: &VarNames) -> bool {
    unsafe {
        let u = through_casts(v);
        if !LLVMIsALoadInst(u).is_null() {
            if let Some(&di) = names.storage_types.get(&LLVMGetOperand(u, 0)) {
                return crate::debuginfo::is_unsigned_type(di);
            }
            return false;
        }
        if !LLVMIsAArgument(u).is_null() {
            let f = LLVMGetParamParent(u);
            for k in 0..LLVMCountParams(f) {
                if LLVMGetParam(f, k) == u {
                    return names
                        .params
                        .get(&(k + 1))
                        .is_some_and(|(_, di)| crate::debuginfo::is_unsigned_type(*di));
                }
            }
        }
        false
    }
}

/// `v` through the casts, which condition texts do not show.
fn through_casts(mut v: LLVMValueRef) -> LLVMValueRef {
    unsafe {
        while !LLVMIsACastInst(v).is_null() {
            v = LLVMGetOperand(v, 0);
        }
    }
    v
}

/// glibc's `<ctype.h>` classes as `(*__ctype_b_loc())[c] & MASK` tests them (the masks of a
/// little-endian `unsigned short` table).
const CTYPE_CLASSES: [(&str, i64); 12] = [
    ("isblank", 1),
    ("iscntrl", 2),
    ("ispunct", 4),
    ("isalnum", 8),
    ("isupper", 256),
    ("islower", 512),
    ("isalpha", 1024),
    ("isdigit", 2048),
    ("isxdigit", 4096),
    ("isspace", 8192),
    ("isprint", 16384),
    ("isgraph", 32768),
];

/// `isalnum(c)` for `(*__ctype_b_loc())[c] & 8` (glibc's expansion of the `<ctype.h>` macros),
/// for the compare of it with 0; `None` for anything else.
fn ctype_test(v: LLVMValueRef, names: &VarNames) -> Option<String> {
    unsafe {
        let and = through_casts(v);
        if LLVMIsAInstruction(and).is_null() || LLVMGetInstructionOpcode(and) != LLVMOpcode::LLVMAnd
        {
            return None;
        }
        let (x, m) = (LLVMGetOperand(and, 0), LLVMGetOperand(and, 1));
        let (entry, mask) = if LLVMIsAConstantInt(m).is_null() {
            (m, x)
        } else {
            (x, m)
        };
        if LLVMIsAConstantInt(mask).is_null() {
            return None;
        }
        let class = CTYPE_CLASSES
            .iter()
            .find(|c| c.1 == LLVMConstIntGetSExtValue(mask))?
            .0;
        let load = through_casts(entry);
        if LLVMIsALoadInst(load).is_null() {
            return None;
        }
        let gep = LLVMGetOperand(load, 0);
        if LLVMIsAGetElementPtrInst(gep).is_null() || LLVMGetNumOperands(gep) != 2 {
            return None;
        }
        let table = LLVMGetOperand(gep, 0);
        if LLVMIsALoadInst(table).is_null() {
            return None;
        }
        let call = LLVMGetOperand(table, 0);
        if LLVMIsACallInst(call).is_null()
            || value_name(LLVMGetCalledValue(call)) != "__ctype_b_loc"
        {
            return None;
        }
        Some(format!(
            "{class}({})",
            expr(through_casts(LLVMGetOperand(gep, 1)), names, 0, false)
        ))
    }
}

/// The C character literal of the constant `v` when it is a printable character or one C writes
/// with an escape (`'q'`, `'\n'`, `'\t'`, `'\r'`, `'\''`, `'\\'`), else `None`.
fn char_literal(v: LLVMValueRef) -> Option<String> {
    unsafe {
        if LLVMIsAConstantInt(v).is_null() || LLVMGetIntTypeWidth(LLVMTypeOf(v)) > 64 {
            return None;
        }
        let c = LLVMConstIntGetSExtValue(v);
        match c {
            0x09 => Some("'\\t'".into()),
            0x0a => Some("'\\n'".into()),
            0x0d => Some("'\\r'".into()),
            0x27 => Some("'\\''".into()),
            0x5c => Some("'\\\\'".into()),
            0x20..=0x7e => Some(format!("'{}'", c as u8 as char)),
            _ => None,
        }
    }
}

fn operand_near_char(
    v: LLVMValueRef,
    other: LLVMValueRef,
    names: &VarNames,
    unsigned: bool,
) -> String {
    unsafe {
        if unsigned && !LLVMIsAConstantInt(v).is_null() && LLVMGetIntTypeWidth(LLVMTypeOf(v)) <= 64
        {
            return LLVMConstIntGetZExtValue(v).to_string();
        }
        if !LLVMIsAConstantInt(v).is_null() {
            if let Some(t) = constant(v)
                .and_then(|t| bit_pattern(&t, LLVMGetIntTypeWidth(LLVMTypeOf(v)), unsigned))
            {
                return t;
            }
        }
        // not '\0': a string's end reads `!= 0`
        if !LLVMIsAConstantInt(v).is_null() && is_promoted_char(other) {
            if let Some(c) = char_literal(v) {
                return c;
            }
        }
    }
    // C's `==`, `<` and kin bind tighter than `&`, `^` and `|`, and a compare of a compare reads
    // ambiguously: such an operand keeps its parentheses (`(x & m) != 0`, not `x & m != 0`)
    let loose = unsafe {
        // casts print as nothing, so look through them
        let u = through_casts(v);
        names.by_value.get(&u).is_none()
            && !LLVMIsAInstruction(u).is_null()
            && match LLVMGetInstructionOpcode(u) {
                LLVMOpcode::LLVMAnd
                | LLVMOpcode::LLVMOr
                | LLVMOpcode::LLVMICmp
                | LLVMOpcode::LLVMFCmp => true,
                // `x ^ true` prints as the logical not `!x`, which needs none
                LLVMOpcode::LLVMXor => constant(LLVMGetOperand(u, 1)).as_deref() != Some("true"),
                _ => false,
            }
    };
    expr(v, names, 0, loose)
}

/// A negative constant `signed` (decimal, as LLVM holds it) of a `width`-bit compare that is
/// better read as the unsigned bit pattern it most likely was in the source: in an unsigned
/// compare wider than 64 bits, its unsigned value; in an equality of 32 bits or more, when it
/// lies within 2^(width-8) of the type's minimum (`0xdeadbeef`, not `-559038737`; `-1` or
/// `-100000` stay as they are), its hex digits. `None`: print it signed.
fn bit_pattern(signed: &str, width: u32, unsigned: bool) -> Option<String> {
    let v: i128 = signed.parse().ok()?;
    if v >= 0 || !(32..=128).contains(&width) {
        return None;
    }
    let mask = if width == 128 {
        u128::MAX
    } else {
        (1u128 << width) - 1
    };
    let bits = (v as u128) & mask;
    if unsigned {
        return Some(bits.to_string());
    }
    (v.unsigned_abs() >= 1u128 << (width - 8)).then(|| format!("{bits:#x}"))
}

/// True if `v` is an extension of an 8-bit value.
fn is_promoted_char(v: LLVMValueRef) -> bool {
    unsafe {
        if LLVMIsAInstruction(v).is_null() {
            return false;
        }
        match LLVMGetInstructionOpcode(v) {
            LLVMOpcode::LLVMSExt | LLVMOpcode::LLVMZExt => {
                let src = LLVMGetOperand(v, 0);
                LLVMGetIntTypeWidth(LLVMTypeOf(src)) == 8
            }
            _ => false,
        }
    }
}

fn binop(op: LLVMOpcode) -> Option<&'static str> {
    use LLVMOpcode::*;
    Some(match op {
        LLVMAdd | LLVMFAdd => "+",
        LLVMSub | LLVMFSub => "-",
        LLVMMul | LLVMFMul => "*",
        LLVMSDiv | LLVMUDiv | LLVMFDiv => "/",
        LLVMSRem | LLVMURem | LLVMFRem => "%",
        LLVMShl => "<<",
        LLVMLShr | LLVMAShr => ">>",
        LLVMAnd => "&",
        LLVMOr => "|",
        LLVMXor => "^",
        _ => return None,
    })
}

fn constant(v: LLVMValueRef) -> Option<String> {
    unsafe {
        if !LLVMIsAConstantInt(v).is_null() {
            let w = LLVMGetIntTypeWidth(LLVMTypeOf(v));
            if w == 1 {
                return Some(
                    if LLVMConstIntGetZExtValue(v) != 0 {
                        "true"
                    } else {
                        "false"
                    }
                    .into(),
                );
            }
            if w > 64 {
                // i128 (Rust's u128/i128): the 64-bit accessors truncate; LLVM prints "i128 N".
                let p = LLVMPrintValueToString(v);
                let t = std::ffi::CStr::from_ptr(p).to_string_lossy().into_owned();
                LLVMDisposeMessage(p);
                return Some(t.rsplit(' ').next().unwrap_or("?").to_string());
            }
            return Some(LLVMConstIntGetSExtValue(v).to_string());
        }
        if !LLVMIsAConstantFP(v).is_null() {
            let mut loses = 0;
            let d = LLVMConstRealGetDouble(v, &mut loses);
            if loses != 0 && d.is_finite() && d != 0.0 {
                // a `long double` or `__float128` constant a double holds only roughly (0.1L)
                return Some(format!("{}L", float_text(d)));
            }
            if loses != 0 {
                // … or not at all (1e400L, 1e-400L)
                let p = LLVMPrintValueToString(v);
                let t = std::ffi::CStr::from_ptr(p).to_string_lossy().into_owned();
                LLVMDisposeMessage(p);
                if let Some(w) = t.rsplit(' ').next().and_then(wide_float_text) {
                    return Some(w);
                }
            }
            return Some(float_text(d));
        }
        if !LLVMIsAConstantPointerNull(v).is_null() {
            return Some("NULL".into());
        }
        None
    }
}

fn expr(v: LLVMValueRef, names: &VarNames, depth: u32, nested: bool) -> String {
    if depth > MAX_DEPTH {
        return "…".into();
    }
    if let Some(c) = constant(v) {
        return c;
    }
    if let Some(n) = names.by_value.get(&v) {
        return n.clone();
    }
    unsafe {
        if !LLVMIsAArgument(v).is_null() {
            let n = value_name(v);
            return if n.is_empty() { "arg".into() } else { n };
        }
        if !LLVMIsAGlobalVariable(v).is_null() {
            if let Some(lit) = string_literal(v) {
                return lit;
            }
        }
        if !LLVMIsAGlobalValue(v).is_null() {
            return format!("&{}", value_name(v));
        }
        if !LLVMIsAAllocaInst(v).is_null() {
            return match names.by_storage.get(&v) {
                Some(n) => format!("&{n}"),
                None => "&local".into(),
            };
        }
        if LLVMIsAInstruction(v).is_null() {
            return "?".into();
        }
        let op = LLVMGetInstructionOpcode(v);
        use LLVMOpcode::*;
        match op {
            LLVMLoad => {
                let p = through_threadlocal(LLVMGetOperand(v, 0));
                // `errno`: C libraries expand it to a load through a call for the thread's own
                // (glibc `*__errno_location()`, the BSDs' and macOS's `*__error()`)
                if !LLVMIsACallInst(p).is_null() {
                    let callee = LLVMGetCalledValue(p);
                    if !LLVMIsAFunction(callee).is_null()
                        && matches!(
                            value_name(callee).as_str(),
                            "__errno_location" | "__error" | "___errno"
                        )
                    {
                        return "errno".to_string();
                    }
                }
                let s = lvalue(p, names, depth + 1);
                // a scalar loaded from a global structure's or array's own address is its first
                // member or element (`g_lim.lo`, `g_hist[0]`)
                if !LLVMIsAGlobalVariable(p).is_null()
                    && !matches!(
                        LLVMGetTypeKind(LLVMTypeOf(v)),
                        inkwell::llvm_sys::LLVMTypeKind::LLVMStructTypeKind
                            | inkwell::llvm_sys::LLVMTypeKind::LLVMArrayTypeKind
                    )
                {
                    if let Some(m) =
                        crate::debuginfo::member_path(crate::debuginfo::global_type(p), 0)
                            .filter(|m| m.starts_with('.') || m.starts_with('['))
                    {
                        return format!("{s}{m}");
                    }
                }
                s
            }
            // a float's bit pattern as an integer (what `signbit(x)` compares with 0)
            LLVMBitCast
                if is_float_type(LLVMTypeOf(LLVMGetOperand(v, 0)))
                    && !is_float_type(LLVMTypeOf(v)) =>
            {
                format!(
                    "bits({})",
                    expr(LLVMGetOperand(v, 0), names, depth + 1, false)
                )
            }
            LLVMTrunc | LLVMZExt | LLVMSExt | LLVMFPTrunc | LLVMFPExt | LLVMSIToFP | LLVMUIToFP
            | LLVMFPToSI | LLVMFPToUI | LLVMBitCast | LLVMPtrToInt | LLVMIntToPtr
            | LLVMAddrSpaceCast => expr(LLVMGetOperand(v, 0), names, depth + 1, nested),
            LLVMFNeg => format!("-{}", expr(LLVMGetOperand(v, 0), names, depth + 1, true)),
            LLVMICmp | LLVMFCmp => {
                let pred = if op == LLVMICmp {
                    LLVMGetICmpPredicate(v) as u32
                } else {
                    LLVMGetFCmpPredicate(v) as u32
                };
                let s = match Pred::from_u32(pred) {
                    Some(p) => compare(LLVMGetOperand(v, 0), p, LLVMGetOperand(v, 1), names),
                    None => "?".into(),
                };
                if nested {
                    format!("({s})")
                } else {
                    s
                }
            }
            // an element of a vector (`m[0]` of a compare mask `v4i m = a < b;`)
            LLVMExtractElement => format!(
                "{}[{}]",
                expr(LLVMGetOperand(v, 0), names, depth + 1, true),
                expr(LLVMGetOperand(v, 1), names, depth + 1, false)
            ),
            LLVMSelect => format!(
                "({} ? {} : {})",
                expr(LLVMGetOperand(v, 0), names, depth + 1, true),
                expr(LLVMGetOperand(v, 1), names, depth + 1, true),
                expr(LLVMGetOperand(v, 2), names, depth + 1, true)
            ),
            // rustc's checked arithmetic: `extractvalue (llvm.sadd.with.overflow(a, b)), 0` is
            // `a + b`, and field 1 is its overflow flag.
            LLVMExtractValue if LLVMGetNumIndices(v) == 1 => {
                let agg = LLVMGetOperand(v, 0);
                match overflow_op(agg) {
                    Some(sym) => {
                        let s = format!(
                            "{} {sym} {}",
                            expr(LLVMGetOperand(agg, 0), names, depth + 1, true),
                            expr(LLVMGetOperand(agg, 1), names, depth + 1, true)
                        );
                        if *LLVMGetIndices(v) == 1 {
                            format!("overflow({s})")
                        } else if nested {
                            format!("({s})")
                        } else {
                            s
                        }
                    }
                    None => "?".into(),
                }
            }
            LLVMCall | LLVMInvoke => {
                let n = LLVMGetNumArgOperands(v);
                let callee = LLVMGetCalledValue(v);
                let name = value_name(callee);
                let name = if name.is_empty() {
                    "(*fp)".to_string()
                } else if let Some(d) = rust_legacy_demangle(&name) {
                    d
                } else if let Some(d) = rust_v0_source_name(callee, &name) {
                    d
                } else if let Some(d) = cxx_source_name(callee, &name) {
                    d
                } else {
                    intrinsic_name(&name)
                };
                // clang contracts `a * b + c` into llvm.fmuladd (and C's fma() is llvm.fma): the
                // source's arithmetic reads better than the intrinsic
                if name == "fmuladd" && n == 3 {
                    let s = format!(
                        "{} * {} + {}",
                        expr(LLVMGetOperand(v, 0), names, depth + 1, true),
                        expr(LLVMGetOperand(v, 1), names, depth + 1, true),
                        expr(LLVMGetOperand(v, 2), names, depth + 1, true)
                    );
                    return if nested { format!("({s})") } else { s };
                }
                let args: Vec<String> = (0..n)
                    .map(|i| {
                        let a = LLVMGetOperand(v, i);
                        // the character `strchr`, `strrchr` and `memchr` look for
                        match (i, name.as_str(), char_literal(a)) {
                            (1, "strchr" | "strrchr" | "memchr", Some(c)) => c,
                            _ => expr(a, names, depth + 1, false),
                        }
                    })
                    .collect();
                format!("{name}({})", args.join(", "))
            }
            LLVMPHI => "φ".into(),
            _ => match binop(op) {
                Some(sym) => {
                    let a = LLVMGetOperand(v, 0);
                    let b = LLVMGetOperand(v, 1);
                    // `x ^ true` is a logical not
                    if op == LLVMXor && constant(b).as_deref() == Some("true") {
                        return format!("!{}", expr(a, names, depth + 1, true));
                    }
                    // `0 - x` is how clang negates an integer
                    if op == LLVMSub && constant(a).as_deref() == Some("0") {
                        return format!("-{}", expr(b, names, depth + 1, true));
                    }
                    let s = format!(
                        "{} {sym} {}",
                        expr(a, names, depth + 1, true),
                        expr(b, names, depth + 1, true)
                    );
                    if nested {
                        format!("({s})")
                    } else {
                        s
                    }
                }
                None => "?".into(),
            },
        }
    }
}

/// Text of the place a pointer designates (`x`, `a[i]`, `p->f1`, `*p`).
fn lvalue(ptr: LLVMValueRef, names: &VarNames, depth: u32) -> String {
    let ptr = through_threadlocal(ptr);
    unsafe {
        if let Some(n) = names.by_storage.get(&ptr) {
            return n.clone();
        }
        if !LLVMIsAGlobalVariable(ptr).is_null() {
            let n = value_name(ptr);
            // function-local statics are named `fn.var`
            return n.rsplit('.').next().unwrap_or(&n).to_string();
        }
        if !LLVMIsAAllocaInst(ptr).is_null() {
            return "local".into();
        }
        // a member of a structure (or an element of an array) at a constant offset from a
        // variable, or from what a pointer variable points to: named from the debug type
        // (`r.tl.x`, `r.tags[2]`, `p->y`)
        if is_gep(ptr) {
            if let Some(s) = member_text(ptr, names) {
                return s;
            }
        }
        if !LLVMIsAGetElementPtrInst(ptr).is_null() || !LLVMIsAConstantExpr(ptr).is_null() {
            let n = LLVMGetNumOperands(ptr) as u32;
            if n >= 2 {
                let base = through_threadlocal(LLVMGetOperand(ptr, 0));
                // a GEP of array GEPs: the rows of a matrix (`c[k][1][2]` is three)
                let base_text = if !LLVMIsAAllocaInst(base).is_null()
                    || !LLVMIsAGlobalVariable(base).is_null()
                    || (is_gep(base) && array_geps(ptr))
                {
                    lvalue(base, names, depth + 1)
                } else {
                    expr(base, names, depth + 1, true)
                };
                let mut s = base_text;
                // skip the leading zero index into an array object
                let first = 1;
                for i in first..n {
                    let idx = LLVMGetOperand(ptr, i);
                    if i == 1 && n > 2 && constant(idx).as_deref() == Some("0") {
                        continue;
                    }
                    s = format!("{s}[{}]", expr(idx, names, depth + 1, false));
                }
                return s;
            }
        }
        format!("*{}", expr(ptr, names, depth + 1, true))
    }
}

/// Whether `v` is a GEP instruction or a constant GEP expression (`board[1]` of a global).
unsafe fn is_gep(v: LLVMValueRef) -> bool {
    !LLVMIsAGetElementPtrInst(v).is_null()
        || (!LLVMIsAConstantExpr(v).is_null()
            && LLVMGetConstOpcode(v) == LLVMOpcode::LLVMGetElementPtr)
}

/// Whether `v` is a chain of GEPs over arrays and scalars only (no structure's member index,
/// which would print as a subscript), down to a value that is not a GEP.
unsafe fn array_geps(mut v: LLVMValueRef) -> bool {
    while is_gep(v) {
        if LLVMGetTypeKind(LLVMGetGEPSourceElementType(v))
            == inkwell::llvm_sys::LLVMTypeKind::LLVMStructTypeKind
        {
            return false;
        }
        v = LLVMGetOperand(v, 0);
    }
    true
}

/// The text of GEP `ptr` as a member access path from a named variable (see [`lvalue`]).
unsafe fn member_text(ptr: LLVMValueRef, names: &VarNames) -> Option<String> {
    let mut off = 0i64;
    let base = crate::debuginfo::pointer_base(ptr, ptr, &mut off);
    if off < 0 || base == ptr {
        return None;
    }
    let bits = off as u64 * 8;
    if let (Some(n), Some(&ty)) = (names.by_storage.get(&base), names.storage_types.get(&base)) {
        let path = crate::debuginfo::member_path(ty, bits)?;
        return (!path.is_empty()).then(|| format!("{n}{path}"));
    }
    // a member of a global variable, from its debug type (`g_lim.hi`, not `g_lim[1]`)
    if !LLVMIsAGlobalVariable(base).is_null() && names.by_storage.get(&base).is_none() {
        let ty = crate::debuginfo::global_type(base);
        if !ty.is_null() {
            let n = value_name(base);
            // function-local statics are named `fn.var`
            let n = n.rsplit('.').next().unwrap_or(&n).to_string();
            let path = crate::debuginfo::member_path(ty, bits)?;
            return (!path.is_empty()).then(|| format!("{n}{path}"));
        }
    }
    // through a pointer variable: `load ptr, ptr %p.addr`
    if !LLVMIsALoadInst(base).is_null() {
        let slot = LLVMGetOperand(base, 0);
        if let (Some(n), Some(&ty)) = (names.by_storage.get(&slot), names.storage_types.get(&slot))
        {
            let pointee = crate::debuginfo::pointee_type(ty);
            // past the first object pointed to (`p[2].y`), or a pointer to rows (`int (*m)[4]`,
            // a matrix parameter, always indexed: `m[0][0]`): the index of the object first
            let size = crate::debuginfo::type_bits(pointee);
            // a GEP that selects a whole row (`gep [3 x i32], ptr %m, i64 0`: `m[0]`, which a
            // later GEP indexes) names the row, not its first element
            let row = LLVMGetNumOperands(ptr) == 2
                && LLVMGetTypeKind(LLVMGetGEPSourceElementType(ptr))
                    == inkwell::llvm_sys::LLVMTypeKind::LLVMArrayTypeKind;
            if row && size > 0 && bits % size == 0 && crate::debuginfo::is_array_type(pointee) {
                return Some(format!("{n}[{}]", bits / size));
            }
            if size > 0 && (bits >= size || crate::debuginfo::is_array_type(pointee)) {
                let path = crate::debuginfo::member_path(pointee, bits % size)?;
                return Some(format!("{n}[{}]{path}", bits / size));
            }
            let path = crate::debuginfo::member_path(pointee, bits)?;
            return match path.strip_prefix('.') {
                Some(rest) => Some(format!("{n}->{rest}")),
                None if path.starts_with('[') => Some(format!("{n}{path}")),
                None => None,
            };
        }
    }
    None
}

/// The operator of a call to `llvm.{s,u}{add,sub,mul}.with.overflow.*` (rustc's checked
/// arithmetic at opt-level 0), if `v` is one.
unsafe fn overflow_op(v: LLVMValueRef) -> Option<&'static str> {
    if LLVMIsACallInst(v).is_null() {
        return None;
    }
    let callee = LLVMGetCalledValue(v);
    if callee.is_null() || LLVMIsAFunction(callee).is_null() {
        return None;
    }
    let name = value_name(callee);
    let rest = name.strip_prefix("llvm.")?;
    let op = rest.split('.').next()?;
    if !rest.contains(".with.overflow.") {
        return None;
    }
    match op {
        "sadd" | "uadd" => Some("+"),
        "ssub" | "usub" => Some("-"),
        "smul" | "umul" => Some("*"),
        _ => None,
    }
}

/// A Rust symbol in the v0 mangling (`_RNvXsP_NtNtCs…_4core3cmp5implsfNtB7_10PartialOrd2lt`, used
/// by the standard library) named by the `DISubprogram` of the function it calls, when that function
/// is defined in the module with debug info (`core::cmp::impls::{impl#80}::lt`). v0 symbols are not
/// demangled here; declarations without debug info keep their symbol.
fn rust_v0_source_name(callee: LLVMValueRef, name: &str) -> Option<String> {
    if !name.starts_with("_R") || unsafe { LLVMIsAFunction(callee) }.is_null() {
        return None;
    }
    crate::debuginfo::source_name(callee)
        .map(|(n, _)| n)
        .filter(|n| !n.is_empty())
}

/// A C++ function's qualified name (`std::isnan`, `shapes::detail::sq`, not `_ZSt5isnand`) from
/// the `DISubprogram` of the function it calls, when that function is defined in the module with
/// debug info; declarations keep their symbol.
fn cxx_source_name(callee: LLVMValueRef, name: &str) -> Option<String> {
    if !name.starts_with("_Z") || unsafe { LLVMIsAFunction(callee) }.is_null() {
        return None;
    }
    crate::debuginfo::source_name(callee)
        .filter(|(_, lang)| *lang == "c++")
        .map(|(n, _)| n)
        .filter(|n| !n.is_empty())
}

/// A Rust symbol in the legacy mangling (`_ZN4core3f3221_$LT$impl$u20$f32$GT$3abs17h…E`, the
/// default of stable rustc for user crates) without its hash: `core::f32::<impl f32>::abs`.
/// `None` for anything else (C names, C++ names, Rust v0 `_R…` names).
pub fn rust_legacy_demangle(name: &str) -> Option<String> {
    let mut rest = name.strip_prefix("_ZN")?.strip_suffix('E')?;
    let mut parts: Vec<String> = Vec::new();
    while !rest.is_empty() {
        let digits = rest.bytes().take_while(|b| b.is_ascii_digit()).count();
        if digits == 0 {
            return None;
        }
        let len: usize = rest[..digits].parse().ok()?;
        let ident = rest.get(digits..digits + len)?;
        rest = &rest[digits + len..];
        parts.push(ident.to_string());
    }
    // The last segment of a Rust legacy symbol is `h` and 16 hex digits.
    let hash = parts.pop()?;
    if hash.len() != 17
        || !hash.starts_with('h')
        || !hash[1..].bytes().all(|b| b.is_ascii_hexdigit())
    {
        return None;
    }
    Some(
        parts
            .iter()
            .map(|p| evotest_abi::rust_names::unescape_legacy(p))
            .collect::<Vec<_>>()
            .join("::"),
    )
}

/// `llvm.fabs.f64` → `fabs`; other names unchanged.
fn intrinsic_name(name: &str) -> String {
    match name.strip_prefix("llvm.") {
        Some(rest) => rest.split('.').next().unwrap_or(rest).to_string(),
        None => name.to_string(),
    }
}

/// Shortest readable form: `1.0`, `0.25`, `1e-7`, `1e30`.
/// The text of a wide float constant beyond a double's range, from its text as LLVM prints it: `0xK` and 20 hex digits (x87's 80-bit
/// format: sign, 15-bit exponent, 64-bit significand with its integer bit) or `0xL` and 32
/// (IEEE binary128: the low 64 bits first, then sign, 15-bit exponent, the significand's top 48
/// bits), as a decimal of 17 significant digits with the suffix `L`; `None` for other text.
fn wide_float_text(t: &str) -> Option<String> {
    let (neg, exp, frac) = if let Some(h) = t.strip_prefix("0xK").filter(|h| h.len() == 20) {
        let se = u16::from_str_radix(&h[..4], 16).ok()?;
        let m = u64::from_str_radix(&h[4..], 16).ok()?;
        // m / 2^63, with the integer bit explicit
        (
            se >> 15 == 1,
            i32::from(se & 0x7fff),
            m as f64 / 2f64.powi(63),
        )
    } else if let Some(h) = t.strip_prefix("0xL").filter(|h| h.len() == 32) {
        let lo = u64::from_str_radix(&h[..16], 16).ok()?;
        let hi = u64::from_str_radix(&h[16..], 16).ok()?;
        let e = ((hi >> 48) & 0x7fff) as i32;
        let top = (hi & 0xffff_ffff_ffff) as f64 / 2f64.powi(48) + lo as f64 / 2f64.powi(112);
        (hi >> 63 == 1, e, if e == 0 { top } else { 1.0 + top })
    } else {
        return None;
    };
    if exp == 0x7fff || frac == 0.0 {
        return None; // infinities, NaNs and zeros narrow exactly
    }
    let e = if exp == 0 { 1 - 16383 } else { exp - 16383 };
    // frac * 2^e = 10^l
    let l = frac.log10() + f64::from(e) * std::f64::consts::LOG10_2;
    let mut k = l.floor();
    let mut digits = format!("{:.14}", 10f64.powf(l - k));
    if digits.starts_with("10") {
        // 9.99… rounded up
        k += 1.0;
        digits = format!("{:.14}", 1.0);
    }
    let digits = digits.trim_end_matches('0').trim_end_matches('.');
    Some(format!("{}{digits}e{k}L", if neg { "-" } else { "" }))
}

fn float_text(d: f64) -> String {
    if d == 0.0 || (d.abs() >= 1e-4 && d.abs() < 1e15) {
        if d.fract() == 0.0 {
            format!("{d:.1}")
        } else {
            format!("{d}")
        }
    } else {
        format!("{d:e}")
    }
}

/// A constant global holding a C string (a string literal), printed as a C literal.
/// The bytes (without the final NUL) of a constant global C string that `v` points to, if it is
/// one (`v` may be the global or a GEP of it at offset 0).
pub fn string_bytes(v: LLVMValueRef) -> Option<Vec<u8>> {
    unsafe {
        let mut g = v;
        if LLVMIsAGlobalVariable(g).is_null()
            && !LLVMIsAConstantExpr(g).is_null()
            && LLVMGetNumOperands(g) > 0
        {
            g = LLVMGetOperand(g, 0);
        }
        if LLVMIsAGlobalVariable(g).is_null() || LLVMIsGlobalConstant(g) == 0 {
            return None;
        }
        let init = LLVMGetInitializer(g);
        if !init.is_null() && !LLVMIsAConstantAggregateZero(init).is_null() {
            return Some(vec![]); // `""` is a zeroinitializer
        }
        if init.is_null()
            || LLVMIsAConstantDataSequential(init).is_null()
            || LLVMIsConstantString(init) == 0
        {
            return None;
        }
        let mut len = 0;
        let p = LLVMGetAsString(init, &mut len);
        let bytes = std::slice::from_raw_parts(p as *const u8, len);
        let bytes = bytes.strip_suffix(&[0]).unwrap_or(bytes);
        (!bytes.contains(&0)).then(|| bytes.to_vec())
    }
}

unsafe fn string_literal(g: LLVMValueRef) -> Option<String> {
    if LLVMIsGlobalConstant(g) == 0 {
        return None;
    }
    let init = LLVMGetInitializer(g);
    if !init.is_null() && !LLVMIsAConstantAggregateZero(init).is_null() {
        // `""` is a zeroinitializer, not a ConstantDataSequential (LLVMIsConstantString on it
        // crashed clang)
        return Some("\"\"".into());
    }
    // LLVMIsConstantString casts without checking: a zeroinitializer or an aggregate would be
    // read as garbage (a crash of clang on libxml2's encoding.c)
    if init.is_null()
        || LLVMIsAConstantDataSequential(init).is_null()
        || LLVMIsConstantString(init) == 0
    {
        return None;
    }
    let mut len = 0;
    let p = LLVMGetAsString(init, &mut len);
    if p.is_null() {
        return None;
    }
    let bytes = std::slice::from_raw_parts(p as *const u8, len);
    let bytes = bytes.strip_suffix(&[0]).unwrap_or(bytes);
    if bytes.contains(&0) || bytes.len() > 40 {
        return None;
    }
    let mut out = String::from("\"");
    for &b in bytes {
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            0x20..=0x7e => out.push(b as char),
            b'\n' => out.push_str("\\n"),
            _ => out.push_str(&format!("\\x{b:02x}")),
        }
    }
    out.push('"');
    Some(out)
}

#[cfg(test)]
mod tests {
    #[test]
    fn bit_patterns_of_wide_negative_constants() {
        use super::bit_pattern;
        assert_eq!(
            bit_pattern("-559038737", 32, false).as_deref(),
            Some("0xdeadbeef")
        );
        assert_eq!(bit_pattern("-1", 32, false), None);
        assert_eq!(bit_pattern("-100000", 32, false), None);
        assert_eq!(bit_pattern("7", 32, false), None);
        assert_eq!(bit_pattern("-5", 8, false), None);
        // u128 0xdead_beef_0000_0000_0000_0000_cafe_babe, as LLVM holds it
        assert_eq!(
            bit_pattern("-44291611906805079772436429346422474050", 128, false).as_deref(),
            Some("0xdeadbeef0000000000000000cafebabe")
        );
        assert_eq!(
            bit_pattern("-1", 128, true).as_deref(),
            Some(&u128::MAX.to_string()[..])
        );
    }

    use super::{constant, rust_legacy_demangle};
    use inkwell::llvm_sys::core::*;

    #[test]
    fn integer_constants_wider_than_64_bits_print_in_full() {
        unsafe {
            let ctx = LLVMContextCreate();
            let i128t = LLVMIntTypeInContext(ctx, 128);
            let big = LLVMConstIntOfString(i128t, c"12345678901234567890123456789".as_ptr(), 10);
            assert_eq!(
                constant(big).as_deref(),
                Some("12345678901234567890123456789")
            );
            let neg = LLVMConstIntOfString(i128t, c"-1180591620717411303424".as_ptr(), 10);
            assert_eq!(constant(neg).as_deref(), Some("-1180591620717411303424"));
            let small = LLVMConstInt(LLVMInt32TypeInContext(ctx), (-5i64) as u64, 1);
            assert_eq!(constant(small).as_deref(), Some("-5"));
            LLVMContextDispose(ctx);
        }
    }

    #[test]
    fn wide_float_constants_print_beyond_a_double_s_range() {
        unsafe {
            let ctx = LLVMContextCreate();
            for t in [LLVMX86FP80TypeInContext(ctx), LLVMFP128TypeInContext(ctx)] {
                let c = |s: &std::ffi::CStr| constant(LLVMConstRealOfString(t, s.as_ptr()));
                assert_eq!(c(c"1e400").as_deref(), Some("1e400L"));
                assert_eq!(c(c"-2.5e-400").as_deref(), Some("-2.5e-400L"));
                assert_eq!(c(c"0.1").as_deref(), Some("0.1L"));
                assert_eq!(c(c"2.5").as_deref(), Some("2.5"));
            }
            LLVMContextDispose(ctx);
        }
    }

    #[test]
    fn legacy_rust_symbols_demangle_without_their_hash() {
        assert_eq!(
            rust_legacy_demangle("_ZN4core3f3221_$LT$impl$u20$f32$GT$3abs17h5330d6936824c6b3E")
                .as_deref(),
            Some("core::f32::<impl f32>::abs")
        );
        assert_eq!(
            rust_legacy_demangle("_ZN8triangle8triangle17hac22a56410bfae1fE").as_deref(),
            Some("triangle::triangle")
        );
        assert_eq!(
            rust_legacy_demangle(
                "_ZN4core3cmp5impls69_$LT$impl$u20$core..cmp..PartialEq$LT$$RF$B$GT$$u20$for$u20$$RF$A$GT$2eq17hefe3de272cebefecE"
            )
            .as_deref(),
            Some("core::cmp::impls::<impl core::cmp::PartialEq<&B> for &A>::eq")
        );
        // C, C++ and Rust v0 names are left alone.
        assert_eq!(rust_legacy_demangle("strcmp"), None);
        assert_eq!(rust_legacy_demangle("_ZN3foo3barEv"), None);
        assert_eq!(
            rust_legacy_demangle("_RNvNtCsgEmfK2I1SDS_4core9panicking18panic_bounds_check"),
            None
        );
    }
}

/// Whether `t` is a floating-point type (`half` to `fp128`, x87's and PowerPC's included).
fn is_float_type(t: LLVMTypeRef) -> bool {
    use inkwell::llvm_sys::LLVMTypeKind::*;
    matches!(
        unsafe { LLVMGetTypeKind(t) },
        LLVMHalfTypeKind
            | LLVMBFloatTypeKind
            | LLVMFloatTypeKind
            | LLVMDoubleTypeKind
            | LLVMX86_FP80TypeKind
            | LLVMFP128TypeKind
            | LLVMPPC_FP128TypeKind
    )
}
