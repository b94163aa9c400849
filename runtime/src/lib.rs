//! The evotest runtime, linked into every instrumented target.
//!
//! # Brief overview
//! * **Probes** (`__evotest_cmp_int`, `__evotest_cmp_float`, `__evotest_cond`,
//!   `__evotest_switch`) are called by code the pass inserted before each branch site. Each
//!   computes the branch distance of every outcome of the site ([`evotest_abi::distance`]) and
//!   records, in the trace map, the site's hit count, the order in which it was first reached, and
//!   the minimum distance of each outcome over the execution. Compare probes (and
//!   `__evotest_cmp_str`, for `strcmp`/`strncmp`/`memcmp`) also log the operands (the compared
//!   byte strings) of each site's first evaluation, for input-to-state moves.
//! * **Registration** (`__evotest_register_module`), from each instrumented module's constructor,
//!   gives the module global site and outcome bases, so IDs stay unique across linked units.
//! * **Trace map**: the System V shared-memory segment named by `__EVOTEST_SHM_ID`
//!   ([`evotest_abi::shm`]); without it (a target run by hand) a private anonymous mapping is used,
//!   so probes always have somewhere to write.
//! * **Fork server** (AFL's protocol, fds 198/199): [`__evotest_next`] starts it under the engine.
//!   The engine writes a 4-byte request; the server forks; the child returns to the harness and
//!   runs an input; the server reports the child's pid and then its `waitpid` status. A crash or
//!   hang kills only the child. In **persistent mode** (`__EVOTEST_PERSISTENT=1`) the child keeps
//!   the pipes and runs inputs in a loop: after each it writes `FORKSRV_DONE` and waits for the
//!   next request, so a process serves many inputs until it dies or the engine recycles it.
//! * **Harness API**: [`__evotest_next`] gives the next input's bytes (shared memory under the
//!   engine; a file or stdin, once, by hand), or NULL when there is none;
//!   [`__evotest_return`] records the value the function under test returned.
//!
//! * **Whole programs** (a program with its own `main`, built with `evotest-cc`): when the engine
//!   sets `__EVOTEST_PROGRAM_INPUT`, a constructor runs the fork server before `main`, and each
//!   forked child puts the input on its standard input (a memfd) or into the named file (AFL++'s
//!   `@@`) and goes on into `main`. One process per input (no persistent mode).
//! * **Crash stacks** (`__EVOTEST_CRASH_STACKS=1`): fork-server children print the stack of a
//!   deadly signal on stderr in the sanitizers' format, for the engine's crash triage.
//!
//! * **Observer mode** ([`__evotest_observe_begin`], [`__evotest_observe_end`]) serves peer
//!   fuzzers that run the target in-process (libFuzzer): around each execution the peer's harness
//!   resets the trace map and then checks it, and every input that covers a branch outcome for the
//!   first time is appended to the log named by `EVOTEST_OBSERVE_LOG` with its execution number
//!   and time. An optional event limit aborts runaway executions through a hook.
//!
//! * **Threads**: a process that runs more than one thread when its fork server starts (a harness
//!   whose `LLVMFuzzerInitialize` started a pool) is not forked, since a child keeps only the
//!   forking thread: it runs its inputs itself (`FORKSRV_HELLO_NOFORK`). Probes take no locks:
//!   concurrent probes may lose updates, never memory safety of the engine (which validates
//!   everything it reads).

use evotest_abi::distance;
use evotest_abi::names::*;
use evotest_abi::pred::Pred;
use evotest_abi::shm::*;
use std::ptr;
use std::sync::atomic::{AtomicPtr, AtomicU64, AtomicUsize, Ordering};

/// Base of the trace map (shared or private), null until initialised.
static MAP: AtomicPtr<u8> = AtomicPtr::new(ptr::null_mut());

/// Whether the trace map is the engine's shared memory.
static mut SHARED: bool = false;

/// What [`__evotest_events_flag`] points at before a trace map is attached: no ordered trace.
static NO_EVENTS: u32 = 0;

/// The address of the attached trace map's `Header::events_enabled` (of [`NO_EVENTS`] before
/// one is attached), read inline by instrumented code before it calls [`__evotest_def`]
/// ([`evotest_abi::names::EVENTS_FLAG`]).
#[no_mangle]
pub static __evotest_events_flag: AtomicPtr<u32> =
    AtomicPtr::new(&NO_EVENTS as *const u32 as *mut u32);

/// What [`__evotest_flags`] points at before a trace map is attached: no flags.
static NO_FLAGS: u32 = 0;

/// The address of the attached trace map's `Header::flags` (of [`NO_FLAGS`] before one is
/// attached), read inline by instrumented code before it calls [`__evotest_cmp_rtn`]
/// ([`evotest_abi::names::FLAGS`]).
#[no_mangle]
pub static __evotest_flags: AtomicPtr<u32> = AtomicPtr::new(&NO_FLAGS as *const u32 as *mut u32);

/// The layout of the trace map, computed once when it is attached ([`set_map`]): probes read
/// their offsets here instead of recomputing them from the header on every call.
static mut LAYOUT: Layout = Layout::new(0, 0, 0, 0);

/// Make `p` (a mapped, initialised header) the trace map.
unsafe fn set_map(p: *mut u8) {
    LAYOUT = Layout::from_header(&*(p as *const Header));
    MAP.store(p, Ordering::Relaxed);
    __evotest_events_flag.store(
        ptr::addr_of_mut!((*(p as *mut Header)).events_enabled),
        Ordering::Relaxed,
    );
    __evotest_flags.store(
        ptr::addr_of_mut!((*(p as *mut Header)).flags),
        Ordering::Relaxed,
    );
}

/// The layout of the attached trace map.
#[inline(always)]
fn layout() -> Layout {
    unsafe { LAYOUT }
}

/// Capacities of the private map used when no engine is attached.
const PRIVATE_SITES: u32 = 1 << 20;
const PRIVATE_OUTCOMES: u32 = 1 << 21;
const PRIVATE_INPUT: u32 = 0;

unsafe fn header() -> *mut Header {
    let mut p = MAP.load(Ordering::Relaxed);
    if p.is_null() {
        p = init_map();
    }
    p as *mut Header
}

/// Attach the engine's segment, or create a private one.
#[cold]
unsafe fn init_map() -> *mut u8 {
    if let Some(id) = std::env::var(ENV_SHM_ID)
        .ok()
        .and_then(|s| s.parse::<i32>().ok())
    {
        let p = libc::shmat(id, ptr::null(), 0);
        if p as isize != -1 {
            let h = p as *mut Header;
            if (*h).magic == MAGIC && (*h).version == LAYOUT_VERSION {
                SHARED = true;
                set_map(p as *mut u8);
                return p as *mut u8;
            }
            eprintln!(
                "evotest runtime: shared memory {id} has trace-map layout {}, this target's runtime {LAYOUT_VERSION}: built by another version of evotest, so rebuild it with this one's evotest-cc; tracing privately",
                if (*h).magic == MAGIC { (*h).version } else { 0 }
            );
            libc::shmdt(p);
        } else {
            eprintln!("evotest runtime: cannot attach shared memory {id}; tracing privately");
        }
    }
    let layout = Layout::new(PRIVATE_SITES, PRIVATE_OUTCOMES, PRIVATE_INPUT, 0);
    let p = libc::mmap(
        ptr::null_mut(),
        layout.size,
        libc::PROT_READ | libc::PROT_WRITE,
        libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
        -1,
        0,
    );
    if p == libc::MAP_FAILED {
        eprintln!("evotest runtime: cannot map a private trace map");
        libc::abort();
    }
    let h = p as *mut Header;
    (*h).magic = MAGIC;
    (*h).version = LAYOUT_VERSION;
    (*h).site_capacity = PRIVATE_SITES;
    (*h).outcome_capacity = PRIVATE_OUTCOMES;
    (*h).input_capacity = PRIVATE_INPUT;
    (*h).max_call_events = std::env::var(evotest_abi::names::ENV_MAX_CALL_EVENTS)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    // run by hand (a regression replay, a project's own tests): nothing reads the distances, so
    // every execution is coverage-only, through the functions' coverage-only clones where the
    // build has them (about the uninstrumented program's speed instead of up to ten times its
    // time); not for an observer, a branch-event limit, or when asked to keep the full probes
    if std::env::var_os(ENV_OBSERVE_LOG).is_none()
        && (*h).max_call_events == 0
        && std::env::var_os(ENV_FULL_PROBES).is_none()
    {
        (*h).flags |= FLAG_LITE;
    }
    set_map(p as *mut u8);
    p as *mut u8
}

/// Give `desc` its global bases. Idempotent.
///
/// # Safety
/// `desc` must point to a module descriptor created by the evotest pass.
#[no_mangle]
pub unsafe extern "C" fn __evotest_register_module(desc: *mut ModuleDesc) {
    // Every instrumented module calls this: the reference keeps the whole-program constructor
    // (in whatever object of the archive it lands) in the link.
    ptr::read_volatile(&EARLY_FORK_SERVER);
    let d = &mut *desc;
    if d.state != DESC_UNREGISTERED {
        return;
    }
    let h = &mut *header();
    let base = MAP.load(Ordering::Relaxed);
    if h.n_modules as usize >= MAX_MODULES {
        h.overflow |= OVERFLOW_MODULES;
        d.state = DESC_DROPPED;
        return;
    }
    let sites_end = h.sites_used as u64 + d.n_sites as u64;
    let outcomes_end = h.outcomes_used as u64 + d.n_outcomes as u64;
    if sites_end > h.site_capacity as u64 || outcomes_end > h.outcome_capacity as u64 {
        h.overflow |= OVERFLOW_CAPACITY;
        d.state = DESC_DROPPED;
        return;
    }
    d.site_base = h.sites_used;
    d.outcome_base = h.outcomes_used;
    d.def_base = h.defs_used;
    h.modules[h.n_modules as usize] = ModuleEntry {
        module_id: d.module_id,
        site_base: d.site_base,
        outcome_base: d.outcome_base,
        n_sites: d.n_sites,
        n_outcomes: d.n_outcomes,
        def_base: d.def_base,
        n_defs: d.n_defs,
    };
    h.n_modules += 1;
    h.sites_used = sites_end as u32;
    h.outcomes_used = outcomes_end as u32;
    h.defs_used += d.n_defs;
    if d.flags & DESC_FLAG_RECS != 0 {
        // the inline quiet path's records (see evotest_abi::names::PROBE_CMP_INT)
        d.recs = (base.add(layout().sites_off) as *mut SiteRec).add(d.site_base as usize);
    }
    if d.flags & DESC_FLAG_LITE != 0 {
        // the inline path's counts in coverage-only executions (see PROBE_CMP_INT)
        d.lite = base.add(layout().lite_off + d.outcome_base as usize);
    }
    d.state = DESC_ACTIVE;
}

/// What [`enter`] found for one probe: the distance slots of the site's outcomes, whether this
/// is the site's first hit in this execution (slots hold stale values and must be overwritten,
/// not min-ed), and where to append its event in the ordered trace.
struct Entered {
    slots: *mut f64,
    first: bool,
    /// Global site ID.
    gsite: u32,
    h: *mut Header,
    base: *mut u8,
    events_off: usize,
    /// Evaluations of the site in this execution, this one included.
    hits: u32,
}

/// Whether `desc`'s module is registered (registering it on first use), i.e. its probes record.
#[inline(always)]
unsafe fn active(desc: *mut ModuleDesc) -> bool {
    if (*desc).state != DESC_ACTIVE {
        __evotest_register_module(desc);
    }
    (*desc).state == DESC_ACTIVE
}

/// Enter a probe of `site`: bumps the event counter (ending the execution past
/// `Header::max_branch_events`) and the hit count. `None` if the module was dropped.
#[inline(always)]
unsafe fn enter(desc: *mut ModuleDesc, site: u32, outcome_base: u32) -> Option<Entered> {
    if !active(desc) {
        return None;
    }
    let base = MAP.load(Ordering::Relaxed);
    let h = &mut *(base as *mut Header);
    let layout = layout();
    let gsite = (*desc).site_base + site;
    let goutcome = (*desc).outcome_base + outcome_base;
    let rec = &mut *(base.add(layout.sites_off) as *mut SiteRec).add(gsite as usize);
    let slots = (base.add(layout.outcomes_off) as *mut f64).add(goutcome as usize);
    h.seq = h.seq.saturating_add(1);
    if h.max_branch_events != 0 && h.seq > h.max_branch_events {
        step_limit(h);
    }
    let first = rec.hits == 0;
    if first {
        rec.first_seq =
            h.seq.min(FIRST_SEQ_QUIET - 1) | quiet_mark(h, base, layout.quiet_off, gsite);
        touch(h, base, layout.touched_off, gsite);
    }
    rec.hits = rec.hits.saturating_add(1);
    Some(Entered {
        slots,
        first,
        gsite,
        h,
        base,
        events_off: layout.events_off,
        hits: rec.hits,
    })
}

/// The fast path of every probe at a quiet site after its first evaluation in the execution
/// (what a fuzzer's fully covered sites run almost always): count the hit (and, if `seq`, the
/// branch event) and nothing else. `false` when the full probe must run: the module is not
/// registered yet, the site is not quiet or not yet evaluated in this execution, the ordered
/// trace is on, or a branch-event limit is set (then quiet sites are recorded in full: the
/// fuzzer, the only one to mark sites quiet, sets no limit). Kept small, so that the probe it is
/// inlined into saves no registers on this path and tail-calls the rest otherwise
/// ([`repeat_after_entry`], then the full probe).
#[inline(always)]
unsafe fn quiet_hit<const SEQ: bool>(desc: *mut ModuleDesc, site: u32) -> Entry {
    if (*desc).state != DESC_ACTIVE {
        return Entry::Full;
    }
    let base = MAP.load(Ordering::Relaxed);
    let h = &mut *(base as *mut Header);
    if h.events_enabled != 0 || h.max_branch_events != 0 {
        return Entry::Full;
    }
    let layout = layout();
    let gsite = ((*desc).site_base + site) as usize;
    let rec = &mut *(base.add(layout.sites_off) as *mut SiteRec).add(gsite);
    if rec.hits == 0 {
        return Entry::Full;
    }
    if rec.first_seq & FIRST_SEQ_QUIET == 0 {
        return Entry::NotQuiet;
    }
    rec.hits = rec.hits.saturating_add(1);
    if SEQ {
        h.seq = h.seq.saturating_add(1);
    }
    Entry::Done
}

/// [`FIRST_SEQ_QUIET`] if site `gsite` is quiet and the execution records neither an ordered
/// trace nor a branch-event limit (its later evaluations may then only count hits, see
/// [`quiet_hit`]), else 0. Read once per site and execution, at its first evaluation.
#[inline(always)]
unsafe fn quiet_mark(h: *const Header, base: *mut u8, quiet_off: usize, gsite: u32) -> u32 {
    if (*h).events_enabled == 0
        && (*h).max_branch_events == 0
        && *base.add(quiet_off + gsite as usize) != 0
    {
        FIRST_SEQ_QUIET
    } else {
        0
    }
}

/// What [`quiet_hit`] found.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Entry {
    /// A quiet site's later evaluation, counted: nothing more to record.
    Done,
    /// The module is registered, no ordered trace and no branch-event limit, and the site is
    /// not quiet: [`repeat_after_entry`] decides between the repeat path and the full probe.
    NotQuiet,
    /// The full probe must run (it also handles an unregistered module).
    Full,
}

/// The second fast path, after [`quiet_hit`] returned [`Entry::NotQuiet`]: a later evaluation
/// in the execution of a site that is not quiet (a fuzzer's frontier sites, and the sites it has
/// not reached: in real code, mostly error checks in hot loops whose other outcome no input
/// took). Counts the hit (and, if `SEQ`, the branch event) and returns the site's first outcome
/// slot, into which the caller then mins the distances ([`put_min`]): what the full probe would
/// record there, without the touched list, the operand log (the first evaluation's only) or the
/// event. `None` when the full probe must run: the site's first evaluation in the execution, or
/// later evaluations' operands are logged ([`FLAG_REPEATED_OPERANDS`], `OPS` only: compare
/// probes).
#[inline(always)]
unsafe fn repeat_after_entry<const SEQ: bool, const OPS: bool>(
    desc: *mut ModuleDesc,
    site: u32,
    ob: u32,
) -> Option<*mut f64> {
    let base = MAP.load(Ordering::Relaxed);
    let h = &mut *(base as *mut Header);
    if OPS && h.flags & FLAG_REPEATED_OPERANDS != 0 {
        return None;
    }
    let layout = layout();
    let gsite = ((*desc).site_base + site) as usize;
    let rec = &mut *(base.add(layout.sites_off) as *mut SiteRec).add(gsite);
    if rec.hits == 0 {
        return None;
    }
    rec.hits = sat_inc(rec.hits);
    if SEQ {
        h.seq = sat_inc(h.seq);
    }
    Some((base.add(layout.outcomes_off) as *mut f64).add(((*desc).outcome_base + ob) as usize))
}

/// `x + 1`, saturating at `u32::MAX`.
#[inline(always)]
fn sat_inc(x: u32) -> u32 {
    x + (x != u32::MAX) as u32
}

/// Min a later evaluation's distances `(t, f)` into a two-outcome site's `slots`.
#[inline(always)]
unsafe fn put_min(slots: *mut f64, (t, f): (f64, f64)) {
    put(slots, t, false);
    put(slots.add(1), f, false);
}

/// The execution ran more branch events than `Header::max_branch_events`. Under the fork server:
/// record it and end the process (the fork server reports the exit; the engine sees
/// `step_limit_hit`). In observer mode with an abort hook ([`__evotest_set_abort`]): disarm the
/// limit until the next [`__evotest_observe_begin`] and call the hook, which does not return.
#[cold]
unsafe fn step_limit(h: &mut Header) -> ! {
    h.step_limit_hit = 1;
    if let Some(hook) = ABORT_HOOK {
        h.max_branch_events = 0;
        hook();
    }
    libc::_exit(STEP_LIMIT_EXIT_CODE)
}

/// Append `gsite` to the touched list (on the site's first evaluation in the execution, so the
/// list never holds more entries than there are sites).
#[inline(always)]
unsafe fn touch(h: *mut Header, base: *mut u8, touched_off: usize, gsite: u32) {
    let n = (*h).n_touched;
    if n < (*h).site_capacity {
        *(base.add(touched_off) as *mut u32).add(n as usize) = gsite;
        (*h).n_touched = n + 1;
    }
}

#[inline(always)]
unsafe fn put(slot: *mut f64, d: f64, first: bool) {
    if first || d < *slot {
        *slot = d;
    }
}

/// Append an event to the ordered trace of the map at `base` (header `h`, events at
/// `events_off`), if it is enabled for this execution; overflow is flagged, never silent.
#[inline(always)]
unsafe fn push_event(
    h: *mut Header,
    base: *mut u8,
    events_off: usize,
    id: u32,
    outcome: u32,
    alt: f64,
) {
    let h = &mut *h;
    if h.events_enabled == 0 {
        return;
    }
    if h.n_events >= h.event_capacity {
        h.events_overflow = 1;
        return;
    }
    let e = (base.add(events_off) as *mut Event).add(h.n_events as usize);
    *e = Event { id, outcome, alt };
    h.n_events += 1;
}

/// Record the distances of a condition-only site ([`evotest_abi::meta::SiteKind::Cond`]): hit
/// count, first-reached order (the current branch-event count, which it does not advance) and the
/// minimum distance of each outcome; no ordered-trace event and no branch-event limit.
#[inline(always)]
unsafe fn record2_quiet(
    desc: *mut ModuleDesc,
    site: u32,
    ob: u32,
    (t, f): (f64, f64),
    ops: Option<(u32, u64, u64)>,
) {
    if !active(desc) {
        return;
    }
    let base = MAP.load(Ordering::Relaxed);
    let h = &mut *(base as *mut Header);
    let layout = layout();
    let gsite = (*desc).site_base + site;
    let goutcome = (*desc).outcome_base + ob;
    let rec = &mut *(base.add(layout.sites_off) as *mut SiteRec).add(gsite as usize);
    let slots = (base.add(layout.outcomes_off) as *mut f64).add(goutcome as usize);
    let first = rec.hits == 0;
    if first {
        rec.first_seq =
            h.seq.clamp(1, FIRST_SEQ_QUIET - 1) | quiet_mark(h, base, layout.quiet_off, gsite);
        touch(h, base, layout.touched_off, gsite);
    }
    rec.hits = rec.hits.saturating_add(1);
    put(slots, t, first);
    put(slots.add(1), f, first);
    if let (true, Some((kind, a, b))) = (first, ops) {
        log_operands(base, gsite, kind, a, b);
    }
}

// --- coverage-only executions (`FLAG_LITE`, the lite map) -------------------------------------

/// Whether the current execution is coverage-only ([`FLAG_LITE`]).
#[inline(always)]
unsafe fn lite_on() -> bool {
    *__evotest_flags.load(Ordering::Relaxed) & FLAG_LITE != 0
}

/// Count outcome `ob` of `desc`'s module in the lite map (saturating at 255).
#[inline(always)]
unsafe fn lite_count(desc: *mut ModuleDesc, ob: u32) {
    if !active(desc) {
        return;
    }
    let base = MAP.load(Ordering::Relaxed);
    count_byte(base.add(layout().lite_off + ((*desc).outcome_base + ob) as usize));
}

/// Add one to the lite map's byte at `p`, saturating at 255 (as the pass's inline counts do).
#[inline(always)]
unsafe fn count_byte(p: *mut u8) {
    *p += (*p != u8::MAX) as u8;
}

/// The coverage-only mark of a clone's two-outcome branch ([`evotest_abi::names::LITE_MARK`]):
/// counts outcome `ob` when `holds`, `ob + 1` when not, in the lite map `*lite` (the module
/// descriptor's `lite`: the shared map's part of the module once it registered, a private array
/// before), and returns `holds`. The pass's shim turns every mark into these few instructions
/// after optimisation; this definition serves a pipeline that left a mark in place.
///
/// # Safety
/// `lite` must point at a module descriptor's `lite` field; `ob + 1` is within its outcomes.
#[no_mangle]
pub unsafe extern "C" fn __evotest_lite_mark(lite: *const *mut u8, ob: u32, holds: bool) -> bool {
    count_byte((*lite).add(ob as usize + !holds as usize));
    holds
}

/// Whether an integer compare probe's `icmp` holds (its true outcome; an unknown predicate:
/// `a == b`), as [`icmp_distances`] gives its true outcome distance 0.
#[inline(always)]
fn icmp_true(pred: u32, a: u64, b: u64) -> bool {
    match Pred::from_u32(pred & OPERANDS_PRED_MASK) {
        Some(p) => distance::icmp_holds(p, a, b),
        None => a == b,
    }
}

/// Whether a float compare probe's `fcmp` holds (see [`icmp_true`]).
#[inline(always)]
fn fcmp_true(pred: u32, a: f64, b: f64) -> bool {
    match Pred::from_u32(pred & OPERANDS_PRED_MASK) {
        Some(p) => distance::fcmp_holds(p, a, b),
        None => a == b,
    }
}

/// Defines the lite variants ([`evotest_abi::names::LITE_SUFFIX`]) of the two-outcome probes:
/// each counts the outcome taken in the lite map (outcome 1 when `$not_taken`), nothing else.
/// The pass's inline path counts by itself where it can; these serve a module not registered
/// yet.
macro_rules! lite_variants {
    ($($probe:ident => $name:ident ($($p:ident : $t:ty),*) outcome 1 when $not_taken:expr;)*) => {$(
        #[doc = concat!("The lite variant of [`", stringify!($probe), "`].")]
        ///
        /// # Safety
        /// Called only by instrumented code with its module descriptor.
        #[no_mangle]
        pub unsafe extern "C" fn $name(desc: *mut ModuleDesc, _site: u32, ob: u32, $($p: $t),*) {
            lite_count(desc, ob + ($not_taken) as u32);
        }
    )*};
}

lite_variants! {
    __evotest_cmp_int => __evotest_cmp_int_lite(pred: u32, a: u64, b: u64) outcome 1 when !icmp_true(pred, a, b);
    __evotest_ccmp_int => __evotest_ccmp_int_lite(pred: u32, a: u64, b: u64) outcome 1 when !icmp_true(pred, a, b);
    __evotest_cmp_flag => __evotest_cmp_flag_lite(pred: u32, a: u64, b: u64, _flag: f64) outcome 1 when !icmp_true(pred, a, b);
    __evotest_cmp_float => __evotest_cmp_float_lite(pred: u32, a: f64, b: f64) outcome 1 when !fcmp_true(pred, a, b);
    __evotest_ccmp_float => __evotest_ccmp_float_lite(pred: u32, a: f64, b: f64) outcome 1 when !fcmp_true(pred, a, b);
    __evotest_cond => __evotest_cond_lite(value: u32) outcome 1 when value == 0;
    __evotest_ccond => __evotest_ccond_lite(value: u32) outcome 1 when value == 0;
    __evotest_cond_flag => __evotest_cond_flag_lite(value: u32, _flag: f64) outcome 1 when value == 0;
}

/// The lite variant of [`__evotest_switch`]: a binary search for the case taken (outcome
/// `i + 1` for case `i`, 0 for the default).
///
/// # Safety
/// As [`__evotest_switch`].
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn __evotest_switch_lite(
    desc: *mut ModuleDesc,
    _site: u32,
    ob: u32,
    value: u64,
    _signed: u32,
    n: u32,
    cases: *const u64,
    order: *const u32,
) {
    let lo = switch_lower_bound(value, n as usize, cases, order);
    let mut taken = 0;
    if lo < n as usize {
        let i = *order.add(lo) as usize;
        if *cases.add(i) == value {
            taken = i as u32 + 1;
        }
    }
    lite_count(desc, ob + taken);
}

/// Record a two-outcome evaluation with distances `d` in full, or count its outcome taken in a
/// coverage-only execution.
#[inline(always)]
unsafe fn record2_or_lite(
    desc: *mut ModuleDesc,
    site: u32,
    ob: u32,
    d: (f64, f64),
) -> Option<Entered> {
    if lite_on() {
        lite_count(desc, ob + (d.0 != 0.0) as u32);
        return None;
    }
    let e = enter(desc, site, ob)?;
    record2_entered(&e, d);
    Some(e)
}

/// Condition-only variant of [`__evotest_cmp_int`] (see [`evotest_abi::names::PROBE_CMP_INT_COND`]).
///
/// # Safety
/// Called only by instrumented code with its module descriptor.
#[no_mangle]
pub unsafe extern "C" fn __evotest_ccmp_int(
    desc: *mut ModuleDesc,
    site: u32,
    ob: u32,
    pred: u32,
    a: u64,
    b: u64,
) {
    let Some(slots) = cond_only_entry(desc, site, ob) else {
        return;
    };
    let _fp = FpGuard::new();
    match slots {
        Some(slots) => put_min(slots, icmp_distances(pred, a, b)),
        None => record2_quiet(
            desc,
            site,
            ob,
            icmp_distances(pred, a, b),
            Some((pred, a, b)),
        ),
    }
}

/// The entry of the condition-only probes (they count no branch event): `None` when a quiet
/// site's later evaluation was counted and nothing more is to be recorded; otherwise the slots
/// of the repeat path ([`repeat_after_entry`]), or `Some(None)` when the evaluation is recorded
/// in full.
#[inline(always)]
unsafe fn cond_only_entry(desc: *mut ModuleDesc, site: u32, ob: u32) -> Option<Option<*mut f64>> {
    match quiet_hit::<false>(desc, site) {
        Entry::Done => None,
        Entry::NotQuiet => Some(repeat_after_entry::<false, false>(desc, site, ob)),
        Entry::Full => Some(None),
    }
}

/// The distances `(true, false)` of a compare probe's `icmp` (an unknown predicate: `a == b`);
/// the integer predicates by table ([`distance::icmp_code`]).
#[inline(always)]
fn icmp_distances(pred: u32, a: u64, b: u64) -> (f64, f64) {
    let code = pred & OPERANDS_PRED_MASK;
    match distance::icmp_code(code, a, b) {
        Some(d) => d,
        None => match Pred::from_u32(code) {
            Some(p) => distance::icmp(p, a, b),
            None => distance::boolean(a == b),
        },
    }
}

/// The distances `(true, false)` of a compare probe's `fcmp` (an unknown predicate: `a == b`).
#[inline(always)]
fn fcmp_distances(pred: u32, a: f64, b: f64) -> (f64, f64) {
    match Pred::from_u32(pred & OPERANDS_PRED_MASK) {
        Some(p) => distance::fcmp(p, a, b),
        None => distance::boolean(a == b),
    }
}

/// Condition-only variant of [`__evotest_cmp_float`].
///
/// # Safety
/// Called only by instrumented code with its module descriptor.
#[no_mangle]
pub unsafe extern "C" fn __evotest_ccmp_float(
    desc: *mut ModuleDesc,
    site: u32,
    ob: u32,
    pred: u32,
    a: f64,
    b: f64,
) {
    let Some(slots) = cond_only_entry(desc, site, ob) else {
        return;
    };
    let _fp = FpGuard::new();
    match slots {
        Some(slots) => put_min(slots, fcmp_distances(pred, a, b)),
        None => record2_quiet(
            desc,
            site,
            ob,
            fcmp_distances(pred, a, b),
            Some((pred | OPERANDS_FLOAT, a.to_bits(), b.to_bits())),
        ),
    }
}

/// Condition-only variant of [`__evotest_cond`].
///
/// # Safety
/// Called only by instrumented code with its module descriptor.
#[no_mangle]
pub unsafe extern "C" fn __evotest_ccond(desc: *mut ModuleDesc, site: u32, ob: u32, value: u32) {
    let Some(slots) = cond_only_entry(desc, site, ob) else {
        return;
    };
    let _fp = FpGuard::new();
    match slots {
        Some(slots) => put_min(slots, distance::boolean(value != 0)),
        None => record2_quiet(desc, site, ob, distance::boolean(value != 0), None),
    }
}

#[inline(always)]
unsafe fn record2_entered(e: &Entered, (t, f): (f64, f64)) {
    put(e.slots, t, e.first);
    put(e.slots.add(1), f, e.first);
    let (taken, alt) = if t == 0.0 { (0, f) } else { (1, t) };
    push_event(e.h, e.base, e.events_off, e.gsite, taken, alt);
}

/// Append a compare's operands to the operand log (called on the site's first evaluation in an
/// execution, so the log holds at most one such record per site).
#[inline(always)]
unsafe fn log_operands(base: *mut u8, gsite: u32, kind: u32, a: u64, b: u64) {
    let h = &mut *(base as *mut Header);
    if (h.n_operands as usize) < operand_capacity(h.site_capacity) {
        let off = layout().operands_off;
        let r = (base.add(off) as *mut OperandRec).add(h.n_operands as usize);
        *r = OperandRec {
            site: gsite,
            kind,
            a,
            b,
        };
        h.n_operands += 1;
    }
}

/// A compare site: record its distances, and on the site's first evaluation in this execution,
/// its operands in the operand log; later evaluations too under `FLAG_REPEATED_OPERANDS`
/// ([`log_repeated_operands`]).
#[inline(always)]
unsafe fn record_cmp_entered(e: &Entered, d: (f64, f64), kind: u32, a: u64, b: u64) {
    record2_entered(e, d);
    if e.first {
        log_operands(e.base, e.gsite, kind, a, b);
    } else if (*e.h).flags & FLAG_REPEATED_OPERANDS != 0 && e.hits <= OPERAND_EVALS {
        log_repeated_operands(e.base, e.gsite, kind, a, b);
    }
}

/// Append the operands of a compare's later evaluation to the operand log, unless they equal the
/// log's last record, within the room the first evaluations of the other sites leave
/// (`site_capacity + OPERAND_EXTRA` entries; see [`evotest_abi::shm`]).
#[inline(never)]
unsafe fn log_repeated_operands(base: *mut u8, gsite: u32, kind: u32, a: u64, b: u64) {
    let h = &mut *(base as *mut Header);
    let n = h.n_operands as usize;
    if n >= h.site_capacity as usize + OPERAND_EXTRA as usize {
        return;
    }
    let recs = base.add(layout().operands_off) as *mut OperandRec;
    let rec = OperandRec {
        site: gsite,
        kind: kind | OPERANDS_REPEATED,
        a,
        b,
    };
    if n > 0 && *recs.add(n - 1) == rec {
        return;
    }
    *recs.add(n) = rec;
    h.n_operands += 1;
}

/// Probe for a loose compare ([`evotest_abi::names::PROBE_LOOSE`]): while
/// [`FLAG_LOOSE_OPERANDS`] is set (the fuzzer's input-to-state stage on every compare), append
/// its operands to the operand log as a record of site [`LOOSE_SITE`], unless they are equal
/// (nothing to substitute) or the record equals the log's last. Loose records stop once the log
/// holds a quarter of [`OPERAND_EXTRA`] beyond a record per site, so that the compare sites' later
/// evaluations (a keyword table's compares) keep most of their room.
///
/// # Safety
/// Called only by instrumented code with its module descriptor.
#[no_mangle]
pub unsafe extern "C" fn __evotest_cmp_loose(desc: *mut ModuleDesc, kind: u32, a: u64, b: u64) {
    if a == b || !active(desc) {
        return;
    }
    let base = MAP.load(Ordering::Relaxed);
    let h = &mut *(base as *mut Header);
    if h.flags & FLAG_LOOSE_OPERANDS == 0 {
        return;
    }
    let n = h.n_operands as usize;
    if n >= h.site_capacity as usize + OPERAND_EXTRA as usize / 4 {
        // the room is used up: the inline test stops calling for the rest of the execution (the
        // fuzzer sets the flag again for its next logged one)
        h.flags &= !FLAG_LOOSE_OPERANDS;
        return;
    }
    let recs = base.add(layout().operands_off) as *mut OperandRec;
    let rec = OperandRec {
        site: LOOSE_SITE,
        kind,
        a,
        b,
    };
    if n > 0 && *recs.add(n - 1) == rec {
        return;
    }
    *recs.add(n) = rec;
    h.n_operands += 1;
}

/// Probe for a definition site (a store to a tracked variable): recorded in the ordered trace
/// only. See [`evotest_abi::names::PROBE_DEF`].
///
/// # Safety
/// Called only by instrumented code with its module descriptor.
#[no_mangle]
pub unsafe extern "C" fn __evotest_def(desc: *mut ModuleDesc, def: u32) {
    if !active(desc) {
        return;
    }
    let base = MAP.load(Ordering::Relaxed);
    let h = base as *mut Header;
    if (*h).events_enabled == 0 {
        return;
    }
    let events_off = layout().events_off;
    push_event(
        h,
        base,
        events_off,
        EVENT_DEF | ((*desc).def_base + def),
        0,
        0.0,
    );
}

/// The caller's floating-point environment, kept across a probe's distance arithmetic: the
/// probes compute distances in `f64` (a difference, a quotient, an integer converted), which would
/// raise the IEEE flags `fetestexcept` reads (`FE_INEXACT`, `FE_OVERFLOW`) in a program whose own
/// compare raised none, or trap (`SIGFPE`) where the program enabled a trap with `feenableexcept`.
/// On creation all exceptions are masked (if any was not); on drop the saved MXCSR (flags, masks,
/// rounding) is put back if anything changed it. Two `stmxcsr` in the usual case (all masked).
struct FpGuard(#[allow(dead_code)] u32);

impl FpGuard {
    #[inline(always)]
    #[allow(deprecated)]
    fn new() -> FpGuard {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: reading and writing MXCSR; SSE is always present on x86_64
        unsafe {
            use core::arch::x86_64::{_mm_getcsr, _mm_setcsr};
            const MASKS: u32 = 0x1F80;
            let saved = _mm_getcsr();
            if saved & MASKS != MASKS {
                _mm_setcsr(saved | MASKS);
            }
            FpGuard(saved)
        }
        #[cfg(not(target_arch = "x86_64"))]
        FpGuard(0)
    }
}

impl Drop for FpGuard {
    #[inline(always)]
    #[allow(deprecated)]
    fn drop(&mut self) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as in `new`
        unsafe {
            use core::arch::x86_64::{_mm_getcsr, _mm_setcsr};
            if _mm_getcsr() != self.0 {
                _mm_setcsr(self.0);
            }
        }
    }
}

/// Probe for `icmp pred a, b` deciding a two-outcome site. See [`evotest_abi::names::PROBE_CMP_INT`].
///
/// # Safety
/// Called only by instrumented code with its module descriptor.
#[no_mangle]
pub unsafe extern "C" fn __evotest_cmp_int(
    desc: *mut ModuleDesc,
    site: u32,
    ob: u32,
    pred: u32,
    a: u64,
    b: u64,
) {
    match quiet_hit::<true>(desc, site) {
        Entry::Done => {}
        Entry::NotQuiet => cmp_int_not_quiet(desc, site, ob, pred, a, b),
        Entry::Full => cmp_int_enter(desc, site, ob, pred, a, b),
    }
}

/// The out-of-line part of [`__evotest_cmp_int`] at a site that is not quiet: a later
/// evaluation's distances ([`repeat_after_entry`]), or the full probe.
#[inline(never)]
unsafe fn cmp_int_not_quiet(desc: *mut ModuleDesc, site: u32, ob: u32, pred: u32, a: u64, b: u64) {
    let _fp = FpGuard::new();
    match repeat_after_entry::<true, true>(desc, site, ob) {
        Some(slots) => put_min(slots, icmp_distances(pred, a, b)),
        // the guard above covers the full probe too (not `cmp_int_enter`, which takes its own)
        None => cmp_int_enter_with(desc, site, ob, icmp_distances(pred, a, b), pred, a, b),
    }
}

#[inline(never)]
unsafe fn cmp_int_enter(desc: *mut ModuleDesc, site: u32, ob: u32, pred: u32, a: u64, b: u64) {
    let _fp = FpGuard::new();
    cmp_int_enter_with(desc, site, ob, icmp_distances(pred, a, b), pred, a, b);
}

/// The full probe of an integer compare site whose distances `d` are given.
#[inline(always)]
unsafe fn cmp_int_enter_with(
    desc: *mut ModuleDesc,
    site: u32,
    ob: u32,
    d: (f64, f64),
    pred: u32,
    a: u64,
    b: u64,
) {
    if let Some(e) = enter(desc, site, ob) {
        record_cmp_entered(&e, d, pred, a, b);
    }
}

/// Probe for a compare of a flag with 0 (see [`evotest_abi::names::PROBE_CMP_FLAG`]):
/// [`__evotest_cmp_int`] with the flag distance `flag`, when not NaN, for the outcome not taken.
///
/// # Safety
/// Called only by instrumented code with its module descriptor.
#[no_mangle]
pub unsafe extern "C" fn __evotest_cmp_flag(
    desc: *mut ModuleDesc,
    site: u32,
    ob: u32,
    pred: u32,
    a: u64,
    b: u64,
    flag: f64,
) {
    let entry = quiet_hit::<true>(desc, site);
    if matches!(entry, Entry::Done) {
        return;
    }
    let _fp = FpGuard::new();
    match entry {
        Entry::Done => {}
        Entry::NotQuiet => {
            let d = with_flag(icmp_distances(pred, a, b), flag);
            match repeat_after_entry::<true, true>(desc, site, ob) {
                Some(slots) => put_min(slots, d),
                None => cmp_flag_full(desc, site, ob, d, pred, a, b),
            }
        }
        Entry::Full => cmp_flag_full(
            desc,
            site,
            ob,
            with_flag(icmp_distances(pred, a, b), flag),
            pred,
            a,
            b,
        ),
    }
}

#[inline(never)]
unsafe fn cmp_flag_full(
    desc: *mut ModuleDesc,
    site: u32,
    ob: u32,
    d: (f64, f64),
    pred: u32,
    a: u64,
    b: u64,
) {
    cmp_int_enter_with(desc, site, ob, d, pred, a, b);
}

/// Probe for a branch on a flag that is not compared (see
/// [`evotest_abi::names::PROBE_COND_FLAG`]).
///
/// # Safety
/// Called only by instrumented code with its module descriptor.
#[no_mangle]
pub unsafe extern "C" fn __evotest_cond_flag(
    desc: *mut ModuleDesc,
    site: u32,
    ob: u32,
    value: u32,
    flag: f64,
) {
    let entry = quiet_hit::<true>(desc, site);
    if matches!(entry, Entry::Done) {
        return;
    }
    let _fp = FpGuard::new();
    let d = || with_flag(distance::boolean(value != 0), flag);
    match entry {
        Entry::Done => {}
        Entry::NotQuiet => match repeat_after_entry::<true, false>(desc, site, ob) {
            Some(slots) => put_min(slots, d()),
            None => cond_flag_full(desc, site, ob, d()),
        },
        Entry::Full => cond_flag_full(desc, site, ob, d()),
    }
}

#[inline(never)]
unsafe fn cond_flag_full(desc: *mut ModuleDesc, site: u32, ob: u32, d: (f64, f64)) {
    if let Some(e) = enter(desc, site, ob) {
        record2_entered(&e, d);
    }
}

/// The function whose return recorded [`RET_DISTANCE`] last (its address; 0: none).
static RET_FUNCTION: AtomicUsize = AtomicUsize::new(0);
/// The flag distance recorded by the last flag function's return ([`__evotest_frame_ret`]), as
/// `f64` bits.
static RET_DISTANCE: AtomicU64 = AtomicU64::new(0);

/// The flag distance the return of `callee` just recorded, NaN when it did not (see
/// [`evotest_abi::names::FLAG_OF`]).
///
/// # Safety
/// Any pointer may be passed; it is only compared.
#[no_mangle]
pub unsafe extern "C" fn __evotest_flag_of(callee: *const u8) -> f64 {
    let _fp = FpGuard::new();
    if callee.is_null() || RET_FUNCTION.load(Ordering::Relaxed) != callee as usize {
        return f64::NAN;
    }
    f64::from_bits(RET_DISTANCE.load(Ordering::Relaxed))
}

/// Distances `d` of a condition on a flag, with the outcome not taken at the flag distance
/// `flag` unless it is NaN: turning the flag around turns the condition around.
#[inline(always)]
fn with_flag(d: (f64, f64), flag: f64) -> (f64, f64) {
    if flag.is_nan() {
        d
    } else if d.0 == 0.0 {
        (0.0, flag)
    } else {
        (flag, 0.0)
    }
}

/// Count a condition of a flag function evaluated in `frame`, `flip` away from its other
/// outcome.
#[inline(always)]
unsafe fn frame_count(frame: *mut FlagFrame, flip: f64) {
    if let Some(f) = frame.as_mut() {
        f.evaluated = f.evaluated.saturating_add(1);
        f.flip = flip;
    }
}

/// An integer compare in a flag function (see [`evotest_abi::names::FRAME_CMP_INT`]).
///
/// # Safety
/// `frame` points to the calling flag function's frame.
#[no_mangle]
pub unsafe extern "C" fn __evotest_frame_icmp(
    frame: *mut FlagFrame,
    pred: u32,
    a: u64,
    b: u64,
    flag: f64,
) {
    let _fp = FpGuard::new();
    frame_count(
        frame,
        if flag.is_nan() {
            distance::flip(icmp_distances(pred, a, b))
        } else {
            flag
        },
    );
}

/// A float compare in a flag function (see [`evotest_abi::names::FRAME_CMP_FLOAT`]).
///
/// # Safety
/// `frame` points to the calling flag function's frame.
#[no_mangle]
pub unsafe extern "C" fn __evotest_frame_fcmp(frame: *mut FlagFrame, pred: u32, a: f64, b: f64) {
    let _fp = FpGuard::new();
    frame_count(frame, distance::flip(fcmp_distances(pred, a, b)));
}

/// A `switch` in a flag function (see [`evotest_abi::names::FRAME_SWITCH`]).
///
/// # Safety
/// `frame` points to the calling flag function's frame, `cases` to `n` values.
#[no_mangle]
pub unsafe extern "C" fn __evotest_frame_switch(
    frame: *mut FlagFrame,
    value: u64,
    n: u32,
    cases: *const u64,
) {
    let _fp = FpGuard::new();
    let mut nearest = f64::INFINITY;
    for i in 0..n as usize {
        nearest = nearest.min(distance::switch_case(value, *cases.add(i), true));
    }
    frame_count(
        frame,
        if nearest == 0.0 || !nearest.is_finite() {
            evotest_abi::K
        } else {
            nearest
        },
    );
}

/// A condition of a flag function that is not a compare of numbers (see
/// [`evotest_abi::names::FRAME_COND`]).
///
/// # Safety
/// `frame` points to the calling flag function's frame.
#[no_mangle]
pub unsafe extern "C" fn __evotest_frame_cond(frame: *mut FlagFrame, _value: u32, flag: f64) {
    let _fp = FpGuard::new();
    frame_count(frame, if flag.is_nan() { evotest_abi::K } else { flag });
}

/// A flag function returns (see [`evotest_abi::names::FRAME_RET`]).
///
/// # Safety
/// `frame` points to the returning flag function's frame.
#[no_mangle]
pub unsafe extern "C" fn __evotest_frame_ret(
    frame: *mut FlagFrame,
    function: *const u8,
    points: u32,
) {
    let _fp = FpGuard::new();
    let Some(f) = frame.as_ref() else { return };
    RET_DISTANCE.store(
        distance::flag_distance(points, f.evaluated, f.flip).to_bits(),
        Ordering::Relaxed,
    );
    RET_FUNCTION.store(function as usize, Ordering::Relaxed);
}

/// Probe for `fcmp pred a, b` (operands widened to `double`).
///
/// # Safety
/// Called only by instrumented code with its module descriptor.
#[no_mangle]
pub unsafe extern "C" fn __evotest_cmp_float(
    desc: *mut ModuleDesc,
    site: u32,
    ob: u32,
    pred: u32,
    a: f64,
    b: f64,
) {
    match quiet_hit::<true>(desc, site) {
        Entry::Done => {}
        Entry::NotQuiet => cmp_float_not_quiet(desc, site, ob, pred, a, b),
        Entry::Full => cmp_float_enter(desc, site, ob, pred, a, b),
    }
}

/// The out-of-line part of [`__evotest_cmp_float`] at a site that is not quiet (see
/// [`cmp_int_not_quiet`]).
#[inline(never)]
unsafe fn cmp_float_not_quiet(
    desc: *mut ModuleDesc,
    site: u32,
    ob: u32,
    pred: u32,
    a: f64,
    b: f64,
) {
    let _fp = FpGuard::new();
    match repeat_after_entry::<true, true>(desc, site, ob) {
        Some(slots) => put_min(slots, fcmp_distances(pred, a, b)),
        // the guard above covers the full probe too (not `cmp_float_enter`, which takes its own)
        None => cmp_float_enter_with(desc, site, ob, pred, a, b),
    }
}

#[inline(never)]
unsafe fn cmp_float_enter(desc: *mut ModuleDesc, site: u32, ob: u32, pred: u32, a: f64, b: f64) {
    let _fp = FpGuard::new();
    cmp_float_enter_with(desc, site, ob, pred, a, b);
}

/// The full probe of a float compare site, under the caller's [`FpGuard`].
#[inline(always)]
unsafe fn cmp_float_enter_with(
    desc: *mut ModuleDesc,
    site: u32,
    ob: u32,
    pred: u32,
    a: f64,
    b: f64,
) {
    if let Some(e) = enter(desc, site, ob) {
        record_cmp_entered(
            &e,
            fcmp_distances(pred, a, b),
            pred | OPERANDS_FLOAT,
            a.to_bits(),
            b.to_bits(),
        );
    }
}

/// Longest string a string-compare probe reads (a longer one is compared on its prefix).
const MAX_STR: usize = 1 << 16;

/// The bytes of the C string at `p` (without its NUL), at most `max` of them.
unsafe fn c_bytes<'a>(p: *const u8, max: usize) -> &'a [u8] {
    let mut n = 0;
    while n < max && *p.add(n) != 0 {
        n += 1;
    }
    std::slice::from_raw_parts(p, n)
}

/// Probe for `strcmp(a, b)`, `strncmp(a, b, n)`, `memcmp(a, b, n)`, `strcasecmp`/`strncasecmp`
/// compared `==`/`!=` with 0, or `strstr(a, b)`/`strcasestr` compared with NULL (see
/// [`evotest_abi::names::PROBE_STR`]): the distance is [`distance::bytes_distance`] of the
/// compared bytes (case-folded, or over the haystack's windows for a search). It runs after the call, so
/// the pointers are the ones the call just read; a null pointer falls back to 0/K. On the site's
/// first evaluation in the execution, the compared bytes go to the string operand log
/// ([`StrOperandRec`], for input-to-state replacement: Aschermann et al. 2019, REDQUEEN).
///
/// # Safety
/// Called only by instrumented code with its module descriptor, right after the call.
#[no_mangle]
pub unsafe extern "C" fn __evotest_cmp_str(
    desc: *mut ModuleDesc,
    site: u32,
    ob: u32,
    pred: u32,
    func: u32,
    a: *const u8,
    b: *const u8,
    n: u64,
) {
    let _fp = FpGuard::new();
    let pred = Pred::from_u32(pred).unwrap_or(Pred::Eq);
    if a.is_null() || b.is_null() {
        record2_or_lite(desc, site, ob, distance::boolean(a == b));
        return;
    }
    let m = (n.min(MAX_STR as u64)) as usize;
    let (sa, sb) = match func {
        distance::STR_STRNCMP | distance::STR_STRNCASECMP => (c_bytes(a, m), c_bytes(b, m)),
        f if distance::str_reads_c_strings(f) => (c_bytes(a, MAX_STR), c_bytes(b, MAX_STR)),
        _ => (
            std::slice::from_raw_parts(a, m),
            std::slice::from_raw_parts(b, m),
        ),
    };
    let fold = distance::str_folds_case(func);
    let d = if distance::str_is_search(func) {
        // n is the call's result: found, or not
        distance::substring_distance(sa, sb, fold, n != 0)
    } else {
        distance::folded_distance(sa, sb, fold)
    };
    let Some(e) = record2_or_lite(desc, site, ob, distance::string_compare(pred, d)) else {
        return;
    };
    if logs_str_operands(&e) {
        let logged_n = if matches!(
            func,
            distance::STR_STRNCMP | distance::STR_STRNCASECMP | distance::STR_MEMCMP
        ) {
            n
        } else {
            0
        };
        log_str_operands(e.base, e.gsite, func, logged_n, sa, sb);
    }
}

/// One operand of [`__evotest_cmp_bytes`]: the bytes at `p` (with length argument `n`) in `form`
/// (`base | indirections << 2`, see [`distance::bytes_func`]), or `None` when a pointer on the
/// way is null.
unsafe fn rust_bytes<'a>(p: *const u8, n: u64, form: (u32, u32)) -> Option<&'a [u8]> {
    let (base, ind) = form;
    let mut q = p;
    // a slice passed as pointer and length has no indirection; in memory, its last
    // indirection leads to the `&[u8]` itself, which is read below
    let loads = if base == distance::BYTES_SLICE {
        ind.saturating_sub(1)
    } else {
        ind
    };
    for _ in 0..loads {
        if q.is_null() {
            return None;
        }
        q = *(q as *const *const u8);
    }
    if q.is_null() {
        return None;
    }
    Some(match base {
        distance::BYTES_SLICE if ind == 0 => std::slice::from_raw_parts(q, n as usize),
        distance::BYTES_SLICE => *(q as *const &[u8]),
        distance::BYTES_ARRAY => std::slice::from_raw_parts(q, n as usize),
        distance::BYTES_STRING => (*(q as *const String)).as_bytes(),
        _ => (*(q as *const Vec<u8>)).as_slice(),
    })
}

/// The bytes that operation `op` ([`distance::STR_BYTES_EQ`] …) of haystack `x` and `y`
/// compares (for `starts_with`/`ends_with`: `x`'s first/last bytes, as many as `y` has, or all of
/// a shorter `x`), each cut to [`MAX_STR`], and their [`distance::bytes_distance`], which is 0
/// exactly when the operation holds (1 when the cut parts are equal but the whole are not).
fn bytes_compared<'a>(op: u32, x: &'a [u8], y: &'a [u8]) -> (&'a [u8], &'a [u8], f64) {
    let k = x.len().min(y.len());
    let (xs, holds) = match op {
        distance::STR_BYTES_PREFIX => (&x[..k], x.starts_with(y)),
        distance::STR_BYTES_SUFFIX => (&x[x.len() - k..], x.ends_with(y)),
        _ => (x, x == y),
    };
    let (sa, sb) = (&xs[..xs.len().min(MAX_STR)], &y[..y.len().min(MAX_STR)]);
    let mut d = distance::bytes_distance(sa, sb);
    if d == 0.0 && !holds {
        d = 1.0; // equal up to MAX_STR only
    }
    (sa, sb, d)
}

/// Probe for a branch on Rust's `==`/`!=`, `starts_with` or `ends_with` of two byte strings
/// (`str`, `[u8]`, `[u8; N]`, `String`, `Vec<u8>`; the pass finds the calls of std's
/// implementations). The distance is [`distance::bytes_distance`] of the compared bytes (for
/// `starts_with`/`ends_with`: the haystack's first/last bytes, as many as the pattern has, or all
/// of a shorter haystack, against the pattern), at most [`MAX_STR`] bytes of each, and never 0
/// when the operation fails beyond them. The compared bytes of the site's first evaluation go to
/// the string operand log, with the operation as `func`. A null pointer falls back to 0/K.
///
/// # Safety
/// Called only by instrumented code with its module descriptor, right after the call, with
/// the call's own arguments.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn __evotest_cmp_bytes(
    desc: *mut ModuleDesc,
    site: u32,
    ob: u32,
    pred: u32,
    func: u32,
    a: *const u8,
    la: u64,
    b: *const u8,
    lb: u64,
) {
    let _fp = FpGuard::new();
    let pred = Pred::from_u32(pred).unwrap_or(Pred::Eq);
    let (op, fa, fb) = distance::bytes_func_parts(func);
    let (Some(x), Some(y)) = (rust_bytes(a, la, fa), rust_bytes(b, lb, fb)) else {
        record2_or_lite(desc, site, ob, distance::boolean(a == b));
        return;
    };
    let (sa, sb, d) = bytes_compared(op, x, y);
    let Some(e) = record2_or_lite(desc, site, ob, distance::string_compare(pred, d)) else {
        return;
    };
    if logs_str_operands(&e) {
        log_str_operands(e.base, e.gsite, op, 0, sa, sb);
    }
}

/// Whether a string compare's evaluation `e` goes to the string operand log: the site's first in
/// the execution, or a later one under [`FLAG_REPEATED_STR_OPERANDS`] (up to [`OPERAND_EVALS`]).
#[inline(always)]
unsafe fn logs_str_operands(e: &Entered) -> bool {
    e.first || (*e.h).flags & FLAG_REPEATED_STR_OPERANDS != 0 && e.hits <= OPERAND_EVALS
}

/// Append a string compare's two byte strings to the string operand log (on the site's first
/// evaluation in an execution, or a later one: [`logs_str_operands`]); dropped when the log holds
/// [`STR_LOG_CAPACITY`] records.
#[inline(always)]
unsafe fn log_str_operands(base: *mut u8, gsite: u32, func: u32, n: u64, a: &[u8], b: &[u8]) {
    let h = &mut *(base as *mut Header);
    if h.n_str_operands < STR_LOG_CAPACITY {
        let off = layout().str_operands_off;
        let r = (base.add(off) as *mut StrOperandRec).add(h.n_str_operands as usize);
        // field by field: only the logged bytes are copied, not the whole record
        (*r).site = gsite;
        (*r).func = func;
        (*r).n = n.min(u32::MAX as u64) as u32;
        (*r).a_len = a.len() as u32;
        (*r).b_len = b.len() as u32;
        let (ka, kb) = (a.len().min(STR_OPERAND_CAP), b.len().min(STR_OPERAND_CAP));
        ptr::copy_nonoverlapping(a.as_ptr(), (*r).a.as_mut_ptr(), ka);
        ptr::copy_nonoverlapping(b.as_ptr(), (*r).b.as_mut_ptr(), kb);
        h.n_str_operands += 1;
    }
}

/// Copy up to `buf.len()` bytes at `p` into `buf` without faulting on memory that is not
/// readable: as many as are readable from `p` on (0 for a null, low or unmapped pointer), read
/// by `process_vm_readv` on this process (`pid`), which fails instead of faulting. Two remote
/// pieces, the second from the next page on, so that a string at the end of a mapping is still
/// read.
unsafe fn read_readable(pid: libc::pid_t, p: *const u8, buf: &mut [u8]) -> usize {
    if (p as usize) < 4096 || buf.is_empty() {
        return 0;
    }
    let page_end = (p as usize | 4095) + 1;
    let first = (page_end - p as usize).min(buf.len());
    let local = libc::iovec {
        iov_base: buf.as_mut_ptr() as *mut libc::c_void,
        iov_len: buf.len(),
    };
    let remote = [
        libc::iovec {
            iov_base: p as *mut libc::c_void,
            iov_len: first,
        },
        libc::iovec {
            iov_base: page_end as *mut libc::c_void,
            iov_len: buf.len() - first,
        },
    ];
    let pieces = if first < buf.len() { 2 } else { 1 };
    let n = libc::process_vm_readv(pid, &local, 1, remote.as_ptr(), pieces, 0);
    n.max(0) as usize
}

/// Probe for a call of a routine whose first two parameters are pointers
/// ([`evotest_abi::names::PROBE_RTN`]; AFL++'s CmpLog "rtn" hook): while the string operand log
/// takes later evaluations ([`FLAG_REPEATED_STR_OPERANDS`], the fuzzer's input-to-state stage on
/// every compare), log the readable bytes of both arguments, at most [`RTN_BYTES`] each (`n`
/// of them when the routine's third argument `n` is smaller), as a record of site
/// [`RTN_SITE`]: C strings (both with a NUL in the bytes read, and no length argument) as a
/// `strcmp`, anything else as a `memcmp` of the bytes read, with `n` the bytes read when the
/// routine has a length argument and 0 when it has none. Equal operands, an empty one and a record equal to the log's last
/// are not logged, and the calls fill at most half of the log, leaving the rest to the compare
/// sites.
///
/// # Safety
/// Called only by instrumented code with its module descriptor, before the call.
#[no_mangle]
pub unsafe extern "C" fn __evotest_cmp_rtn(
    desc: *mut ModuleDesc,
    a: *const u8,
    b: *const u8,
    n: u64,
) {
    if !active(desc) {
        return;
    }
    let base = MAP.load(Ordering::Relaxed);
    let h = &mut *(base as *mut Header);
    if h.flags & FLAG_REPEATED_STR_OPERANDS == 0 || h.n_str_operands >= STR_LOG_CAPACITY / 2 {
        return;
    }
    let want = (n.min(RTN_BYTES as u64)) as usize;
    let (mut ba, mut bb) = ([0u8; RTN_BYTES], [0u8; RTN_BYTES]);
    let pid = libc::getpid();
    let la = read_readable(pid, a, &mut ba[..want]);
    let lb = read_readable(pid, b, &mut bb[..want]);
    // without a length argument, the bytes end before the first address they hold (the
    // routine's arguments point to a structure as often as to a string; addresses change from
    // run to run, and no input holds one)
    let (la, lb) = if n == u64::MAX {
        (
            before_address(&ba[..la], a as u64, b as u64),
            before_address(&bb[..lb], a as u64, b as u64),
        )
    } else {
        (la, lb)
    };
    let (sa, sb) = (&ba[..la], &bb[..lb]);
    let (na, nb) = (
        sa.iter().position(|&c| c == 0),
        sb.iter().position(|&c| c == 0),
    );
    let (func, sa, sb, len) = match (na, nb) {
        (Some(x), Some(y)) if n == u64::MAX => (distance::STR_STRCMP, &sa[..x], &sb[..y], 0),
        _ => {
            // the length argument's bytes, or (n = 0) bytes of unknown extent: a struct's, as
            // often as not, which the engine does not take as tokens
            let k = la.min(lb);
            (
                distance::STR_MEMCMP,
                &sa[..k],
                &sb[..k],
                if n == u64::MAX { 0 } else { k as u64 },
            )
        }
    };
    if sa.is_empty() || sb.is_empty() || sa == sb {
        return;
    }
    let k = h.n_str_operands as usize;
    if k > 0 {
        let last = &*(base.add(layout().str_operands_off) as *const StrOperandRec).add(k - 1);
        if last.site == RTN_SITE && last.a() == sa && last.b() == sb {
            return;
        }
    }
    log_str_operands(base, RTN_SITE, func, len, sa, sb);
}

/// The length of the part of `s` (bytes read behind a pointer argument, from an 8-byte boundary)
/// before its first 8-byte word that holds an address: a value in the range of x86-64 Linux's
/// user mappings above the executable's (2^44..2^47: PIE heaps, `mmap`, the stack), or within 4
/// GB of `a` or `b`, the routine's pointer arguments (a structure that points into its own
/// heap or stack).
fn before_address(s: &[u8], a: u64, b: u64) -> usize {
    let near = |w: u64, p: u64| p >= 1 << 16 && w.abs_diff(p) < 1 << 32;
    s.chunks_exact(8)
        .position(|c| {
            let w = u64::from_le_bytes(c.try_into().expect("8 bytes"));
            (1u64 << 44..1u64 << 47).contains(&w) || near(w, a) || near(w, b)
        })
        .map_or(s.len(), |i| i * 8)
}

/// Probe for a condition that is not a compare: distance 0 or K.
///
/// # Safety
/// Called only by instrumented code with its module descriptor.
#[no_mangle]
pub unsafe extern "C" fn __evotest_cond(desc: *mut ModuleDesc, site: u32, ob: u32, value: u32) {
    let entry = quiet_hit::<true>(desc, site);
    if matches!(entry, Entry::Done) {
        return;
    }
    let _fp = FpGuard::new();
    match entry {
        Entry::Done => {}
        Entry::NotQuiet => match repeat_after_entry::<true, false>(desc, site, ob) {
            Some(slots) => put_min(slots, distance::boolean(value != 0)),
            None => cond_full(desc, site, ob, value),
        },
        Entry::Full => cond_full(desc, site, ob, value),
    }
}

#[inline(never)]
unsafe fn cond_full(desc: *mut ModuleDesc, site: u32, ob: u32, value: u32) {
    if let Some(e) = enter(desc, site, ob) {
        record2_entered(&e, distance::boolean(value != 0));
    }
}

/// Probe for `switch value`, with `n` case values at `cases` and their indices in ascending
/// order of value at `order`. Outcome 0 is the default (distance 0 when no case matches, K
/// otherwise); outcome i + 1 is case i (distance |value − case|).
///
/// On the site's first evaluation in an execution every case's distance is computed; on later
/// ones a binary search finds the case taken, or the two cases around the value, and only those
/// are updated (O(log n) per evaluation, for switches in the hot loops of interpreters and
/// lexers). The engine completes the other cases' minima after the execution
/// ([`distance::relax_switch`]).
///
/// # Safety
/// `cases` and `order` must point to `n` values each; called only by instrumented code.
#[no_mangle]
pub unsafe extern "C" fn __evotest_switch(
    desc: *mut ModuleDesc,
    site: u32,
    ob: u32,
    value: u64,
    signed: u32,
    n: u32,
    cases: *const u64,
    order: *const u32,
) {
    let entry = quiet_hit::<true>(desc, site);
    if matches!(entry, Entry::Done) {
        return;
    }
    let _fp = FpGuard::new();
    match entry {
        Entry::Done => {}
        Entry::NotQuiet => switch_not_quiet(desc, site, ob, value, signed, n, cases, order),
        Entry::Full => switch_full(desc, site, ob, value, signed, n, cases, order),
    }
}

/// The out-of-line part of [`__evotest_switch`] at a site that is not quiet: a later
/// evaluation's case slots ([`repeat_after_entry`]), or the full probe.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
unsafe fn switch_not_quiet(
    desc: *mut ModuleDesc,
    site: u32,
    ob: u32,
    value: u64,
    signed: u32,
    n: u32,
    cases: *const u64,
    order: *const u32,
) {
    match repeat_after_entry::<true, false>(desc, site, ob) {
        Some(slots) => {
            let taken = switch_cases_later(slots, value, n as usize, cases, order);
            put(slots, if taken != 0 { evotest_abi::K } else { 0.0 }, false)
        }
        None => switch_full(desc, site, ob, value, signed, n, cases, order),
    }
}

/// The first position in value order (`order`) whose case is at least `value` (`n` when none
/// is), by binary search.
///
/// # Safety
/// `cases` and `order` must point to `n` values each.
#[inline(always)]
unsafe fn switch_lower_bound(value: u64, n: usize, cases: *const u64, order: *const u32) -> usize {
    let v = distance::switch_key(value);
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = (lo + hi) / 2;
        if distance::switch_key(*cases.add(*order.add(mid) as usize)) < v {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

/// The case slots of a switch's later evaluation: a binary search finds the case taken, or the
/// two cases around `value`, and only those are min-ed (see [`__evotest_switch`]). Returns the
/// outcome taken among the cases (`i + 1`), or 0 for none.
#[inline(always)]
unsafe fn switch_cases_later(
    slots: *mut f64,
    value: u64,
    n: usize,
    cases: *const u64,
    order: *const u32,
) -> u32 {
    let mut taken = 0;
    let case_at = |j: usize| *order.add(j) as usize;
    let lo = switch_lower_bound(value, n, cases, order);
    if lo < n {
        let i = case_at(lo);
        let d = distance::switch_case(value, *cases.add(i), true);
        if d == 0.0 {
            taken = i as u32 + 1;
        }
        put(slots.add(i + 1), d, false);
    }
    if taken == 0 && lo > 0 {
        let i = case_at(lo - 1);
        put(
            slots.add(i + 1),
            distance::switch_case(value, *cases.add(i), true),
            false,
        );
    }
    taken
}

#[inline(never)]
#[allow(clippy::too_many_arguments)]
unsafe fn switch_full(
    desc: *mut ModuleDesc,
    site: u32,
    ob: u32,
    value: u64,
    signed: u32,
    n: u32,
    cases: *const u64,
    order: *const u32,
) {
    let Some(e) = enter(desc, site, ob) else {
        return;
    };
    let (slots, n) = (e.slots, n as usize);
    let mut taken = 0;
    if e.first {
        for i in 0..n {
            let d = distance::switch_case(value, *cases.add(i), signed != 0);
            if d == 0.0 && taken == 0 {
                taken = i as u32 + 1;
            }
            *slots.add(i + 1) = d;
        }
    } else {
        taken = switch_cases_later(slots, value, n, cases, order);
    }
    put(
        slots,
        if taken != 0 { evotest_abi::K } else { 0.0 },
        e.first,
    );
    let v = if signed != 0 {
        value as i64 as f64
    } else {
        value as f64
    };
    push_event(e.h, e.base, e.events_off, e.gsite, taken, v);
}

/// Record the value returned by the function under test (`kind` is one of the `RET_*` constants
/// of [`evotest_abi::shm`]). Run by hand, it also prints the value on stderr.
///
/// # Safety
/// Safe to call at any time from the harness.
#[no_mangle]
pub unsafe extern "C" fn __evotest_return(kind: u32, bits: u64) {
    let h = &mut *header();
    h.ret_kind = kind;
    h.ret_bits = bits;
    h.ret_state = RET_RETURNED;
    if !SHARED {
        match kind {
            RET_SIGNED => eprintln!("evotest: returned {}", bits as i64),
            RET_UNSIGNED => eprintln!("evotest: returned {bits}"),
            RET_FLOAT64 => eprintln!("evotest: returned {:e}", f64::from_bits(bits)),
            RET_FLOAT32 => eprintln!("evotest: returned {:e}", f32::from_bits(bits as u32)),
            _ => eprintln!("evotest: returned"),
        }
    }
}

/// Before one call of an API call sequence (the sequence harness calls it): with a per-call limit
/// (`Header::max_call_events`, engine-written), the execution may run that many more branch
/// events from here, so that a call that never ends stops as a step limit after that many events,
/// not after the whole sequence's allowance or at the timeout. No effect without one.
///
/// # Safety
/// Safe to call at any time from the harness.
#[no_mangle]
pub unsafe extern "C" fn __evotest_call_begin() {
    let h = &mut *header();
    if h.max_call_events != 0 {
        h.max_branch_events = h.seq.saturating_add(h.max_call_events);
    }
}

/// The branch-event limit set by [`__evotest_set_abort`] (observer mode), armed in
/// `Header::max_branch_events` at each [`__evotest_observe_begin`]; 0 = none.
static mut ARMED_LIMIT: u32 = 0;
/// Called when an execution exceeds the armed limit; must not return (e.g. a `longjmp`).
static mut ABORT_HOOK: Option<unsafe extern "C" fn()> = None;

/// State of observer mode.
struct Observer {
    covered: Vec<bool>,
    n_covered: usize,
    executions: u64,
    start: std::time::Instant,
    log: Option<std::fs::File>,
    stop_at: Option<usize>,
}

static mut OBSERVER: Option<Observer> = None;

#[allow(static_mut_refs)]
unsafe fn observer() -> &'static mut Observer {
    if OBSERVER.is_none() {
        let log = std::env::var_os(ENV_OBSERVE_LOG).and_then(|p| {
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&p)
                .map_err(|e| {
                    eprintln!("evotest observer: cannot open {}: {e}", p.to_string_lossy());
                })
                .ok()
        });
        let stop_at = std::env::var("EVOTEST_OBSERVE_STOP")
            .ok()
            .and_then(|v| v.parse().ok());
        OBSERVER = Some(Observer {
            covered: Vec::new(),
            n_covered: 0,
            executions: 0,
            start: std::time::Instant::now(),
            log,
            stop_at,
        });
        libc::atexit(observer_at_exit);
    }
    OBSERVER.as_mut().unwrap()
}

extern "C" fn observer_at_exit() {
    unsafe { observer_write_end() }
}

#[allow(static_mut_refs)]
unsafe fn observer_write_end() {
    if let Some(o) = OBSERVER.as_mut() {
        if let Some(f) = o.log.as_mut() {
            use std::io::Write;
            let _ = writeln!(f, "end {} {}", o.executions, o.start.elapsed().as_micros());
            o.log = None;
        }
    }
}

/// Set the hook called when one execution exceeds `max_events` branch events (observer mode, so
/// that a peer fuzzer survives an input that loops forever). The hook must not return.
///
/// # Safety
/// `hook` must be a valid function that does not return (e.g. one that `longjmp`s).
#[no_mangle]
pub unsafe extern "C" fn __evotest_set_abort(hook: unsafe extern "C" fn(), max_events: u32) {
    ABORT_HOOK = Some(hook);
    ARMED_LIMIT = max_events;
    (*header()).max_branch_events = max_events;
}

/// Start of one execution in observer mode: clear the trace of all registered sites.
///
/// # Safety
/// Call from the peer's harness, before the function under test.
#[no_mangle]
pub unsafe extern "C" fn __evotest_observe_begin() {
    let h = &mut *header();
    let l = Layout::from_header(h);
    let base = h as *mut Header as *mut u8;
    ptr::write_bytes(
        base.add(l.sites_off),
        0,
        h.sites_used as usize * std::mem::size_of::<SiteRec>(),
    );
    // Slots of sites that do not run must not read as covered: fill with +inf.
    let d = std::slice::from_raw_parts_mut(
        base.add(l.outcomes_off) as *mut f64,
        h.outcomes_used as usize,
    );
    d.fill(f64::INFINITY);
    h.seq = 0;
    h.n_operands = 0;
    h.n_str_operands = 0;
    h.n_touched = 0;
    let hook = ABORT_HOOK;
    if hook.is_some() {
        h.step_limit_hit = 0;
        h.max_branch_events = ARMED_LIMIT;
    }
}

/// End of one execution in observer mode: if the trace covers an outcome no earlier execution
/// covered, append `<execution> <microseconds> <hex input>` to `EVOTEST_OBSERVE_LOG`. Exits the
/// process once `EVOTEST_OBSERVE_STOP` outcomes are covered.
///
/// # Safety
/// `data` must hold `size` bytes.
#[no_mangle]
pub unsafe extern "C" fn __evotest_observe_end(data: *const u8, size: usize) {
    let h = &*header();
    let l = Layout::from_header(h);
    let base = h as *const Header as *const u8;
    let d = std::slice::from_raw_parts(
        base.add(l.outcomes_off) as *const f64,
        h.outcomes_used as usize,
    );
    let o = observer();
    o.executions += 1;
    if o.covered.len() < d.len() {
        o.covered.resize(d.len(), false);
    }
    let mut new = false;
    for (i, &x) in d.iter().enumerate() {
        if x == 0.0 && !o.covered[i] {
            o.covered[i] = true;
            o.n_covered += 1;
            new = true;
        }
    }
    if new {
        if let Some(f) = o.log.as_mut() {
            use std::io::Write;
            let bytes = std::slice::from_raw_parts(data, size);
            let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
            let _ = writeln!(
                f,
                "{} {} {hex}",
                o.executions,
                o.start.elapsed().as_micros()
            );
        }
        if o.stop_at.is_some_and(|n| o.n_covered >= n) {
            observer_write_end();
            libc::_exit(0);
        }
    }
}

fn write_u32(fd: i32, v: u32) -> bool {
    let b = v.to_le_bytes();
    unsafe { libc::write(fd, b.as_ptr() as *const libc::c_void, 4) == 4 }
}

fn read_u32(fd: i32) -> Option<u32> {
    let mut b = [0u8; 4];
    let mut got = 0;
    while got < 4 {
        let n = unsafe { libc::read(fd, b.as_mut_ptr().add(got) as *mut libc::c_void, 4 - got) };
        if n <= 0 {
            if n < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return None;
        }
        got += n as usize;
    }
    Some(u32::from_le_bytes(b))
}

/// The identity (device, inode) of an open descriptor, or `None` if it is closed.
fn fd_identity(fd: i32) -> Option<(u64, u64)> {
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    if unsafe { libc::fstat(fd, &mut st) } != 0 {
        return None;
    }
    Some((st.st_dev, st.st_ino))
}

/// Die with the parent (the fork server, or the engine): a target process must never outlive
/// what runs it. Returns false if the parent is already gone.
fn die_with_parent(parent: i32) -> bool {
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
        libc::getppid() == parent
    }
}

/// Run the fork server. Returns only in a forked child (or at once if the engine is not
/// listening); the server process itself exits when the engine closes the control pipe. A
/// persistent child keeps the pipes open.
///
/// Each child gets a process group of its own, which the server kills after the child ends, so
/// that processes the target forked do not outlive the input; and each child dies with the
/// server (the server dies with the engine, see the engine's `ForkServer`).
unsafe fn fork_server(persistent: bool) {
    if std::env::var(ENV_CRASH_STACKS).is_ok_and(|v| v == "1") {
        crash_stacks::install();
    }
    let threads = thread_count();
    if threads > 1 {
        no_fork_server(threads);
        return;
    }
    if !write_u32(FORKSRV_ST_FD, FORKSRV_HELLO) {
        return;
    }
    let server = libc::getpid();
    loop {
        if read_u32(FORKSRV_CTL_FD).is_none() {
            libc::_exit(0);
        }
        // A persistent child writes on the status pipe too (FORKSRV_DONE after each input): it
        // must not run before this server has written its pid there, or the engine could read
        // DONE where it expects the pid. The child waits for a byte on `sync` first.
        let mut sync = [-1i32; 2];
        if persistent && libc::pipe(sync.as_mut_ptr()) != 0 {
            libc::_exit(1);
        }
        let pid = libc::fork();
        if pid < 0 {
            libc::_exit(1);
        }
        if pid == 0 {
            libc::setpgid(0, 0);
            if !die_with_parent(server) {
                libc::_exit(0);
            }
            if persistent {
                libc::close(sync[1]);
                let mut b = 0u8;
                while libc::read(sync[0], &mut b as *mut u8 as *mut libc::c_void, 1) < 0
                    && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted
                {
                }
                libc::close(sync[0]);
            } else {
                libc::close(FORKSRV_CTL_FD);
                libc::close(FORKSRV_ST_FD);
            }
            return;
        }
        let told = write_u32(FORKSRV_ST_FD, pid as u32);
        if persistent {
            libc::close(sync[0]);
            let b = 1u8;
            libc::write(sync[1], &b as *const u8 as *const libc::c_void, 1);
            libc::close(sync[1]);
        }
        if !told {
            libc::_exit(0);
        }
        let mut status = 0;
        while libc::waitpid(pid, &mut status, 0) < 0 {
            if std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
                libc::_exit(1);
            }
        }
        // whatever the input forked dies with it
        libc::kill(-pid, libc::SIGKILL);
        if !write_u32(FORKSRV_ST_FD, status as u32) {
            libc::_exit(0);
        }
    }
}

/// Threads of this process (`num_threads` of `/proc/self/stat`; 1 if it cannot be read).
fn thread_count() -> u32 {
    std::fs::read_to_string("/proc/self/stat")
        .ok()
        .and_then(|s| {
            // the fields after the command name, which may hold spaces and parentheses: the
            // 20th field, num_threads, is the 18th after it
            let rest = s.get(s.rfind(')')? + 1..)?;
            rest.split_whitespace().nth(17)?.parse().ok()
        })
        .unwrap_or(1)
}

/// The fork server of a process that already runs `threads` threads ([`FORKSRV_HELLO_NOFORK`]):
/// a forked child would keep only the thread that forks, so that a harness waiting on a thread
/// pool its `LLVMFuzzerInitialize` started would hang at every input. This process runs the
/// inputs itself: it says hello and how many threads it has, waits for the first request,
/// answers with its own pid, and returns to run the input (as a persistent child when the engine
/// asked for one). A crash, exit or timeout ends the process; the engine reads its status with
/// its own `waitpid` and starts another. The protocol's descriptors are closed on `exec`, so that
/// a program the target runs does not hold the status pipe open after the process ended.
unsafe fn no_fork_server(threads: u32) {
    if !write_u32(FORKSRV_ST_FD, FORKSRV_HELLO_NOFORK) || !write_u32(FORKSRV_ST_FD, threads) {
        return;
    }
    for fd in [FORKSRV_CTL_FD, FORKSRV_ST_FD] {
        libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC);
    }
    if read_u32(FORKSRV_CTL_FD).is_none() || !write_u32(FORKSRV_ST_FD, libc::getpid() as u32) {
        libc::_exit(0);
    }
}

/// This process's pid, once it runs inputs under the fork server (for `Header::taken`).
static mut OWN_PID: u32 = 0;

/// Inputs handed out so far by [`__evotest_next`] in this process.
static mut ITERATION: u64 = 0;
/// Whether this process is a persistent child of the fork server.
static mut PERSISTENT_CHILD: bool = false;
/// The fork server's pid: a persistent child whose parent is gone must not report an input, nor
/// may a process the target forked speak the protocol (its parent is the child, or whoever
/// adopted it; the server adopts nothing).
static mut SERVER_PID: i32 = 0;
/// The identity of the control descriptor the persistent child was given (a target may close it,
/// or put another file in its place).
static mut PROTOCOL_CTL: Option<(u64, u64)> = None;

/// The mutable globals the instrumented modules registered ([`__evotest_register_globals`]), and
/// their contents before a persistent child's first input (taken only under
/// [`evotest_abi::names::ENV_RESTORE_GLOBALS`]).
static mut GLOBALS: Vec<(GlobalRange, Vec<u8>)> = Vec::new();
/// Whether a persistent child restores [`GLOBALS`] before each input after the first.
static mut RESTORE_GLOBALS: bool = false;

/// Register a module's mutable globals (see [`evotest_abi::names::REGISTER_GLOBALS`]); called from the
/// module's constructor.
///
/// # Safety
/// `ranges` must point to `n` ranges of memory that stay valid and writable for the process's
/// life (the module's global variables).
#[no_mangle]
pub unsafe extern "C" fn __evotest_register_globals(ranges: *const GlobalRange, n: u64) {
    if ranges.is_null() {
        return;
    }
    let globals = &mut *ptr::addr_of_mut!(GLOBALS);
    for r in std::slice::from_raw_parts(ranges, n as usize) {
        if !r.addr.is_null() && r.size > 0 {
            globals.push((*r, Vec::new()));
        }
    }
}

/// Copy the registered globals (before a persistent child's first input).
unsafe fn snapshot_globals() {
    for (r, copy) in (*ptr::addr_of_mut!(GLOBALS)).iter_mut() {
        *copy = std::slice::from_raw_parts(r.addr, r.size as usize).to_vec();
    }
}

/// Write the copies back (before each later input), so that the input starts from the globals'
/// initial values.
unsafe fn restore_globals() {
    for (r, copy) in (*ptr::addr_of!(GLOBALS)).iter() {
        if copy.len() == r.size as usize {
            ptr::copy_nonoverlapping(copy.as_ptr(), r.addr, copy.len());
        }
    }
}

/// Whether this process runs under the fork server (`EVOTEST_FORKSRV=1` and shared memory),
/// read at the first [`__evotest_next`].
static mut UNDER_FORKSRV: bool = false;

/// The next input, or NULL when there is none. Under the engine (`__EVOTEST_FORKSRV=1`) the first
/// call runs the fork server, so only forked children return: a plain child gets one input
/// (and NULL on the next call, so that the harness returns from `main`), a persistent child gets
/// one input per request of the engine, reporting `FORKSRV_DONE` for the previous one first. Run by
/// hand, it returns the contents of the file named by `argv[1]` (or of standard input) once.
///
/// Sets `*len` to the number of bytes; the pointer stays valid until the next call.
///
/// # Safety
/// `argv` must hold `argc` valid C strings; `len` must be writable.
#[no_mangle]
pub unsafe extern "C" fn __evotest_next(
    argc: i32,
    argv: *const *const libc::c_char,
    len: *mut usize,
) -> *const u8 {
    let h = header();
    if ITERATION == 0 {
        // Read the environment once: this function runs once per input.
        UNDER_FORKSRV = SHARED && std::env::var(ENV_FORKSRV).is_ok_and(|v| v == "1");
    }
    if UNDER_FORKSRV {
        if ITERATION == 0 {
            let persistent = std::env::var(ENV_PERSISTENT).is_ok_and(|v| v == "1");
            fork_server(persistent);
            OWN_PID = libc::getpid() as u32;
            PERSISTENT_CHILD = persistent;
            if persistent {
                PROTOCOL_CTL = fd_identity(FORKSRV_CTL_FD);
                SERVER_PID = libc::getppid();
                RESTORE_GLOBALS = std::env::var(ENV_RESTORE_GLOBALS).is_ok_and(|v| v == "1");
                if RESTORE_GLOBALS {
                    snapshot_globals();
                }
            }
        } else if PERSISTENT_CHILD {
            if libc::getppid() != SERVER_PID {
                // the input killed the fork server, or this is a process the target forked (one
                // system call answers both; a `getpid` per input was dropped for it): end without
                // a word, so that the engine sees the server gone (and not an input that returned)
                libc::_exit(0);
            }
            // The control descriptor must still be the one given: after the answer, a child that
            // cannot read the next request could no longer say so. The status descriptor is not
            // checked (one `fstat` less per input): a target that closed it fails the write, and
            // one that put another file in its place leaves the engine without an answer, which
            // the engine tells from a hang because the input returned (its `ret_state`).
            let given = PROTOCOL_CTL;
            let intact = given.is_some() && fd_identity(FORKSRV_CTL_FD) == given;
            if !intact || !write_u32(FORKSRV_ST_FD, FORKSRV_DONE) {
                // the target closed or replaced the descriptors: the input did run to the end
                libc::_exit(PROTOCOL_LOST_EXIT_CODE);
            }
            if read_u32(FORKSRV_CTL_FD).is_none() {
                libc::_exit(0);
            }
            if RESTORE_GLOBALS {
                restore_globals();
            }
        } else {
            return ptr::null();
        }
        ITERATION += 1;
        (*h).taken = OWN_PID;
        let layout = Layout::from_header(&*h);
        *len = ((*h).input_len).min((*h).input_capacity) as usize;
        return (h as *const u8).add(layout.input_off);
    }
    if ITERATION > 0 {
        return ptr::null();
    }
    ITERATION = 1;
    let data = if argc >= 2 && !(*argv.add(1)).is_null() {
        let path = std::ffi::CStr::from_ptr(*argv.add(1))
            .to_string_lossy()
            .into_owned();
        match std::fs::read(&path) {
            Ok(d) => d,
            Err(e) => {
                eprintln!("evotest: cannot read input file {path}: {e}");
                libc::_exit(2);
            }
        }
    } else {
        use std::io::Read;
        let mut d = Vec::new();
        let _ = std::io::stdin().read_to_end(&mut d);
        d
    };
    *len = data.len();
    let leaked: &'static [u8] = Box::leak(data.into_boxed_slice());
    leaked.as_ptr()
}

/// Whether this process runs under the engine's fork server (shared memory attached and
/// `__EVOTEST_FORKSRV=1`). evotest's libFuzzer-compatible driver asks this to choose between
/// fuzzing under the engine and running files given by hand.
///
/// Print the stack of a deadly signal as fork-server children do ([`crash_stacks`]), for the
/// driver's runs by hand (`./harness crash-…`), where no sanitizer prints one.
///
/// # Safety
/// Call once, from the main thread, before running inputs.
#[no_mangle]
pub unsafe extern "C" fn __evotest_install_crash_stacks() {
    crash_stacks::install_by_hand();
}

/// # Safety
/// Safe to call at any time.
#[no_mangle]
pub unsafe extern "C" fn __evotest_under_engine() -> i32 {
    header();
    (SHARED && std::env::var(ENV_FORKSRV).is_ok_and(|v| v == "1")) as i32
}

/// The whole-program constructor (see the crate docs), after the modules' registration
/// constructors (priority 2) and before C++ static constructors and `main`.
#[used]
#[link_section = ".init_array.00200"]
static EARLY_FORK_SERVER: unsafe extern "C" fn() = early_fork_server;

/// Under the engine with `__EVOTEST_PROGRAM_INPUT` set: run the fork server; in each child, place
/// the input where the program reads it, then return (into `main`).
unsafe extern "C" fn early_fork_server() {
    let Some(mode) = std::env::var_os(ENV_PROGRAM_INPUT) else {
        return;
    };
    if !std::env::var(ENV_FORKSRV).is_ok_and(|v| v == "1") {
        return;
    }
    let h = header();
    if !SHARED {
        return;
    }
    fork_server(false);
    // In a child (or the engine is not listening: then there is no input to place).
    let layout = Layout::from_header(&*h);
    let n = ((*h).input_len).min((*h).input_capacity) as usize;
    let data = std::slice::from_raw_parts((h as *const u8).add(layout.input_off), n);
    if mode == PROGRAM_INPUT_STDIN {
        let fd = libc::memfd_create(c"evotest-input".as_ptr(), 0);
        if fd < 0 || !write_all(fd, data) {
            libc::_exit(3);
        }
        libc::lseek(fd, 0, libc::SEEK_SET);
        if libc::dup2(fd, 0) < 0 {
            libc::_exit(3);
        }
        libc::close(fd);
    } else {
        use std::os::unix::ffi::OsStrExt;
        let Ok(path) = std::ffi::CString::new(mode.as_bytes()) else {
            libc::_exit(3)
        };
        let fd = libc::open(
            path.as_ptr(),
            libc::O_WRONLY | libc::O_CREAT | libc::O_TRUNC | libc::O_CLOEXEC,
            0o600,
        );
        if fd < 0 || !write_all(fd, data) {
            libc::_exit(3);
        }
        libc::close(fd);
    }
}

/// Write all of `data` to `fd`.
unsafe fn write_all(fd: i32, mut data: &[u8]) -> bool {
    while !data.is_empty() {
        let n = libc::write(fd, data.as_ptr() as *const libc::c_void, data.len());
        if n < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
            continue;
        }
        if n <= 0 {
            return false;
        }
        data = &data[n as usize..];
    }
    true
}

/// The stack of a deadly signal, printed by fork-server children for the engine's crash triage
/// (see [`evotest_abi::names::ENV_CRASH_STACKS`]).
mod crash_stacks {
    use evotest_abi::names::CRASH_STACK_BANNER;
    use std::ptr;

    const SIGNALS: [i32; 6] = [
        libc::SIGSEGV,
        libc::SIGBUS,
        libc::SIGFPE,
        libc::SIGILL,
        libc::SIGABRT,
        libc::SIGTRAP,
    ];
    /// The alternate signal stack (so that a stack overflow can be reported).
    const ALT_STACK: usize = 1 << 16;
    /// `/proc/self/exe`, NUL-terminated; the start of the executable's mapping (as `dladdr`
    /// reports it) and its load bias (offsets printed are relative to the bias: ELF virtual
    /// addresses, as the sanitizers print them).
    static mut EXE: [u8; 4096] = [0; 4096];
    static mut EXE_BASE: usize = 0;
    static mut EXE_BIAS: usize = 0;
    /// A sanitizer's `__sanitizer_print_stack_trace`, for runs by hand
    /// ([`install_by_hand`]): it prints the frames with function names and source lines, as
    /// libFuzzer's own handler does. Resolved before any signal (`dlsym` is not safe in a
    /// handler).
    static mut SANITIZER_STACK: Option<unsafe extern "C" fn()> = None;

    /// [`install`], for the driver's runs by hand: when a sanitizer's runtime is linked in, its
    /// symbolising stack printer prints the frames (an `abort()` under AddressSanitizer, whose
    /// handler leaves SIGABRT alone, otherwise showed addresses only).
    pub unsafe fn install_by_hand() {
        let f = libc::dlsym(
            libc::RTLD_DEFAULT,
            c"__sanitizer_print_stack_trace".as_ptr(),
        );
        if !f.is_null() {
            SANITIZER_STACK = Some(std::mem::transmute::<
                *mut libc::c_void,
                unsafe extern "C" fn(),
            >(f));
        }
        install();
    }

    unsafe extern "C" fn first_bias(
        info: *mut libc::dl_phdr_info,
        _size: usize,
        data: *mut libc::c_void,
    ) -> i32 {
        *(data as *mut usize) = (*info).dlpi_addr as usize;
        1
    }

    /// Install the handler for every deadly signal whose action is still the default (a
    /// sanitizer's own handler is kept).
    pub unsafe fn install() {
        let stack = libc::mmap(
            ptr::null_mut(),
            ALT_STACK,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        );
        if stack == libc::MAP_FAILED {
            return;
        }
        let ss = libc::stack_t {
            ss_sp: stack,
            ss_flags: 0,
            ss_size: ALT_STACK,
        };
        libc::sigaltstack(&ss, ptr::null_mut());
        // The first call loads the unwinder; do it now, not in a signal handler.
        let mut frames = [ptr::null_mut(); 4];
        libc::backtrace(frames.as_mut_ptr(), 4);
        #[allow(static_mut_refs)]
        let n = libc::readlink(
            c"/proc/self/exe".as_ptr(),
            EXE.as_mut_ptr() as *mut libc::c_char,
            EXE.len() - 1,
        );
        if n > 0 {
            EXE[n as usize] = 0;
        }
        let mut info: libc::Dl_info = std::mem::zeroed();
        if libc::dladdr(install as *const libc::c_void, &mut info) != 0 {
            EXE_BASE = info.dli_fbase as usize;
        }
        let mut bias = 0usize;
        libc::dl_iterate_phdr(
            Some(first_bias),
            &mut bias as *mut usize as *mut libc::c_void,
        );
        EXE_BIAS = bias;
        for sig in SIGNALS {
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(sig, ptr::null(), &mut old) != 0 || old.sa_sigaction != libc::SIG_DFL
            {
                continue;
            }
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = deadly as *const () as usize;
            sa.sa_flags =
                libc::SA_SIGINFO | libc::SA_ONSTACK | libc::SA_RESETHAND | libc::SA_NODEFER;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(sig, &sa, ptr::null_mut());
        }
    }

    /// A fixed buffer to format into without allocating (in a signal handler).
    struct Buf {
        b: [u8; 16384],
        n: usize,
    }

    impl Buf {
        fn put(&mut self, s: &[u8]) {
            let k = s.len().min(self.b.len() - self.n);
            self.b[self.n..self.n + k].copy_from_slice(&s[..k]);
            self.n += k;
        }
        fn dec(&mut self, mut v: u64) {
            let mut d = [0u8; 20];
            let mut i = d.len();
            loop {
                i -= 1;
                d[i] = b'0' + (v % 10) as u8;
                v /= 10;
                if v == 0 {
                    break;
                }
            }
            self.put(&d[i..]);
        }
        fn hex(&mut self, mut v: u64) {
            let mut d = [0u8; 16];
            let mut i = d.len();
            loop {
                i -= 1;
                d[i] = b"0123456789abcdef"[(v & 15) as usize];
                v >>= 4;
                if v == 0 {
                    break;
                }
            }
            self.put(b"0x");
            self.put(&d[i..]);
        }
    }

    unsafe fn c_str<'a>(p: *const libc::c_char) -> &'a [u8] {
        if p.is_null() {
            return b"";
        }
        std::ffi::CStr::from_ptr(p).to_bytes()
    }

    /// Print `==PID==ERROR: evotest: deadly signal N` and the frames, then die by the signal (the
    /// action was reset to the default on entry).
    unsafe extern "C" fn deadly(sig: i32, _info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
        let mut frames = [ptr::null_mut(); 64];
        let n = libc::backtrace(frames.as_mut_ptr(), frames.len() as i32).max(0) as usize;
        // start at the interrupted instruction: skip this handler and the signal trampoline
        #[cfg(target_arch = "x86_64")]
        let first = {
            let pc = (*(ctx as *const libc::ucontext_t)).uc_mcontext.gregs[libc::REG_RIP as usize]
                as usize;
            frames[..n]
                .iter()
                .position(|&f| f as usize == pc)
                .unwrap_or(0)
        };
        #[cfg(not(target_arch = "x86_64"))]
        let first = {
            let _ = ctx;
            0
        };
        let mut b = Buf {
            b: [0; 16384],
            n: 0,
        };
        b.put(b"==");
        b.dec(libc::getpid() as u64);
        b.put(b"==");
        b.put(CRASH_STACK_BANNER.as_bytes());
        b.put(b" ");
        b.dec(sig as u64);
        b.put(b"\n");
        if let Some(print) = SANITIZER_STACK {
            super::write_all(2, &b.b[..b.n]);
            print();
            libc::raise(sig);
            return;
        }
        for (i, &pc) in frames[first..n].iter().enumerate() {
            b.put(b"    #");
            b.dec(i as u64);
            b.put(b" ");
            b.hex(pc as u64);
            let mut info: libc::Dl_info = std::mem::zeroed();
            if libc::dladdr(pc, &mut info) != 0 && !info.dli_fbase.is_null() {
                b.put(b" (");
                let in_exe = info.dli_fbase as usize == EXE_BASE;
                #[allow(static_mut_refs)]
                let name = if in_exe && EXE[0] != 0 {
                    c_str(EXE.as_ptr() as *const libc::c_char)
                } else {
                    c_str(info.dli_fname)
                };
                let base = if in_exe {
                    EXE_BIAS
                } else {
                    info.dli_fbase as usize
                };
                b.put(name);
                b.put(b"+");
                b.hex((pc as usize).wrapping_sub(base) as u64);
                b.put(b")");
            }
            b.put(b"\n");
        }
        super::write_all(2, &b.b[..b.n]);
        libc::raise(sig);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn desc(id: u64, sites: u32, outcomes: u32) -> Box<ModuleDesc> {
        Box::new(ModuleDesc {
            n_sites: sites,
            n_outcomes: outcomes,
            module_id: id,
            ..Default::default()
        })
    }

    unsafe fn rec(global_site: u32) -> SiteRec {
        let base = MAP.load(Ordering::Relaxed);
        let l = Layout::from_header(&*(base as *const Header));
        *(base.add(l.sites_off) as *const SiteRec).add(global_site as usize)
    }

    unsafe fn dist(global_outcome: u32) -> f64 {
        let base = MAP.load(Ordering::Relaxed);
        let l = Layout::from_header(&*(base as *const Header));
        *(base.add(l.outcomes_off) as *const f64).add(global_outcome as usize)
    }

    /// Two modules get disjoint global ranges; probes record hits, order and minimum distances.
    /// (One test, because the trace map is process-global.)
    #[test]
    fn registration_and_recording() {
        unsafe {
            let mut a = desc(0xA, 3, 6);
            let mut b = desc(0xB, 2, 5);
            __evotest_register_module(&mut *a);
            __evotest_register_module(&mut *b);
            __evotest_register_module(&mut *a); // idempotent
            assert_eq!(a.state, DESC_ACTIVE);
            assert_eq!(b.state, DESC_ACTIVE);
            assert_eq!((a.site_base, a.outcome_base), (0, 0));
            assert_eq!((b.site_base, b.outcome_base), (3, 6));
            let h = &*header();
            assert_eq!(h.n_modules, 2);
            assert_eq!(h.modules[1].module_id, 0xB);
            // a private map (a target run by hand) starts coverage-only; these are full probes
            assert_eq!(h.flags & FLAG_LITE, FLAG_LITE);
            (*header()).flags &= !FLAG_LITE;

            // module b, local site 1 (global 4), outcomes at local 2..4 (global 8..10): x < 10
            __evotest_cmp_int(&mut *b, 1, 2, Pred::Slt as u32, 25, 10);
            __evotest_cmp_int(&mut *b, 1, 2, Pred::Slt as u32, 12, 10);
            assert_eq!(rec(4).hits, 2);
            assert_eq!(dist(8), 3.0); // min over the execution of x - 10 + 1
            assert_eq!(dist(9), 0.0);
            // module a, local site 0: a switch with cases 7 and 3 (in that outcome order) on 100
            let (cases, order) = ([7u64, 3], [1u32, 0]);
            __evotest_switch(&mut *a, 0, 0, 100, 1, 2, cases.as_ptr(), order.as_ptr());
            assert_eq!(rec(0).hits, 1);
            assert_eq!(
                (dist(0), dist(1), dist(2)),
                (0.0, 93.0, 97.0),
                "first evaluation: every case"
            );
            // later evaluations update the cases around the value (5: both), or the case taken
            __evotest_switch(&mut *a, 0, 0, 5, 1, 2, cases.as_ptr(), order.as_ptr());
            assert_eq!((dist(1), dist(2)), (2.0, 2.0));
            __evotest_switch(
                &mut *a,
                0,
                0,
                (-4i64) as u64,
                1,
                2,
                cases.as_ptr(),
                order.as_ptr(),
            );
            __evotest_switch(&mut *a, 0, 0, 3, 1, 2, cases.as_ptr(), order.as_ptr());
            assert_eq!((dist(0), dist(1), dist(2)), (0.0, 2.0, 0.0));
            assert_eq!(rec(0).hits, 4);
            // first-reached order: b's site came first
            assert!(rec(4).order() < rec(0).order());
            // a quiet site (engine-marked between executions; here a new execution for site 4):
            // its first evaluation records in full and marks the site's record, the later ones
            // only count the hit and the branch event; the distances stay as they were
            let base = MAP.load(Ordering::Relaxed);
            *base.add(layout().quiet_off + 4) = 1;
            *(base.add(layout().sites_off) as *mut SiteRec).add(4) = SiteRec::default();
            __evotest_cmp_int(&mut *b, 1, 2, Pred::Slt as u32, 12, 10);
            assert_eq!(
                (rec(4).hits, dist(8), dist(9)),
                (1, 3.0, 0.0),
                "quiet: the first evaluation records"
            );
            assert_ne!(
                rec(4).first_seq & FIRST_SEQ_QUIET,
                0,
                "marked quiet at its first evaluation"
            );
            assert_eq!(rec(4).order(), (*header()).seq);
            let seq = (*header()).seq;
            __evotest_cmp_int(&mut *b, 1, 2, Pred::Slt as u32, 11, 10);
            assert_eq!(
                (rec(4).hits, dist(8), dist(9)),
                (2, 3.0, 0.0),
                "quiet: the distances stay"
            );
            __evotest_cmp_int(&mut *b, 1, 2, Pred::Slt as u32, 3, 10);
            assert_eq!(
                (rec(4).hits, dist(8), dist(9)),
                (3, 3.0, 0.0),
                "quiet: only the hit is counted"
            );
            assert_eq!(
                (*header()).seq,
                seq + 2,
                "quiet: each evaluation is a branch event"
            );
            // with the ordered trace on, a quiet site records as any other
            (*header()).events_enabled = 1;
            __evotest_cmp_int(&mut *b, 1, 2, Pred::Slt as u32, 3, 10);
            assert_eq!((rec(4).hits, dist(8)), (4, 0.0));
            (*header()).events_enabled = 0;
            *base.add(layout().quiet_off + 4) = 0;
            // a site not executed has no hits
            assert_eq!(rec(1).hits, 0);

            // string compares: the first evaluation of each site is logged, cut to the cap
            let h = &*header();
            assert_eq!(h.n_str_operands, 0);
            let long = [b'q'; STR_OPERAND_CAP + 5];
            let mut long_c = long.to_vec();
            long_c.push(0);
            __evotest_cmp_str(
                &mut *a,
                1,
                3,
                Pred::Eq as u32,
                distance::STR_STRCMP,
                c"abc".as_ptr() as *const u8,
                long_c.as_ptr(),
                0,
            );
            __evotest_cmp_str(
                &mut *a,
                1,
                3,
                Pred::Eq as u32,
                distance::STR_STRCMP,
                c"zz".as_ptr() as *const u8,
                c"zz".as_ptr() as *const u8,
                0,
            );
            __evotest_cmp_str(
                &mut *b,
                0,
                0,
                Pred::Ne as u32,
                distance::STR_MEMCMP,
                b"KEY\0x".as_ptr(),
                b"KEZ\0y".as_ptr(),
                5,
            );
            assert_eq!(rec(1).hits, 2);
            assert_eq!(dist(3), 0.0, "the second call took `true`");
            assert_eq!(h.n_str_operands, 2, "one record per site");
            let base = MAP.load(Ordering::Relaxed);
            let l = Layout::from_header(h);
            let log =
                std::slice::from_raw_parts(base.add(l.str_operands_off) as *const StrOperandRec, 2);
            assert_eq!(
                (log[0].site, log[0].func, log[0].n),
                (1, distance::STR_STRCMP, 0)
            );
            assert_eq!(
                (log[0].a(), log[0].b()),
                (&b"abc"[..], &long[..STR_OPERAND_CAP])
            );
            assert_eq!(log[0].b_len as usize, STR_OPERAND_CAP + 5);
            assert_eq!(
                (log[1].site, log[1].func, log[1].n),
                (3, distance::STR_MEMCMP, 5)
            );
            assert_eq!(
                (log[1].a(), log[1].b()),
                (&b"KEY\0x"[..], &b"KEZ\0y"[..]),
                "memcmp: n bytes, NULs included"
            );

            // later evaluations of sites that are not quiet take the repeat path: they min the
            // distances and count the hit and the branch event, and add no touched entry and no
            // operand record (module c: sites 5, 6, 7 at outcomes 11..13, 13..15, 15..17)
            let mut c = desc(0xC, 3, 6);
            __evotest_register_module(&mut *c);
            assert_eq!((c.site_base, c.outcome_base), (5, 11));
            __evotest_cmp_float(&mut *c, 0, 0, Pred::Olt as u32, 7.5, 2.0);
            __evotest_cond(&mut *c, 1, 2, 0);
            __evotest_ccmp_int(&mut *c, 2, 4, Pred::Eq as u32, 10, 3);
            let (touched, ops, seq) = (h.n_touched, h.n_operands, h.seq);
            assert_eq!(
                (dist(11), dist(12), dist(13), dist(14), dist(15), dist(16)),
                (6.5, 0.0, 1.0, 0.0, 7.0, 0.0)
            );
            __evotest_cmp_float(&mut *c, 0, 0, Pred::Olt as u32, 3.0, 2.0);
            __evotest_cmp_float(&mut *c, 0, 0, Pred::Olt as u32, 9.0, 2.0);
            __evotest_cond(&mut *c, 1, 2, 1);
            __evotest_ccmp_int(&mut *c, 2, 4, Pred::Eq as u32, 4, 3);
            assert_eq!(
                (dist(11), dist(12)),
                (2.0, 0.0),
                "float: the least distance"
            );
            assert_eq!(
                (dist(13), dist(14)),
                (0.0, 0.0),
                "condition: both outcomes taken"
            );
            assert_eq!(
                (dist(15), dist(16)),
                (1.0, 0.0),
                "condition-only compare: the least distance"
            );
            assert_eq!((rec(5).hits, rec(6).hits, rec(7).hits), (3, 2, 2));
            assert_eq!(
                (h.n_touched, h.n_operands),
                (touched, ops),
                "no new touched entry, no operand record"
            );
            assert_eq!(
                h.seq,
                seq + 3,
                "a branch event each, the condition-only compare excepted"
            );
            // logging later evaluations' operands (what the search's input-to-state reads) takes
            // the full path again
            (*header()).flags |= FLAG_REPEATED_OPERANDS;
            __evotest_cmp_float(&mut *c, 0, 0, Pred::Olt as u32, 2.5, 2.0);
            (*header()).flags &= !FLAG_REPEATED_OPERANDS;
            assert_eq!((dist(11), rec(5).hits, h.n_operands), (1.5, 4, ops + 1));
        }
    }
}

/// Rust byte-string operands and distances ([`__evotest_cmp_bytes`]); pure, without the trace
/// map.
#[cfg(test)]
mod bytes_tests {
    use super::*;
    use evotest_abi::distance::{
        BYTES_ARRAY, BYTES_SLICE, BYTES_STRING, BYTES_VEC, STR_BYTES_EQ, STR_BYTES_PREFIX,
        STR_BYTES_SUFFIX,
    };

    #[test]
    fn operands_are_read_in_every_form() {
        unsafe {
            let s: &str = "launch";
            assert_eq!(
                rust_bytes(s.as_ptr(), 6, (BYTES_SLICE, 0)),
                Some(&b"launch"[..])
            );
            // `&&str`: a pointer to the fat pointer; `&&&str`: one more
            let r: &&str = &s;
            assert_eq!(
                rust_bytes(r as *const &str as *const u8, 0, (BYTES_SLICE, 1)),
                Some(&b"launch"[..])
            );
            let rr: &&&str = &r;
            assert_eq!(
                rust_bytes(rr as *const &&str as *const u8, 0, (BYTES_SLICE, 2)),
                Some(&b"launch"[..])
            );
            let owned = String::from("GET");
            assert_eq!(
                rust_bytes(&owned as *const String as *const u8, 0, (BYTES_STRING, 0)),
                Some(&b"GET"[..])
            );
            let v: Vec<u8> = vec![1, 2];
            let rv: &Vec<u8> = &v;
            assert_eq!(
                rust_bytes(&rv as *const &Vec<u8> as *const u8, 0, (BYTES_VEC, 1)),
                Some(&[1u8, 2][..])
            );
            let a = *b"PK\x03\x04";
            assert_eq!(rust_bytes(a.as_ptr(), 4, (BYTES_ARRAY, 0)), Some(&a[..]));
            let ra: &[u8; 4] = &a;
            assert_eq!(
                rust_bytes(&ra as *const &[u8; 4] as *const u8, 4, (BYTES_ARRAY, 1)),
                Some(&a[..])
            );
            assert_eq!(rust_bytes(std::ptr::null(), 0, (BYTES_SLICE, 1)), None);
        }
    }

    #[test]
    fn distances_are_zero_exactly_when_the_operation_holds() {
        assert_eq!(bytes_compared(STR_BYTES_EQ, b"launch", b"launch").2, 0.0);
        assert_eq!(bytes_compared(STR_BYTES_EQ, b"lbunch", b"launch").2, 1.0);
        assert_eq!(
            bytes_compared(STR_BYTES_EQ, b"lau", b"launch").2,
            3.0 * distance::LENGTH_PENALTY
        );
        // starts_with: the haystack's first bytes against the pattern
        let (a, b, d) = bytes_compared(STR_BYTES_PREFIX, b"/apx/v1", b"/api/");
        assert_eq!((a, b, d), (&b"/apx/"[..], &b"/api/"[..], 15.0));
        assert_eq!(
            bytes_compared(STR_BYTES_PREFIX, b"/api/v1", b"/api/").2,
            0.0
        );
        assert_eq!(
            bytes_compared(STR_BYTES_PREFIX, b"/a", b"/api/").2,
            3.0 * distance::LENGTH_PENALTY
        );
        // ends_with: the last bytes
        let (a, _, d) = bytes_compared(STR_BYTES_SUFFIX, b"x.jsoo", b".json");
        assert_eq!((a, d), (&b".jsoo"[..], 1.0));
        assert_eq!(bytes_compared(STR_BYTES_SUFFIX, b"x.json", b".json").2, 0.0);
        assert_eq!(bytes_compared(STR_BYTES_SUFFIX, b"", b"").2, 0.0);
        // equal beyond the cut only counts as unequal
        let x = vec![b'a'; MAX_STR + 1];
        let mut y = x.clone();
        y[MAX_STR] = b'b';
        assert_eq!(bytes_compared(STR_BYTES_EQ, &x, &y).2, 1.0);
        assert_eq!(bytes_compared(STR_BYTES_EQ, &x, &x).2, 0.0);
    }
}
