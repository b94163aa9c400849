//! Observers of a search: whatever wants to see evaluations as they happen (a progress display,
//! the log of executed paths for the solutions base) implements [`Observer`] and is handed to the
//! search context, instead of being a field of it (LibAFL's observers and monitors).

use crate::archive::TestCase;
use crate::exec::{ExitKind, RetVal};
use crate::input::Input;
use crate::trace::Trace;
use std::time::Duration;

/// One evaluated input.
#[derive(Clone, Debug)]
pub struct Evaluation {
    /// The input as the target saw it (normalised into the domain).
    pub input: Input,
    pub exit: ExitKind,
    pub ret: Option<RetVal>,
    pub trace: Trace,
    /// 1-based execution number (an evaluation answered from the cache keeps the number of the
    /// execution that produced it).
    pub exec: u64,
}

/// Progress of a search.
#[derive(Clone, Debug)]
pub struct Status {
    pub executions: u64,
    pub covered: usize,
    pub goals: usize,
    pub elapsed: Duration,
    pub faults: usize,
}

/// Sees a search as it runs. Every method has a default that does nothing.
pub trait Observer {
    /// Called after every execution (not for evaluations answered from the cache).
    fn evaluated(&mut self, _ev: &Evaluation) {}
    /// Called when coverage grows or a new fault is kept, and at most every 100 ms otherwise.
    fn progress(&mut self, _status: &Status) {}
    /// Called when the archive keeps `test`: an input that covers a goal first, or (`fault`) a
    /// new distinct fault.
    fn kept(&mut self, _test: &TestCase, _fault: bool) {}
    /// Whether [`Observer::evaluated`] needs the ordered trace ([`Trace::events`]).
    fn needs_ordered_trace(&self) -> bool {
        false
    }
}

/// An observer that does nothing.
pub struct Silent;
impl Observer for Silent {}
