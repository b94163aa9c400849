//! The evotest LLVM pass: branch-distance probes and static metadata.
//!
//! # Brief overview
//! Loaded into clang-22 as a pass plugin (`clang-22 -O0 -g -fpass-plugin=libevotest_pass.so`),
//! the pass runs at the start of the pipeline, before SimplifyCFG can fold branches into
//! `select`s and instcombine can rewrite compares, and for every function body:
//!
//! 1. [`collect`] describes the CFG (blocks, successor edges) and every **branch site**: each
//!    conditional `br`, `switch` and `select`, with its source location, a printable condition
//!    text ([`condtext`]) and its predicate and operand type;
//! 2. [`instrument`] inserts before each site one call to a runtime probe
//!    (`__evotest_cmp_int`, `__evotest_cmp_float`, `__evotest_cond`, `__evotest_switch`) passing
//!    the compare's predicate and operand values, so that the runtime computes the Korel/Tracey
//!    branch distance of each outcome; it then embeds the metadata
//!    ([`evotest_abi::meta::ModuleMeta`]) in section `evotest_meta` and registers the module with
//!    the runtime from a constructor;
//! 3. [`flags`] finds the flag functions (loop-free, returning only constants and truth values),
//!    which [`instrument`] gives frames, so that a caller's condition on their result gets a
//!    distance (function-assigned flags).
//!
//! # Why a plugin (and not a bitcode rewriter)
//! Both were workable (see `../shared/LLVM22-NOTES.md`). A plugin drops into any build system
//! unchanged (`CC="clang-22 -fpass-plugin=…"`), which is what fuzzing existing libFuzzer
//! harnesses and multi-file projects needs, and it sees the module exactly at pipeline start at
//! every `-O` level. The price is a ~200-line C++ shim (`shim/shim.cpp`) for registration and for
//! the few debug-info accessors LLVM-C lacks.
//!
//! # Options (environment variables read by the pass)
//! * `EVOTEST_EXPOSE=f,g`: give these `static` functions external linkage, so that a generated
//!   harness can call them.
//! * `EVOTEST_RENAME_MAIN=1`: rename `main` to `__evotest_target_main`, so that a generated
//!   harness can provide its own `main`.
//! * `EVOTEST_LITE_CLONES=0`: no coverage-only clones ([`lite`]; for measuring what they buy).
//! * `EVOTEST_LITE_MARKS=0`: the clones count their branches with counters placed before
//!   optimisation, not through marks lowered after it ([`lite`]; for measuring what they buy).

mod collect;
mod condtext;
mod dataflow;
mod debuginfo;
mod decisions;
mod flags;
mod instrument;
mod lite;

use inkwell::llvm_sys::prelude::LLVMModuleRef;
use inkwell::module::Module;
use std::ffi::{c_char, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Pass options, read from the environment of the compiler process (see crate docs).
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub expose: Vec<String>,
    pub rename_main: bool,
    /// Give each function a coverage-only clone ([`lite`]); off with `EVOTEST_LITE_CLONES=0`.
    pub lite_clones: bool,
    /// Count the clones' branch outcomes through marks lowered after optimisation ([`lite`]);
    /// off with `EVOTEST_LITE_MARKS=0`.
    pub lite_marks: bool,
}

impl Options {
    pub fn from_env() -> Options {
        let expose = std::env::var(evotest_abi::names::ENV_PASS_EXPOSE)
            .map(|v| {
                v.split(',')
                    .map(|s| s.trim().to_string())
                    .filter(|s| !s.is_empty())
                    .collect()
            })
            .unwrap_or_default();
        let rename_main =
            std::env::var(evotest_abi::names::ENV_PASS_RENAME_MAIN).is_ok_and(|v| v == "1");
        let lite_clones =
            std::env::var(evotest_abi::names::ENV_PASS_LITE_CLONES).map_or(true, |v| v != "0");
        let lite_marks =
            std::env::var(evotest_abi::names::ENV_PASS_LITE_MARKS).map_or(true, |v| v != "0");
        Options {
            expose,
            rename_main,
            lite_clones,
            lite_marks,
        }
    }
}

/// Mirror of `llvm::PassPluginLibraryInfo` in `llvm/Plugins/PassPlugin.h` (API version 2). LLVM 22
/// added the fifth field, `PreCodeGenCallback`; the layout must match exactly.
#[repr(C)]
pub struct PassPluginLibraryInfo {
    pub api_version: u32,
    pub plugin_name: *const c_char,
    pub plugin_version: *const c_char,
    pub register_pass_builder_callbacks: *const c_void,
    pub pre_codegen_callback: *const c_void,
}

extern "C" {
    fn evotest_plugin_info(
        api: *mut u32,
        name: *mut *const c_char,
        version: *mut *const c_char,
        reg: *mut *const c_void,
    );
}

/// The plugin entry point clang looks up after `dlopen`. Defined in Rust because a cdylib only
/// exports Rust `#[no_mangle]` symbols.
///
/// # Safety
/// Called by LLVM's plugin loader.
#[no_mangle]
pub unsafe extern "C" fn llvmGetPassPluginInfo() -> PassPluginLibraryInfo {
    let mut info = PassPluginLibraryInfo {
        api_version: 0,
        plugin_name: std::ptr::null(),
        plugin_version: std::ptr::null(),
        register_pass_builder_callbacks: std::ptr::null(),
        pre_codegen_callback: std::ptr::null(),
    };
    evotest_plugin_info(
        &mut info.api_version,
        &mut info.plugin_name,
        &mut info.plugin_version,
        &mut info.register_pass_builder_callbacks,
    );
    info
}

/// Called by the shim's module pass. Returns whether the module changed. An internal error is
/// reported on stderr and aborts the compilation (a half-instrumented module must not be built).
///
/// # Safety
/// `m` must be a valid module owned by the caller; it is borrowed, never disposed.
#[no_mangle]
pub unsafe extern "C" fn evotest_instrument_module(m: LLVMModuleRef) -> bool {
    let module = Module::new(m);
    let opts = Options::from_env();
    let result = catch_unwind(AssertUnwindSafe(|| instrument::run(&module, &opts)));
    // The module belongs to clang: never dispose of it.
    std::mem::forget(module);
    match result {
        Ok(Ok(changed)) => changed,
        Ok(Err(e)) => {
            eprintln!("error: evotest pass: {e}");
            std::process::exit(70);
        }
        Err(_) => {
            eprintln!(
                "error: evotest pass: internal error (panic); please report with the source file"
            );
            std::process::exit(70);
        }
    }
}
