//! The evaluation cache is bounded by the memory its entries hold, operand logs included, and a
//! search whose cached evaluations left it stays within its execution budget.
//!
//! Before 2026-12-02 (twenty-sixth session) the cache sized itself from its first entry's site
//! records and distances and left the operand logs out of the count: on a function whose loop
//! logs thousands of compares' operands per execution, it held every evaluation, about 100 KB
//! each (`evotest run` at 100,000 executions: 5.0 GB of memory, 32.7 s; now 124 MB, 12.4 s).
//! Once bounded, inputs a search re-read could have left it, and two places ran them again past
//! the budget (chaining's re-read of a sequence's best input; the run reported 10,001 executions
//! of 10,000).

mod common;

use common::*;

/// A loop of up to 4,095 iterations whose compare is logged at each, and a goal nothing covers
/// (the search runs to its budget).
const LOOP: &str = "int f(int n, int m) {
  int s = 0;
  for (int i = 0; i < (n & 4095); i++) {
    if (i * m == 1234567 && i < 0) s++;
  }
  return s;
}
";

/// `evotest run` on LOOP within `execs` executions: its report and the peak resident set of the
/// process and its reaped children (clang's is below 300 MB), in MB.
fn run_loop(execs: u32) -> (serde_json::Value, i64) {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("loop.c");
    std::fs::write(&file, LOOP).unwrap();
    let out = tmp.path().join("out");
    // reaped by wait4 below, which gives its resource usage
    #[allow(clippy::zombie_processes)]
    let child = evotest()
        .arg("run")
        .arg(&file)
        .args(["-f", "f", "--max-time", "0", "-q", "--max-execs"])
        .arg(execs.to_string())
        .arg("--out")
        .arg(&out)
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("run evotest");
    let (mut status, mut usage) = (0, unsafe { std::mem::zeroed::<libc::rusage>() });
    let pid = child.id() as libc::pid_t;
    assert_eq!(unsafe { libc::wait4(pid, &mut status, 0, &mut usage) }, pid);
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "status {status}"
    );
    let r = read_json(&out.join("report.json"));
    assert_eq!(r["branches_covered"], 5);
    (r, usage.ru_maxrss / 1024)
}

#[test]
fn a_search_on_a_loop_with_long_operand_logs_keeps_to_its_memory() {
    // before: 477 MB at 10,000 executions and 5.0 GB at 100,000 (every evaluation's log kept)
    let (r, peak_mb) = run_loop(30000);
    assert_eq!(r["executions"], 30000);
    assert!(peak_mb < 400, "peak resident set {peak_mb} MB");
}

#[test]
fn a_search_whose_cached_inputs_left_the_cache_keeps_to_its_budget() {
    // before the fix: 10,001 executions
    let (r, _) = run_loop(10000);
    assert_eq!(r["executions"], 10000, "the budget is 10,000 executions");
}
