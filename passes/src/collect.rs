//! Phase 1 of the pass: walk a function and describe its CFG and branch sites without changing
//! anything (SanitizerCoverage's collect-then-inject order).

use crate::condtext;
use crate::dataflow;
use crate::debuginfo::{self, inst_loc, type_string, value_name, Loc, VarNames};
use evotest_abi::meta::{BlockMeta, ConstantMeta, FunctionMeta, ParamMeta, SiteKind};
use evotest_abi::pred::Pred;
use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::{LLVMOpcode, LLVMTypeKind};
use std::collections::HashMap;

/// How a site's condition will be probed.
pub enum Cond {
    /// `icmp pred a, b` on integers of at most 64 bits.
    Int {
        pred: Pred,
        a: LLVMValueRef,
        b: LLVMValueRef,
    },
    /// `icmp pred a, b` on pointers (`c` is the compare): probed by its outcome only, as a
    /// [`Cond::Bool`]. Its operands are addresses, which move with address randomisation, so a
    /// distance or an operand log computed from them would make two runs of the same input
    /// differ (and says nothing about what an input holds).
    Ptr { pred: Pred, c: LLVMValueRef },
    /// `fcmp pred a, b`.
    Float {
        pred: Pred,
        a: LLVMValueRef,
        b: LLVMValueRef,
    },
    /// Any other `i1` condition.
    Bool(LLVMValueRef),
    /// A `switch` on an integer of at most 64 bits; case values sign-extended.
    Switch {
        value: LLVMValueRef,
        cases: Vec<i64>,
    },
    /// `icmp eq/ne (call strcmp|strncmp|memcmp|bcmp(a, b[, n])), 0`: compared as strings or
    /// bytes, with a distance over their contents (Bueno & Jino 2002, §6.3).
    Str {
        pred: Pred,
        func: u32,
        a: LLVMValueRef,
        b: LLVMValueRef,
        n: Option<LLVMValueRef>,
    },
    /// A branch on a call of Rust std's `==`/`!=`, `starts_with` or `ends_with` of two byte
    /// strings ([`rust_bytes_compare`]): `func` is [`evotest_abi::distance::bytes_func`] (the
    /// operation and each operand's form), `a`/`b` the operands' pointers and `la`/`lb` their
    /// lengths (a slice's length argument, an array's constant size, else the constant 0).
    Bytes {
        pred: Pred,
        func: u32,
        a: LLVMValueRef,
        la: LLVMValueRef,
        b: LLVMValueRef,
        lb: LLVMValueRef,
    },
}

/// The last path segment of a Rust function's qualified name, without generic arguments:
/// `eq` for `core::cmp::impls::{impl#9}::eq<alloc::string::String, &str>`.
fn last_segment(q: &str) -> &str {
    let mut depth = 0i32;
    let mut start = 0;
    let b = q.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'<' => depth += 1,
            b'>' => depth -= 1,
            b':' if depth == 0 && b.get(i + 1) == Some(&b':') => {
                start = i + 2;
                i += 1;
            }
            _ => {}
        }
        i += 1;
    }
    let seg = &q[start.min(q.len())..];
    seg.split('<').next().unwrap_or(seg)
}

/// How a parameter of Rust debug type `name` (`&str`, `&&[u8]`, `&[u8; 4]`,
/// `&alloc::string::String`) holds a byte string: `(base, indirections, array length)` as
/// [`evotest_abi::distance::bytes_func`] takes them, or `None` for any other type.
fn byte_string_form(name: &str) -> Option<(u32, u32, u64)> {
    use evotest_abi::distance::{BYTES_ARRAY, BYTES_SLICE, BYTES_STRING, BYTES_VEC};
    let mut t = name.trim();
    let mut refs = 0u32;
    loop {
        if let Some(r) = t.strip_prefix("&mut ") {
            t = r;
        } else if let Some(r) = t.strip_prefix('&') {
            t = r;
        } else {
            break;
        }
        refs += 1;
    }
    if refs == 0 || refs > 7 {
        return None;
    }
    let ind = refs - 1;
    match t {
        "str" | "[u8]" => Some((BYTES_SLICE, ind, 0)),
        "alloc::string::String" => Some((BYTES_STRING, ind, 0)),
        "alloc::vec::Vec<u8, alloc::alloc::Global>" => Some((BYTES_VEC, ind, 0)),
        _ => {
            let n = t
                .strip_prefix("[u8; ")?
                .strip_suffix(']')?
                .trim()
                .parse::<u64>()
                .ok()?;
            Some((BYTES_ARRAY, ind, n))
        }
    }
}

/// The name of a debug type (`&&str`), empty when it has none.
unsafe fn di_type_name(ty: LLVMMetadataRef) -> String {
    if ty.is_null() {
        return String::new();
    }
    let mut len = 0usize;
    let p = inkwell::llvm_sys::debuginfo::LLVMDITypeGetName(ty, &mut len);
    if p.is_null() {
        return String::new();
    }
    String::from_utf8_lossy(std::slice::from_raw_parts(p as *const u8, len)).into_owned()
}

/// If `call` calls Rust std's equality (`PartialEq::eq`/`ne`), `starts_with` or `ends_with` on two
/// byte strings (`str`, `[u8]`, `[u8; N]`, `String`, `Vec<u8>`, behind any number of
/// references), returns `(pred, func, a, la, b, lb)` for [`Cond::Bytes`]: `pred` is `ne` for
/// `ne`, else `eq`.
///
/// At -O0 (the bitcode route), `s == "GET"` is a call of `<&str as PartialEq<&str>>::eq`, a
/// `match` arm on a string a call of `<str as PartialEq>::eq`, `s.starts_with("ab")` one of
/// `str::starts_with::<&str>`: std instances defined in the crate, with debug info, whose
/// bodies compare lengths and then `memcmp` the bytes. The branch in the user's function sees
/// only the call's `bool`, so the probe takes the call's arguments instead. A callee is
/// recognised by its debug info: a function of `core`, `alloc` or `std` named `eq`, `ne`,
/// `starts_with` or `ends_with` that returns `bool` and has two parameters whose debug types
/// are byte strings. `<[u8]>::starts_with`/`ends_with`, which rustc may call as an instance
/// shared from another crate (a declaration without debug info), are recognised by their v0
/// symbol names (`…5sliceSh11starts_with…`).
unsafe fn rust_bytes_compare(
    call: LLVMValueRef,
    names: &debuginfo::VarNames,
) -> Option<(
    Pred,
    u32,
    LLVMValueRef,
    LLVMValueRef,
    LLVMValueRef,
    LLVMValueRef,
)> {
    use evotest_abi::distance::{
        bytes_func, BYTES_SLICE, STR_BYTES_EQ, STR_BYTES_PREFIX, STR_BYTES_SUFFIX,
    };
    if (LLVMIsACallInst(call).is_null() && LLVMIsAInvokeInst(call).is_null())
        || int_width(call) != Some(1)
    {
        return None;
    }
    let callee = LLVMGetCalledValue(call);
    if callee.is_null() || LLVMIsAFunction(callee).is_null() {
        return None;
    }
    let op_of = |seg: &str| match seg {
        "eq" => Some((STR_BYTES_EQ, Pred::Eq)),
        "ne" => Some((STR_BYTES_EQ, Pred::Ne)),
        "starts_with" => Some((STR_BYTES_PREFIX, Pred::Eq)),
        "ends_with" => Some((STR_BYTES_SUFFIX, Pred::Eq)),
        _ => None,
    };
    let (op, pred, forms) = match debuginfo::source_name(callee) {
        Some((q, "rust")) => {
            if !(q.starts_with("core::") || q.starts_with("alloc::") || q.starts_with("std::")) {
                return None;
            }
            let (op, pred) = op_of(last_segment(&q))?;
            let tys = debuginfo::subprogram_types(callee)?;
            if tys.len() != 3 || di_type_name(tys[0]) != "bool" {
                return None;
            }
            (
                op,
                pred,
                [
                    byte_string_form(&di_type_name(tys[1]))?,
                    byte_string_form(&di_type_name(tys[2]))?,
                ],
            )
        }
        Some(_) => return None,
        None => {
            let mut len = 0;
            let name = LLVMGetValueName2(callee, &mut len);
            let name =
                std::str::from_utf8(std::slice::from_raw_parts(name as *const u8, len)).ok()?;
            if let Some(found) = shared_reference_eq(call, name, names) {
                found
            } else {
                if !name.starts_with("_R") {
                    return None;
                }
                let op = if name.contains("5sliceSh11starts_with") {
                    STR_BYTES_PREFIX
                } else if name.contains("5sliceSh9ends_with") {
                    STR_BYTES_SUFFIX
                } else {
                    return None;
                };
                (op, Pred::Eq, [(BYTES_SLICE, 0, 0), (BYTES_SLICE, 0, 0)])
            }
        }
    };
    // the IR arguments: a slice passed by value is (ptr, len); any other form one pointer
    let i64t = LLVMInt64TypeInContext(LLVMGetTypeContext(LLVMTypeOf(call)));
    let nargs = LLVMGetNumArgOperands(call);
    let mut k = 0;
    let mut ops = vec![];
    for &(base, ind, n) in &forms {
        let p = (k < nargs).then(|| LLVMGetOperand(call, k))?;
        if LLVMGetTypeKind(LLVMTypeOf(p)) != LLVMTypeKind::LLVMPointerTypeKind {
            return None;
        }
        k += 1;
        let l = if base == BYTES_SLICE && ind == 0 {
            let l = (k < nargs).then(|| LLVMGetOperand(call, k))?;
            int_width(l).filter(|w| *w == 64)?;
            k += 1;
            l
        } else {
            LLVMConstInt(i64t, n, 0)
        };
        ops.push((p, l));
    }
    if k != nargs {
        return None;
    }
    let func = bytes_func(op, (forms[0].0, forms[0].1), (forms[1].0, forms[1].1));
    Some((pred, func, ops[0].0, ops[0].1, ops[1].0, ops[1].1))
}

/// `<&A as PartialEq<&B>>::eq`/`ne` (and its `&mut` forms) called as the instance another crate
/// of the build already has (rustc shares generic instances at -O0): a declaration whose legacy
/// symbol names the impl with its generic parameters only, so the operands' types come from the
/// call's arguments, each either storage whose `#dbg_declare` gives its type (`t: &str`, the
/// argument `&t` an `&&str`) or a constant `&"literal"` global. `None` unless both are byte
/// strings ([`byte_string_form`]); the forms (pred, [form of a, form of b]) otherwise.
unsafe fn shared_reference_eq(
    call: LLVMValueRef,
    symbol: &str,
    names: &debuginfo::VarNames,
) -> Option<(u32, Pred, [(u32, u32, u64); 2])> {
    use evotest_abi::distance::{BYTES_SLICE, STR_BYTES_EQ};
    let d = condtext::rust_legacy_demangle(symbol)?;
    let rest = d.strip_prefix("core::cmp::impls::<impl core::cmp::PartialEq<&")?;
    let pred = match rest.rsplit("::").next()? {
        "eq" => Pred::Eq,
        "ne" => Pred::Ne,
        _ => return None,
    };
    if LLVMGetNumArgOperands(call) != 2 {
        return None;
    }
    // a constant `&"literal"`: <{ ptr @bytes, [8 x i8] <len> }>, @bytes an array of bytes
    let literal = |p: LLVMValueRef| -> bool {
        if LLVMIsAGlobalVariable(p).is_null()
            || rust_literal_bytes(p, p, (BYTES_SLICE, 1)).is_none()
        {
            return false;
        }
        let bytes = LLVMGetOperand(LLVMGetInitializer(p), 0);
        let init = if LLVMIsAGlobalVariable(bytes).is_null() {
            std::ptr::null_mut()
        } else {
            LLVMGetInitializer(bytes)
        };
        !init.is_null()
            && LLVMGetTypeKind(LLVMTypeOf(init)) == LLVMTypeKind::LLVMArrayTypeKind
            && int_width_of_type(LLVMGetElementType(LLVMTypeOf(init))) == Some(8)
    };
    let (a, b) = (LLVMGetOperand(call, 0), LLVMGetOperand(call, 1));
    let form = |p: LLVMValueRef, other: LLVMValueRef| -> Option<(u32, u32, u64)> {
        if let Some(&ty) = names.storage_types.get(&p) {
            return byte_string_form(&format!("&{}", di_type_name(ty)));
        }
        if literal(p) {
            return Some((BYTES_SLICE, 1, 0));
        }
        // a temporary of 16 bytes compared with a byte-string literal: `&A` with A: PartialEq<str>
        // and a fat pointer, so `&str` (or `&OsStr`), as for `u.scheme() == "https"`
        if !LLVMIsAAllocaInst(p).is_null() && literal(other) && alloc_size(p) == Some(16) {
            return Some((BYTES_SLICE, 1, 0));
        }
        None
    };
    Some((STR_BYTES_EQ, pred, [form(a, b)?, form(b, a)?]))
}

/// The width of integer type `t`, if it is one.
unsafe fn int_width_of_type(t: LLVMTypeRef) -> Option<u32> {
    (LLVMGetTypeKind(t) == LLVMTypeKind::LLVMIntegerTypeKind).then(|| LLVMGetIntTypeWidth(t))
}

/// The size in bytes of what `alloca` allocates, for the byte arrays and `{ ptr, i64 }` pairs
/// rustc allocates at -O0.
unsafe fn alloc_size(alloca: LLVMValueRef) -> Option<u64> {
    let t = LLVMGetAllocatedType(alloca);
    match LLVMGetTypeKind(t) {
        LLVMTypeKind::LLVMArrayTypeKind if int_width_of_type(LLVMGetElementType(t)) == Some(8) => {
            Some(LLVMGetArrayLength2(t))
        }
        LLVMTypeKind::LLVMStructTypeKind if LLVMCountStructElementTypes(t) == 2 => {
            let mut el = [std::ptr::null_mut(); 2];
            LLVMGetStructElementTypes(t, el.as_mut_ptr());
            (LLVMGetTypeKind(el[0]) == LLVMTypeKind::LLVMPointerTypeKind
                && int_width_of_type(el[1]) == Some(64))
            .then_some(16)
        }
        _ => None,
    }
}

/// The bytes of a constant Rust byte-string operand: a slice literal (pointer to constant bytes,
/// constant length) or a reference to one (a constant global holding the pointer and the
/// length, as rustc emits `&"GET"`).
unsafe fn rust_literal_bytes(
    p: LLVMValueRef,
    l: LLVMValueRef,
    func_form: (u32, u32),
) -> Option<Vec<u8>> {
    use evotest_abi::distance::{BYTES_ARRAY, BYTES_SLICE};
    let bytes_of = |g: LLVMValueRef, n: u64| -> Option<Vec<u8>> {
        if LLVMIsAGlobalVariable(g).is_null() || LLVMIsGlobalConstant(g) == 0 {
            return None;
        }
        let init = LLVMGetInitializer(g);
        if init.is_null() || LLVMIsAConstantDataSequential(init).is_null() {
            return None;
        }
        let mut len = 0;
        let s = LLVMGetAsString(init, &mut len);
        let b = std::slice::from_raw_parts(s as *const u8, len);
        (n as usize <= b.len()).then(|| b[..n as usize].to_vec())
    };
    match func_form {
        (BYTES_SLICE | BYTES_ARRAY, 0) => {
            if LLVMIsAConstantInt(l).is_null() {
                return None;
            }
            bytes_of(p, LLVMConstIntGetZExtValue(l))
        }
        (BYTES_SLICE, 1) => {
            // <{ ptr @bytes, [8 x i8] c"<len, little-endian>" }>
            if LLVMIsAGlobalVariable(p).is_null() || LLVMIsGlobalConstant(p) == 0 {
                return None;
            }
            let init = LLVMGetInitializer(p);
            if init.is_null()
                || LLVMIsAConstantStruct(init).is_null()
                || LLVMGetNumOperands(init) != 2
            {
                return None;
            }
            let (ptr, len) = (LLVMGetOperand(init, 0), LLVMGetOperand(init, 1));
            if LLVMIsAConstantDataSequential(len).is_null() {
                return None;
            }
            let mut n = 0;
            let s = LLVMGetAsString(len, &mut n);
            let lb: [u8; 8] = std::slice::from_raw_parts(s as *const u8, n)
                .try_into()
                .ok()?;
            bytes_of(ptr, u64::from_le_bytes(lb))
        }
        (BYTES_ARRAY, 1) => {
            // a constant global holding the pointer to the bytes
            if LLVMIsAGlobalVariable(p).is_null()
                || LLVMIsGlobalConstant(p) == 0
                || LLVMGetInitializer(p).is_null()
            {
                return None;
            }
            if LLVMIsAConstantInt(l).is_null() {
                return None;
            }
            bytes_of(LLVMGetInitializer(p), LLVMConstIntGetZExtValue(l))
        }
        _ => None,
    }
}

/// The call whose result `v` is: `v` itself, or, when `v` loads a local that the same block set
/// to a call's result just before (`p = strstr(h, n); if (p == NULL)` and `int r = strcmp(a, b);
/// if (r == 0)` before optimisation: a store to an `alloca` and a load of it), that call. Only
/// instructions that write no memory may lie between the store and the load, so the local and
/// the call's arguments' bytes are what they were at the call. Anything else: `v`.
unsafe fn stored_call(v: LLVMValueRef) -> LLVMValueRef {
    if LLVMIsALoadInst(v).is_null() {
        return v;
    }
    let slot = LLVMGetOperand(v, 0);
    if LLVMIsAAllocaInst(slot).is_null() {
        return v;
    }
    let mut i = LLVMGetPreviousInstruction(v);
    while !i.is_null() {
        if !LLVMIsAStoreInst(i).is_null() {
            if LLVMGetOperand(i, 1) != slot {
                return v;
            }
            let value = LLVMGetOperand(i, 0);
            return if LLVMIsACallInst(value).is_null() {
                v
            } else {
                value
            };
        }
        // a debug record is no instruction; anything else that may write memory (a call, an
        // atomic, a memory intrinsic) ends the search
        let writes = !LLVMIsACallInst(i).is_null()
            || !LLVMIsAAtomicRMWInst(i).is_null()
            || !LLVMIsAAtomicCmpXchgInst(i).is_null()
            || !LLVMIsAFenceInst(i).is_null();
        if writes {
            return v;
        }
        i = LLVMGetPreviousInstruction(i);
    }
    v
}

/// If `call` is a call to `strcmp`, `strncmp`, `memcmp`, `bcmp`, `strcasecmp`, `strncasecmp`,
/// `strstr` or `strcasestr`, its function code ([`evotest_abi::distance::STR_STRCMP`] …) and
/// arguments (a, b, n); for the substring searches, n is the call's result (the probe's test of
/// whether the needle was found).
unsafe fn string_compare(
    call: LLVMValueRef,
) -> Option<(u32, LLVMValueRef, LLVMValueRef, Option<LLVMValueRef>)> {
    use evotest_abi::distance::{
        STR_MEMCMP, STR_STRCASECMP, STR_STRCASESTR, STR_STRCMP, STR_STRNCASECMP, STR_STRNCMP,
        STR_STRSTR,
    };
    if LLVMIsACallInst(call).is_null() {
        return None;
    }
    let callee = LLVMGetCalledValue(call);
    if callee.is_null() || LLVMIsAFunction(callee).is_null() {
        return None;
    }
    let mut len = 0;
    let name = LLVMGetValueName2(callee, &mut len);
    let name = std::str::from_utf8(std::slice::from_raw_parts(name as *const u8, len)).ok()?;
    let (code, nargs) = match name {
        "strcmp" => (STR_STRCMP, 2),
        "strncmp" => (STR_STRNCMP, 3),
        "memcmp" | "bcmp" => (STR_MEMCMP, 3),
        "strcasecmp" => (STR_STRCASECMP, 2),
        "strncasecmp" => (STR_STRNCASECMP, 3),
        "strstr" => (STR_STRSTR, 2),
        "strcasestr" => (STR_STRCASESTR, 2),
        _ => return None,
    };
    if LLVMGetNumArgOperands(call) != nargs {
        return None;
    }
    let a = LLVMGetOperand(call, 0);
    let b = LLVMGetOperand(call, 1);
    let ptr = |v: LLVMValueRef| LLVMGetTypeKind(LLVMTypeOf(v)) == LLVMTypeKind::LLVMPointerTypeKind;
    if !ptr(a) || !ptr(b) {
        return None;
    }
    let n = if nargs == 3 {
        let n = LLVMGetOperand(call, 2);
        int_width(n).filter(|w| *w <= 64)?;
        Some(n)
    } else if evotest_abi::distance::str_is_search(code) {
        if !ptr(call) {
            return None;
        }
        Some(call)
    } else {
        None
    };
    Some((code, a, b, n))
}

/// Whether `v` is the integer constant 0.
unsafe fn is_zero(v: LLVMValueRef) -> bool {
    !LLVMIsAConstantInt(v).is_null() && LLVMConstIntGetZExtValue(v) == 0
}

/// A site found in a function, before numbering.
pub struct SiteDraft {
    pub kind: SiteKind,
    /// The `br`, `switch` or `select` instruction; probes go right before it.
    pub inst: LLVMValueRef,
    pub cond: Cond,
    pub block: u32,
    pub loc: Loc,
    pub text: String,
    pub operand_type: String,
    pub labels: Vec<String>,
    /// Variables the condition reads.
    pub uses: Vec<u32>,
    /// Position of `inst` in its block.
    pub index: u32,
    /// A check the compiler (or an assertion) put there: one outcome only leads to a panic or
    /// another call that does not return ([`panic_check`]).
    pub check: Option<Check>,
}

/// A site one of whose outcomes leads straight to a call that does not return (then
/// `unreachable`), or to `unreachable` itself: rustc's overflow, bounds, division and unwrap
/// checks, `assert!`, C's `assert`, and the impossible default of a `match` on an enum.
#[derive(Clone, Debug)]
pub struct Check {
    /// `overflow`, `div_by_zero`, `bounds`, `slice_index`, `str_index`, `unwrap`, `ub_check`,
    /// `pointer_check`, `alloc`, `panic` (explicit `panic!`/`assert!`), `noreturn` (any other
    /// call that does not return, e.g. C's `__assert_fail`), `unreachable` (no call at all).
    pub kind: &'static str,
    /// The outcome that takes the check's failing path.
    pub outcome: u32,
    /// The called function (mangled), empty for `unreachable`.
    pub callee: String,
}

/// Classify a noreturn callee by name. Rust's panic entry points are found by their identifiers,
/// which appear verbatim in both manglings (legacy `_ZN…4core9panicking18panic_bounds_check…`
/// and v0 `_RNv…4core9panicking18panic_bounds_check`).
fn check_kind(callee: &str) -> &'static str {
    let has = |s: &str| callee.contains(s);
    if has("panic_const_div_by_zero") || has("panic_const_rem_by_zero") {
        "div_by_zero"
    } else if has("panic_const_") && has("_overflow") {
        "overflow"
    } else if has("panic_bounds_check") {
        "bounds"
    } else if has("slice_start_index_len_fail")
        || has("slice_end_index_len_fail")
        || has("slice_index_order_fail")
        || has("slice_index_fail")
    {
        "slice_index"
    } else if has("slice_error_fail") {
        "str_index"
    } else if has("unwrap_failed") || has("expect_failed") {
        "unwrap"
    } else if has("panic_nounwind") {
        "ub_check"
    } else if has("panic_misaligned_pointer_dereference") || has("panic_null_pointer_dereference") {
        "pointer_check"
    } else if has("handle_alloc_error")
        || (has("raw_vec") && has("handle_error"))
        || has("capacity_overflow")
    {
        "alloc"
    } else if has("9panicking")
        || has("begin_panic")
        || has("assert_failed")
        || has("unreachable_display")
    {
        "panic"
    } else {
        "noreturn"
    }
}

/// If block `bb` only fails (a call that does not return, then `unreachable`; or `unreachable`
/// alone; or an `invoke` of such a function whose normal destination is `unreachable`), the
/// check kind and callee.
unsafe fn failing_block(bb: LLVMBasicBlockRef) -> Option<(&'static str, String)> {
    let term = LLVMGetBasicBlockTerminator(bb);
    if term.is_null() {
        return None;
    }
    let call = match LLVMGetInstructionOpcode(term) {
        LLVMOpcode::LLVMUnreachable => {
            let prev = LLVMGetPreviousInstruction(term);
            if prev.is_null() {
                return Some(("unreachable", String::new()));
            }
            prev
        }
        LLVMOpcode::LLVMInvoke => {
            let normal = LLVMGetNormalDest(term);
            let t = LLVMGetBasicBlockTerminator(normal);
            if t.is_null()
                || LLVMGetInstructionOpcode(t) != LLVMOpcode::LLVMUnreachable
                || !LLVMGetPreviousInstruction(t).is_null()
            {
                return None;
            }
            term
        }
        _ => return None,
    };
    if !matches!(
        LLVMGetInstructionOpcode(call),
        LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke
    ) {
        return None;
    }
    let callee = LLVMGetCalledValue(call);
    if callee.is_null() || LLVMIsAFunction(callee).is_null() {
        return None;
    }
    let name = value_name(callee);
    if name.starts_with("llvm.") {
        return None; // llvm.trap and friends: not a source-level check
    }
    Some((check_kind(&name), name))
}

/// Whether instruction `inst` carries `!nosanitize` metadata: clang marks so every instruction
/// of the checks a sanitizer inserts during code generation (UBSan's compares, `select`s and
/// branches, and the calls of its handlers).
unsafe fn no_sanitize(inst: LLVMValueRef) -> bool {
    const KIND: &str = "nosanitize";
    let ctx = LLVMGetTypeContext(LLVMTypeOf(inst));
    let kind = LLVMGetMDKindIDInContext(ctx, KIND.as_ptr() as *const _, KIND.len() as u32);
    !LLVMGetMetadata(inst, kind).is_null()
}

/// Whether `call` calls a sanitizer's report routine: UBSan's handlers (`__ubsan_handle_*`,
/// with their `_abort` and `_minimal` variants), ASan's reports (`__asan_report_*`), the trap of
/// `-fsanitize-trap` (`llvm.ubsantrap`), or `llvm.trap` that clang marks as a sanitizer's
/// ([`no_sanitize`]; a `__builtin_trap()` of the program is no check).
unsafe fn sanitizer_call(call: LLVMValueRef) -> bool {
    if LLVMIsACallInst(call).is_null() && LLVMIsAInvokeInst(call).is_null() {
        return false;
    }
    let callee = LLVMGetCalledValue(call);
    if callee.is_null() || LLVMIsAFunction(callee).is_null() {
        return false;
    }
    let name = value_name(callee);
    name.starts_with("__ubsan_handle_")
        || name.starts_with("__asan_report_")
        || name == "llvm.ubsantrap"
        || (name == "llvm.trap" && no_sanitize(call))
}

/// Whether block `bb` is a sanitizer's handler block: it calls a sanitizer's report routine
/// ([`sanitizer_call`]), calls nothing else, and then stops (`unreachable`) or goes on
/// unconditionally (a recoverable UBSan check returns to the code it checked).
unsafe fn sanitizer_handler(bb: LLVMBasicBlockRef) -> bool {
    let term = LLVMGetBasicBlockTerminator(bb);
    if term.is_null() {
        return false;
    }
    match LLVMGetInstructionOpcode(term) {
        LLVMOpcode::LLVMUnreachable => {}
        LLVMOpcode::LLVMBr if LLVMIsConditional(term) == 0 => {}
        _ => return false,
    }
    let mut handler = false;
    let mut i = LLVMGetFirstInstruction(bb);
    while !i.is_null() && i != term {
        if matches!(
            LLVMGetInstructionOpcode(i),
            LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke
        ) {
            if sanitizer_call(i) {
                handler = true;
            } else if LLVMIsAIntrinsicInst(i).is_null() || !no_sanitize(i) {
                return false; // a call of the program's
            }
        }
        i = LLVMGetNextInstruction(i);
    }
    handler
}

/// Whether the conditional `br` `term` is a check a sanitizer inserted (`-fsanitize=undefined`
/// compiles to such branches before the pass runs): one of its successors is a sanitizer's
/// handler block ([`sanitizer_handler`]) and the other is not, or clang marks it as part of a
/// check ([`no_sanitize`]: the short-circuit inside a shift's check, `b <= 31 && (a >> (31 - b))
/// == 0`). It is no decision of the program and gets no site (its outcomes would be goals that
/// only a bug reaches, and 90% of the outcomes of a sanitized build).
unsafe fn sanitizer_check(term: LLVMValueRef) -> bool {
    let (a, b) = (
        sanitizer_handler(LLVMGetSuccessor(term, 0)),
        sanitizer_handler(LLVMGetSuccessor(term, 1)),
    );
    a != b || no_sanitize(term)
}

/// Whether two-way branch `term` is one of the NaN checks clang puts around a complex multiply
/// (`z * w` of `_Complex` operands: when the real part of the product is NaN, and then when its
/// imaginary part is too, the C Annex G library routine `__muldc3` (`__mulsc3`, `__mulxc3`,
/// `__multc3`) computes it again): `fcmp uno x, x` whose true successor calls that routine or is
/// the second such check. No decision of the program: its outcomes need an infinite operand,
/// and the second one's true outcome is infeasible when the first part's NaN implies the
/// other's.
unsafe fn complex_nan_check(term: LLVMValueRef) -> bool {
    unsafe fn self_uno(term: LLVMValueRef) -> bool {
        let c = LLVMGetCondition(term);
        !LLVMIsAFCmpInst(c).is_null()
            && LLVMGetFCmpPredicate(c) == inkwell::llvm_sys::LLVMRealPredicate::LLVMRealUNO
            && LLVMGetOperand(c, 0) == LLVMGetOperand(c, 1)
    }
    unsafe fn calls_complex_mul(bb: LLVMBasicBlockRef) -> bool {
        let mut i = LLVMGetFirstInstruction(bb);
        while !i.is_null() {
            if !LLVMIsACallInst(i).is_null() {
                let callee = LLVMGetCalledValue(i);
                if !callee.is_null() && !LLVMIsAFunction(callee).is_null() {
                    let n = value_name(callee);
                    if matches!(
                        n.as_str(),
                        "__mulsc3" | "__muldc3" | "__mulxc3" | "__multc3"
                    ) {
                        return true;
                    }
                }
            }
            i = LLVMGetNextInstruction(i);
        }
        false
    }
    if !self_uno(term) {
        return false;
    }
    let then = LLVMGetSuccessor(term, 0);
    if calls_complex_mul(then) {
        return true;
    }
    let next = LLVMGetBasicBlockTerminator(then);
    !next.is_null()
        && LLVMGetInstructionOpcode(next) == LLVMOpcode::LLVMBr
        && LLVMIsConditional(next) != 0
        && self_uno(next)
        && calls_complex_mul(LLVMGetSuccessor(next, 0))
}

/// Whether two-way branch `term` is clang's inline expansion of `va_arg` (x86-64: whether the
/// next argument is still in the register save area, `gp_offset <= 40` or `fp_offset <= 160`,
/// a compare of a field loaded from the `va_list`): no decision of the program, and one whose
/// outcomes depend on how many arguments the caller passed in registers, not on their values.
unsafe fn va_arg_check(term: LLVMValueRef) -> bool {
    let c = LLVMGetCondition(term);
    if LLVMIsAICmpInst(c).is_null() {
        return false;
    }
    let load = LLVMGetOperand(c, 0);
    if LLVMIsALoadInst(load).is_null() {
        return false;
    }
    let gep = LLVMGetOperand(load, 0);
    if LLVMIsAGetElementPtrInst(gep).is_null() {
        return false;
    }
    let ty = LLVMGetGEPSourceElementType(gep);
    if LLVMGetTypeKind(ty) != inkwell::llvm_sys::LLVMTypeKind::LLVMStructTypeKind {
        return false;
    }
    let name = LLVMGetStructName(ty);
    !name.is_null()
        && std::ffi::CStr::from_ptr(name)
            .to_bytes()
            .ends_with(b"__va_list_tag")
}

/// Whether two-way branch `term` is a C++ landing pad's dispatch on the type of the exception
/// caught: `icmp eq %selector, llvm.eh.typeid.for(@typeinfo)`, one per `catch` clause, whose
/// other outcome goes on to the next clause or resumes unwinding. No decision of the source
/// (llvm-cov counts none there): the outcome for an exception no clause catches is usually
/// unreachable, and would be a goal set aside as suspected infeasible in every function with a
/// `try`.
unsafe fn catch_dispatch(term: LLVMValueRef) -> bool {
    let c = LLVMGetCondition(term);
    if LLVMIsAICmpInst(c).is_null() {
        return false;
    }
    (0..2).any(|k| {
        let op = LLVMGetOperand(c, k);
        if LLVMIsACallInst(op).is_null() {
            return false;
        }
        let callee = LLVMGetCalledValue(op);
        !callee.is_null()
            && !LLVMIsAFunction(callee).is_null()
            && value_name(callee).starts_with("llvm.eh.typeid.for")
    })
}

/// The check a two-way `br` or a `switch` makes, if exactly one of its outcomes fails.
unsafe fn panic_check(term: LLVMValueRef) -> Option<Check> {
    let n = LLVMGetNumSuccessors(term);
    let mut found = None;
    for i in 0..n {
        if let Some((kind, callee)) = failing_block(LLVMGetSuccessor(term, i)) {
            if found.is_some() {
                return None; // every way out fails: not a check
            }
            found = Some(Check {
                kind,
                outcome: i,
                callee,
            });
        }
    }
    // A switch's failing default is only a check when the cases do not all fail too (above).
    found
}

/// A function's metadata (with `blocks[].site` holding indices into `sites`, to be renumbered
/// module-wide) and its sites.
pub struct FunctionDraft {
    pub meta: FunctionMeta,
    pub sites: Vec<SiteDraft>,
    pub constants: Vec<ConstantMeta>,
    pub defs: Vec<dataflow::DefDraft>,
    /// Decisions of more than one condition ([`crate::decisions`]).
    pub decisions: Vec<crate::decisions::DecisionDraft>,
}

/// Describe `func` (which must have a body), function number `fi` of the module; its locals are
/// added to `vars`.
/// Add to `out` the names of the functions whose address `v` is or holds: a function itself, or
/// one inside a constant (a global variable's initializer, a table of pointers, a constant
/// expression), at most 16 levels deep. Each global's functions are cached in `cache`, keyed by
/// the global (a global reached again while it is being walked, a cycle, gives nothing then).
unsafe fn function_refs(
    v: LLVMValueRef,
    cache: &mut HashMap<usize, Vec<String>>,
    out: &mut Vec<String>,
    depth: u32,
) {
    let add = |n: &String, out: &mut Vec<String>| {
        if !out.contains(n) {
            out.push(n.clone());
        }
    };
    if depth > 16 || v.is_null() {
        return;
    }
    if !LLVMIsAFunction(v).is_null() {
        let n = value_name(v);
        if !n.starts_with("llvm.") && !n.starts_with("__evotest") {
            add(&n, out);
        }
    } else if !LLVMIsAGlobalVariable(v).is_null() {
        let key = v as usize;
        if let Some(c) = cache.get(&key) {
            for n in c {
                add(n, out);
            }
            return;
        }
        cache.insert(key, Vec::new());
        let mut inner = Vec::new();
        function_refs(LLVMGetInitializer(v), cache, &mut inner, depth + 1);
        for n in &inner {
            add(n, out);
        }
        cache.insert(key, inner);
    } else if !LLVMIsAConstantExpr(v).is_null()
        || !LLVMIsAConstantStruct(v).is_null()
        || !LLVMIsAConstantArray(v).is_null()
        || !LLVMIsAConstantVector(v).is_null()
    {
        for i in 0..LLVMGetNumOperands(v).max(0) as u32 {
            function_refs(LLVMGetOperand(v, i), cache, out, depth + 1);
        }
    }
}

/// The functions whose address instruction `inst` uses (see [`FunctionMeta::address_refs`]): in
/// any operand but a call's callee.
unsafe fn address_refs_of(
    inst: LLVMValueRef,
    cache: &mut HashMap<usize, Vec<String>>,
    out: &mut Vec<String>,
) {
    let call = matches!(
        LLVMGetInstructionOpcode(inst),
        LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke | LLVMOpcode::LLVMCallBr
    );
    let n = if call {
        LLVMGetNumArgOperands(inst)
    } else {
        LLVMGetNumOperands(inst).max(0) as u32
    };
    for i in 0..n {
        let op = LLVMGetOperand(inst, i);
        if LLVMIsAConstant(op).is_null() {
            continue;
        }
        function_refs(op, cache, out, 0);
    }
}

/// `cache`: the functions of the module's global variables' initializers ([`function_refs`]),
/// shared by the module's functions.
pub fn function(
    func: LLVMValueRef,
    fi: u32,
    vars: &mut dataflow::VarTable,
    cache: &mut HashMap<usize, Vec<String>>,
) -> FunctionDraft {
    let names = debuginfo::var_names(func);
    vars.add_locals(func, fi, &names);
    let mut defs = Vec::new();
    let name = value_name(func);
    let mut blocks_index: HashMap<LLVMBasicBlockRef, u32> = HashMap::new();
    let mut bbs = Vec::new();
    unsafe {
        let mut bb = LLVMGetFirstBasicBlock(func);
        while !bb.is_null() {
            blocks_index.insert(bb, bbs.len() as u32);
            bbs.push(bb);
            bb = LLVMGetNextBasicBlock(bb);
        }
    }

    let mut blocks = Vec::with_capacity(bbs.len());
    let mut sites = Vec::new();
    let mut constants = Vec::new();
    let mut func_file = String::new();
    let mut calls: Vec<String> = Vec::new();
    let mut address_refs: Vec<String> = Vec::new();
    let mut writes_globals = false;
    let mut reads_globals: Vec<String> = Vec::new();
    for (bi, &bb) in bbs.iter().enumerate() {
        let mut block = BlockMeta {
            succs: vec![],
            site: None,
            selects: vec![],
            line: 0,
            calls: vec![],
        };
        unsafe {
            let mut inst = LLVMGetFirstInstruction(bb);
            let mut index = 0u32;
            while !inst.is_null() {
                if let Some(d) = dataflow::def_of(vars, func, inst, bi as u32, index, &names) {
                    defs.push(d);
                }
                if block.line == 0 {
                    if let Some(l) = inst_loc(inst) {
                        if l.line != 0 {
                            block.line = l.line;
                            if func_file.is_empty() {
                                func_file = l.file.clone();
                            }
                        }
                    }
                }
                address_refs_of(inst, cache, &mut address_refs);
                if let Some(step) = lattice_step(inst) {
                    let c = ConstantMeta::Lattice(step);
                    if !constants.contains(&c) {
                        constants.push(c);
                    }
                }
                match LLVMGetInstructionOpcode(inst) {
                    LLVMOpcode::LLVMStore => {
                        writes_globals |= based_on_global(LLVMGetOperand(inst, 1))
                    }
                    LLVMOpcode::LLVMLoad => {
                        if let Some(g) = global_base(LLVMGetOperand(inst, 0)) {
                            if LLVMIsGlobalConstant(g) == 0 {
                                let n = value_name(g);
                                if !n.is_empty()
                                    && !n.starts_with("__evotest")
                                    && !reads_globals.contains(&n)
                                {
                                    reads_globals.push(n);
                                }
                            }
                        }
                    }
                    LLVMOpcode::LLVMAtomicRMW | LLVMOpcode::LLVMAtomicCmpXchg => {
                        writes_globals |= based_on_global(LLVMGetOperand(inst, 0))
                    }
                    _ => {}
                }
                // `invoke` too: rustc calls through `invoke` whenever the caller has cleanup to
                // run on unwinding (e.g. every `extern "C"` wrapper of a Rust function).
                if matches!(
                    LLVMGetInstructionOpcode(inst),
                    LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke | LLVMOpcode::LLVMCallBr
                ) {
                    let callee = LLVMGetCalledValue(inst);
                    if !LLVMIsAFunction(callee).is_null() {
                        let n = value_name(callee);
                        if !n.starts_with("llvm.") && !n.starts_with("__evotest") {
                            let k = match calls.iter().position(|c| c == &n) {
                                Some(k) => k,
                                None => {
                                    calls.push(n);
                                    calls.len() - 1
                                }
                            } as u32;
                            // one entry per call instruction: a callee called twice from
                            // one block runs twice (chaining's repeated definitions)
                            block.calls.push(k);
                        }
                    }
                }
                if LLVMGetInstructionOpcode(inst) == LLVMOpcode::LLVMSelect && !no_sanitize(inst) {
                    let c = LLVMGetOperand(inst, 0);
                    if LLVMGetTypeKind(LLVMTypeOf(c)) == LLVMTypeKind::LLVMIntegerTypeKind {
                        let mut s = branch_like(
                            SiteKind::Select,
                            inst,
                            c,
                            bi as u32,
                            &names,
                            &mut constants,
                        );
                        s.uses = dataflow::uses_of(vars, c);
                        s.index = index;
                        block.selects.push(sites.len() as u32);
                        sites.push(s);
                    }
                }
                inst = LLVMGetNextInstruction(inst);
                index += 1;
            }
            let term_index = index.saturating_sub(1);
            let term = LLVMGetBasicBlockTerminator(bb);
            if !term.is_null() {
                let n = LLVMGetNumSuccessors(term);
                for i in 0..n {
                    let s = LLVMGetSuccessor(term, i);
                    block.succs.push(blocks_index[&s]);
                }
                match LLVMGetInstructionOpcode(term) {
                    LLVMOpcode::LLVMBr
                        if LLVMIsConditional(term) != 0
                            && !sanitizer_check(term)
                            && !va_arg_check(term)
                            && !complex_nan_check(term)
                            && !catch_dispatch(term) =>
                    {
                        let c = LLVMGetCondition(term);
                        let mut s =
                            branch_like(SiteKind::Br, term, c, bi as u32, &names, &mut constants);
                        s.uses = dataflow::uses_of(vars, c);
                        s.index = term_index;
                        s.check = panic_check(term);
                        block.site = Some(sites.len() as u32);
                        sites.push(s);
                    }
                    LLVMOpcode::LLVMSwitch => {
                        if let Some(mut s) = switch(term, bi as u32, &names, &mut constants) {
                            s.uses = dataflow::uses_of(vars, LLVMGetOperand(term, 0));
                            s.index = term_index;
                            s.check = panic_check(term);
                            block.site = Some(sites.len() as u32);
                            sites.push(s);
                        }
                    }
                    _ => {}
                }
            }
        }
        blocks.push(block);
    }

    let decisions = crate::decisions::analyse(
        func,
        &bbs,
        &blocks_index,
        &mut sites,
        &names,
        &mut constants,
        vars,
    );
    let (params, ret, variadic) = signature(func, &names);
    let param_calls = param_calls(func, &bbs);
    let returns_composite = ret.composite.is_some();
    // computed gotos (`indirectbr`): their targets are no sites. At -O0 clang gathers every
    // `goto *` of a function into one `indirectbr` block without a location: the lines are
    // those of the branches into it
    let mut indirect_jumps: Vec<u32> = Vec::new();
    unsafe {
        let term = |bb: LLVMBasicBlockRef| LLVMGetBasicBlockTerminator(bb);
        for &bb in &bbs {
            let t = term(bb);
            if t.is_null() || LLVMGetInstructionOpcode(t) != LLVMOpcode::LLVMIndirectBr {
                continue;
            }
            if let Some(l) = debuginfo::inst_loc(t) {
                indirect_jumps.push(l.line);
                continue;
            }
            for &p in &bbs {
                let pt = term(p);
                if pt.is_null() {
                    continue;
                }
                let into = (0..LLVMGetNumSuccessors(pt)).any(|i| LLVMGetSuccessor(pt, i) == bb);
                if into {
                    indirect_jumps.push(debuginfo::inst_loc(pt).map_or(0, |l| l.line));
                }
            }
        }
    }
    indirect_jumps.sort_unstable();
    indirect_jumps.dedup();
    let meta = FunctionMeta {
        name,
        external: unsafe {
            !matches!(
                LLVMGetLinkage(func),
                inkwell::llvm_sys::LLVMLinkage::LLVMInternalLinkage
                    | inkwell::llvm_sys::LLVMLinkage::LLVMPrivateLinkage
            )
        },
        // The subprogram's file: the first located instruction may come from inlined code.
        file: debuginfo::subprogram_file(func).unwrap_or(func_file),
        line: debuginfo::subprogram_line(func),
        params,
        ret,
        variadic,
        blocks,
        calls,
        address_refs,
        writes_globals,
        source_name: None,
        language: None,
        source_params: source_params(func, &names, returns_composite),
        reads_globals,
        param_calls,
        indirect_jumps,
        constants: vec![],
        strings: vec![],
    };
    let mut meta = meta;
    // Source-level name and language from debug info ([`debuginfo::source_name`]).
    if let Some((n, lang)) = debuginfo::source_name(func) {
        meta.source_name = Some(n);
        meta.language = Some(lang.to_string());
    }
    FunctionDraft {
        meta,
        sites,
        constants,
        defs,
        decisions,
    }
}

/// The parameters as the source declares them, when some parameter is (or points to) a
/// structure, union or class, or points to a fixed-size array ([`FunctionMeta::source_params`]): types from the subprogram's type
/// array, names from the parameters' debug records (`argN` for an unnamed one). Also given when
/// the function returns a structure (`returns_composite`).
fn source_params(
    func: LLVMValueRef,
    names: &VarNames,
    returns_composite: bool,
) -> Option<Vec<ParamMeta>> {
    let di = debuginfo::subprogram_types(func)?;
    // a trailing null entry stands for a variadic function's `...`
    let tys: Vec<_> = di
        .iter()
        .skip(1)
        .take_while(|t| !t.is_null())
        .map(|&t| debuginfo::source_type_meta(t))
        .collect();
    // a structure return adds a hidden `sret` argument, or is coerced: the source's parameters too
    if !tys.iter().any(debuginfo::has_composite) && !returns_composite {
        return None;
    }
    Some(
        tys.into_iter()
            .enumerate()
            .map(|(i, ty)| {
                let name = names
                    .params
                    .get(&(i as u32 + 1))
                    .map(|(n, _)| n.clone())
                    .filter(|n| !n.is_empty());
                ParamMeta {
                    name: name.unwrap_or_else(|| format!("arg{i}")),
                    ty,
                }
            })
            .collect(),
    )
}

/// The calls that are given the value of one of `func`'s pointer parameters
/// ([`FunctionMeta::param_calls`]). At -O0 a parameter is stored to its local copy and loaded
/// from it at each use, and `T *p = param;` copies it through another local: a value is the
/// parameter's when it is the parameter, a load from a local (an `alloca`) some store gave the
/// parameter's value, or a cast of one. Blocks are read twice, so that a copy made in a block
/// laid out after its use (a loop) is seen. A local that is given two parameters counts for the
/// first.
fn param_calls(func: LLVMValueRef, bbs: &[LLVMBasicBlockRef]) -> Vec<evotest_abi::meta::ParamCall> {
    let mut of: HashMap<LLVMValueRef, u32> = HashMap::new();
    let mut slots: HashMap<LLVMValueRef, u32> = HashMap::new();
    let mut out: Vec<evotest_abi::meta::ParamCall> = Vec::new();
    unsafe {
        let n = LLVMCountParams(func);
        for i in 0..n {
            let p = LLVMGetParam(func, i);
            if LLVMGetTypeKind(LLVMTypeOf(p)) == LLVMTypeKind::LLVMPointerTypeKind {
                of.insert(p, i);
            }
        }
        if of.is_empty() {
            return out;
        }
        for pass in 0..2 {
            for &bb in bbs {
                let mut inst = LLVMGetFirstInstruction(bb);
                while !inst.is_null() {
                    match LLVMGetInstructionOpcode(inst) {
                        LLVMOpcode::LLVMStore => {
                            let (v, ptr) = (LLVMGetOperand(inst, 0), LLVMGetOperand(inst, 1));
                            if let Some(&i) = of.get(&v) {
                                if !LLVMIsAAllocaInst(ptr).is_null() {
                                    slots.entry(ptr).or_insert(i);
                                }
                            }
                        }
                        LLVMOpcode::LLVMLoad => {
                            if let Some(&i) = slots.get(&LLVMGetOperand(inst, 0)) {
                                of.insert(inst, i);
                            }
                        }
                        LLVMOpcode::LLVMBitCast | LLVMOpcode::LLVMAddrSpaceCast => {
                            if let Some(&i) = of.get(&LLVMGetOperand(inst, 0)) {
                                of.insert(inst, i);
                            }
                        }
                        LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke if pass == 1 => {
                            let callee = LLVMGetCalledValue(inst);
                            let name = if LLVMIsAFunction(callee).is_null() {
                                String::new()
                            } else {
                                value_name(callee)
                            };
                            if !name.starts_with("llvm.dbg") && !name.starts_with("__evotest") {
                                for a in 0..LLVMGetNumArgOperands(inst) {
                                    if let Some(&i) = of.get(&LLVMGetOperand(inst, a)) {
                                        let c = evotest_abi::meta::ParamCall {
                                            param: i,
                                            callee: name.clone(),
                                            arg: a,
                                        };
                                        if !out.contains(&c) {
                                            out.push(c);
                                        }
                                    }
                                }
                            }
                        }
                        _ => {}
                    }
                    inst = LLVMGetNextInstruction(inst);
                }
            }
        }
    }
    out
}

fn signature(
    func: LLVMValueRef,
    names: &VarNames,
) -> (Vec<ParamMeta>, evotest_abi::meta::TypeMeta, bool) {
    unsafe {
        let fty = LLVMGlobalGetValueType(func);
        let ret_ir = type_string(LLVMGetReturnType(fty));
        let variadic = LLVMIsFunctionVarArg(fty) != 0;
        let n = LLVMCountParams(func);
        let di = debuginfo::subprogram_types(func);
        let ret = match &di {
            // a structure return is described member by member (a harness declares its type)
            Some(t) if !t.is_empty() && !t[0].is_null() => evotest_abi::meta::TypeMeta {
                ir: ret_ir.clone(),
                ..debuginfo::source_type_meta(t[0])
            },
            Some(t) if !t.is_empty() => debuginfo::type_meta(t[0], true, &ret_ir),
            _ => debuginfo::type_meta(std::ptr::null_mut(), false, &ret_ir),
        };
        // IR arguments and source parameters correspond one to one in C at -O0 (argument i is
        // parameter i + 1), but not once the ABI splits, indirects or adds arguments (Rust's
        // `&str` and slices are two arguments, big aggregates are passed by reference, big
        // returns add an `sret` argument). So each argument is matched with its parameter through
        // the debug records ([`debuginfo::arg_sources`]); the index rule is kept only as a
        // fallback when the counts agree and there is no `sret` argument (an unnamed C
        // parameter has no record).
        let sources = debuginfo::arg_sources(func, names);
        let has_sret = (0..n).any(|i| debuginfo::is_sret(LLVMGetParam(func, i)));
        let index_rule = !has_sret && di.as_ref().is_some_and(|t| t.len() == n as usize + 1);
        let di_param = |k: u32| -> Option<LLVMMetadataRef> {
            di.as_ref().and_then(|t| t.get(k as usize).copied())
        };
        let mut params = Vec::new();
        for i in 0..n {
            let p = LLVMGetParam(func, i);
            let ir = type_string(LLVMTypeOf(p));
            let value_name_or = |fallback: String| {
                let v = value_name(p);
                if v.is_empty() {
                    fallback
                } else {
                    v
                }
            };
            if debuginfo::is_sret(p) {
                params.push(ParamMeta {
                    name: "sret".into(),
                    ty: debuginfo::type_meta(std::ptr::null_mut(), false, &ir),
                });
                continue;
            }
            if let Some(src) = sources[i as usize] {
                let name = debuginfo::var_name(src.var);
                let name = if name.is_empty() {
                    value_name_or(format!("arg{i}"))
                } else {
                    name
                };
                // Prefer the subprogram's type array; fall back to the variable's type.
                let pty = di_param(src.arg)
                    .filter(|t| !t.is_null())
                    .unwrap_or_else(|| debuginfo::var_type(src.var));
                let whole = src.indirect
                    || (src.offset == 0 && {
                        let b = debuginfo::type_bits(pty);
                        b == 0 || b == src.bits
                    });
                if whole {
                    params.push(ParamMeta {
                        name,
                        ty: debuginfo::type_meta(pty, true, &ir),
                    });
                } else {
                    // Part of a parameter: a member of its (structure) type, e.g. `s.data_ptr` and
                    // `s.length` of a `&str`, `t.__0` of a tuple.
                    match debuginfo::member_at(pty, src.offset * 8) {
                        Some((m, mty)) => params.push(ParamMeta {
                            name: format!("{name}.{m}"),
                            ty: debuginfo::type_meta(mty, true, &ir),
                        }),
                        None => params.push(ParamMeta {
                            name: format!("{name}.{}", src.offset),
                            ty: debuginfo::type_meta(std::ptr::null_mut(), false, &ir),
                        }),
                    }
                }
                continue;
            }
            if index_rule {
                let (name, _) =
                    names.params.get(&(i + 1)).cloned().unwrap_or_else(|| {
                        (value_name_or(format!("arg{i}")), std::ptr::null_mut())
                    });
                let ty = match di_param(i + 1) {
                    Some(t) => debuginfo::type_meta(t, true, &ir),
                    None => debuginfo::type_meta(std::ptr::null_mut(), false, &ir),
                };
                params.push(ParamMeta { name, ty });
                continue;
            }
            params.push(ParamMeta {
                name: value_name_or(format!("arg{i}")),
                ty: debuginfo::type_meta(std::ptr::null_mut(), false, &ir),
            });
        }
        (params, ret, variadic)
    }
}

/// Whether pointer `p` is a global variable or derived from one by GEPs and casts.
fn based_on_global(p: LLVMValueRef) -> bool {
    global_base(p).is_some()
}

/// The global variable a pointer is derived from (through GEPs and casts), if any.
fn global_base(mut p: LLVMValueRef) -> Option<LLVMValueRef> {
    unsafe {
        for _ in 0..16 {
            p = debuginfo::through_threadlocal(p);
            if !LLVMIsAGlobalVariable(p).is_null() {
                return Some(p);
            }
            let derived = !LLVMIsAGetElementPtrInst(p).is_null()
                || !LLVMIsABitCastInst(p).is_null()
                || !LLVMIsAAddrSpaceCastInst(p).is_null()
                || (!LLVMIsAConstantExpr(p).is_null() && LLVMGetNumOperands(p) > 0);
            if !derived {
                return None;
            }
            p = LLVMGetOperand(p, 0);
        }
        None
    }
}

pub(crate) fn int_width(v: LLVMValueRef) -> Option<u32> {
    unsafe {
        let t = LLVMTypeOf(v);
        match LLVMGetTypeKind(t) {
            LLVMTypeKind::LLVMIntegerTypeKind => Some(LLVMGetIntTypeWidth(t)),
            LLVMTypeKind::LLVMPointerTypeKind => Some(64),
            _ => None,
        }
    }
}

/// A call `llvm.is.fpclass(x, mask)` of a floating-point `x` (the types an `fcmp` site takes) whose mask is exactly NaN (`isnan`:
/// `fcmp uno x, x`) or exactly its complement (`fcmp ord x, x`): that predicate and `x`. Other
/// class tests (`isinf`, `isfinite`, `isnormal`) have no single compare and stay boolean sites.
unsafe fn nan_class_test(call: LLVMValueRef) -> Option<(Pred, LLVMValueRef)> {
    const FC_NAN: u64 = 0x3;
    const FC_ALL: u64 = 0x3ff;
    if LLVMIsACallInst(call).is_null() || LLVMGetNumArgOperands(call) != 2 {
        return None;
    }
    let callee = LLVMGetCalledValue(call);
    if callee.is_null()
        || LLVMIsAFunction(callee).is_null()
        || !value_name(callee).starts_with("llvm.is.fpclass.")
    {
        return None;
    }
    let (x, mask) = (LLVMGetOperand(call, 0), LLVMGetOperand(call, 1));
    if !is_float(x) || LLVMIsAConstantInt(mask).is_null() {
        return None;
    }
    match LLVMConstIntGetZExtValue(mask) {
        FC_NAN => Some((Pred::Uno, x)),
        m if m == FC_ALL & !FC_NAN => Some((Pred::Ord, x)),
        _ => None,
    }
}

/// Whether `v` is a floating-point value that a `double` cannot hold exactly (`x86_fp80`,
/// `fp128`).
fn wider_than_double(v: LLVMValueRef) -> bool {
    unsafe {
        matches!(
            LLVMGetTypeKind(LLVMTypeOf(v)),
            LLVMTypeKind::LLVMX86_FP80TypeKind | LLVMTypeKind::LLVMFP128TypeKind
        )
    }
}

fn is_float(v: LLVMValueRef) -> bool {
    unsafe {
        matches!(
            LLVMGetTypeKind(LLVMTypeOf(v)),
            LLVMTypeKind::LLVMHalfTypeKind
                | LLVMTypeKind::LLVMBFloatTypeKind
                | LLVMTypeKind::LLVMFloatTypeKind
                | LLVMTypeKind::LLVMDoubleTypeKind
                | LLVMTypeKind::LLVMX86_FP80TypeKind
                | LLVMTypeKind::LLVMFP128TypeKind
        )
    }
}

/// The lattice step an integer instruction with a constant right operand implies (see
/// [`ConstantMeta::Lattice`]): `x % m`, `x / m` → |m|; `x << k`, `x >> k` → 2^k; `x & m` → the
/// lowest set bit of `m` (for a low mask 2^k − 1 also 2^k, its period). Steps of 1 say nothing.
fn lattice_step(inst: LLVMValueRef) -> Option<i64> {
    unsafe {
        use LLVMOpcode::*;
        let op = LLVMGetInstructionOpcode(inst);
        if !matches!(
            op,
            LLVMSRem | LLVMURem | LLVMSDiv | LLVMUDiv | LLVMShl | LLVMLShr | LLVMAShr | LLVMAnd
        ) {
            return None;
        }
        let c = LLVMGetOperand(inst, 1);
        if LLVMIsAConstantInt(c).is_null() || LLVMGetIntTypeWidth(LLVMTypeOf(c)) > 64 {
            return None;
        }
        let v = LLVMConstIntGetSExtValue(c);
        let step = match op {
            LLVMShl | LLVMLShr | LLVMAShr => (1..63).contains(&v).then(|| 1i64 << v)?,
            LLVMAnd => {
                let m = v as u64;
                if m == 0 || m == u64::MAX {
                    return None;
                }
                // a low mask 2^k - 1 has period 2^k; any other mask changes with its lowest bit
                if (m & m.wrapping_add(1)) == 0 {
                    m.wrapping_add(1) as i64
                } else {
                    (m & m.wrapping_neg()) as i64
                }
            }
            _ => v.checked_abs()?,
        };
        (step > 1).then_some(step)
    }
}

fn harvest(v: LLVMValueRef, out: &mut Vec<ConstantMeta>) {
    unsafe {
        if !LLVMIsAConstantInt(v).is_null() && LLVMGetIntTypeWidth(LLVMTypeOf(v)) <= 64 {
            let c = ConstantMeta::Int(LLVMConstIntGetSExtValue(v));
            if !out.contains(&c) {
                out.push(c);
            }
        } else if !LLVMIsAConstantFP(v).is_null() {
            // May be ±inf or NaN (`isinf`, `INFINITY`, `NAN`): `ConstantMeta`'s serde writes them
            // as the strings "inf", "-inf" and "nan", and its equality is bitwise, so a NaN is
            // kept once.
            let mut loses = 0;
            let c = ConstantMeta::Float(LLVMConstRealGetDouble(v, &mut loses));
            if !out.contains(&c) {
                out.push(c);
            }
        }
    }
}

/// The compare a condition `c` tests when `c` is a truth value turned into an integer and
/// compared with 0: `(x == k) != 0`, as clang emits `if (__builtin_expect(!!(x == k), 0))`
/// (`likely`/`unlikely`) or `if (!!(x == k) != 0)`, through the casts, the `xor … true` of each
/// `!` and the `llvm.expect` call (`llvm.expect.with.probability` too). `Some((cmp, negated))`
/// when the integer is an `icmp` or `fcmp` of its own: `c` holds exactly when `cmp` does, or,
/// when `negated`, when it does not. Otherwise `None`, and `c` is a site on its own integers,
/// whose distance (0 or 1) would lead the search nowhere.
unsafe fn truth_compare(c: LLVMValueRef) -> Option<(LLVMValueRef, bool)> {
    if LLVMIsAICmpInst(c).is_null() {
        return None;
    }
    let mut negated = match LLVMGetICmpPredicate(c) {
        inkwell::llvm_sys::LLVMIntPredicate::LLVMIntNE => false,
        inkwell::llvm_sys::LLVMIntPredicate::LLVMIntEQ => true,
        _ => return None,
    };
    let (a, b) = (LLVMGetOperand(c, 0), LLVMGetOperand(c, 1));
    let mut v = if is_zero(b) {
        a
    } else if is_zero(a) {
        b
    } else {
        return None;
    };
    if LLVMGetTypeKind(LLVMTypeOf(v)) != LLVMTypeKind::LLVMIntegerTypeKind {
        return None;
    }
    for _ in 0..16 {
        // a scalar integer (a vector's lanes are no truth value)
        if LLVMIsAInstruction(v).is_null()
            || LLVMGetTypeKind(LLVMTypeOf(v)) != LLVMTypeKind::LLVMIntegerTypeKind
        {
            return None;
        }
        match LLVMGetInstructionOpcode(v) {
            LLVMOpcode::LLVMZExt | LLVMOpcode::LLVMSExt => v = LLVMGetOperand(v, 0),
            LLVMOpcode::LLVMXor if LLVMGetIntTypeWidth(LLVMTypeOf(v)) == 1 => {
                let (x, y) = (LLVMGetOperand(v, 0), LLVMGetOperand(v, 1));
                let one = |w: LLVMValueRef| {
                    !LLVMIsAConstantInt(w).is_null() && LLVMConstIntGetZExtValue(w) == 1
                };
                v = if one(y) {
                    x
                } else if one(x) {
                    y
                } else {
                    return None;
                };
                negated = !negated;
            }
            LLVMOpcode::LLVMCall => {
                let callee = LLVMGetCalledValue(v);
                if callee.is_null() || LLVMIsAFunction(callee).is_null() {
                    return None;
                }
                if !value_name(callee).starts_with("llvm.expect.") {
                    return None;
                }
                v = LLVMGetOperand(v, 0);
            }
            LLVMOpcode::LLVMICmp | LLVMOpcode::LLVMFCmp
                if LLVMGetIntTypeWidth(LLVMTypeOf(v)) == 1 =>
            {
                return Some((v, negated));
            }
            _ => return None,
        }
    }
    None
}

/// The compare `cmp` negated, built right after it (with its debug location): `icmp` with the
/// inverse predicate (`eq` → `ne`, `slt` → `sge`), `fcmp` with the complementary one (`olt` →
/// `uge`, NaN included). Only the probe reads it.
unsafe fn negated_compare(cmp: LLVMValueRef) -> LLVMValueRef {
    use inkwell::llvm_sys::{LLVMIntPredicate::*, LLVMRealPredicate};
    let builder = LLVMCreateBuilderInContext(LLVMGetTypeContext(LLVMTypeOf(cmp)));
    let next = LLVMGetNextInstruction(cmp);
    LLVMPositionBuilder(builder, LLVMGetInstructionParent(cmp), next);
    let (a, b) = (LLVMGetOperand(cmp, 0), LLVMGetOperand(cmp, 1));
    let name = c"evotest.not";
    let inv = if !LLVMIsAICmpInst(cmp).is_null() {
        let p = match LLVMGetICmpPredicate(cmp) {
            LLVMIntEQ => LLVMIntNE,
            LLVMIntNE => LLVMIntEQ,
            LLVMIntUGT => LLVMIntULE,
            LLVMIntULE => LLVMIntUGT,
            LLVMIntUGE => LLVMIntULT,
            LLVMIntULT => LLVMIntUGE,
            LLVMIntSGT => LLVMIntSLE,
            LLVMIntSLE => LLVMIntSGT,
            LLVMIntSGE => LLVMIntSLT,
            LLVMIntSLT => LLVMIntSGE,
        };
        LLVMBuildICmp(builder, p, a, b, name.as_ptr())
    } else {
        // the 4-bit fcmp codes: the complement of a predicate is its bitwise negation
        let p = 15 - LLVMGetFCmpPredicate(cmp) as u32;
        let p: LLVMRealPredicate = std::mem::transmute(p);
        LLVMBuildFCmp(builder, p, a, b, name.as_ptr())
    };
    use inkwell::llvm_sys::debuginfo::{LLVMInstructionGetDebugLoc, LLVMInstructionSetDebugLoc};
    LLVMInstructionSetDebugLoc(inv, LLVMInstructionGetDebugLoc(cmp));
    LLVMDisposeBuilder(builder);
    inv
}

/// A two-outcome site (`br`, `select`, or a condition-only site) on condition `c`, probed right
/// before `inst`.
pub fn branch_like(
    kind: SiteKind,
    inst: LLVMValueRef,
    c: LLVMValueRef,
    block: u32,
    names: &VarNames,
    constants: &mut Vec<ConstantMeta>,
) -> SiteDraft {
    // `likely(x == k)`, `!!(x == k) != 0`: the compare's distances, not the integer's
    if let Some((cmp, negated)) = unsafe { truth_compare(c) } {
        let cmp = if negated {
            unsafe { negated_compare(cmp) }
        } else {
            cmp
        };
        return branch_like(kind, inst, cmp, block, names, constants);
    }
    let mut loc = None;
    let mut cond = Cond::Bool(c);
    let mut operand_type = "i1".to_string();
    let mut text = None;
    unsafe {
        let is_inst = !LLVMIsAInstruction(c).is_null();
        let op = if is_inst {
            Some(LLVMGetInstructionOpcode(c))
        } else {
            None
        };
        if is_inst {
            loc = inst_loc(c).filter(|l| l.line != 0);
        }
        let nan_test = if op == Some(LLVMOpcode::LLVMCall) {
            nan_class_test(c)
        } else {
            None
        };
        match op {
            Some(LLVMOpcode::LLVMICmp) => {
                let a = LLVMGetOperand(c, 0);
                let b = LLVMGetOperand(c, 1);
                let pred = Pred::from_u32(LLVMGetICmpPredicate(c) as u32);
                if let (Some(pred), Some(w)) = (pred, int_width(a)) {
                    // up to 128 bits: wider compares reach the probe as a compressed
                    // difference (`instrument::wide_int_operands`)
                    if w <= 128 {
                        operand_type = type_string(LLVMTypeOf(a));
                        text = Some(condtext::compare(a, pred, b, names));
                        harvest(a, constants);
                        harvest(b, constants);
                        cond = if LLVMGetTypeKind(LLVMTypeOf(a))
                            == LLVMTypeKind::LLVMPointerTypeKind
                        {
                            Cond::Ptr { pred, c }
                        } else {
                            Cond::Int { pred, a, b }
                        };
                        if matches!(pred, Pred::Eq | Pred::Ne) {
                            let zero = |v: LLVMValueRef| {
                                is_zero(v) || !LLVMIsAConstantPointerNull(v).is_null()
                            };
                            let call = if zero(b) {
                                a
                            } else if zero(a) {
                                b
                            } else {
                                std::ptr::null_mut()
                            };
                            if !call.is_null() {
                                if let Some((func, sa, sb, n)) = string_compare(stored_call(call)) {
                                    // `strstr(h, n) != NULL` holds when the needle is found, as
                                    // `strcmp(a, b) == 0` does when the strings are equal
                                    let pred =
                                        match (evotest_abi::distance::str_is_search(func), pred) {
                                            (true, Pred::Ne) => Pred::Eq,
                                            (true, _) => Pred::Ne,
                                            (false, p) => p,
                                        };
                                    for s in [sa, sb] {
                                        if let Some(text) = condtext::string_bytes(s)
                                            .and_then(|b| String::from_utf8(b).ok())
                                        {
                                            let c = ConstantMeta::Str(text);
                                            if !constants.contains(&c) {
                                                constants.push(c);
                                            }
                                        }
                                    }
                                    cond = Cond::Str {
                                        pred,
                                        func,
                                        a: sa,
                                        b: sb,
                                        n,
                                    };
                                }
                            }
                        }
                    }
                }
            }
            // `isnan(x)` (clang lowers it to `llvm.is.fpclass(x, fcNan)`): probed as the compare it
            // stands for, so that its distance and operands are a float compare's
            Some(LLVMOpcode::LLVMCall) if nan_test.is_some() => {
                if let Some((pred, x)) = nan_test {
                    operand_type = type_string(LLVMTypeOf(x));
                    let not = if pred == Pred::Ord { "!" } else { "" };
                    text = Some(format!("{not}isnan({})", condtext::text(x, names)));
                    cond = Cond::Float { pred, a: x, b: x };
                }
            }
            // a call, or an invoke (a call with a landing pad: a caller that owns a `String`)
            Some(LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke) if kind != SiteKind::Cond => {
                if let Some((pred, func, a, la, b, lb)) = rust_bytes_compare(c, names) {
                    let (op, fa, fb) = evotest_abi::distance::bytes_func_parts(func);
                    let mut texts = vec![];
                    for (p, l, f) in [(a, la, fa), (b, lb, fb)] {
                        match rust_literal_bytes(p, l, f).and_then(|b| String::from_utf8(b).ok()) {
                            Some(lit) => {
                                texts.push(format!("{lit:?}"));
                                let c = ConstantMeta::Str(lit);
                                if !constants.contains(&c) {
                                    constants.push(c);
                                }
                            }
                            None => {
                                // `&s` (a reference to the operand), `s.0` (a slice's pointer): `s`
                                let t = condtext::text(p, names);
                                let t = t.strip_prefix('&').unwrap_or(&t);
                                texts.push(t.strip_suffix(".0").unwrap_or(t).to_string());
                            }
                        }
                    }
                    text = Some(match op {
                        evotest_abi::distance::STR_BYTES_PREFIX => {
                            format!("{}.starts_with({})", texts[0], texts[1])
                        }
                        evotest_abi::distance::STR_BYTES_SUFFIX => {
                            format!("{}.ends_with({})", texts[0], texts[1])
                        }
                        _ if pred == Pred::Ne => format!("{} != {}", texts[0], texts[1]),
                        _ => format!("{} == {}", texts[0], texts[1]),
                    });
                    operand_type = "bytes".to_string();
                    cond = Cond::Bytes {
                        pred,
                        func,
                        a,
                        la,
                        b,
                        lb,
                    };
                }
            }
            Some(LLVMOpcode::LLVMFCmp) => {
                let a = LLVMGetOperand(c, 0);
                let b = LLVMGetOperand(c, 1);
                if let Some(pred) = Pred::from_u32(LLVMGetFCmpPredicate(c) as u32) {
                    if is_float(a) {
                        operand_type = type_string(LLVMTypeOf(a));
                        text = Some(condtext::compare(a, pred, b, names));
                        harvest(a, constants);
                        harvest(b, constants);
                        // the compare probe takes doubles: a wider type (x87's `long double`,
                        // `__float128`) narrowed could compare otherwise than the program does,
                        // and the outcome recorded would not be the one taken; such a site is
                        // probed by its outcome only
                        if !wider_than_double(a) {
                            cond = Cond::Float { pred, a, b };
                        }
                    }
                }
            }
            _ => {}
        }
    }
    let loc = loc.or_else(|| inst_loc(inst)).unwrap_or_default();
    SiteDraft {
        kind,
        inst,
        text: text.unwrap_or_else(|| condtext::text(c, names)),
        cond,
        block,
        loc,
        operand_type,
        labels: vec!["true".into(), "false".into()],
        uses: vec![],
        index: 0,
        check: None,
    }
}

/// A `switch` site, or `None` when the switched value is wider than 64 bits.
fn switch(
    term: LLVMValueRef,
    block: u32,
    names: &VarNames,
    constants: &mut Vec<ConstantMeta>,
) -> Option<SiteDraft> {
    unsafe {
        let value = LLVMGetOperand(term, 0);
        if int_width(value)? > 64 {
            return None;
        }
        // Successor 0 is the default; successor i > 0 is case i - 1 (LLVM 22 keeps case values
        // out of the operand list, so ask through LLVMGetSwitchCaseValue).
        let n_succ = LLVMGetNumSuccessors(term);
        let mut cases = Vec::new();
        let mut labels = vec!["default".to_string()];
        // a switch on an unsigned variable (by its debug information) names its cases as the
        // source does (`case 4294967280`, not `case -16`)
        let unsigned = condtext::unsigned_source(value, names);
        for i in 1..n_succ {
            let cv = LLVMGetSwitchCaseValue(term, i);
            let v = LLVMConstIntGetSExtValue(cv);
            harvest(cv, constants);
            cases.push(v);
            if unsigned {
                labels.push(format!("case {}", LLVMConstIntGetZExtValue(cv)));
            } else {
                labels.push(format!("case {v}"));
            }
        }
        let loc = inst_loc(term).unwrap_or_default();
        Some(SiteDraft {
            kind: SiteKind::Switch,
            inst: term,
            text: condtext::text(value, names),
            operand_type: type_string(LLVMTypeOf(value)),
            cond: Cond::Switch { value, cases },
            block,
            loc,
            labels,
            uses: vec![],
            index: 0,
            check: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use evotest_abi::distance::{BYTES_ARRAY, BYTES_SLICE, BYTES_STRING, BYTES_VEC};

    #[test]
    fn rust_callee_names_and_byte_string_types() {
        assert_eq!(
            last_segment("core::cmp::impls::{impl#9}::eq<alloc::string::String, &str>"),
            "eq"
        );
        assert_eq!(
            last_segment("core::str::{impl#0}::starts_with<&str>"),
            "starts_with"
        );
        assert_eq!(last_segment("core::cmp::PartialEq::ne<str, str>"), "ne");
        assert_eq!(last_segment("eq"), "eq");
        assert_eq!(byte_string_form("&str"), Some((BYTES_SLICE, 0, 0)));
        assert_eq!(byte_string_form("&&[u8]"), Some((BYTES_SLICE, 1, 0)));
        assert_eq!(byte_string_form("&mut [u8]"), Some((BYTES_SLICE, 0, 0)));
        assert_eq!(byte_string_form("&&[u8; 3]"), Some((BYTES_ARRAY, 1, 3)));
        assert_eq!(
            byte_string_form("&alloc::string::String"),
            Some((BYTES_STRING, 0, 0))
        );
        assert_eq!(
            byte_string_form("&&alloc::vec::Vec<u8, alloc::alloc::Global>"),
            Some((BYTES_VEC, 1, 0))
        );
        assert_eq!(byte_string_form("&[u16]"), None);
        assert_eq!(
            byte_string_form("&alloc::vec::Vec<i32, alloc::alloc::Global>"),
            None
        );
        assert_eq!(byte_string_form("str"), None);
        assert_eq!(byte_string_form("&core::option::Option<&str>"), None);
    }
}
