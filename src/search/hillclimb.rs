//! A (1+1) evolutionary algorithm, the simplest hill climber: mutate the current input with the
//! GA's field mutation, keep the child when it is no worse (Droste, Jansen & Wegener's (1+1) EA).
//! It is also the worked example of `ARCHITECTURE.md`: an algorithm is this file plus one line in
//! [`super::ALGORITHMS`].

use super::evolve::Mutation;
use super::ga::FieldMutation;
use super::{Algorithm, AlgorithmSpec, GoalSearch, Patience, SearchContext};
use anyhow::Result;

pub const SPEC: AlgorithmSpec = AlgorithmSpec {
    name: "hc",
    about: "(1+1) EA hill climber: mutate fields, keep the child when no worse",
    build: |_| Algorithm::PerGoal(Box::new(HillClimb)),
};

pub struct HillClimb;

impl GoalSearch for HillClimb {
    fn attempt(&mut self, cx: &mut SearchContext, goal: usize) -> Result<()> {
        if cx.out_of_budget() {
            return Ok(());
        }
        let start = match cx.best(goal) {
            Some((_, x)) => x.clone(),
            None => cx.random_input(),
        };
        let ev = cx.evaluate(&start)?;
        let (mut parent, mut fp) = (ev.input.clone(), cx.fitness(goal, &ev));
        let mut patience = Patience::new(cx.config.patience, fp);
        while !cx.is_covered(goal) && !cx.finished() {
            let mut child = parent.clone();
            FieldMutation.mutate(cx, &mut child);
            let ev = cx.evaluate(&child)?;
            let f = cx.fitness(goal, &ev);
            if f <= fp {
                (parent, fp) = (ev.input, f);
            }
            if patience.exhausted(f) {
                break;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::search::testkit::*;
    use crate::search::SearchConfig;

    #[test]
    fn the_hill_climber_covers_an_equality_over_a_small_range() {
        let d = ints(&["x"], Some((-1000, 1000)));
        let r = run_algorithm(
            "hc",
            &d,
            eq_landscape(vec![321]),
            SearchConfig::default(),
            1,
            50_000,
        );
        assert_eq!(r.covered, r.goals, "{r:?}");
    }
}
