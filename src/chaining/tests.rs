//! Event sequences on a hand-built `flag_avoid_loop_assignment` (McMinn & Holcombe 2004, Fig. 3):
//!
//! ```text
//! b0: flag = 1 (d0); i = 0 (d1)          -> b1
//! b1: i < 3            (site 0)           -> b2 | b4
//! b2: a[i] != 0        (site 1)           -> b3 | b5
//! b3: flag = 0 (d2)                       -> b5
//! b5: i = i + 1 (d3)                      -> b1
//! b4: if (flag != 0)   (site 2, index 1)  -> b6 | b7
//! ```

use super::*;
use crate::fitness::Analysis;
use crate::program::testutil;
use evotest_abi::meta::*;

const FLAG: u32 = 0;
const I: u32 = 1;

fn program() -> Program {
    let site = |id: u32, block: u32, index: u32, cond: &str, uses: Vec<u32>| SiteMeta {
        index,
        uses,
        ..testutil::site(id, block, cond)
    };
    let def = |id: u32, var: u32, block: u32, index: u32, text: &str| DefMeta {
        id,
        var,
        function: 0,
        block,
        index,
        file: "f.c".into(),
        line: 20 + id,
        col: 1,
        text: text.into(),
        param_init: false,
        partial: false,
        probed: true,
        uses: vec![],
    };
    let var = |id: u32, name: &str| VarMeta {
        id,
        name: name.into(),
        kind: VarKind::Local,
        function: Some(0),
    };
    let blk = testutil::block;
    testutil::program(
        vec![
            blk(vec![1], None),
            blk(vec![2, 4], Some(0)),
            blk(vec![3, 5], Some(1)),
            blk(vec![5], None),
            blk(vec![6, 7], Some(2)),
            blk(vec![1], None),
            blk(vec![], None),
            blk(vec![], None),
        ],
        vec![
            site(0, 1, 0, "i < 3", vec![I]),
            site(1, 2, 0, "a[i] != 0", vec![I]),
            site(2, 4, 1, "flag != 0", vec![FLAG]),
        ],
        vec![var(FLAG, "flag"), var(I, "i")],
        vec![
            def(0, FLAG, 0, 0, "flag = 1"),
            def(1, I, 0, 1, "i = 0"),
            def(2, FLAG, 3, 0, "flag = 0"),
            def(3, I, 5, 0, "i = i + 1"),
        ],
    )
}

fn br(site: u32, outcome: u32, alt: f64) -> Event {
    Event {
        id: site,
        outcome,
        alt,
    }
}

fn def(d: u32) -> Event {
    Event {
        id: EVENT_DEF | d,
        outcome: 0,
        alt: 0.0,
    }
}

/// The trace of a = {5, 0, 7}: the flag is reset twice.
fn trace_507() -> Vec<Event> {
    vec![
        def(0),
        def(1),
        br(0, 0, 3.0),
        br(1, 0, 5.0), // a[0] != 0 is true; distance to false |5 - 0| = 5
        def(2),
        def(3),
        br(0, 0, 2.0),
        br(1, 1, 1.0), // a[1] == 0
        def(3),
        br(0, 0, 1.0),
        br(1, 0, 7.0),
        def(2),
        def(3),
        br(0, 1, 1.0),
        br(2, 1, 1.0), // flag is 0: the target's false outcome
    ]
}

fn chain() -> Chain {
    let p = program();
    Chain::new(&p, Analysis::new(&p))
}

#[test]
fn the_initial_sequence_expands_into_the_last_definitions_of_flag() {
    let c = chain();
    let root = initial(2, 0);
    let (f, k) = c.fitness(&root, &trace_507());
    assert_eq!(k, Some(0));
    assert_eq!(f, 0.5); // the target's site ran; distance 1 to true, normalised
    assert_eq!(c.problem(&root, 0, &trace_507()), Some((2, 0)));
    let kids = c.expand(&root, &trace_507());
    let text: Vec<String> = kids.iter().map(|s| c.describe(s)).collect();
    assert_eq!(
        text,
        vec![
            "⟨(L20 flag = 1, {flag}), (L12 flag != 0 → true, ∅)⟩",
            "⟨(L22 flag = 0, {flag}), (L12 flag != 0 → true, ∅)⟩"
        ]
    );
}

#[test]
fn violations_of_the_constraint_guide_every_element_to_zero() {
    let c = chain();
    let avoid = Sequence {
        events: vec![
            ChainEvent {
                node: Node::Def { def: 0 },
                constraint: vec![FLAG],
            },
            ChainEvent {
                node: Node::Take {
                    site: 2,
                    outcome: 0,
                },
                constraint: vec![],
            },
        ],
    };
    // flag = 0 ran twice, after a[0] != 0 (distance 5) and a[2] != 0 (distance 7)
    let (f, k) = c.fitness(&avoid, &trace_507());
    assert_eq!(k, Some(1));
    assert_eq!(f, 5.0 / 6.0 + 7.0 / 8.0 + 0.5);
    // with a = {1, 0, 0} only one reset, and a nearer one: better
    let t = vec![
        def(0),
        def(1),
        br(0, 0, 3.0),
        br(1, 0, 1.0),
        def(2),
        def(3),
        br(0, 0, 2.0),
        br(1, 1, 1.0),
        def(3),
        br(0, 0, 1.0),
        br(1, 1, 1.0),
        def(3),
        br(0, 1, 1.0),
        br(2, 1, 1.0),
    ];
    assert!(c.fitness(&avoid, &t).0 < f);
    // all zeros: the sequence is executed and the fitness is 0
    let t = vec![
        def(0),
        def(1),
        br(0, 0, 3.0),
        br(1, 1, 1.0),
        def(3),
        br(0, 0, 2.0),
        br(1, 1, 1.0),
        def(3),
        br(0, 0, 1.0),
        br(1, 1, 1.0),
        def(3),
        br(0, 1, 1.0),
        br(2, 0, 1.0),
    ];
    assert_eq!(c.fitness(&avoid, &t), (0.0, None));
}

#[test]
fn an_unreached_definition_scores_its_approach_level_and_distance() {
    let c = chain();
    // ⟨(flag = 0, {flag}), target⟩ on a = {0, 0, 0}: flag = 0 never runs; its block depends on
    // a[i] != 0 taking true, whose nearest miss is distance 1; the target is then scored too
    let reset = Sequence {
        events: vec![
            ChainEvent {
                node: Node::Def { def: 2 },
                constraint: vec![FLAG],
            },
            ChainEvent {
                node: Node::Take {
                    site: 2,
                    outcome: 0,
                },
                constraint: vec![],
            },
        ],
    };
    let t = vec![
        def(0),
        def(1),
        br(0, 0, 3.0),
        br(1, 1, 1.0),
        def(3),
        br(0, 1, 1.0),
        br(2, 0, 1.0),
    ];
    let (f, k) = c.fitness(&reset, &t);
    assert_eq!(k, Some(0));
    // eq1(def 2) = approach level 1 + d(1)/(1+1); then 1 for the target, not reached in sequence
    assert_eq!(f, 2.5);
    assert_eq!(c.problem(&reset, 0, &t), Some((1, 0)));
}

#[test]
fn first_fit_matches_the_earliest_occurrence_after_the_previous_event() {
    let c = chain();
    // ⟨(i = i + 1), (i = i + 1), target⟩ on a trace with two increments
    let two = Sequence {
        events: vec![
            ChainEvent {
                node: Node::Def { def: 3 },
                constraint: vec![I],
            },
            ChainEvent {
                node: Node::Def { def: 3 },
                constraint: vec![I],
            },
            ChainEvent {
                node: Node::Take {
                    site: 2,
                    outcome: 1,
                },
                constraint: vec![],
            },
        ],
    };
    let t = vec![
        def(1),
        br(0, 0, 1.0),
        def(3),
        br(0, 0, 1.0),
        def(3),
        br(0, 1, 1.0),
        br(2, 1, 1.0),
    ];
    assert_eq!(c.fitness(&two, &t), (0.0, None));
    // only one increment: the second is unmatched
    let t = vec![def(1), br(0, 0, 1.0), def(3), br(0, 1, 1.0), br(2, 1, 1.0)];
    assert_eq!(c.fitness(&two, &t).1, Some(1));
}

/// The program above on the mock executor, input `a[0..6]` in ±1,000,000: the target
/// `flag != 0 → true` needs every element 0, which plain search cannot see (the flag's distance
/// is 0 or K) and its restarts hit with negligible probability; the chaining decorator around AVM
/// finds it through the sequence ⟨(flag = 1, {flag}), target⟩.
#[test]
fn chaining_around_avm_covers_the_flag_on_the_mock_executor() {
    use crate::exec::mock::MockRun;
    use crate::fitness::Criterion;
    use crate::search::testkit::{ints, run_with, Scenario};
    use crate::search::{drive, SearchConfig};
    let p = program();
    let analysis = Analysis::new(&p);
    let goals = crate::fitness::branch::BranchCoverage.goals(&p, &analysis, &[0]);
    let target = goals
        .iter()
        .position(|g| g.target_outcome() == Some((2, 0)))
        .unwrap();
    let mock = |v: &[crate::input::Value], r: &mut MockRun| {
        let a: Vec<i128> = v.iter().map(|x| x.as_i128()).collect();
        let mut flag = 1;
        r.def(0);
        r.def(1);
        for (i, &x) in a.iter().enumerate() {
            r.branch(0, 0, &[0.0, (a.len() - i) as f64]);
            if x != 0 {
                r.branch(1, 2, &[0.0, x.unsigned_abs() as f64]);
                flag = 0;
                r.def(2);
            } else {
                r.branch(1, 2, &[1.0, 0.0]);
            }
            r.def(3);
        }
        r.branch(0, 0, &[1.0, 0.0]);
        r.branch(2, 4, if flag != 0 { &[0.0, 1.0] } else { &[1.0, 0.0] });
    };
    let d = ints(
        &["a0", "a1", "a2", "a3", "a4", "a5"],
        Some((-1_000_000, 1_000_000)),
    );
    let chain = Arc::new(Chain::new(&p, Analysis::new(&p)));
    let run = |mode: Chaining| {
        let sc = Scenario {
            sites: 3,
            outcomes: 6,
            program: Box::new(mock),
            goals: crate::fitness::branch::BranchCoverage.goals(&p, &analysis, &[0]),
        };
        let mut reports = vec![];
        let config = SearchConfig {
            patience: 200,
            ..SearchConfig::default()
        };
        let chain = chain.clone();
        let r = run_with(&d, sc, config, 7, 30_000, |cx| {
            // start away from the all-zero corner
            cx.evaluate(&d.from_values(&[crate::input::Value::Int(500); 6]))
                .unwrap();
            let mut avm = crate::search::avm::Avm;
            let mut c = Chained::new(
                &mut avm,
                chain,
                ChainConfig {
                    mode,
                    ..ChainConfig::default()
                },
            );
            drive(cx, &mut c).unwrap();
            reports = c.reports;
            assert_eq!(
                cx.is_covered(target),
                mode != Chaining::Off,
                "mode {mode:?}"
            );
        });
        (r, reports)
    };
    let (plain, reports) = run(Chaining::Off);
    assert!(reports.is_empty());
    assert_eq!(plain.covered, plain.goals - 1, "{plain:?}");
    let (chained, reports) = run(Chaining::Auto);
    assert_eq!(chained.covered, chained.goals, "{chained:?}");
    let r = reports
        .iter()
        .find(|r| r.goal == target)
        .expect("a chaining report for the flag");
    assert!(
        r.covered
            && r.sequences
                .iter()
                .any(|s| s.succeeded && s.sequence.contains("flag = 1")),
        "{r:?}"
    );
}
