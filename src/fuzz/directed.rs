//! A directed attempt on one frontier outcome ([`guide`](super::guide)): from the input of the
//! distance pool closest to it, input-to-state candidates of its compare ([`i2s`](super::i2s),
//! Aschermann et al. 2019); if none takes it, the bytes that influence its distance and the AVM
//! on their fields ([`avm`](super::avm), Korel 1990). Every execution goes through the fuzzer's
//! `evaluate`, so whatever it covers or crashes is kept and triaged as havoc's inputs are.

use super::avm::{self, Avm};
use super::guide::{Stage, UNREACHED};
use super::{i2s, Fuzzer};
use anyhow::Result;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Most executions of the influence probe in one attempt.
pub const INFLUENCE_EXECS: usize = 160;
/// Most executions of the AVM in one attempt.
pub const AVM_EXECS: u64 = 1500;

impl Fuzzer<'_> {
    /// One directed attempt on target `t` of the guide (see module docs).
    ///
    /// Errors: the executor broke, an artifact could not be written.
    pub(super) fn attempt(&mut self, t: usize) -> Result<()> {
        let target = &self.guide.targets[t];
        let (site, outcome, start) = (target.site, target.outcome, target.best);
        let Some(x) = target.pool.last().cloned() else { return Ok(()) };
        self.focus = Some((site, outcome));
        let r = self.attempt_from(site, x);
        self.focus = None;
        self.stage = Stage::Havoc;
        self.guide.finish_attempt(outcome, start);
        r
    }

    fn attempt_from(&mut self, site: u32, x: Vec<u8>) -> Result<()> {
        // the start input again: its fitness now, and its operand log
        self.stage = Stage::I2s;
        let Some(f0) = self.probe(&x)? else { return Ok(()) };
        let mut ops = std::mem::take(&mut self.ops);
        self.s.target.executor.last_operands(&mut ops);
        let rec = ops.iter().find(|r| r.site == site).copied();
        self.ops = ops;
        let (mut cur, mut cur_f) = (x, f0);
        let width = self.s.target.program.sites.get(site as usize).and_then(|s| i2s::operand_width(&s.meta.operand_type));
        if let (Some(rec), Some(w)) = (rec, width) {
            for y in i2s::candidates(&cur, &rec, w) {
                let Some(f) = self.probe(&y)? else { return Ok(()) };
                if f < cur_f {
                    (cur, cur_f) = (y, f);
                }
            }
        }
        if cur_f >= UNREACHED {
            return Ok(());
        }
        self.stage = Stage::Influence;
        let Some(pos) = avm::influencing(&cur, cur_f, INFLUENCE_EXECS, |y| self.probe(y))? else { return Ok(()) };
        if pos.is_empty() {
            return Ok(());
        }
        self.stage = Stage::Avm;
        let mut rng = ChaCha8Rng::seed_from_u64(self.rng.random());
        let mut search = Avm { fields: avm::fields(&pos), data: cur, best: cur_f, budget: AVM_EXECS };
        search.run(&mut rng, |y| self.probe(y))?;
        Ok(())
    }

    /// Run `y` (cut to the largest input) through `evaluate`; the fitness of the focused outcome,
    /// or `None` when the attempt must stop: the outcome was taken, or the run is ending.
    fn probe(&mut self, y: &[u8]) -> Result<Option<f64>> {
        if self.done() {
            return Ok(None);
        }
        let y = &y[..y.len().min(self.max_len)];
        self.evaluate(y, true)?;
        let f = self.focus_fitness;
        if f == 0.0 || self.done() {
            return Ok(None);
        }
        Ok(Some(f))
    }
}
