//! The evaluation cache: recently evaluated inputs and their results, so that an input a search
//! proposes again (AVM revisits its previous point after a pattern move overshoots; a hang would
//! cost a whole timeout) is not executed again. FIFO, bounded by [`CACHE_BYTES`] of traces. Hangs
//! outlive a switch of the ordered trace ([`EvalCache::clear_keeping_hangs`]).

use crate::input::Input;
use crate::observe::Evaluation;
use std::collections::{HashMap, VecDeque};

/// Memory the evaluation cache may use for traces and inputs.
pub const CACHE_BYTES: usize = 32 << 20;

/// See module docs.
#[derive(Default)]
pub struct EvalCache {
    map: HashMap<Input, Evaluation>,
    order: VecDeque<Input>,
    capacity: usize,
    hits: u64,
}

impl EvalCache {
    /// A cache whose capacity is derived from the size of the first evaluation it holds.
    pub fn new() -> EvalCache {
        EvalCache::default()
    }

    /// The cached result of `input`, counting a hit.
    pub fn get(&mut self, input: &Input) -> Option<Evaluation> {
        let e = self.map.get(input).cloned();
        if e.is_some() {
            self.hits += 1;
        }
        e
    }

    /// [`EvalCache::get`] without counting a hit.
    pub fn peek(&self, input: &Input) -> Option<Evaluation> {
        self.map.get(input).cloned()
    }

    /// Keep `ev`, evicting the oldest entry when full.
    pub fn put(&mut self, ev: &Evaluation) {
        if self.capacity == 0 {
            let bytes = 64
                + ev.trace.sites.len() * 8
                + ev.trace.dist.len() * 8
                + ev.trace.events.len() * std::mem::size_of::<evotest_abi::shm::Event>()
                + ev.input.bytes.len() * 2;
            self.capacity = (CACHE_BYTES / bytes).max(16);
        }
        if self.map.len() >= self.capacity {
            if let Some(old) = self.order.pop_front() {
                self.map.remove(&old);
            }
        }
        if self.map.insert(ev.input.clone(), ev.clone()).is_none() {
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

    /// Forget every result but the hangs: their traces were recorded the other way, but running
    /// a hang again would only cost a whole timeout to see it hang again (chaining switches the
    /// ordered trace on and off for each event sequence it tries, and a search that keeps coming
    /// back to a hanging input paid one timeout per switch).
    pub fn clear_keeping_hangs(&mut self) {
        self.map
            .retain(|_, e| e.exit == crate::exec::ExitKind::Timeout);
        let map = &self.map;
        self.order.retain(|i| map.contains_key(i));
    }
}
