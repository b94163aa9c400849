//! The fork server's protocol when its persistent child is disturbed from outside: a child that
//! dies between two inputs (`kill -9`, the kernel, a thread an earlier input left running) must
//! not be taken for a crash of the next input, nor leave the engine a request out of step.

mod common;

use evotest::exec::{Coverage, Executor, ExitKind, ForkServer, ForkServerConfig, Stop};

const HARNESS: &str = r#"
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) {
    if (n > 0 && d[0] == 'a') return 1;
    if (n > 1 && d[1] == 'b') return 2;
    return 0;
}
"#;

/// The children of process `pid`.
fn children(pid: u32) -> Vec<i32> {
    std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"))
        .unwrap_or_default()
        .split_whitespace()
        .filter_map(|p| p.parse().ok())
        .collect()
}

#[test]
fn a_persistent_child_killed_between_inputs_is_no_crash_and_no_lost_step() {
    let _ = common::evotest(); // checks that the pass and runtime were built
    let dir = tempfile::tempdir().unwrap();
    let exe = common::build_fuzz_harness(dir.path(), HARNESS);
    let config = ForkServerConfig {
        sites: 64,
        outcomes: 256,
        persistent: Some(1000),
        ..Default::default()
    };
    let mut fs = ForkServer::start(&exe, &config).unwrap();
    // per site its first outcome and number of outcomes, as the fuzzer passes them
    let metas = evotest::program::read_program_metadata(&exe).unwrap();
    let program = evotest::program::Program::new(metas, &fs.modules()).unwrap();
    let table: Vec<(u32, u32)> = program
        .sites
        .iter()
        .map(|s| (s.outcome_base, s.meta.n_outcomes))
        .collect();
    let outcomes_of = |fs: &mut ForkServer, input: &[u8]| {
        let mut cov = Coverage::default();
        let exit = fs
            .run_coverage(input, Stop::NONE, &table, &mut cov)
            .unwrap();
        (exit, cov.outcomes.clone())
    };
    let (exit, a) = outcomes_of(&mut fs, b"a");
    assert_eq!(exit, ExitKind::Ok);
    let (_, xb) = outcomes_of(&mut fs, b"xb");
    let (_, x) = outcomes_of(&mut fs, b"xx");
    assert!(a != xb && xb != x, "{a:?} {xb:?} {x:?}");
    for round in 0..3 {
        // the child waits for its next request: kill it there
        let server = fs.server_pid().unwrap();
        let kids = children(server);
        assert_eq!(kids.len(), 1, "{kids:?}");
        unsafe { libc::kill(kids[0], libc::SIGKILL) };
        std::thread::sleep(std::time::Duration::from_millis(50));
        // the next input ran, in a new process, and none after it is a step behind
        for (input, want) in [(&b"a"[..], &a), (b"xb", &xb), (b"xx", &x), (b"a", &a)] {
            let (exit, got) = outcomes_of(&mut fs, input);
            assert_eq!(exit, ExitKind::Ok, "round {round}, input {input:?}");
            assert_eq!(&got, want, "round {round}, input {input:?}");
        }
    }
}
