//! End-to-end tests of API testing (`evotest run --api`): call sequences built by
//! feedback-directed random testing (Pacheco 2009).

mod common;

use common::*;

/// Run `evotest run FILE --api ARGS… --out OUT` and return report.json.
fn run_api(
    file: &str,
    out: &std::path::Path,
    args: &[&str],
) -> (std::process::Output, serde_json::Value) {
    let o = evotest()
        .args(["run", file, "--api", "--out"])
        .arg(out)
        .args(args)
        .output()
        .expect("run evotest");
    assert!(
        o.status.success(),
        "evotest run {file} --api {args:?} failed:\n{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    (o, read_json(&out.join("report.json")))
}

#[test]
fn call_sequences_cover_an_api_and_tests_c_replays_them() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("bag");
    let (o, r) = run_api(
        "tests/fixtures/api.c",
        &out,
        &["--max-execs", "30000", "--seed", "1"],
    );
    assert_eq!(r["algorithm"], "seq");
    assert_eq!(
        r["branches_covered"],
        r["branches_total"],
        "uncovered {:?}",
        uncovered(&r)
    );
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains("`bag_free` (it frees `b`) taken as destructor"),
        "{stdout}"
    );
    // the operations: external functions only, with their source prototypes
    let suite = read_json(&out.join("suite.json"));
    let ops: Vec<String> = suite["params"]["operations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    assert_eq!(ops.len(), 8, "{ops:?}");
    assert!(ops.iter().any(|p| p == "Bag *bag_new(void)"), "{ops:?}");
    assert!(
        ops.iter()
            .any(|p| p == "int bag_add(Bag *b, const char *name, double w)"),
        "{ops:?}"
    );
    assert!(
        !ops.iter().any(|p| p.contains("valid_weight")),
        "a static function is no operation: {ops:?}"
    );
    // the test that first covered the lookup of an added name: shortened to what it needs (a
    // bag, an add and the lookup of the same name, maybe more), within the sequence limit
    let tests = suite["tests"].as_array().unwrap();
    let found = tests
        .iter()
        .find(|t| {
            t["covers_first"].as_array().unwrap().iter().any(|c| {
                c.as_str()
                    .unwrap()
                    .contains("`strcmp(?, name) == 0` → true")
            })
        })
        .expect("a test covering the found name");
    let calls = found["inputs"]["calls"].as_array().unwrap();
    assert!(
        calls.len() >= 3 && calls.len() <= 8,
        "{}",
        found["inputs"]["text"]
    );
    assert!(
        stdout.contains("api: the kept sequences were shortened from"),
        "{stdout}"
    );
    // tests.c: every call as the run made it, its return values asserted, and it passes
    let t = compile_and_run_tests_c(&out, "tests/fixtures/api.c");
    assert!(t.trim().ends_with("passed, 0 failed"), "{t}");
    let text = std::fs::read_to_string(out.join("tests.c")).unwrap();
    assert!(
        text.contains("Bag *v0 = bag_new();"),
        "{}",
        &text[..text.len().min(3000)]
    );
    assert!(
        text.contains("evotest_check_int(\"test_"),
        "return values are asserted"
    );
    assert!(
        text.contains("evotest_check_f64(\"test_"),
        "double returns are asserted bit-exactly"
    );
    // a (buffer, length) pair: the elements, and their count as the length
    let call = text
        .lines()
        .find(|l| l.contains("bag_add_weights(v") && l.contains("(double[]){"))
        .expect("a bag_add_weights call with elements");
    let inside = call.split("(double[]){").nth(1).unwrap();
    let (elems, rest) = inside.split_once('}').unwrap();
    let n = elems.split(", ").count();
    assert!(
        rest.starts_with(&format!(", {n})")),
        "the length is the count of elements: {call}"
    );
}

#[test]
fn a_bug_that_needs_a_sequence_is_found_and_replayed() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("ring");
    let (_, r) = run_api(
        "examples/api/ringbuf.c",
        &out,
        &["--max-execs", "20000", "--seed", "0"],
    );
    assert!(
        r["faults"]["crash"].as_u64().unwrap_or(0) > 0,
        "the resize bug was not found: {}",
        r["faults"]
    );
    // one bug, one failed assertion: sequences that reach it another way are the same fault
    assert_eq!(r["fault_reproducers"], 1, "{}", r["faults"]);
    let suite = read_json(&out.join("suite.json"));
    let said = suite["faults"][0]["message"].as_str().unwrap_or_default();
    assert!(
        said.ends_with("ringbuf.c:44: Assertion `r->head >= 0 && r->head < r->cap' failed."),
        "{said}"
    );
    // tests.c expects the abort in a child, after the sequence that leads to it
    let t = compile_and_run_tests_c(&out, "examples/api/ringbuf.c");
    assert!(t.trim().ends_with("passed, 0 failed"), "{t}");
    let text = std::fs::read_to_string(out.join("tests.c")).unwrap();
    assert!(
        text.contains("/* recorded: crashes with SIGABRT, in the call of ring_pop: ")
            && text.contains("Assertion `r->head >= 0 && r->head < r->cap' failed. */"),
        "{}",
        &text[..text.len().min(2000)]
    );
    assert!(
        text.contains("ring_resize(v"),
        "the sequence shrinks a buffer"
    );
}

#[test]
fn api_options_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    // a per-goal algorithm has nothing to search in a call sequence
    let o = evotest()
        .args(["run", "tests/fixtures/api.c", "--api", "-a", "avm", "--out"])
        .arg(dir.path().join("a"))
        .output()
        .unwrap();
    let e = assert_one_line_error(&o);
    assert!(e.contains("seq, randoop, godel, random"), "{e}");
    // C++ sources
    let o = evotest()
        .args(["run", "tests/fixtures/cxx.cpp", "--api", "--out"])
        .arg(dir.path().join("x"))
        .output()
        .unwrap();
    let e = assert_one_line_error(&o);
    assert!(e.contains("--api tests C APIs"), "{e}");
    // the solutions base is one function's (it named a function `api`)
    let o = evotest()
        .args(["run", "tests/fixtures/api.c", "--api", "--reuse", "--out"])
        .arg(dir.path().join("r"))
        .output()
        .unwrap();
    let e = assert_one_line_error(&o);
    assert!(e.contains("--reuse does not apply with --api"), "{e}");
    // options a sequence search does not read are said to have no effect
    let o = evotest()
        .args([
            "run",
            "tests/fixtures/api.c",
            "--api",
            "--init",
            "uniform",
            "--max-execs",
            "200",
            "--out",
        ])
        .arg(dir.path().join("i"))
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        o.status.success() && e.contains("--init has no effect"),
        "{e}"
    );
    // globs that match no function
    let o = evotest()
        .args(["run", "tests/fixtures/api.c", "--api=queue_*", "--out"])
        .arg(dir.path().join("b"))
        .output()
        .unwrap();
    let e = assert_one_line_error(&o);
    assert!(e.contains("no external function matches"), "{e}");
    // narrowed by a glob: bag_new and bag_add only
    let o = evotest()
        .args([
            "run",
            "tests/fixtures/api.c",
            "--api=bag_new,bag_add",
            "--max-execs",
            "3000",
            "--out",
        ])
        .arg(dir.path().join("c"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let suite = read_json(&dir.path().join("c").join("suite.json"));
    assert_eq!(suite["params"]["operations"].as_array().unwrap().len(), 2);
    // a list without the constructor: the handle is a zeroed block, and a note says why crashes
    // through it may be misuse
    let o = evotest()
        .args([
            "run",
            "examples/api/strmap.c",
            "--api=map_put,map_size",
            "--max-execs",
            "500",
            "--out",
        ])
        .arg(dir.path().join("d"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let r = read_json(&dir.path().join("d").join("report.json"));
    let notes: Vec<&str> = r["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    assert!(
        notes
            .iter()
            .any(|n| n.contains("`struct strmap` is given") && n.contains("`map_new`")),
        "{notes:?}"
    );
}

#[test]
fn caller_allocated_objects_are_zeroed_and_initialized_first() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("init");
    let (o, r) = run_api(
        "tests/fixtures/api_init.c",
        &out,
        &["--max-execs", "20000", "--seed", "2"],
    );
    assert_eq!(
        r["branches_covered"],
        r["branches_total"],
        "uncovered {:?}",
        uncovered(&r)
    );
    // an uninitialized stack never reaches stack_push: no fault
    assert!(
        r["faults"].as_object().is_none_or(|f| f.is_empty()),
        "{}",
        r["faults"]
    );
    let stdout = String::from_utf8_lossy(&o.stdout);
    // in every test, a caller-allocated stack is allocated zeroed, and the first call that takes
    // it is the initializer
    let tests: Vec<&str> = stdout
        .lines()
        .filter(|l| l.contains("= &(struct stack){0}"))
        .collect();
    assert!(!tests.is_empty(), "{stdout}");
    for t in tests {
        for part in t.split("; ") {
            if let Some(v) = part
                .trim()
                .split(" = &(struct stack){0}")
                .next()
                .filter(|_| part.contains("= &(struct stack){0}"))
            {
                let v = v.rsplit(' ').next().unwrap_or(v);
                let first_use = t
                    .split("; ")
                    .find(|c| c.contains(&format!("({v},")) || c.contains(&format!("({v})")));
                assert!(
                    first_use.is_none_or(|c| c.contains(&format!("stack_init({v},"))),
                    "{v} used before stack_init in {t}"
                );
            }
        }
    }
    let t = compile_and_run_tests_c(&out, "tests/fixtures/api_init.c");
    assert!(t.trim().ends_with("passed, 0 failed"), "{t}");
    let text = std::fs::read_to_string(out.join("tests.c")).unwrap();
    assert!(
        text.contains("struct stack *v0 = calloc(1, sizeof(struct stack));"),
        "{}",
        &text[..text.len().min(3000)]
    );
}

/// `v = vec_push(v, x)` (C's realloc idiom) replaces the value it is given, and a value returned
/// that the harness already holds (`vec_dup(v)` returning `v`) is no second value: no sequence
/// frees one object twice or uses a moved one, so no fault is reported, and tests.c passes.
#[test]
fn values_returned_in_place_of_their_argument_are_not_freed_twice() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("vec");
    let (o, r) = run_api(
        "tests/fixtures/api_grow.c",
        &out,
        &["--max-execs", "20000", "--seed", "1"],
    );
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains("`vec_push` returns a value of a type it is given, taken to replace it"),
        "{stdout}"
    );
    assert_eq!(r["fault_reproducers"], 0, "{stdout}");
    // the realloc and the full vector are reached through the values vec_push returned
    assert!(
        !uncovered(&r)
            .iter()
            .any(|(_, c, l)| c.contains("v->n == v->cap") && l == "true"),
        "{:?}",
        uncovered(&r)
    );
    let t = compile_and_run_tests_c(&out, "tests/fixtures/api_grow.c");
    assert!(t.trim().ends_with("passed, 0 failed"), "{t}");
}

/// What a call frees comes from the data flow of its parameters, not from its name:
/// `cur_finish(k)` frees its cursor through a static helper (no naming rule knows it), and
/// `ctr_close(h)` only marks the counter, which stays usable (a naming rule took it for a
/// destructor, or left it out). `void *` handles that a function of no pointer parameters
/// returns (`ctr_new`) are handles, not zeroed scratch blocks. A zeroed caller-allocated object
/// that `box_close` frees is not freed again by the harness. On the code before, the run
/// reported 19,698 crash executions (every one misuse or the harness's own double free) and
/// covered 3 of 22 outcomes.
#[test]
fn what_a_call_frees_comes_from_data_flow_and_void_pointer_handles_are_kept() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("flow");
    let (o, r) = run_api(
        "tests/fixtures/api_flow.c",
        &out,
        &["--max-execs", "20000", "--seed", "1"],
    );
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert_eq!(r["fault_reproducers"], 0, "{stdout}");
    assert!(!stdout.contains("\nfaults:"), "{stdout}");
    assert!(
        stdout.contains("`cur_finish` (it frees `k`)")
            && stdout.contains("`ctr_free` (it frees `h`)"),
        "{stdout}"
    );
    assert!(!stdout.contains("`ctr_close` ("), "{stdout}");
    assert!(!stdout.contains("`ctr_close` left out"), "{stdout}");
    let left = uncovered(&r);
    // reached only after ctr_close, on the same counter
    assert!(
        !left
            .iter()
            .any(|(_, c, l)| c.contains("closed") && l == "true"),
        "{left:?}"
    );
    // a cursor that cur_next steps through, on a counter ctr_add raised
    assert!(
        !left
            .iter()
            .any(|(_, c, l)| c.contains("left <= 0") && l == "false"),
        "{left:?}"
    );
    let t = compile_and_run_tests_c(&out, "tests/fixtures/api_flow.c");
    assert!(t.trim().ends_with("passed, 0 failed"), "{t}");
}

/// An API whose only constructor takes a callback cannot be called at all: the run ends with a
/// one-line error that says why for each function (before, it ran empty sequences and reported
/// 0% with exit 0).
#[test]
fn an_api_whose_constructor_takes_a_callback_is_an_error_that_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let o = evotest()
        .args([
            "run",
            "tests/fixtures/api_callback.c",
            "--api",
            "--max-execs",
            "2000",
            "--out",
        ])
        .arg(dir.path().join("cb"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        err.contains("`em_new` left out: parameter `on_error` is a function pointer"),
        "{err}"
    );
    assert!(
        // (the handle type by its structure's tag: `emitter` is a typedef of `struct emitter`)
        err.contains("`em_subscribe` left out: parameter `e` is a `struct emitter *`, which no operation called makes (`em_new` returns one but is itself left out)"),
        "{err}"
    );
}

#[test]
fn a_call_that_never_ends_stops_at_its_own_branch_event_limit_and_its_reproducer_shows_what_ran() {
    // box_move(v, v) never ends: each call of a sequence has --max-branch-events of its own, so
    // such a call stops as a step limit after that many events (not at the whole sequence's
    // allowance of N x --max-calls, which ran into the 1 s timeout at every execution), and the
    // replays that write tests.c stop there too
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("hang");
    let t0 = std::time::Instant::now();
    let (o, r) = run_api(
        "tests/fixtures/api_hang.c",
        &out,
        &["--max-execs", "3000", "--max-time", "60s", "--seed", "1"],
    );
    let took = t0.elapsed();
    let console =
        String::from_utf8_lossy(&o.stdout).to_string() + &String::from_utf8_lossy(&o.stderr);
    assert_eq!(r["branches_covered"], 10, "{console}");
    assert_eq!(r["branches_total"], 10, "{console}");
    assert!(
        r["faults"]["step_limit"].as_u64().unwrap_or(0) > 0,
        "{}",
        r["faults"]
    );
    assert_eq!(
        r["faults"]["timeout"].as_u64().unwrap_or(0),
        0,
        "{}",
        r["faults"]
    );
    // each hang took the 1 s timeout before (and as much again in each replay): over 40 s
    assert!(took.as_secs() < 30, "took {took:?}:\n{console}");
    // a hang is no sign of state kept between calls
    assert!(!console.contains("keeps state"), "{console}");
    // every reproducer ends with the call that did not return, and names no call after it
    let lines: Vec<&str> = console
        .lines()
        .filter(|l| l.contains("faults/step_limit"))
        .collect();
    assert!(!lines.is_empty(), "{console}");
    for l in lines {
        let calls = l.split_once(".input  ").map(|(_, c)| c).unwrap_or_default();
        let (calls, end) = calls.rsplit_once(" -> ").unwrap_or_default();
        assert_eq!(end, "branch-event limit exceeded", "{l}");
        let last = calls.rsplit("; ").next().unwrap_or_default();
        assert!(last.starts_with("box_move("), "{l}");
        // box_move(vI, vI) on a box made before it and not given up since
        let arg = last
            .trim_start_matches("box_move(")
            .split(", ")
            .next()
            .unwrap_or_default();
        assert!(calls.contains(&format!("{arg} = box_new(")), "{l}");
        assert!(!calls.contains(&format!("box_free({arg})")), "{l}");
    }
    let t = compile_and_run_tests_c(&out, "tests/fixtures/api_hang.c");
    assert!(t.trim().ends_with(" 0 failed"), "{t}");
}

#[test]
fn functions_no_operation_reaches_are_no_goals() {
    // other_fn is left out by --api='c_*' and called by no operation: its outcomes were goals
    // nothing could cover (2 of 4, the whole budget spent); c_helper, reached through c_add, stays
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("glob");
    let o = evotest()
        .args(["run", "tests/fixtures/api_glob.c", "--api=c_*", "--out"])
        .arg(&out)
        .args(["--max-execs", "5000", "--seed", "1"])
        .output()
        .unwrap();
    let console = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{console}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let r = read_json(&out.join("report.json"));
    assert_eq!(r["branches_total"], 4, "{console}");
    assert_eq!(r["branches_covered"], 4, "{console}");
    assert!(r["executions"].as_u64().unwrap() < 5000, "{r}");
}

/// A function that writes into the string or the bytes it is given (`cJSON_Minify`): tests.c
/// passed string literals, read-only, and every such test ended in SIGSEGV (cJSON: 14 of 128
/// tests and reproducers failed); it passes writable arrays now, as the search did. A `const
/// void *` with a length after it is a buffer too (it was a zeroed scratch block whose length
/// was any integer: libcsv's four reported crashes were all such reads past it).
#[test]
fn strings_and_buffers_a_call_writes_are_writable_in_tests_c() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("w");
    let (_, r) = run_api(
        "tests/fixtures/api_write.c",
        &out,
        &["--max-execs", "5000", "--seed", "1"],
    );
    assert_eq!(
        r["branches_covered"],
        r["branches_total"],
        "{:?}",
        uncovered(&r)
    );
    // `const void *src, size_t src_size` is a buffer and its length: no read past it
    assert_eq!(r["fault_reproducers"], 0, "{r:#}");
    let t = compile_and_run_tests_c(&out, "tests/fixtures/api_write.c");
    assert!(t.trim().ends_with("passed, 0 failed"), "{t}");
}

/// Observers (one handle in, a scalar out: `acct_balance`) are called at the end of every kept
/// sequence that returned normally, so `tests.c` checks the objects' state: a mutant of
/// `acct_withdraw` that changes only the balance fails the unchanged suite (it survived when
/// the suites called only the operations that cover branches: a robustness check, 2026-12-01).
#[test]
fn observers_are_called_at_the_end_of_the_kept_sequences() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("acct.c");
    let text = std::fs::read_to_string(path("tests/fixtures/acct.c")).unwrap();
    std::fs::write(&src, &text).unwrap();
    let out = dir.path().join("out");
    let (o, r) = run_api(
        src.to_str().unwrap(),
        &out,
        &["--max-execs", "20000", "--seed", "1"],
    );
    assert_eq!(r["branches_covered"], r["branches_total"]);
    let said = String::from_utf8_lossy(&o.stdout);
    assert!(said.contains("of observers"), "{said}");
    let tests = std::fs::read_to_string(out.join("tests.c")).unwrap();
    assert!(tests.contains("acct_balance("), "{tests}");
    let (said, ok) = build_and_run_tests_c(&out, "t", &[]);
    assert!(ok, "{said}");
    std::fs::write(
        &src,
        text.replacen("a->balance -= amt;", "a->balance -= amt - 1;", 1),
    )
    .unwrap();
    let (said, ok) = build_and_run_tests_c(&out, "t", &[]);
    assert!(!ok, "the mutant passed:\n{said}");
}

/// A handle type spelled two ways (`struct counter *` from the constructor, the typedef
/// `counter_t *` in the operations) is one handle type: the operations get the counters the
/// constructor made, not zeroed blocks, so there is no false fault and every outcome is covered.
#[test]
fn a_handle_type_spelled_through_a_typedef_is_the_same_handle_type() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("tdef");
    let (_, r) = run_api(
        "tests/fixtures/api_typedef.c",
        &out,
        &["--max-execs", "20000", "--seed", "1"],
    );
    assert_eq!(r["branches_covered"], r["branches_total"], "{r:#}");
    let faults = read_json(&out.join("suite.json"))["faults"].clone();
    assert_eq!(faults.as_array().map(Vec::len), Some(0), "{faults:#}");
    let t = compile_and_run_tests_c(&out, "tests/fixtures/api_typedef.c");
    assert!(t.trim().ends_with("passed, 0 failed"), "{t}");
}

/// An API stops at full branch coverage and says that faults past it were not looked for; with
/// `--keep-going` it generates sequences until the budget ends, and finds the crash of the fifth
/// push of a stack without a bounds check (no branch anywhere: the search stopped after one
/// sequence, fault-free).
#[test]
fn keep_going_searches_an_api_past_full_coverage() {
    let src = "tests/fixtures/api_nobranch.c";
    let dir = tempfile::tempdir().unwrap();
    let (o, _) = run_api(src, &dir.path().join("a"), &["--max-execs", "20000"]);
    let err = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        err.contains("the API has no branch to cover): faults"),
        "{err}"
    );
    assert!(err.contains("--keep-going"), "{err}");
    let (_, r) = run_api(
        src,
        &dir.path().join("b"),
        &["--keep-going", "--max-execs", "20000", "--seed", "1"],
    );
    assert!(r["faults"]["crash"].as_u64().unwrap_or(0) >= 1, "{r:#}");
    assert_eq!(r["executions"], 20000, "{r:#}");
}

/// A returned number that differs between two runs of the same sequence (an address) is not
/// compared: tests.c passes run after run.
#[test]
fn values_that_differ_between_runs_are_not_asserted() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("v");
    run_api(
        "tests/fixtures/api_varying.c",
        &out,
        &["--max-execs", "3000", "--seed", "1"],
    );
    let text = std::fs::read_to_string(out.join("tests.c")).unwrap();
    assert!(text.contains("differed between two runs"), "{text}");
    for _ in 0..3 {
        let t = compile_and_run_tests_c(&out, "tests/fixtures/api_varying.c");
        assert!(t.trim().ends_with("passed, 0 failed"), "{t}");
    }
}

/// The branches of an operation left out (a callback parameter) are not in the figure, and a
/// note says so and how many.
#[test]
fn branches_of_operations_left_out_are_named_in_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let (_, r) = run_api(
        "tests/fixtures/api_leftout.c",
        &dir.path().join("l"),
        &["--max-execs", "2000"],
    );
    let notes = r["notes"].to_string();
    assert!(
        notes.contains(
            "4 branch outcomes of `list_each` (reached by no operation) are not in the figure"
        ),
        "{notes}"
    );
}
