//! The engine's side of the trace map: a System V shared-memory segment of mode 0600.
//!
//! The segment is marked for removal (`IPC_RMID`) right after the engine attaches it. On Linux a
//! segment marked for removal can still be attached by ID, so the target's fork server attaches
//! it normally, and the kernel destroys it when the last process detaches: when the run ends,
//! even if evotest is killed.

use anyhow::{bail, Result};
use evotest_abi::shm::{
    Event, Header, Layout, OperandRec, SiteRec, StrOperandRec, LAYOUT_VERSION, MAGIC,
    STR_LOG_CAPACITY,
};
use std::ptr;

/// An attached segment laid out as [`evotest_abi::shm`] describes.
pub struct SharedMemory {
    id: i32,
    base: *mut u8,
    layout: Layout,
    /// The program's `switch` sites, whose case distances are completed after each execution.
    switches: Vec<SwitchTable>,
    scratch: Vec<f64>,
    /// A bit per site, all zero between calls of [`SharedMemory::scan_sites`].
    site_bits: Vec<u64>,
    /// Site records the last coverage scan found non-zero (`None`: unknown, zero them all), and
    /// the sparse runs since the last full reset ([`SharedMemory::begin_run`]).
    dirty: Option<Vec<u32>>,
    sparse_runs: u32,
    /// The quiet map while it is suspended ([`SharedMemory::suspend_quiet`]).
    quiet_saved: Option<Vec<u8>>,
    /// Sparse runs are coverage-only ([`SharedMemory::set_lite`]), and whether the last run was.
    lite: bool,
    last_lite: bool,
    /// The branch-event limit the engine set ([`SharedMemory::set_max_branch_events`]), written
    /// again before each execution: a sequence harness moves the header's copy per call
    /// ([`SharedMemory::set_max_call_events`]). `None` until set: the header's is left as it is.
    max_events: Option<u32>,
}

/// Sparse runs between two full resets of the site records (against stray writes of processes
/// that escaped the kill).
const FULL_RESET_EVERY: u32 = 1024;

/// A `switch` site's cases in ascending order of value: what [`SharedMemory::complete_switches`]
/// needs to finish the probe's O(log n) updates ([`evotest_abi::distance::relax_switch`]).
pub struct SwitchTable {
    /// Global site ID.
    site: u32,
    /// Order keys of the case values, ascending.
    keys: Vec<u64>,
    /// Global outcome ID of each case, in the same order.
    outcomes: Vec<u32>,
}

impl SwitchTable {
    /// The table of global site `site`, whose outcome `outcome_base + k + 1` is case
    /// `case_values[k]` (outcome `outcome_base` is the default).
    pub fn new(site: u32, outcome_base: u32, case_values: &[i64]) -> SwitchTable {
        let mut cases: Vec<(u64, u32)> = case_values
            .iter()
            .enumerate()
            .map(|(k, &v)| {
                (
                    evotest_abi::distance::switch_key(v as u64),
                    outcome_base + k as u32 + 1,
                )
            })
            .collect();
        cases.sort_unstable();
        SwitchTable {
            site,
            keys: cases.iter().map(|c| c.0).collect(),
            outcomes: cases.iter().map(|c| c.1).collect(),
        }
    }
}

impl SharedMemory {
    /// The handle of segment `id`, attached at `base` with `layout`, with the engine's own state
    /// empty.
    fn handle(id: i32, base: *mut u8, layout: Layout) -> SharedMemory {
        SharedMemory {
            id,
            base,
            layout,
            switches: Vec::new(),
            scratch: Vec::new(),
            site_bits: Vec::new(),
            dirty: None,
            sparse_runs: 0,
            quiet_saved: None,
            lite: false,
            last_lite: false,
            max_events: None,
        }
    }

    /// Create, attach and initialise a segment with these capacities.
    ///
    /// Errors: the kernel refuses (`shmget`/`shmat`), e.g. `kernel.shmmax` too small.
    pub fn create(sites: u32, outcomes: u32, input: u32, events: u32) -> Result<SharedMemory> {
        let layout = Layout::new(sites, outcomes, input, events);
        unsafe {
            let id = libc::shmget(
                libc::IPC_PRIVATE,
                layout.size,
                libc::IPC_CREAT | libc::IPC_EXCL | 0o600,
            );
            if id < 0 {
                bail!(
                    "cannot create shared memory of {} bytes: {}",
                    layout.size,
                    std::io::Error::last_os_error()
                );
            }
            let p = libc::shmat(id, ptr::null(), 0);
            if p as isize == -1 {
                let e = std::io::Error::last_os_error();
                libc::shmctl(id, libc::IPC_RMID, ptr::null_mut());
                bail!("cannot attach shared memory: {e}");
            }
            // Destroyed when the last process detaches (see module docs).
            libc::shmctl(id, libc::IPC_RMID, ptr::null_mut());
            let shm = SharedMemory::handle(id, p as *mut u8, layout);
            ptr::write_bytes(shm.base, 0, layout.size);
            let h = shm.header_mut();
            h.magic = MAGIC;
            h.version = LAYOUT_VERSION;
            h.site_capacity = sites;
            h.outcome_capacity = outcomes;
            h.input_capacity = input;
            h.event_capacity = events;
            Ok(shm)
        }
    }

    /// Attach the existing segment `id` (created by [`SharedMemory::create`] in another process:
    /// the in-process worker attaches its supervisor's). Its header is kept as it is.
    ///
    /// Errors: no such segment, or one of another layout (magic or version).
    pub fn attach(id: i32) -> Result<SharedMemory> {
        unsafe {
            let p = libc::shmat(id, ptr::null(), 0);
            if p as isize == -1 {
                bail!(
                    "cannot attach shared memory {id}: {}",
                    std::io::Error::last_os_error()
                );
            }
            let h = &*(p as *const Header);
            if h.magic != MAGIC || h.version != LAYOUT_VERSION {
                libc::shmdt(p);
                bail!(
                    "shared memory {id} has another layout (version {}, expected {LAYOUT_VERSION})",
                    h.version
                );
            }
            let layout = Layout::from_header(h);
            Ok(SharedMemory::handle(id, p as *mut u8, layout))
        }
    }

    /// In-process mode, before a worker starts: no execution in flight (`ret_state` returned), no
    /// fault, `executions` counted so far, and none of the per-run flags a worker switches on
    /// for some executions ([`evotest_abi::shm::FLAG_LITE`], the repeated-operand logs): a worker
    /// that died in a coverage-only execution left `FLAG_LITE` set, and the next one, which
    /// starts with it off and writes the flag only when it changes, replayed the whole corpus as
    /// coverage-only executions it read as covering nothing (it kept no entry).
    pub fn set_in_process_idle(&mut self, executions: u64) {
        let h = self.header_mut();
        h.ret_state = evotest_abi::shm::RET_RETURNED;
        h.inproc_fault = 0;
        h.inproc_executions = executions;
        h.input_len = 0;
        h.flags &= !(evotest_abi::shm::FLAG_LITE
            | evotest_abi::shm::FLAG_REPEATED_OPERANDS
            | evotest_abi::shm::FLAG_REPEATED_STR_OPERANDS
            | evotest_abi::shm::FLAG_LOOSE_OPERANDS);
    }

    /// In-process mode: the input of the last execution started (what the engine placed), and
    /// whether it was still running (`ret_state` not returned) when the worker ended.
    pub fn in_process_last_input(&self) -> (Vec<u8>, bool) {
        let h = self.header();
        let n = h.input_len.min(self.layout.input_capacity) as usize;
        let data =
            unsafe { std::slice::from_raw_parts(self.base.add(self.layout.input_off), n) }.to_vec();
        (data, h.ret_state != evotest_abi::shm::RET_RETURNED)
    }

    /// In-process mode: the worker's coverage so far (outcomes covered, features, inputs added
    /// to the corpus), kept in the header for the supervisor.
    pub fn set_in_process_coverage(&mut self, (covered, features, added): (u64, u64, u64)) {
        let h = self.header_mut();
        h.inproc_outcomes_covered = covered;
        h.inproc_features = features;
        h.inproc_corpus_new = added;
    }

    /// In-process mode: what [`SharedMemory::set_in_process_coverage`] last recorded.
    pub fn in_process_coverage(&self) -> (u64, u64, u64) {
        let h = self.header();
        (
            h.inproc_outcomes_covered,
            h.inproc_features,
            h.inproc_corpus_new,
        )
    }

    /// In-process mode: count one execution started (kept in the header for the supervisor).
    pub fn count_in_process_execution(&mut self) {
        self.header_mut().inproc_executions += 1;
    }

    /// In-process mode: what the watchdog recorded (`INPROC_FAULT_*`, 0 = nothing).
    pub fn set_in_process_fault(&mut self, fault: u32) {
        self.header_mut().inproc_fault = fault;
    }

    /// Before a run: a `sparse` run (one whose coverage is read by [`SharedMemory::scan_coverage`])
    /// will zero only the site records the last scan found dirty, except every
    /// `FULL_RESET_EVERY`-th; any other run zeroes them all.
    pub fn begin_run(&mut self, sparse: bool) {
        let lite = self.lite && sparse && !self.lite_conflicts();
        if lite != self.last_lite {
            self.set_flags(evotest_abi::shm::FLAG_LITE, lite);
            self.last_lite = lite;
        }
        if sparse {
            self.sparse_runs += 1;
            if self.sparse_runs >= FULL_RESET_EVERY {
                self.sparse_runs = 0;
                self.dirty = None;
            }
        } else {
            self.dirty = None;
        }
    }

    /// The pid of the target process that took the last prepared input (`Header::taken`; 0:
    /// none did).
    pub fn taken_by(&self) -> u32 {
        self.header().taken
    }

    /// After a target process started (its constructors and `LLVMFuzzerInitialize` ran probes
    /// into this map): the next execution zeroes every site record, not only the last run's, and
    /// the lite map is cleared, so that nothing the start-up covered is read as the input's.
    pub fn after_start(&mut self) {
        self.dirty = None;
        let no = self
            .header()
            .outcomes_used
            .min(self.layout.outcome_capacity) as usize;
        // SAFETY: the lite map holds outcome_capacity bytes from lite_off
        unsafe { ptr::write_bytes(self.base.add(self.layout.lite_off), 0, no) };
    }

    /// Clear per-execution state and place `input`, as [`SharedMemory::begin_run`] decided.
    ///
    /// Errors: `input` is larger than the input capacity.
    pub fn prepare_run(&mut self, input: &[u8]) -> Result<()> {
        match self.dirty.take() {
            Some(d) => {
                let r = self.prepare_sparse(input, &d);
                self.dirty = Some(d);
                r
            }
            None => self.prepare(input),
        }
    }

    /// After a sparse run: its coverage into `cov` ([`SharedMemory::scan_sites`]), and its sites as
    /// the dirty records of the next sparse run. After a coverage-only run, `cov`'s lists are
    /// pending: it holds the lite map's words ([`super::Coverage::list`] builds them).
    pub fn scan_coverage(&mut self, outcomes: &[(u32, u32)], cov: &mut super::Coverage) {
        cov.clear();
        if self.last_lite {
            // the probes wrote no site record
            self.scan_lite(cov);
            self.dirty.get_or_insert_with(Vec::new).clear();
            return;
        }
        self.scan_sites(outcomes, &mut cov.sites, &mut cov.outcomes);
        let dirty = self.dirty.get_or_insert_with(Vec::new);
        dirty.clear();
        dirty.extend(cov.sites.iter().map(|&(s, _)| s));
    }

    /// Make the following sparse runs (those of [`SharedMemory::scan_coverage`]) coverage-only
    /// (`on`; see the lite map of [`evotest_abi::shm`]) or not. Refused (`false`, nothing
    /// changed) while an ordered trace, a branch-event limit or the logging of later operands is
    /// on, which coverage-only probes do not record. Other runs are always recorded in full.
    pub fn set_lite(&mut self, on: bool) -> bool {
        if on && self.lite_conflicts() {
            return false;
        }
        self.lite = on;
        true
    }

    /// Whether something is on that coverage-only probes do not record.
    fn lite_conflicts(&self) -> bool {
        let h = self.header();
        h.events_enabled != 0
            || h.max_branch_events != 0
            || h.flags
                & (evotest_abi::shm::FLAG_REPEATED_OPERANDS
                    | evotest_abi::shm::FLAG_REPEATED_STR_OPERANDS
                    | evotest_abi::shm::FLAG_LOOSE_OPERANDS)
                != 0
    }

    /// After a coverage-only run: the lite map's non-zero words into `cov.words`, in index order
    /// (the lists are left to [`super::Coverage::list`]), zeroing the map. The lite map holds one
    /// byte per registered outcome.
    fn scan_lite(&mut self, cov: &mut super::Coverage) {
        let no = self
            .header()
            .outcomes_used
            .min(self.layout.outcome_capacity) as usize;
        let out = &mut cov.words;
        // SAFETY: the lite map holds outcome_capacity bytes from lite_off, which is 64-aligned
        unsafe {
            let map = self.base.add(self.layout.lite_off);
            let words = no / 8;
            let w = map as *mut u64;
            // without a branch per word: which words are zero follows no pattern the branch
            // predictor learns, so every word is written to the list and the list advances past
            // the non-zero ones only
            out.reserve(words + 1);
            let list = out.as_mut_ptr().add(out.len());
            let mut n = 0;
            for i in 0..words {
                let v = w.add(i).read();
                list.add(n).write((i as u32, v));
                n += (v != 0) as usize;
            }
            out.set_len(out.len() + n);
            std::ptr::write_bytes(map, 0, words * 8);
            let mut last = 0u64;
            for o in words * 8..no {
                last |= (map.add(o).read() as u64) << (8 * (o - words * 8));
                map.add(o).write(0);
            }
            if last != 0 {
                out.push((words as u32, last));
            }
        }
    }

    /// The whole trace of the last execution (site records, distances, operand logs, ordered
    /// events).
    pub fn read_full_trace(&self) -> crate::trace::Trace {
        let mut trace = crate::trace::Trace::default();
        self.read_trace(&mut trace.sites, &mut trace.dist);
        self.read_operands(&mut trace.operands);
        self.read_str_operands(&mut trace.str_operands);
        trace.events_overflow = self.read_events(&mut trace.events);
        trace
    }

    /// The value the harness recorded as returned in the last execution, if it returned.
    pub fn ret_val(&self) -> Option<super::RetVal> {
        use super::RetVal;
        use evotest_abi::shm::{RET_FLOAT32, RET_FLOAT64, RET_RETURNED, RET_SIGNED, RET_UNSIGNED};
        let h = self.header();
        if h.ret_state != RET_RETURNED {
            return None;
        }
        Some(match h.ret_kind {
            RET_SIGNED => RetVal::Signed(h.ret_bits as i64),
            RET_UNSIGNED => RetVal::Unsigned(h.ret_bits),
            RET_FLOAT32 => RetVal::F32(h.ret_bits as u32),
            RET_FLOAT64 => RetVal::F64(h.ret_bits),
            _ => RetVal::Void,
        })
    }

    /// Modules the runtime registered (global site/outcome bases).
    pub fn modules(&self) -> Vec<evotest_abi::shm::ModuleEntry> {
        let h = self.header();
        h.modules[..(h.n_modules as usize).min(h.modules.len())].to_vec()
    }

    /// The `OVERFLOW_*` bits the runtime reported at registration.
    pub fn overflow(&self) -> u32 {
        self.header().overflow
    }

    /// The System V ID, passed to the target in `__EVOTEST_SHM_ID`.
    pub fn id(&self) -> i32 {
        self.id
    }

    pub fn layout(&self) -> Layout {
        self.layout
    }

    pub fn header(&self) -> &Header {
        unsafe { &*(self.base as *const Header) }
    }

    #[allow(clippy::mut_from_ref)]
    fn header_mut(&self) -> &mut Header {
        unsafe { &mut *(self.base as *mut Header) }
    }

    /// Forget all registrations (before a fork server is (re)started).
    pub fn reset_registrations(&mut self) {
        let h = self.header_mut();
        h.n_modules = 0;
        h.sites_used = 0;
        h.outcomes_used = 0;
        h.defs_used = 0;
        h.overflow = 0;
    }

    /// Limit the branch events of each following execution (0 = no limit).
    pub fn set_max_branch_events(&mut self, n: u32) {
        self.max_events = Some(n);
        self.header_mut().max_branch_events = n;
    }

    /// Limit each call of an API call sequence to `n` branch events (0 = no limit per call; see
    /// `Header::max_call_events`): the sequence harness's `__evotest_call_begin` counts from the
    /// events run before the call.
    pub fn set_max_call_events(&mut self, n: u32) {
        self.header_mut().max_call_events = n;
    }

    /// Switch the ordered trace on or off for the following executions.
    pub fn set_events(&mut self, on: bool) {
        self.header_mut().events_enabled = (on && self.layout.event_capacity > 0) as u32;
    }

    /// Prepare for an execution: clear per-execution state and place `input`.
    ///
    /// Errors: `input` is larger than the input capacity.
    pub fn prepare(&mut self, input: &[u8]) -> Result<()> {
        if input.len() > self.layout.input_capacity as usize {
            bail!(
                "input of {} bytes exceeds the capacity of {}",
                input.len(),
                self.layout.input_capacity
            );
        }
        let used = (self.header().sites_used.min(self.layout.site_capacity)) as usize;
        unsafe {
            ptr::write_bytes(
                self.base.add(self.layout.sites_off),
                0,
                used * std::mem::size_of::<SiteRec>(),
            );
        }
        self.reset_and_place(input);
        Ok(())
    }

    /// Clear the per-execution header fields and place `input` (its length already checked).
    fn reset_and_place(&mut self, input: &[u8]) {
        let max_events = self.max_events;
        let h = self.header_mut();
        if let Some(n) = max_events {
            h.max_branch_events = n;
        }
        h.seq = 0;
        h.ret_state = 0;
        h.ret_kind = 0;
        h.ret_bits = 0;
        h.n_events = 0;
        h.events_overflow = 0;
        h.step_limit_hit = 0;
        h.n_operands = 0;
        h.n_str_operands = 0;
        h.n_touched = 0;
        h.taken = 0;
        h.input_len = input.len() as u32;
        unsafe {
            ptr::copy_nonoverlapping(
                input.as_ptr(),
                self.base.add(self.layout.input_off),
                input.len(),
            );
        }
    }

    /// As [`SharedMemory::prepare`], but zeroing only the site records of `dirty` (the sites the
    /// previous execution ran, as found by [`SharedMemory::scan_sites`]) instead of all of them.
    ///
    /// Errors: `input` is larger than the input capacity.
    pub fn prepare_sparse(&mut self, input: &[u8], dirty: &[u32]) -> Result<()> {
        if input.len() > self.layout.input_capacity as usize {
            bail!(
                "input of {} bytes exceeds the capacity of {}",
                input.len(),
                self.layout.input_capacity
            );
        }
        let cap = self.layout.site_capacity;
        unsafe {
            let recs = self.base.add(self.layout.sites_off) as *mut u64;
            for &s in dirty {
                if s < cap {
                    *recs.add(s as usize) = 0;
                }
            }
        }
        self.reset_and_place(input);
        Ok(())
    }

    /// Log the operands of compares' later evaluations in each execution too, not only each
    /// site's first ([`evotest_abi::shm::FLAG_REPEATED_OPERANDS`]), or stop doing so.
    pub fn set_repeated_operands(&mut self, on: bool) {
        self.set_flags(evotest_abi::shm::FLAG_REPEATED_OPERANDS, on);
    }

    /// Set (`on`) or clear the bits `flags` of the header's flags
    /// ([`evotest_abi::shm::FLAG_REPEATED_OPERANDS`], …); kept across executions.
    pub fn set_flags(&mut self, flags: u32, on: bool) {
        let h = unsafe { &mut *(self.base as *mut Header) };
        if on {
            h.flags |= flags;
        } else {
            h.flags &= !flags;
        }
    }

    /// Mark global site `site` quiet (its distances are no longer needed, only its hit count and
    /// the outcome taken; see [`evotest_abi::shm`]'s quiet map) or not. Kept across executions.
    pub fn set_quiet(&mut self, site: u32, quiet: bool) {
        if site < self.layout.site_capacity {
            unsafe { *self.base.add(self.layout.quiet_off + site as usize) = quiet as u8 };
        }
    }

    /// Suspend the quiet map (`on`: every site is recorded in full, as before any was marked
    /// quiet) or put it back as it was, with the sites marked quiet meanwhile (an execution run
    /// with the map suspended may cover new outcomes, and the fuzzer then marks their sites:
    /// lost, they stayed on the probes' slower paths for the rest of the run). Two copies of a
    /// byte per site.
    pub fn suspend_quiet(&mut self, on: bool) {
        let map = unsafe {
            std::slice::from_raw_parts_mut(
                self.base.add(self.layout.quiet_off),
                self.layout.site_capacity as usize,
            )
        };
        match (on, self.quiet_saved.take()) {
            (true, None) => {
                self.quiet_saved = Some(map.to_vec());
                map.fill(0);
            }
            (false, Some(saved)) => {
                for (m, s) in map.iter_mut().zip(saved) {
                    *m |= s;
                }
            }
            (_, saved) => self.quiet_saved = saved,
        }
    }

    /// The `switch` sites of the program, for [`SharedMemory::complete_switches`] (sites with
    /// fewer than two cases need nothing and are dropped).
    pub fn set_switches(&mut self, mut tables: Vec<SwitchTable>) {
        tables.retain(|t| t.keys.len() >= 2);
        self.switches = tables;
    }

    /// After an execution: complete the case distances of every `switch` site that ran more than
    /// once (the probe's later evaluations update only the cases around the value;
    /// [`evotest_abi::distance::relax_switch`]). Sites that ran once already hold exact distances.
    pub fn complete_switches(&mut self) {
        if self.last_lite {
            return;
        }
        let ns = self.header().sites_used.min(self.layout.site_capacity);
        let no = self
            .header()
            .outcomes_used
            .min(self.layout.outcome_capacity);
        unsafe {
            let recs = self.base.add(self.layout.sites_off) as *const SiteRec;
            let dist = self.base.add(self.layout.outcomes_off) as *mut f64;
            for t in &self.switches {
                if t.site >= ns
                    || (*recs.add(t.site as usize)).hits < 2
                    || t.outcomes.iter().any(|&o| o >= no)
                {
                    continue;
                }
                self.scratch.clear();
                self.scratch
                    .extend(t.outcomes.iter().map(|&o| *dist.add(o as usize)));
                evotest_abi::distance::relax_switch(&t.keys, &mut self.scratch);
                for (&o, &d) in t.outcomes.iter().zip(&self.scratch) {
                    *dist.add(o as usize) = d;
                }
            }
        }
    }

    /// The sites the last execution ran and their hit counts, in site order, appended to `sites`;
    /// and for each, the outcomes it took (distance exactly 0) among `outcomes[site]` (first global
    /// outcome, number of outcomes), appended to `taken`. Reads only the records of the sites the
    /// runtime listed as run (the touched list), not the whole site array.
    pub fn scan_sites(
        &mut self,
        outcomes: &[(u32, u32)],
        sites: &mut Vec<(u32, u32)>,
        taken: &mut Vec<u32>,
    ) {
        let h = self.header();
        let ns = h.sites_used.min(self.layout.site_capacity);
        let no = h.outcomes_used.min(self.layout.outcome_capacity);
        let nt = h.n_touched.min(self.layout.site_capacity) as usize;
        // the listed sites as a bit set: in site order and each once (a stray process of an
        // earlier execution may list a site twice), in O(listed + sites / 64)
        let words = (ns as usize).div_ceil(64);
        if self.site_bits.len() < words {
            self.site_bits.resize(words, 0);
        }
        unsafe {
            let touched = std::slice::from_raw_parts(
                self.base.add(self.layout.touched_off) as *const u32,
                nt,
            );
            for &s in touched {
                if s < ns {
                    self.site_bits[s as usize / 64] |= 1 << (s % 64);
                }
            }
            let recs = self.base.add(self.layout.sites_off) as *const SiteRec;
            let dist = self.base.add(self.layout.outcomes_off) as *const f64;
            for (w, bits) in self.site_bits[..words].iter_mut().enumerate() {
                while *bits != 0 {
                    let s = (w * 64) as u32 + bits.trailing_zeros();
                    *bits &= *bits - 1;
                    let hits = (*recs.add(s as usize)).hits;
                    if hits == 0 {
                        continue;
                    }
                    sites.push((s, hits));
                    if let Some(&(base, n)) = outcomes.get(s as usize) {
                        for o in base..base.saturating_add(n).min(no) {
                            if *dist.add(o as usize) == 0.0 {
                                taken.push(o);
                            }
                        }
                    }
                }
            }
        }
    }

    /// The ordered trace of the last execution, and whether it overflowed (empty when disabled).
    pub fn read_events(&self, events: &mut Vec<Event>) -> bool {
        let h = self.header();
        events.clear();
        if h.events_enabled == 0 {
            return false;
        }
        let n = h.n_events.min(self.layout.event_capacity) as usize;
        unsafe {
            let e = std::slice::from_raw_parts(
                self.base.add(self.layout.events_off) as *const Event,
                n,
            );
            events.extend_from_slice(e);
        }
        h.events_overflow != 0
    }

    /// The operand log of the last execution (see [`evotest_abi::shm`]).
    pub fn read_operands(&self, ops: &mut Vec<OperandRec>) {
        let h = self.header();
        let n = (h.n_operands as usize).min(evotest_abi::shm::operand_capacity(
            self.layout.site_capacity,
        ));
        ops.clear();
        unsafe {
            ops.extend_from_slice(std::slice::from_raw_parts(
                self.base.add(self.layout.operands_off) as *const OperandRec,
                n,
            ));
        }
    }

    /// The string operand log of the last execution (see [`evotest_abi::shm`]) into `ops`
    /// (cleared first): at most [`STR_LOG_CAPACITY`] records, in the order their sites were first
    /// reached.
    pub fn read_str_operands(&self, ops: &mut Vec<StrOperandRec>) {
        let n = self.header().n_str_operands.min(STR_LOG_CAPACITY) as usize;
        ops.clear();
        unsafe {
            ops.extend_from_slice(std::slice::from_raw_parts(
                self.base.add(self.layout.str_operands_off) as *const StrOperandRec,
                n,
            ));
        }
    }

    /// The minimum distance of global outcome `o` in the last execution (stale where its site
    /// did not run), or `None` beyond the registered outcomes.
    pub fn distance(&self, o: u32) -> Option<f64> {
        if self.last_lite {
            return None;
        }
        let no = self
            .header()
            .outcomes_used
            .min(self.layout.outcome_capacity);
        if o >= no {
            return None;
        }
        unsafe { Some(*(self.base.add(self.layout.outcomes_off) as *const f64).add(o as usize)) }
    }

    /// Copy the site records and outcome distances of registered sites into `sites`/`dist`.
    pub fn read_trace(&self, sites: &mut Vec<SiteRec>, dist: &mut Vec<f64>) {
        let h = self.header();
        let ns = h.sites_used.min(self.layout.site_capacity) as usize;
        let no = h.outcomes_used.min(self.layout.outcome_capacity) as usize;
        unsafe {
            let s = std::slice::from_raw_parts(
                self.base.add(self.layout.sites_off) as *const SiteRec,
                ns,
            );
            let d = std::slice::from_raw_parts(
                self.base.add(self.layout.outcomes_off) as *const f64,
                no,
            );
            sites.clear();
            sites.extend_from_slice(s);
            dist.clear();
            dist.extend_from_slice(d);
        }
    }
}

impl Drop for SharedMemory {
    fn drop(&mut self) {
        unsafe {
            libc::shmdt(self.base as *const libc::c_void);
            // Already marked for removal at creation; repeated for clarity, errors ignored.
            libc::shmctl(self.id, libc::IPC_RMID, ptr::null_mut());
        }
    }
}

/// Permission bits of segment `id`, or `None` if it no longer exists.
pub fn segment_mode(id: i32) -> Option<u32> {
    unsafe {
        let mut ds: libc::shmid_ds = std::mem::zeroed();
        if libc::shmctl(id, libc::IPC_STAT, &mut ds) != 0 {
            return None;
        }
        Some(ds.shm_perm.mode as u32 & 0o777)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Suspending the quiet map clears it; putting it back keeps the sites marked meanwhile.
    #[test]
    fn the_quiet_map_comes_back_with_the_sites_marked_while_suspended() {
        let mut shm = SharedMemory::create(4, 8, 16, 0).unwrap();
        let quiet = |shm: &SharedMemory| -> Vec<u8> {
            (0..4)
                .map(|s| unsafe { *shm.base.add(shm.layout.quiet_off + s) })
                .collect()
        };
        shm.set_quiet(1, true);
        shm.suspend_quiet(true);
        assert_eq!(quiet(&shm), vec![0, 0, 0, 0]);
        shm.set_quiet(3, true);
        shm.suspend_quiet(false);
        assert_eq!(quiet(&shm), vec![0, 1, 0, 1]);
    }

    #[test]
    fn switch_sites_that_ran_more_than_once_get_exact_case_distances() {
        // site 1: outcomes 2..6, default then cases 20, 0, 10 (outcome order); site 0 ran once
        let mut shm = SharedMemory::create(2, 6, 16, 0).unwrap();
        shm.set_switches(vec![SwitchTable::new(1, 2, &[20, 0, 10])]);
        let h = shm.header_mut();
        (h.sites_used, h.outcomes_used) = (2, 6);
        let put = |shm: &SharedMemory, hits: u32, d: [f64; 3]| unsafe {
            let recs = shm.base.add(shm.layout.sites_off) as *mut SiteRec;
            *recs.add(1) = SiteRec { hits, first_seq: 1 };
            let dist = shm.base.add(shm.layout.outcomes_off) as *mut f64;
            for (k, v) in d.into_iter().enumerate() {
                *dist.add(3 + k) = v;
            }
        };
        // what the probe leaves after the values 100 (every case) and 12 (cases 10 and 20)
        put(&shm, 2, [8.0, 100.0, 2.0]);
        shm.complete_switches();
        assert_eq!(
            (shm.distance(3), shm.distance(4), shm.distance(5)),
            (Some(8.0), Some(12.0), Some(2.0))
        );
        // a site that ran once is left as the probe wrote it
        put(&shm, 1, [80.0, 100.0, 90.0]);
        shm.complete_switches();
        assert_eq!(shm.distance(4), Some(100.0));
    }

    #[test]
    fn segment_is_private_and_removed_on_drop() {
        let shm = SharedMemory::create(4, 8, 16, 4).unwrap();
        let id = shm.id();
        assert_eq!(segment_mode(id), Some(0o600));
        assert_eq!(shm.header().magic, MAGIC);
        drop(shm);
        assert_eq!(segment_mode(id), None);
    }

    #[test]
    fn oversized_input_is_refused() {
        let mut shm = SharedMemory::create(4, 8, 16, 4).unwrap();
        assert!(shm.prepare(&[0u8; 17]).is_err());
        assert!(shm.prepare(&[0u8; 16]).is_ok());
        assert_eq!(shm.header().input_len, 16);
    }
}
