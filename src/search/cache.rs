//! The evaluation cache: recently evaluated inputs and their results, so that an input a search
//! proposes again (AVM revisits its previous point after a pattern move overshoots; a hang would
//! cost a whole timeout) is not executed again. FIFO, bounded by [`CACHE_BYTES`] of traces.
//!
//! Each entry remembers whether its trace holds the ordered trace (the events chaining and path
//! testing read). An entry recorded with it answers requests either way (without, its events are
//! dropped from the answer, which is then what an execution without them would have given); an
//! entry recorded without it answers only requests without it, and hangs answer every request
//! (running a hang again would only cost a whole timeout to see it hang again). So a switch of
//! the ordered trace, which chaining makes for each event sequence it tries, empties nothing.

use crate::input::Input;
use crate::observe::Evaluation;
use std::collections::{HashMap, VecDeque};

/// Memory the evaluation cache may use for traces and inputs.
pub const CACHE_BYTES: usize = 32 << 20;

/// See module docs.
#[derive(Default)]
pub struct EvalCache {
    /// The evaluation and whether its trace holds the ordered trace.
    map: HashMap<Input, (Evaluation, bool)>,
    order: VecDeque<Input>,
    capacity: usize,
    hits: u64,
}

impl EvalCache {
    /// A cache whose capacity is derived from the size of the first evaluation it holds.
    pub fn new() -> EvalCache {
        EvalCache::default()
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
        let (ev, has_events) = self.map.get(input)?;
        if ordered && !has_events && ev.exit != crate::exec::ExitKind::Timeout {
            return None;
        }
        let mut ev = ev.clone();
        if !ordered && *has_events {
            ev.trace.events.clear();
            ev.trace.events_overflow = false;
        }
        Some(ev)
    }

    /// Keep `ev`, recorded with the ordered trace (`ordered`) or without, evicting the oldest
    /// entry when full. It replaces an entry of the same input.
    pub fn put(&mut self, ev: &Evaluation, ordered: bool) {
        if self.capacity == 0 {
            let bytes = 64
                + ev.trace.sites.len() * 8
                + ev.trace.dist.len() * 8
                + ev.trace.events.len() * std::mem::size_of::<evotest_abi::shm::Event>()
                + ev.input.bytes.len() * 2;
            self.capacity = (CACHE_BYTES / bytes).max(16);
        }
        if self.map.len() >= self.capacity && !self.map.contains_key(&ev.input) {
            if let Some(old) = self.order.pop_front() {
                self.map.remove(&old);
            }
        }
        if self
            .map
            .insert(ev.input.clone(), (ev.clone(), ordered))
            .is_none()
        {
            self.order.push_back(ev.input.clone());
        }
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
        self.capacity = 0;
    }
}
