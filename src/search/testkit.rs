//! Synthetic fitness landscapes on the mock executor, for unit tests of the engine: a domain of
//! integer fields, a scenario (what each execution reports, and the goals), and a runner that
//! drives an algorithm over it.

use super::{drive, Algorithm, Budget, GoalSearch, SearchConfig, SearchContext};
use crate::exec::mock::{MockExecutor, MockRun};
use crate::fitness::branch::BranchGoal;
use crate::fitness::Goal;
use crate::input::{Domain, Field, Input, ScalarType, Value};
use rand::SeedableRng;
use std::sync::atomic::AtomicBool;

/// A domain of `i32` fields named `names`, over the whole type or `range`.
pub fn ints(names: &[&str], range: Option<(i128, i128)>) -> Domain {
    let mut fields: Vec<Field> = names
        .iter()
        .map(|n| Field::full(n, ScalarType::I32))
        .collect();
    if let Some((lo, hi)) = range {
        for f in &mut fields {
            f.set_range(&lo.to_string(), &hi.to_string(), "test")
                .unwrap();
        }
    }
    Domain::packed(fields)
}

/// What one mock execution does, given the input's field values.
pub type MockProgram = Box<dyn Fn(&[Value], &mut MockRun)>;

/// What a mock program does, and its goals.
pub struct Scenario {
    pub sites: usize,
    pub outcomes: usize,
    pub program: MockProgram,
    pub goals: Vec<Box<dyn Goal>>,
}

/// Both outcomes of two-outcome site `site` (outcomes `2·site`, `2·site + 1`) as goals, with
/// approach-level ladder `ladder`.
pub fn branch_goals(site: u32, ladder: Vec<Vec<(u32, u32)>>) -> Vec<Box<dyn Goal>> {
    (0..2)
        .map(|k| {
            Box::new(BranchGoal {
                site,
                outcome: 2 * site + k,
                k,
                ladder: ladder.clone(),
                rivals: vec![],
            }) as Box<dyn Goal>
        })
        .collect()
}

/// The distances of `a == b` (true, false), Korel/Tracey with K = 1.
pub fn eq(a: i128, b: i128) -> [f64; 2] {
    if a == b {
        [0.0, 1.0]
    } else {
        [(a - b).abs() as f64, 0.0]
    }
}

/// One site per field i: `x_i == targets[i]`.
pub fn eq_landscape(targets: Vec<i128>) -> Scenario {
    let n = targets.len();
    Scenario {
        sites: n,
        outcomes: 2 * n,
        goals: (0..n as u32)
            .flat_map(|s| branch_goals(s, vec![]))
            .collect(),
        program: Box::new(move |v, r| {
            for (i, t) in targets.iter().enumerate() {
                r.branch(i as u32, 2 * i as u32, &eq(v[i].as_i128(), *t));
            }
        }),
    }
}

/// `if (x == a) { if (y == b) … }`: site 1 is control dependent on site 0's true outcome.
pub fn conj_landscape(a: i128, b: i128) -> Scenario {
    let mut goals = branch_goals(0, vec![]);
    goals.extend(branch_goals(1, vec![vec![(0, 0)]]));
    Scenario {
        sites: 2,
        outcomes: 4,
        goals,
        program: Box::new(move |v, r| {
            let d = eq(v[0].as_i128(), a);
            r.branch(0, 0, &d);
            if d[0] == 0.0 {
                r.branch(1, 2, &eq(v[1].as_i128(), b));
            }
        }),
    }
}

/// What a run achieved.
#[derive(Debug)]
pub struct RunOutcome {
    pub goals: usize,
    pub covered: usize,
    pub executions: u64,
    pub cache_hits: u64,
    pub given_up: Vec<usize>,
}

/// Run `search` with [`drive`] over `sc` from seed `seed` for at most `max_execs` executions.
pub fn run_per_goal(
    d: &Domain,
    sc: Scenario,
    search: &mut dyn GoalSearch,
    seed: u64,
    max_execs: u64,
) -> RunOutcome {
    run_with(d, sc, SearchConfig::default(), seed, max_execs, |cx| {
        drive(cx, search).unwrap()
    })
}

/// Run a registered algorithm by name over `sc`.
pub fn run_algorithm(
    name: &str,
    d: &Domain,
    sc: Scenario,
    config: SearchConfig,
    seed: u64,
    max_execs: u64,
) -> RunOutcome {
    let spec = super::algorithm(name).unwrap();
    run_with(d, sc, config.clone(), seed, max_execs, |cx| {
        match (spec.build)(&config) {
            Algorithm::PerGoal(mut g) => drive(cx, g.as_mut()).unwrap(),
            Algorithm::Whole(mut s) => s.run(cx).unwrap(),
        }
    })
}

/// Run `f` on a context over `sc`.
pub fn run_with(
    d: &Domain,
    sc: Scenario,
    config: SearchConfig,
    seed: u64,
    max_execs: u64,
    f: impl FnOnce(&mut SearchContext),
) -> RunOutcome {
    run_observed(
        d,
        sc,
        config,
        seed,
        max_execs,
        &mut crate::observe::Silent,
        f,
    )
}

/// Run `f` on a context over `sc`, observed by `observer`.
pub fn run_observed(
    d: &Domain,
    sc: Scenario,
    config: SearchConfig,
    seed: u64,
    max_execs: u64,
    observer: &mut dyn crate::observe::Observer,
    f: impl FnOnce(&mut SearchContext),
) -> RunOutcome {
    let dd = d.clone();
    let program = sc.program;
    let mut exec = MockExecutor::new(sc.sites, sc.outcomes, move |b: &[u8], r: &mut MockRun| {
        program(&dd.values(&Input::new(b.to_vec())), r)
    });
    let stop = AtomicBool::new(false);
    let rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let budget = Budget {
        max_execs: Some(max_execs),
        max_time: None,
    };
    let mut cx = SearchContext::new(d, &sc.goals, rng, config, budget, &mut exec, &stop);
    cx.observe(observer);
    f(&mut cx);
    RunOutcome {
        goals: sc.goals.len(),
        covered: cx.archive().n_covered(),
        executions: cx.executions(),
        cache_hits: cx.cache_hits(),
        given_up: cx.given_up(),
    }
}

/// A two-operation API for the sequence searches' tests: `new()` returns a handle, `push(s, x)`
/// takes one and an `int`; at most `max_calls` calls.
pub fn new_push_model(max_calls: usize) -> crate::input::sequence::SequenceModel {
    use crate::input::sequence::{ArgKind, Op, OpReturn, SequenceModel};
    use crate::input::ScalarType;
    SequenceModel {
        ops: vec![
            Op {
                name: "new".into(),
                params: vec![],
                ret: OpReturn::Handle(0),
                destructor: false,
                frees: crate::input::sequence::Frees::ByName,
                promotes: None,
            },
            Op {
                name: "push".into(),
                params: vec![
                    ("s".into(), ArgKind::Handle(0)),
                    ("x".into(), ArgKind::Scalar(ScalarType::I32)),
                ],
                ret: OpReturn::Void,
                destructor: false,
                frees: crate::input::sequence::Frees::ByName,
                promotes: None,
            },
        ],
        handle_types: vec!["struct s".into()],
        max_calls,
    }
}
