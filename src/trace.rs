//! What one execution recorded: per branch site, the hit count and first-reached order, and per
//! outcome, the minimum branch distance (meaningful only where the site was executed).

use crate::program::{OutcomeId, SiteId};
use evotest_abi::shm::SiteRec;
pub use evotest_abi::shm::{Event, EVENT_DEF};
pub use evotest_abi::shm::{
    OperandRec, StrOperandRec, OPERANDS_FLOAT, OPERANDS_POINTER, OPERANDS_REPEATED, STR_OPERAND_CAP,
};

/// A copy of the trace map after one execution, indexed by global IDs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trace {
    /// By site: hit count and first-reached sequence number (0 = not executed).
    pub sites: Vec<SiteRec>,
    /// By outcome: minimum branch distance over the execution (stale where the site has no hits).
    pub dist: Vec<f64>,
    /// The ordered trace (branch outcomes taken and definitions executed), when it was enabled.
    pub events: Vec<Event>,
    /// The ordered trace was cut short (buffer full).
    pub events_overflow: bool,
    /// The operand log: operands of each compare site's first evaluation, in the order the sites
    /// were first reached; with the runtime's repeated-operand flag (set for function-level
    /// searches), also later evaluations, flagged [`OPERANDS_REPEATED`], in the order they ran.
    pub operands: Vec<OperandRec>,
    /// The string operand log: the two byte strings of each string compare's (`strcmp`,
    /// `strncmp`, `memcmp`, `bcmp`) first evaluation, each cut to [`STR_OPERAND_CAP`] bytes, in
    /// the order the sites were first reached (for input-to-state replacement, Aschermann et al.
    /// 2019, REDQUEEN).
    pub str_operands: Vec<StrOperandRec>,
}

/// One operand of a compare, as its probe received it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Operand {
    /// An integer or pointer operand widened to 64 bits.
    Int(i64),
    Float(f64),
}

impl Trace {
    /// Times `site` was evaluated.
    pub fn hits(&self, site: SiteId) -> u32 {
        self.sites.get(site as usize).map_or(0, |r| r.hits)
    }

    /// Whether `site` was evaluated at least once.
    pub fn executed(&self, site: SiteId) -> bool {
        self.hits(site) > 0
    }

    /// Order in which `site` was first reached (1-based), or `None`.
    pub fn first_seq(&self, site: SiteId) -> Option<u32> {
        self.sites
            .get(site as usize)
            .filter(|r| r.hits > 0)
            .map(|r| r.order())
    }

    /// Minimum branch distance of `outcome` of `site` over the execution, or `None` when the site
    /// was not executed. Exactly 0.0 when the outcome was taken.
    pub fn distance(&self, site: SiteId, outcome: OutcomeId) -> Option<f64> {
        if self.executed(site) {
            self.dist.get(outcome as usize).copied()
        } else {
            None
        }
    }

    /// The operands of `site`'s first evaluation, if it is a compare that ran.
    pub fn operands(&self, site: SiteId) -> Option<&OperandRec> {
        self.operands.iter().find(|r| r.site == site)
    }

    /// The compared strings of `site`'s first evaluation, if it is a string compare that ran (and
    /// the string operand log had room for it).
    pub fn str_operands(&self, site: SiteId) -> Option<&StrOperandRec> {
        self.str_operands.iter().find(|r| r.site == site)
    }

    /// Whether `outcome` of `site` was taken.
    pub fn covered(&self, site: SiteId, outcome: OutcomeId) -> bool {
        self.distance(site, outcome) == Some(0.0)
    }

    /// The operand log decoded: (global site, operand a, operand b) of each compare site's first
    /// evaluation, in the order the sites were first reached; compares of pointers left out
    /// ([`OPERANDS_POINTER`]).
    pub fn operand_pairs(&self) -> impl Iterator<Item = (u32, Operand, Operand)> + '_ {
        self.operands
            .iter()
            .filter(|r| r.kind & (OPERANDS_REPEATED | OPERANDS_POINTER) == 0)
            .map(|r| {
                if r.kind & OPERANDS_FLOAT != 0 {
                    (
                        r.site,
                        Operand::Float(f64::from_bits(r.a)),
                        Operand::Float(f64::from_bits(r.b)),
                    )
                } else {
                    (r.site, Operand::Int(r.a as i64), Operand::Int(r.b as i64))
                }
            })
    }

    /// A trace built by hand (tests): `executed` sites with hits 1, and the given distances.
    pub fn from_parts(n_sites: usize, executed: &[SiteId], dist: Vec<f64>) -> Trace {
        let mut sites = vec![SiteRec::default(); n_sites];
        for (i, &s) in executed.iter().enumerate() {
            sites[s as usize] = SiteRec {
                hits: 1,
                first_seq: i as u32 + 1,
            };
        }
        Trace {
            sites,
            dist,
            ..Default::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The decoded operand log has the first evaluation of each integer and float compare, and
    /// neither later evaluations nor compares of pointers (addresses, not input values).
    #[test]
    fn operand_pairs_leave_out_repeats_and_pointers() {
        let eq = evotest_abi::pred::Pred::Eq as u32;
        let t = Trace {
            operands: vec![
                OperandRec {
                    site: 0,
                    kind: eq,
                    a: 3,
                    b: 7,
                },
                OperandRec {
                    site: 0,
                    kind: eq | OPERANDS_REPEATED,
                    a: 4,
                    b: 7,
                },
                OperandRec {
                    site: 1,
                    kind: eq | OPERANDS_POINTER,
                    a: 0x5555_0000,
                    b: 0,
                },
                OperandRec {
                    site: 2,
                    kind: eq | OPERANDS_FLOAT,
                    a: 1.5f64.to_bits(),
                    b: 2.0f64.to_bits(),
                },
            ],
            ..Default::default()
        };
        let pairs: Vec<(u32, Operand, Operand)> = t.operand_pairs().collect();
        assert_eq!(
            pairs,
            vec![
                (0, Operand::Int(3), Operand::Int(7)),
                (2, Operand::Float(1.5), Operand::Float(2.0))
            ]
        );
    }
}
