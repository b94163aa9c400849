//! evotest's in-process engine (`libevotest_inprocess.so`).
//!
//! `evotest fuzz --in_process` starts the harness (linked with evotest's driver) with
//! `__EVOTEST_IN_PROCESS` naming this library; the driver's `main` loads it and calls
//! [`__evotest_in_process_main`] with the harness's entry point. The whole fuzzing engine then
//! runs in the harness's process and calls `LLVMFuzzerTestOneInput` in a loop, libFuzzer's model;
//! see `evotest::fuzz::inprocess` for the supervisor that restarts it when an input ends the
//! process.

use evotest::exec::inprocess::Hooks;

/// Run an in-process fuzzing worker on the job the supervisor described
/// (`__EVOTEST_IN_PROCESS_JOB`). Returns the process's exit status: 0 when the budget ran out
/// or the run was interrupted, 2 on an error (written for the supervisor).
///
/// # Safety
/// `test_one_input` must be the harness's `LLVMFuzzerTestOneInput` and `ret` the runtime's
/// `__evotest_return`; call once, from the driver's `main`.
#[no_mangle]
pub unsafe extern "C" fn __evotest_in_process_main(
    test_one_input: unsafe extern "C" fn(*const u8, usize) -> i32,
    ret: unsafe extern "C" fn(u32, u64),
) -> i32 {
    evotest::fuzz::inprocess::worker_main(Hooks {
        test_one_input,
        ret,
    })
}
