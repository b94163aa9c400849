//! The evaluation cache: recently evaluated inputs and their results, so that an input a search
//! proposes again (AVM revisits its previous point after a pattern move overshoots; a hang would
//! cost a whole timeout) is not executed again. FIFO, bounded by [`CACHE_BYTES`] of what its
//! entries hold.
//!
//! An entry keeps only what its execution recorded: the sites that ran and, when the cache knows
//! which outcomes belong to which site ([`EvalCache::with_layout`]), the distances of their
//! outcomes alone. A trace read back from it is whole again, with the sites that did not run
//! at zero hits and their outcomes' distances at infinity (in an execution's own trace they hold
//! stale values, which [`Trace::distance`] never reads). So the number of entries depends on
//! how much of the program an evaluation runs, not on the program's size: a function among
//! thousands of sites keeps as many evaluations as alone in its file.
//!
//! Each entry remembers whether its trace holds the ordered trace (the events chaining and path
//! testing read). An entry recorded with it answers requests either way (without, its events are
//! dropped from the answer, which is then what an execution without them would have given); an
//! entry recorded without it answers only requests without it, and hangs answer every request
//! (running a hang again would only cost a whole timeout to see it hang again). So a switch of
//! the ordered trace, which chaining makes for each event sequence it tries, empties nothing.

use crate::exec::{ExitKind, RetVal};
use crate::input::Input;
use crate::observe::Evaluation;
use crate::trace::{Event, OperandRec, StrOperandRec, Trace};
use evotest_abi::shm::SiteRec;
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

/// Memory the evaluation cache may use for its entries (traces, operand logs and inputs), in
/// bytes.
pub const CACHE_BYTES: usize = 64 << 20;

/// Bytes counted for an entry besides its vectors (the map's and the queue's slots).
const ENTRY_OVERHEAD: usize = 160;

/// Which outcomes belong to which site (see [`EvalCache::with_layout`]).
struct Layout {
    /// Per global site: its first global outcome and number of outcomes.
    sites: Arc<[(u32, u32)]>,
    /// One past the last outcome of any site.
    end: u32,
}

/// A trace with only the sites that ran (see module docs).
#[derive(Clone)]
struct Compact {
    n_sites: u32,
    n_outcomes: u32,
    /// The sites that ran, by global site ID.
    sites: Vec<(u32, SiteRec)>,
    /// With a layout: the distances of the outcomes of the sites that ran, in site order, then
    /// those of outcomes beyond the layout (sites of modules it does not know), from `tail`.
    /// Without: every outcome's.
    dist: Vec<f64>,
    /// First outcome not in the layout (`n_outcomes` without one).
    tail: u32,
    events: Vec<Event>,
    events_overflow: bool,
    operands: Vec<OperandRec>,
    str_operands: Vec<StrOperandRec>,
}

impl Compact {
    fn new(t: &Trace, layout: Option<&Layout>) -> Compact {
        let sites: Vec<(u32, SiteRec)> = t
            .sites
            .iter()
            .enumerate()
            .filter(|(_, r)| r.hits > 0)
            .map(|(i, r)| (i as u32, *r))
            .collect();
        let (dist, tail) = match layout {
            Some(layout) => {
                let tail = layout.end.min(t.dist.len() as u32);
                let mut dist = Vec::new();
                for &(s, _) in &sites {
                    if let Some(&(b, n)) = layout.sites.get(s as usize) {
                        let (b, e) = (b as usize, ((b + n) as usize).min(tail as usize));
                        dist.extend_from_slice(&t.dist[b.min(e)..e]);
                    }
                }
                dist.extend_from_slice(&t.dist[tail as usize..]);
                (dist, tail)
            }
            None => (t.dist.clone(), 0),
        };
        Compact {
            n_sites: t.sites.len() as u32,
            n_outcomes: t.dist.len() as u32,
            sites,
            dist,
            tail,
            events: t.events.clone(),
            events_overflow: t.events_overflow,
            operands: t.operands.clone(),
            str_operands: t.str_operands.clone(),
        }
    }

    fn bytes(&self) -> usize {
        use std::mem::size_of;
        self.sites.len() * size_of::<(u32, SiteRec)>()
            + self.dist.len() * size_of::<f64>()
            + self.events.len() * size_of::<Event>()
            + self.operands.len() * size_of::<OperandRec>()
            + self.str_operands.len() * size_of::<StrOperandRec>()
    }

    /// The whole trace again; without the ordered trace's events unless `events`.
    fn expand(&self, layout: Option<&Layout>, events: bool) -> Trace {
        let mut sites = vec![SiteRec::default(); self.n_sites as usize];
        for &(s, r) in &self.sites {
            sites[s as usize] = r;
        }
        let dist = match layout {
            Some(layout) => {
                let mut dist = vec![f64::INFINITY; self.n_outcomes as usize];
                let mut at = 0;
                for &(s, _) in &self.sites {
                    if let Some(&(b, n)) = layout.sites.get(s as usize) {
                        let (b, e) = (b as usize, ((b + n) as usize).min(self.tail as usize));
                        let k = e.saturating_sub(b);
                        if k > 0 {
                            dist[b..b + k].copy_from_slice(&self.dist[at..at + k]);
                            at += k;
                        }
                    }
                }
                dist[self.tail as usize..].copy_from_slice(&self.dist[at..]);
                dist
            }
            None => self.dist.clone(),
        };
        Trace {
            sites,
            dist,
            events: if events {
                self.events.clone()
            } else {
                Vec::new()
            },
            events_overflow: events && self.events_overflow,
            operands: self.operands.clone(),
            str_operands: self.str_operands.clone(),
        }
    }
}

/// One cached evaluation.
struct Entry {
    exit: ExitKind,
    ret: Option<RetVal>,
    exec: u64,
    trace: Compact,
    /// The trace holds the ordered trace.
    ordered: bool,
    bytes: usize,
}

/// See module docs.
#[derive(Default)]
pub struct EvalCache {
    map: HashMap<Input, Entry>,
    order: VecDeque<Input>,
    /// Per global site, its first outcome and number of outcomes (`None`: unknown, every
    /// outcome's distance is kept).
    layout: Option<Layout>,
    bytes: usize,
    hits: u64,
}

impl EvalCache {
    /// A cache that keeps every outcome's distance of each entry.
    pub fn new() -> EvalCache {
        EvalCache::default()
    }

    /// A cache that keeps the distances of the outcomes of the sites that ran only: `layout[s]`
    /// is site `s`'s first global outcome and number of outcomes (as
    /// [`crate::program::Program::site_outcomes`] gives them).
    pub fn with_layout(layout: Arc<[(u32, u32)]>) -> EvalCache {
        EvalCache {
            layout: Some(Layout {
                end: layout.iter().map(|&(b, n)| b + n).max().unwrap_or(0),
                sites: layout,
            }),
            ..EvalCache::default()
        }
    }

    /// The cached result of `input` for a request that needs the ordered trace (`ordered`) or
    /// not, counting a hit.
    pub fn get(&mut self, input: &Input, ordered: bool) -> Option<Evaluation> {
        let e = self.peek(input, ordered);
        if e.is_some() {
            self.hits += 1;
        }
        e
    }

    /// [`EvalCache::get`] without counting a hit.
    pub fn peek(&self, input: &Input, ordered: bool) -> Option<Evaluation> {
        let (input, e) = self.map.get_key_value(input)?;
        if ordered && !e.ordered && e.exit != ExitKind::Timeout {
            return None;
        }
        Some(Evaluation {
            input: input.clone(),
            exit: e.exit,
            ret: e.ret,
            trace: e.trace.expand(self.layout.as_ref(), ordered || !e.ordered),
            exec: e.exec,
        })
    }

    /// Keep `ev`, recorded with the ordered trace (`ordered`) or without, evicting the oldest
    /// entries while the cache would hold more than [`CACHE_BYTES`]. It replaces an entry of the
    /// same input.
    pub fn put(&mut self, ev: &Evaluation, ordered: bool) {
        let trace = Compact::new(&ev.trace, self.layout.as_ref());
        let bytes = ENTRY_OVERHEAD + 2 * ev.input.bytes.len() + trace.bytes();
        let entry = Entry {
            exit: ev.exit,
            ret: ev.ret,
            exec: ev.exec,
            trace,
            ordered,
            bytes,
        };
        if let Some(old) = self.map.get_mut(&ev.input) {
            // replaced where it stands in the queue
            self.bytes = self.bytes - old.bytes + bytes;
            *old = entry;
            return;
        }
        while self.bytes + bytes > CACHE_BYTES {
            let Some(old) = self.order.pop_front() else {
                break;
            };
            if let Some(e) = self.map.remove(&old) {
                self.bytes -= e.bytes;
            }
        }
        self.bytes += bytes;
        self.order.push_back(ev.input.clone());
        self.map.insert(ev.input.clone(), entry);
    }

    /// Evaluations answered from the cache so far.
    pub fn hits(&self) -> u64 {
        self.hits
    }

    /// Entries held.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Forget every entry (the hit count stays).
    pub fn clear(&mut self) {
        self.map.clear();
        self.order.clear();
        self.bytes = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` sites of two outcomes each (site `s`: outcomes `2s`, `2s + 1`).
    fn layout(n: u32) -> Arc<[(u32, u32)]> {
        (0..n).map(|s| (2 * s, 2)).collect::<Vec<_>>().into()
    }

    /// An evaluation of input `[i]` in a program of `n` two-outcome sites where `executed` ran;
    /// the other sites' distances are stale garbage, as in a real trace.
    fn eval(i: u8, n: usize, executed: &[u32]) -> Evaluation {
        let mut dist: Vec<f64> = (0..2 * n).map(|o| 1000.0 + o as f64).collect();
        for &s in executed {
            dist[2 * s as usize] = 0.0;
            dist[2 * s as usize + 1] = s as f64 + 0.5;
        }
        let mut trace = Trace::from_parts(n, executed, dist);
        trace.events.push(Event::default());
        Evaluation {
            input: Input::new(vec![i]),
            exit: ExitKind::Ok,
            ret: None,
            trace,
            exec: i as u64,
        }
    }

    #[test]
    fn a_compact_entry_reads_back_as_the_execution_wherever_its_sites_ran() {
        let mut c = EvalCache::with_layout(layout(50));
        let ev = eval(7, 50, &[3, 40, 11]);
        c.put(&ev, true);
        let got = c.get(&ev.input, true).unwrap();
        assert_eq!(
            (got.exec, got.exit, got.trace.sites.len()),
            (7, ExitKind::Ok, 50)
        );
        assert_eq!(got.trace.sites, ev.trace.sites);
        assert_eq!(got.trace.events, ev.trace.events);
        for s in 0..50 {
            for k in 0..2 {
                assert_eq!(
                    got.trace.distance(s, 2 * s + k),
                    ev.trace.distance(s, 2 * s + k)
                );
            }
        }
        // a site that did not run: no distance, and no stale value kept
        assert_eq!(got.trace.dist[0], f64::INFINITY);
        assert!(c.get(&ev.input, false).unwrap().trace.events.is_empty());
        // without a layout the trace comes back as it went in
        let mut d = EvalCache::new();
        d.put(&ev, true);
        assert_eq!(d.get(&ev.input, true).unwrap().trace, ev.trace);
    }

    #[test]
    fn the_number_of_entries_depends_on_what_ran_not_on_the_programs_size() {
        let fill = |n: u32| {
            let mut c = EvalCache::with_layout(layout(n));
            for i in 0..=255u8 {
                c.put(&eval(i, n as usize, &[1, 2, 3]), false);
            }
            c
        };
        let (small, large) = (fill(10), fill(200_000));
        assert_eq!((small.len(), large.len()), (256, 256));
        assert_eq!(small.bytes, large.bytes);
        // a dense cache of the large program holds a few dozen such traces
        let mut dense = EvalCache::new();
        for i in 0..=255u8 {
            dense.put(&eval(i, 200_000, &[1, 2, 3]), false);
        }
        assert!(dense.len() < 32, "{}", dense.len());
        assert!(dense.bytes <= CACHE_BYTES);
        // the oldest go first
        assert!(dense.peek(&Input::new(vec![255]), false).is_some());
        assert!(dense.peek(&Input::new(vec![0]), false).is_none());
    }

    #[test]
    fn a_site_whose_outcomes_the_trace_lacks_reads_back_without_them() {
        // site 3's outcomes lie beyond the trace's 8 distances (a layout longer than the trace)
        let layout: Arc<[(u32, u32)]> = vec![(0, 2), (2, 2), (4, 2), (100, 2)].into();
        let mut c = EvalCache::with_layout(layout);
        let ev = eval(1, 4, &[0, 3]);
        c.put(&ev, false);
        let got = c.get(&ev.input, false).unwrap();
        assert_eq!(got.trace.sites, ev.trace.sites);
        assert_eq!(got.trace.dist[..2], ev.trace.dist[..2]);
        assert_eq!(got.trace.dist.len(), 8);
    }
}
