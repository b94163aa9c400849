//! Unit tests of path parsing, checking, enumeration and extraction on a hand-built function.

use super::*;
use crate::trace::Event;
use evotest_abi::meta::*;
use evotest_abi::pred::Pred;

/// ```c
/// int f(int n, int r, int x) {        // block 0
///     if (n < 0) return -1;           // s0 at 10:9, block 0: T → 5, F → 1
///     while (w <= r) w *= 2;          // s1 at 11:12, block 1: T → 2 (body, back to 1), F → 3
///     switch (x) { case 7: return 7; }// s2 at 11:30, block 3: default → 4, case 7 → 5
///     return 0;                       // block 4
/// }                                   // block 5: return
/// ```
pub(crate) fn program() -> Program {
    use crate::program::testutil::{block, program, site};
    let blocks = vec![
        block(vec![5, 1], Some(0)),
        block(vec![2, 3], Some(1)),
        block(vec![1], None),
        block(vec![4, 5], Some(2)),
        block(vec![], None),
        block(vec![], None),
    ];
    let sites = vec![
        SiteMeta {
            line: 10,
            col: 9,
            pred: Some(Pred::Slt),
            ..site(0, 0, "n < 0")
        },
        SiteMeta {
            line: 11,
            col: 12,
            pred: Some(Pred::Sle),
            ..site(1, 1, "w <= r")
        },
        SiteMeta {
            line: 11,
            col: 30,
            kind: SiteKind::Switch,
            outcome_labels: vec!["default".into(), "case 7".into()],
            case_values: vec![7],
            ..site(2, 3, "x")
        },
    ];
    program(blocks, sites, vec![], vec![])
}

fn st(site: u32, k: u32) -> Step {
    Step { site, k }
}

/// The loop-once path: n >= 0, one doubling, then the default of the switch.
pub(crate) fn once() -> Vec<Step> {
    vec![st(0, 1), st(1, 0), st(1, 1), st(2, 0)]
}

#[test]
fn parses_site_ids_lines_columns_conditions_and_repetitions() {
    let p = program();
    let d = Decisions::of(&p, 0);
    assert_eq!(
        parse(&p, &d, "s0:false s1:true s1:false s2:default").unwrap(),
        once()
    );
    assert_eq!(
        parse(&p, &d, "10:F, 11:12:true 11{w <= r}:false 11:30:default").unwrap(),
        once()
    );
    assert_eq!(
        parse(&p, &d, "10:false [11:12:true]*3 11:12:false 11:30:case 7").unwrap(),
        vec![st(0, 1), st(1, 0), st(1, 0), st(1, 0), st(1, 1), st(2, 1)]
    );
    // line 11 holds two decisions: the column or the condition must say which
    let e = parse(&p, &d, "11:true").unwrap_err().to_string();
    assert!(
        e.contains("ambiguous") && e.contains("11:12") && e.contains("11:30"),
        "{e}"
    );
    let e = parse(&p, &d, "10:maybe").unwrap_err().to_string();
    assert!(
        e.contains("no outcome `maybe`") && e.contains("true, false"),
        "{e}"
    );
    let e = parse(&p, &d, "12:true").unwrap_err().to_string();
    assert!(e.contains("no branch or switch"), "{e}");
    assert!(parse(&p, &d, "[10:true").is_err());
    assert!(parse(&p, &d, "").is_err());
}

#[test]
fn path_text_reads_back_as_the_same_path() {
    let p = program();
    let d = Decisions::of(&p, 0);
    let long: Vec<Step> = std::iter::once(st(0, 1))
        .chain(std::iter::repeat_n(st(1, 0), 5))
        .chain([st(1, 1), st(2, 1)])
        .collect();
    let text = path_text(&p, &long);
    assert_eq!(text, "10:9:false [11:12:true]*5 11:12:false 11:30:case 7");
    assert_eq!(parse(&p, &d, &text).unwrap(), long);
}

#[test]
fn check_walks_the_cfg() {
    let p = program();
    let d = Decisions::of(&p, 0);
    check(&p, &d, &once(), false).unwrap();
    check(&p, &d, &[st(0, 0)], false).unwrap();
    // stops before the function returns: only as a prefix
    let e = check(&p, &d, &once()[..2], false).unwrap_err().to_string();
    assert!(e.contains("incomplete") && e.contains("w <= r"), "{e}");
    check(&p, &d, &once()[..2], true).unwrap();
    // skips the loop test
    let e = check(&p, &d, &[st(0, 1), st(2, 0)], false)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("cannot come next") && e.contains("w <= r"),
        "{e}"
    );
    // goes on after the function returned
    let e = check(&p, &d, &[st(0, 0), st(1, 0)], false)
        .unwrap_err()
        .to_string();
    assert!(e.contains("returns after step 1"), "{e}");
}

#[test]
fn enumerates_acyclic_paths_and_bounded_loop_iterations() {
    let p = program();
    let d = Decisions::of(&p, 0);
    let (k0, cut) = enumerate(&p, &d, 0, 100);
    assert!(!cut);
    assert_eq!(
        k0,
        vec![
            vec![st(0, 0)],
            vec![st(0, 1), st(1, 1), st(2, 0)],
            vec![st(0, 1), st(1, 1), st(2, 1)]
        ]
    );
    let (k1, _) = enumerate(&p, &d, 1, 100);
    assert_eq!(k1.len(), 5);
    assert!(k1.contains(&once()));
    assert_eq!(k1.iter().filter(|q| loop_iterations(q) == 1).count(), 2);
    for q in &k1 {
        check(&p, &d, q, false).unwrap();
    }
    let (k2, _) = enumerate(&p, &d, 2, 100);
    assert_eq!(k2.len(), 7);
    let (capped, cut) = enumerate(&p, &d, 2, 4);
    assert_eq!((capped.len(), cut), (4, true));
}

#[test]
fn executed_path_keeps_the_functions_decisions_only() {
    let p = program();
    let d = Decisions::of(&p, 0);
    let ev = |id: u32, outcome: u32| Event {
        id,
        outcome,
        alt: 1.0,
    };
    let events = vec![
        ev(0, 1),
        ev(EVENT_DEF | 3, 0),
        ev(1, 0),
        ev(1, 1),
        ev(77, 0),
        ev(2, 0),
    ];
    assert_eq!(executed(&events, &d), once());
    assert_eq!(common_prefix(&once(), &[st(0, 1), st(1, 1)]), 1);
}

mod fuzz {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// No path spec makes the parser panic: it parses, or it is a one-line error.
        #[test]
        fn path_specs_never_panic(spec in "\\PC{0,40}") {
            let p = program();
            let d = Decisions::of(&p, 0);
            if let Ok(steps) = parse(&p, &d, &spec) {
                let _ = check(&p, &d, &steps, false);
            }
        }

        /// Nor do specs made of the grammar's own pieces.
        #[test]
        fn grammatical_path_specs_never_panic(spec in "(\\[ ?)?((s[0-9]|1[01]|1[01]:[0-9]{1,2}|11\\{[a-z <=]{0,6}\\}):(true|false|T|F|default|case [0-9]) ?){0,6}(\\]\\*[0-9]{1,3})?") {
            let p = program();
            let d = Decisions::of(&p, 0);
            if let Ok(steps) = parse(&p, &d, &spec) {
                let _ = check(&p, &d, &steps, false);
                let _ = check(&p, &d, &steps, true);
            }
        }
    }
}
