//! End-to-end tests of path testing (`evotest path`, Bueno & Jino 2002), string distances and the
//! per-execution branch-event limit.

mod common;

use common::*;

const TRITYPE: &[&str] = &[
    "--range", "a=1..100", "--range", "b=1..100", "--range", "c=1..100",
];
/// a >= b, b >= c, a < b + c, a != b, a != b, b != c, a² = b² + c²: the right-angled triangle.
const RIGHT_ANGLED: &str =
    "47:11:true 47:21:true 49:16:true 54:19:false 57:26:false 57:36:false 60:32:true";

#[test]
fn tritype_right_angled_path_is_covered_and_its_test_replays() {
    let dir = tempfile::tempdir().unwrap();
    let mut args = TRITYPE.to_vec();
    args.extend([
        "--path",
        RIGHT_ANGLED,
        "--no-reuse",
        "--seed",
        "1",
        "--max-execs",
        "20000",
    ]);
    let r = path_run("examples/tritype.c", "tritype", dir.path(), &args);
    let p = &r["paths"][0];
    assert_eq!(p["status"], "covered", "{p}");
    assert!(p["executions"].as_u64().unwrap() <= 20_000);
    // the input really is a right-angled triangle with sides in non-increasing order
    let v: Vec<i64> = ["a", "b", "c"]
        .iter()
        .map(|k| p["inputs"][k].as_i64().unwrap())
        .collect();
    let (a, b, c) = (v[0], v[1], v[2]);
    assert!(a > b && b > c && a * a == b * b + c * c, "{v:?}");
    // tests.c calls it and checks the recorded result (RIGHT_ANGLED * 10000 + area)
    let out = compile_and_run_tests_c(dir.path(), "examples/tritype.c");
    assert_eq!(out.trim(), "1 passed, 0 failed");
}

#[test]
fn an_infeasible_path_is_reported_with_its_suspect_predicate() {
    // quotient: after one doubling of w (w = 2d) the halving loop's test w != d cannot be false
    let dir = tempfile::tempdir().unwrap();
    let r = path_run(
        "examples/quotient.c",
        "quotient",
        dir.path(),
        &[
            "--range",
            "n=-100..1000",
            "--range",
            "d=-100..1000",
            "--path",
            "39:11:false 39:20:false 42:14:true 42:14:false 44:14:false",
            "--seed",
            "2",
        ],
    );
    let p = &r["paths"][0];
    assert_eq!(p["status"], "probably_infeasible", "{p}");
    assert_eq!(p["matched"], 4);
    let suspect = p["suspect_text"].as_str().unwrap();
    assert!(
        suspect.contains("quotient.c:44:14")
            && suspect.contains("`w != d`")
            && suspect.ends_with("→ false"),
        "{suspect}"
    );
    // it stopped on stagnation, long before the budget of 100,000 executions per path
    assert!(p["executions"].as_u64().unwrap() < 50_000, "{p}");
    assert_eq!(r["paths_covered"], 0);
    // and the feasible path beside it (doubling once, halving once: w = d <= n, so w <= r holds) is found
    let r = path_run(
        "examples/quotient.c",
        "quotient",
        dir.path(),
        &[
            "--range",
            "n=-100..1000",
            "--range",
            "d=-100..1000",
            "--path",
            "39:11:false 39:20:false 42:14:true 42:14:false 44:14:true 47:15:true 44:14:false",
        ],
    );
    assert_eq!(r["paths"][0]["status"], "covered", "{}", r["paths"][0]);
}

#[test]
fn the_solutions_base_answers_known_paths_and_seeds_branch_runs() {
    let dir = tempfile::tempdir().unwrap();
    let mut args = TRITYPE.to_vec();
    args.extend(["--paths", "enumerate", "--seed", "3"]);
    let r = path_run("examples/tritype.c", "tritype", dir.path(), &args);
    // 12 paths in the CFG, 8 feasible (the paper's 8); the others repeat a == b with the other outcome
    assert_eq!(r["paths_total"], 12);
    assert_eq!(r["paths_covered"], 8, "{r}");
    assert_eq!(r["paths_probably_infeasible"], 4);
    for p in r["paths"].as_array().unwrap() {
        if p["status"] == "probably_infeasible" {
            assert!(
                p["suspect_text"].as_str().unwrap().contains("`a == b`"),
                "{p}"
            );
        }
    }
    let base = std::fs::read_to_string(dir.path().join("solutions.jsonl")).unwrap();
    assert!(base.lines().count() >= 8);
    // a second run answers every feasible path from the base: one execution each, no search
    let mut again = TRITYPE.to_vec();
    again.extend(["--path", RIGHT_ANGLED, "--seed", "4"]);
    let r = path_run("examples/tritype.c", "tritype", dir.path(), &again);
    assert_eq!(r["paths"][0]["status"], "covered");
    assert_eq!(r["paths"][0]["reused"], true);
    assert_eq!(r["paths"][0]["executions"], 1);
    // a branch-coverage run in the same directory starts from the base's inputs: the right-angled
    // outcome (line 60 true) is covered within the first stored inputs
    let mut run_args = TRITYPE.to_vec();
    run_args.extend([
        "--reuse",
        "--seed",
        "5",
        "--target",
        "60:true",
        "--max-execs",
        "12",
    ]);
    let (_, rep) = run("examples/tritype.c", "tritype", dir.path(), &run_args);
    assert_eq!(rep["branches_covered"], 1, "{rep}");
}

#[test]
fn the_paper_preset_covers_a_path_with_nc_minus_ep_over_mep() {
    let dir = tempfile::tempdir().unwrap();
    let mut args = TRITYPE.to_vec();
    // isosceles with b == c: a >= b, b >= c, a < b + c, a != b, a != b, b == c
    args.extend([
        "--path",
        "47:11:true 47:21:true 49:16:true 54:19:false 57:26:false 57:36:true",
        "--preset",
        "bueno-jino",
        "--no-reuse",
        "--seed",
        "1",
    ]);
    let r = path_run("examples/tritype.c", "tritype", dir.path(), &args);
    assert_eq!(
        (
            r["algorithm"].as_str(),
            r["fitness"].as_str(),
            r["population"].as_u64()
        ),
        (Some("bjga"), Some("bueno-jino"), Some(80))
    );
    assert_eq!(r["paths"][0]["status"], "covered", "{}", r["paths"][0]);
}

#[test]
fn bad_paths_get_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    for (spec, want) in [
        ("47:11:true 49:16:true", "cannot come next"),
        ("47:11:true 47:21:true", "incomplete"),
        ("47:true", "ambiguous"),
        ("99:true", "no branch or switch"),
        ("47:11:maybe", "no outcome `maybe`"),
    ] {
        let o = evotest()
            .args([
                "path",
                "examples/tritype.c",
                "-f",
                "tritype",
                "--path",
                spec,
                "--out",
            ])
            .arg(dir.path())
            .output()
            .unwrap();
        let line = assert_one_line_error(&o);
        assert!(line.contains(want), "{spec}: {line}");
    }
    let o = evotest()
        .args([
            "path",
            "examples/quotient.c",
            "-f",
            "quotient",
            "--path",
            "39:11:true",
            "--fitness",
            "bueno-jino",
            "--out",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(assert_one_line_error(&o).contains("--algorithm bjga"));
}

#[test]
fn strcmp_gets_a_string_distance() {
    // without a distance over the strings, name == "test1" (1 string in 95^5) is out of reach of
    // 5,000 executions; with it, AVM walks there
    for seed in ["1", "2", "3"] {
        let dir = tempfile::tempdir().unwrap();
        let (_, r) = run(
            "examples/strcomp.c",
            "strcomp",
            dir.path(),
            &[
                "--string",
                "name=5",
                "--target",
                "41:false",
                "--seed",
                seed,
                "--max-execs",
                "5000",
                "--max-time",
                "0",
            ],
        );
        assert_eq!(r["branches_covered"], 1, "seed {seed}: {r}");
    }
}

#[test]
fn runaway_loops_stop_at_the_branch_event_limit() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("spin.c");
    std::fs::write(
        &src,
        "int spin(int n) { int i = 0; while (n != 5) { i++; if (i < 0) break; } return i; }\n",
    )
    .unwrap();
    let (_, r) = run(
        src.to_str().unwrap(),
        "spin",
        &dir.path().join("out"),
        &[
            "--range",
            "n=0..4",
            "--max-execs",
            "3",
            "--max-branch-events",
            "100000",
            "--timeout",
            "30s",
        ],
    );
    // every input loops forever: each is stopped by the limit, recorded, and the run goes on
    assert_eq!(r["executions"], 3);
    assert_eq!(r["faults"]["step_limit"], 3, "{r}");
    assert!(r["faults"].get("timeout").is_none(), "{r}");
}

#[test]
fn bench_paths_runs_the_listed_paths_beside_the_papers_figures() {
    let dir = tempfile::tempdir().unwrap();
    let o = evotest()
        .args([
            "bench-paths",
            "--only",
            "tritype",
            "--attempts",
            "1",
            "--modes",
            "avm,random",
            "-q",
            "--name",
            "t",
            "--out",
        ])
        .arg(dir.path())
        .arg("--work")
        .arg(dir.path().join("work"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let md = std::fs::read_to_string(dir.path().join("t.md")).unwrap();
    assert!(
        md.contains("| tritype | 8 (0) | 100000 | 373.0 | 608.4 | 3861.4 |"),
        "{md}"
    );
    let json = read_json(&dir.path().join("t.json"));
    let records = json["records"].as_array().unwrap();
    assert_eq!(records.len(), 16);
    // evotest's AVM takes every one of tritype's 8 feasible paths
    assert!(
        records
            .iter()
            .filter(|r| r["mode"] == "avm")
            .all(|r| r["success"] == true),
        "{json}"
    );
}

/// A `&&` in a loop header is one branch on a `phi` after its first condition's branch: a path
/// with the first condition false and the loop entered is impossible, and the enumeration no
/// longer lists it (each such path cost the search a whole give-up budget, 60 s apiece in a
/// robustness check, and was then reported as probably infeasible).
#[test]
fn enumeration_leaves_out_what_a_short_circuit_rules_out() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("sc.c");
    std::fs::write(&src, "int sc(int n, int limit) {\n    int steps = 0;\n    while (n != 1 && steps < limit) {\n        n--;\n        steps++;\n    }\n    return steps;\n}\n").unwrap();
    let o = evotest()
        .arg("path")
        .arg(&src)
        .args(["-f", "sc", "--paths", "enumerate:1", "--list"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    let paths: Vec<&str> = out
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .collect();
    // n != 1 true then the whole condition either way, once or twice; n != 1 false: the whole false
    assert_eq!(paths.len(), 4, "{out}");
    assert!(
        paths.iter().all(|p| !p.contains("3:14:false 3:5:true")),
        "{out}"
    );
    assert!(paths.contains(&"3:14:false 3:5:false"), "{out}");
}

/// Paths of tens of thousands of decisions (a loop an input runs up to 30,000 times) are not
/// recorded in the solutions base, which stays bounded (before, a five-decision search wrote
/// 31 MB, and a longer run gigabytes, rewritten after every path); a fault the searches met is
/// named in the summary and counted in paths.json.
#[test]
fn the_solutions_base_leaves_out_long_paths_and_faults_met_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("walk.c");
    std::fs::write(
        &src,
        "#include <stdlib.h>\n\
         int walk(int n, int x) {\n\
         \x20   int s = 0;\n\
         \x20   if (n > 28000)\n\
         \x20       abort();\n\
         \x20   for (int i = 0; i < n; i++)\n\
         \x20       if ((x + i) % 3 == 0)\n\
         \x20           s++;\n\
         \x20   if (s > 2)\n\
         \x20       return 1;\n\
         \x20   return 0;\n\
         }\n",
    )
    .unwrap();
    let out = dir.path().join("out");
    let o = evotest()
        .args([
            "path",
            src.to_str().unwrap(),
            "-f",
            "walk",
            "--range",
            "n=0..30000",
        ])
        .args([
            "--range",
            "x=0..100",
            "--paths",
            "enumerate:1",
            "--max-paths",
            "2",
        ])
        .args(["--max-execs", "300", "--seed", "1", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let base = std::fs::read_to_string(out.join("solutions.jsonl")).unwrap();
    let lines: Vec<serde_json::Value> = base
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(!lines.is_empty());
    let longest = lines
        .iter()
        .map(|l| l["path"].as_array().unwrap().len())
        .max()
        .unwrap();
    assert!(
        longest <= 10_000,
        "a path of {longest} decisions was recorded"
    );
    let r = read_json(&out.join("paths.json"));
    assert!(r["faults_met"].as_u64().unwrap() >= 1, "{r}");
    assert!(stdout.contains("distinct fault"), "{stdout}");
    assert!(out.join("faults").read_dir().unwrap().next().is_some());
}

/// A path of a recursive function is every decision of an execution, its recursive calls'
/// included, in order: one that stops at the call is refused up front as incomplete (before, the
/// search spent its budget on it), `--prefix` takes it, and the path through the call (gcd(4, 2),
/// then gcd(2, 0)'s `b == 0` true) is checked against the CFG across the call and covered.
#[test]
fn a_recursive_function_s_path_runs_through_its_calls_and_prefix_takes_a_cut_one() {
    let dir = tempfile::tempdir().unwrap();
    let path = "5:11:false 6:11:false 6:20:false";
    let o = evotest()
        .args([
            "path",
            "tests/fixtures/rec_gcd.c",
            "-f",
            "gcd",
            "--path",
            path,
        ])
        .arg("--out")
        .arg(dir.path())
        .output()
        .unwrap();
    // the note on recursion, then the one-line error
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.starts_with("note: gcd calls itself"), "{err}");
    let line = err.lines().last().unwrap();
    assert!(
        line.starts_with("error: ") && line.contains("incomplete"),
        "{err}"
    );
    assert!(
        line.contains("b == 0") && !err.contains("panicked"),
        "{err}"
    );
    let (_, r) = invoke(
        "path",
        "tests/fixtures/rec_gcd.c",
        "gcd",
        &dir.path().join("prefix"),
        &[
            "--path",
            path,
            "--prefix",
            "--max-execs",
            "2000",
            "--seed",
            "2",
        ],
        "paths.json",
    );
    assert_eq!(r["paths"][0]["status"], "covered", "{}", r["paths"][0]);
    let whole = format!("{path} 5:11:true");
    let (o, r) = invoke(
        "path",
        "tests/fixtures/rec_gcd.c",
        "gcd",
        &dir.path().join("whole"),
        &["--path", &whole, "--max-execs", "2000", "--seed", "2"],
        "paths.json",
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("note: gcd calls itself"), "{err}");
    assert_eq!(r["paths"][0]["status"], "covered", "{}", r["paths"][0]);
}

/// A `select` site chooses a value without branching, so it is no step of a path: naming one
/// says so in one line (it was "cannot come next" before).
#[test]
fn a_select_site_named_as_a_path_step_is_explained() {
    let dir = tempfile::tempdir().unwrap();
    let sites = evotest()
        .args(["sites", "tests/fixtures/select_step.c"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&sites.stdout);
    let id = text
        .lines()
        .find(|l| l.contains("select"))
        .and_then(|l| l.split_whitespace().next())
        .unwrap_or_else(|| panic!("no select site in:\n{text}"))
        .trim_end_matches(':')
        .to_string();
    let o = evotest()
        .args([
            "path",
            "tests/fixtures/select_step.c",
            "-f",
            "pick",
            "--path",
        ])
        .arg(format!("s{id}:true"))
        .arg("--out")
        .arg(dir.path())
        .output()
        .unwrap();
    let line = assert_one_line_error(&o);
    assert!(line.contains("is a `select` site"), "{line}");
}
