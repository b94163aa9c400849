//! Layout of the shared-memory trace map (one System V segment, mode 0600, per campaign).
//!
//! ```text
//! offset 0             Header            (fixed size, HEADER_SIZE bytes)
//! layout.sites_off     [SiteRec; site_capacity]        8 bytes per branch site
//! layout.outcomes_off  [f64; outcome_capacity]         min branch distance per outcome
//! layout.input_off     [u8; input_capacity]            the input of the next execution
//! layout.events_off    [Event; event_capacity]         the ordered trace (when enabled)
//! layout.operands_off  [OperandRec; operand_capacity]  compare operands, first hit of each site
//! layout.str_operands_off [StrOperandRec; STR_LOG_CAPACITY]  compared strings, first hit of each site
//! layout.touched_off   [u32; site_capacity]            sites run, in the order first reached
//! layout.quiet_off     [u8; site_capacity]             engine: 1 = the site's distances are not needed
//! layout.lite_off      [u8; outcome_capacity]          coverage-only executions: times each outcome was taken
//! ```
//!
//! The **lite map** is written only by executions the engine runs with [`FLAG_LITE`] set
//! (coverage-only executions, AFL++'s split of its fast coverage build from its CmpLog build,
//! done with one build): every probe then only adds one, saturating at 255, to the byte of the
//! outcome it took, and records nothing else (no site record, no distance, no touched list, no
//! operand log, no branch event). The engine reads the map after such an execution and zeroes
//! the bytes it found set. A site's hit count is the sum of its outcomes' bytes, exact up to
//! 255 per outcome, which keeps its hit-count bucket exact (the highest bucket starts at 128).
//!
//! The **touched list** holds the global ID of every site the execution ran, appended at the
//! site's first evaluation (`Header::n_touched` entries), so that the engine reads and resets
//! only the records of the sites that ran, not the whole site array of a large library.
//!
//! The **quiet map** is written by the engine and kept across executions: a site marked quiet
//! (all its outcomes covered, in `evotest fuzz`) needs only its hit count (for hit-count buckets).
//! From its second evaluation in an execution on, its probe then counts the hit and the branch
//! event and records nothing else (a probe's fast path of a few loads and two stores), unless
//! the ordered trace is on or a branch-event limit is set (then it is recorded in full). Its first
//! evaluation is always recorded in full (distances and operand log), so the outcome it took
//! then reads as taken; that evaluation also reads the quiet byte and marks the site's own
//! record ([`FIRST_SEQ_QUIET`]), which is all the later ones read;
//! outcomes only later evaluations took do not (they are covered already).
//!
//! The **operand log** keeps, for each compare site executed, the operands of its first
//! evaluation in the execution, in the order sites were first reached (`Header::n_operands`
//! entries). With [`FLAG_REPEATED_OPERANDS`] set in `Header::flags` it also keeps the operands
//! of each compare site's later evaluations, up to [`OPERAND_EVALS`] per site and execution (a
//! record equal to the log's last one is not repeated), in the order they ran: a compare in a
//! loop over the input (`*p >= '0'` for each character) then shows every character it saw.
//! Those later records take at most `site_capacity + OPERAND_EXTRA` entries, so the first
//! evaluation of every site always finds room ([`operand_capacity`]). The engine uses it for
//! input-to-state moves: an input field equal to one operand is set to the other (Aschermann et
//! al. 2019, REDQUEEN; AFL++'s CmpLog).
//!
//! The **string operand log** does the same for the string compares (`strcmp`, `strncmp`,
//! `memcmp`, `bcmp` compared `==`/`!=` with 0; REDQUEEN's and CmpLog's "routine" operands): the
//! two byte strings of each such site's first evaluation, each cut to [`STR_OPERAND_CAP`] bytes,
//! at most [`STR_LOG_CAPACITY`] records per execution (`Header::n_str_operands` entries; later
//! sites are not logged), and, under [`FLAG_REPEATED_STR_OPERANDS`], those of later evaluations
//! as well, and the arguments of calls of routines that take two pointers (records of site
//! [`RTN_SITE`], [`crate::names::PROBE_RTN`]; at most half of the log). Only the count is reset
//! per execution.
//!
//! The **ordered trace** is written only when the engine sets `Header::events_enabled` for an
//! execution (the chaining approach needs the order of definitions and branch outcomes; plain
//! branch coverage does not). Each branch probe appends the outcome taken, each definition probe
//! the definition; when the buffer is full, `events_overflow` is set and later events are dropped,
//! so a truncated trace is always detected.
//!
//! **Who writes what.** The engine creates the segment, fills the header's capacities, and before
//! every execution writes the input, zeroes the per-execution header words and the `SiteRec`s of
//! all registered sites. The runtime registers modules (once, in the fork server before any fork),
//! and in each execution updates `SiteRec`s and outcome distances and appends to the operand logs
//! (whose records are not reset: only their counts). Outcome distances are *not* reset by the
//! engine: a probe overwrites a site's outcomes on the site's first hit (`hits == 0`) and takes
//! the minimum afterwards, so an outcome's slot is meaningful only when its site's `hits > 0`.

/// `"EVOTSHM\0"` little-endian.
pub const MAGIC: u64 = u64::from_le_bytes(*b"EVOTSHM\0");
/// Bumped whenever anything in this file changes.
pub const LAYOUT_VERSION: u32 = 13;
/// Most instrumented translation units one executable may register.
pub const MAX_MODULES: usize = 1024;

/// `Header::overflow` bit: a module did not fit in the site or outcome capacity; its probes are
/// ignored.
pub const OVERFLOW_CAPACITY: u32 = 1;
/// `Header::overflow` bit: more than [`MAX_MODULES`] modules registered.
pub const OVERFLOW_MODULES: u32 = 2;

/// `Header::ret_state` values.
pub const RET_NONE: u32 = 0;
/// The harness returned from the function under test; `ret_kind` and `ret_bits` are valid.
pub const RET_RETURNED: u32 = 1;

/// `Header::ret_kind` values: how to read `ret_bits`.
pub const RET_VOID: u32 = 0;
/// `ret_bits` is an `i64` (sign-extended from the return type).
pub const RET_SIGNED: u32 = 1;
/// `ret_bits` is a `u64` (zero-extended).
pub const RET_UNSIGNED: u32 = 2;
/// `ret_bits` is the bit pattern of an `f64` (a `float` is widened exactly).
pub const RET_FLOAT64: u32 = 3;
/// `ret_bits` is the bit pattern of an `f32`, in the low 32 bits.
pub const RET_FLOAT32: u32 = 4;

/// `Header::inproc_fault`: the in-process worker's watchdog ended an execution that ran past the
/// timeout.
pub const INPROC_FAULT_TIMEOUT: u32 = 1;
/// `Header::inproc_fault`: the in-process worker's watchdog found the process above the RSS limit
/// during an execution.
pub const INPROC_FAULT_OOM: u32 = 2;

/// Exit status of a process stopped by the branch-event limit (`Header::max_branch_events`); the
/// engine recognises the stop by `Header::step_limit_hit`, not by this code.
pub const STEP_LIMIT_EXIT_CODE: i32 = 86;

/// Exit status of a persistent child that can no longer speak the fork-server protocol (the
/// target closed or replaced its descriptors) after its input ran to the end: the engine counts
/// the input as returned and falls back to a process per input.
pub const PROTOCOL_LOST_EXIT_CODE: i32 = 87;

/// One registered translation unit: where its local site and outcome numbers start globally.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ModuleEntry {
    /// `meta::ModuleMeta::module_id` of the unit.
    pub module_id: u64,
    pub site_base: u32,
    pub outcome_base: u32,
    pub n_sites: u32,
    pub n_outcomes: u32,
    pub def_base: u32,
    pub n_defs: u32,
}

/// The fixed-size start of the segment.
#[repr(C)]
pub struct Header {
    pub magic: u64,
    pub version: u32,
    /// Engine → runtime options (`FLAG_*` bits), kept across executions.
    pub flags: u32,
    pub site_capacity: u32,
    pub outcome_capacity: u32,
    pub input_capacity: u32,
    /// Bytes of input for the next execution (engine-written).
    pub input_len: u32,
    // --- written by the runtime at registration ---
    pub n_modules: u32,
    pub sites_used: u32,
    pub outcomes_used: u32,
    /// `OVERFLOW_*` bits.
    pub overflow: u32,
    // --- per execution, zeroed by the engine ---
    /// Branch events so far in this execution (saturating).
    pub seq: u32,
    /// `RET_NONE` or `RET_RETURNED`.
    pub ret_state: u32,
    /// `RET_VOID`, `RET_SIGNED`, … (valid when `ret_state == RET_RETURNED`).
    pub ret_kind: u32,
    /// Most branch events one execution may run (engine-written, kept across executions; 0 = no
    /// limit). The probe that exceeds it sets `step_limit_hit` and ends the process with
    /// [`STEP_LIMIT_EXIT_CODE`]: a runaway loop stops cleanly, long before a timeout.
    pub max_branch_events: u32,
    pub ret_bits: u64,
    /// Ordered trace: capacity (engine), on/off for this execution (engine), events written and
    /// overflow flag (runtime; zeroed by the engine).
    pub event_capacity: u32,
    pub events_enabled: u32,
    pub n_events: u32,
    pub events_overflow: u32,
    /// Definitions registered (runtime).
    pub defs_used: u32,
    /// Set by the runtime when the execution exceeded `max_branch_events` (zeroed by the engine).
    pub step_limit_hit: u32,
    /// Entries of the operand log written in this execution (runtime; zeroed by the engine).
    pub n_operands: u32,
    /// Entries of the string operand log written in this execution (runtime; zeroed by the
    /// engine), at most [`STR_LOG_CAPACITY`].
    pub n_str_operands: u32,
    /// Entries of the touched list written in this execution (runtime; zeroed by the engine).
    pub n_touched: u32,
    /// In-process mode: why the worker ended itself in the middle of an execution
    /// ([`INPROC_FAULT_TIMEOUT`], [`INPROC_FAULT_OOM`]; 0 = it did not). Written by the worker's
    /// watchdog just before it exits; zeroed by the supervisor before it starts a worker.
    pub inproc_fault: u32,
    /// In-process mode: executions the worker has started (its count, kept in shared memory so
    /// that the supervisor still knows it after the worker died).
    pub inproc_executions: u64,
    pub modules: [ModuleEntry; MAX_MODULES],
    /// In-process mode: the most branch outcomes and features the worker has covered, and the
    /// inputs it added to the corpus, updated by the worker's engine whenever they grow (the
    /// runtime never touches them), so that the supervisor still knows them after the worker
    /// died. Zeroed with the rest of the header; set from the carry before each worker.
    pub inproc_outcomes_covered: u64,
    pub inproc_features: u64,
    pub inproc_corpus_new: u64,
    /// Most branch events one call of an API call sequence may run (engine-written, kept across
    /// executions; 0 = none): the sequence harness calls `__evotest_call_begin` before each
    /// call, which moves `max_branch_events` to this many events past `seq`, so that one call
    /// that never ends stops as a step limit as soon as it has run this many, not after the whole
    /// sequence's allowance.
    pub max_call_events: u32,
    /// The pid of the persistent fork-server child (or of the server that runs its inputs itself)
    /// that took the execution's input, written by `__evotest_next` before the harness runs it
    /// (zeroed by the engine; a whole program's child, one per input, does not write it). When the persistent child the engine wrote its request to ended and this is not
    /// its pid, the child died between two inputs (killed from outside, or by a thread an earlier
    /// input left running), not of this input, and the server may have taken the request for a
    /// new child of its own.
    pub taken: u32,
}

/// Size reserved for the header (rounded up to a page).
pub const HEADER_SIZE: usize = round_up(core::mem::size_of::<Header>(), 4096);

/// Per-execution record of one branch site.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SiteRec {
    /// Times the site was evaluated in this execution (saturating). 0 = not executed.
    pub hits: u32,
    /// Value of `Header::seq` (1-based) when the site was first evaluated: the order in which
    /// sites were reached, used for approach levels and divergence points. 0 = not executed.
    /// Bit [`FIRST_SEQ_QUIET`] is the runtime's own mark (the site was quiet at that first
    /// evaluation); read the order through [`SiteRec::order`].
    pub first_seq: u32,
}

/// `SiteRec::first_seq` bit: the site was quiet (`Layout::quiet_off`) at its first evaluation in
/// this execution, with no ordered trace and no branch-event limit, so that its later
/// evaluations only count the hit. Kept in the site's own record so that the probes' fast path
/// reads one cache line per site, not the record and the quiet byte apart. The order itself
/// saturates below this bit.
pub const FIRST_SEQ_QUIET: u32 = 1 << 31;

impl SiteRec {
    /// The order in which the site was first reached ([`SiteRec::first_seq`] without the
    /// runtime's [`FIRST_SEQ_QUIET`] mark); 0 = not executed.
    pub fn order(&self) -> u32 {
        self.first_seq & !FIRST_SEQ_QUIET
    }
}

/// One entry of the ordered trace.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Event {
    /// A global site ID, or a global definition ID with [`EVENT_DEF`] set.
    pub id: u32,
    /// For a branch: the outcome taken.
    pub outcome: u32,
    /// For a two-outcome branch: the distance to the outcome not taken (branch distance of the
    /// alternative branch). For a `switch`: the switched value (as signed), from which the distance
    /// to any case follows.
    pub alt: f64,
}

/// One entry of the operand log: the operands of a compare at its first evaluation in the
/// execution (or a later one, under [`FLAG_REPEATED_OPERANDS`]). Integers are widened to 64 bits
/// as the predicate says ([`crate::pred::Pred::int_operands_signed`]); floats are `f64` bit
/// patterns.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OperandRec {
    /// Global site ID.
    pub site: u32,
    /// The predicate ([`crate::pred::Pred`] as `u32`, in [`OPERANDS_PRED_MASK`]), with
    /// [`OPERANDS_FLOAT`] set for an `fcmp`, [`OPERANDS_REPEATED`] for a later evaluation, and
    /// [`OPERAND_A_CONST`] / [`OPERAND_B_CONST`] for a constant operand; see
    /// [`OperandRec::pred`] and [`OperandRec::constant`].
    pub kind: u32,
    pub a: u64,
    pub b: u64,
}

/// `OperandRec::kind` bit: the operands are `f64` bit patterns.
pub const OPERANDS_FLOAT: u32 = 1 << 31;
/// Flag in [`OperandRec::kind`]: a later evaluation of the site in the execution, not its first
/// (logged under [`FLAG_REPEATED_OPERANDS`]).
pub const OPERANDS_REPEATED: u32 = 1 << 30;
/// Flag in [`OperandRec::kind`] (and in the `pred` argument of the compare probes, where the pass
/// sets it): operand `a` is a constant of the program (an IR constant at instrumentation time), so
/// it never comes from the input: input-to-state looks for the other operand only.
pub const OPERAND_A_CONST: u32 = 1 << 29;
/// As [`OPERAND_A_CONST`], for operand `b`.
pub const OPERAND_B_CONST: u32 = 1 << 28;
/// Flag in [`OperandRec::kind`] (and in the `pred` argument of the compare probes, where the pass
/// sets it): the operands are pointers (an `icmp` of `ptr`s, logged as their addresses). Their
/// values say where memory is, never what an input holds, and move with the binary's layout, so
/// the value pools of API testing and GE's observed constants leave them out
/// (`Trace::operand_pairs`).
pub const OPERANDS_POINTER: u32 = 1 << 27;
/// The bits of [`OperandRec::kind`] (and of a compare probe's `pred` argument) that hold the
/// predicate.
pub const OPERANDS_PRED_MASK: u32 = 0xffff;

impl OperandRec {
    /// The compare's predicate.
    pub fn pred(&self) -> Option<crate::pred::Pred> {
        crate::pred::Pred::from_u32(self.kind & OPERANDS_PRED_MASK)
    }

    /// The operands' width in bytes of a loose compare's record (site [`LOOSE_SITE`]), from its
    /// `kind`; `None` for any other record, whose width the site's metadata gives.
    pub fn loose_width(&self) -> Option<usize> {
        let w = ((self.kind & OPERANDS_WIDTH_MASK) >> OPERANDS_WIDTH_SHIFT) as usize;
        (self.is_loose() && w > 0).then_some(w)
    }

    /// Whether it is a loose compare's record (site [`LOOSE_SITE`]: a compare no branch tests).
    pub fn is_loose(&self) -> bool {
        self.site == LOOSE_SITE
    }

    /// Whether operand `a` (`left`) or `b` is a constant of the program ([`OPERAND_A_CONST`]).
    pub fn constant(&self, left: bool) -> bool {
        self.kind
            & if left {
                OPERAND_A_CONST
            } else {
                OPERAND_B_CONST
            }
            != 0
    }
}

/// Bytes of each compared string kept in a [`StrOperandRec`]: a longer string is logged as its
/// first `STR_OPERAND_CAP` bytes (its whole length is still recorded). 64 holds the keywords,
/// magic headers and identifiers that input-to-state replacement is for, and keeps a record at
/// 152 bytes, copied once per string-compare site and execution.
pub const STR_OPERAND_CAP: usize = 64;

/// `Header::flags` bit: log the operands of a compare site's later evaluations in an execution
/// too, not only its first (up to [`OPERAND_EVALS`] per site; see the module docs).
pub const FLAG_REPEATED_OPERANDS: u32 = 1;

/// `Header::flags` bit: log the compared strings of a string-compare site's later evaluations in
/// an execution too, not only its first (up to [`OPERAND_EVALS`] per site, within
/// [`STR_LOG_CAPACITY`]): a lookup of a word in a table of keywords (`strcmp` in a loop) then
/// shows every keyword. Set by the fuzzer for its input-to-state stage on every compare.
pub const FLAG_REPEATED_STR_OPERANDS: u32 = 2;

/// `Header::flags` bit: flag functions keep their frames and their returns record a flag
/// distance for the caller's probes ([`crate::names::FRAME_RET`]). Set by function-level
/// searches, whose goals behind a helper's `bool` result (`if (valid(x))`) otherwise see only
/// 0 or K.
pub const FLAG_RETURN_DISTANCES: u32 = 4;

/// `Header::flags` bit: a coverage-only execution (see the lite map in the module docs). Set by
/// the fuzzer for most of its mutation stage's executions, whose distances it does not need;
/// never together with an ordered trace, a branch-event limit or operand logging of later
/// evaluations (the probes then record none of these).
pub const FLAG_LITE: u32 = 8;

/// `Header::flags` bit: log the operands of the *loose* compares too, integer and float compares
/// that are no branch site's condition (`return v == MAGIC;`, `ok &= a < b;`, a compare a
/// function returns or stores), as records of site [`LOOSE_SITE`] ([`crate::names::PROBE_LOOSE`];
/// SanitizerCoverage's `trace-cmp` and AFL++'s CmpLog log every compare). Set by the fuzzer for
/// each execution of its input-to-state stage on every compare, with [`FLAG_REPEATED_OPERANDS`];
/// the runtime clears it when the loose records have used up their room in the log, so that the
/// probes' inline test stops calling for the rest of the execution.
pub const FLAG_LOOSE_OPERANDS: u32 = 16;

/// The `site` of an operand record of a loose compare ([`FLAG_LOOSE_OPERANDS`]): no branch site
/// has this ID. Its `kind` holds the operands' width in bytes (1, 2, 4 or 8) in
/// [`OPERANDS_WIDTH_MASK`].
pub const LOOSE_SITE: u32 = u32::MAX - 1;

/// Bits of a loose compare's [`OperandRec::kind`] that hold its operands' width in bytes (see
/// [`OperandRec::loose_width`]).
pub const OPERANDS_WIDTH_MASK: u32 = 0xf << 16;
/// Shift of [`OPERANDS_WIDTH_MASK`].
pub const OPERANDS_WIDTH_SHIFT: u32 = 16;

/// The frame of a flag function ([`crate::names::FRAME_CMP_INT`]), a local the pass allocates
/// and zeroes at the function's entry: how many of its conditions this call evaluated, and the
/// distance to the other outcome of the last one (0: none yet).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FlagFrame {
    pub evaluated: u32,
    pub flip: f64,
}

/// Bytes of each pointer argument of a routine call logged ([`crate::names::PROBE_RTN`]; AFL++
/// logs as many): a C string is cut at its NUL within them.
pub const RTN_BYTES: usize = 32;

/// The `site` of a string operand record of a routine call ([`crate::names::PROBE_RTN`]): no
/// branch site has this ID.
pub const RTN_SITE: u32 = u32::MAX;

/// Most evaluations of one compare site logged in an execution under [`FLAG_REPEATED_OPERANDS`].
pub const OPERAND_EVALS: u32 = 16;

/// Entries of the operand log beyond two per site, for the later evaluations of
/// [`FLAG_REPEATED_OPERANDS`] in programs with few sites.
pub const OPERAND_EXTRA: u32 = 4096;

/// Capacity of the operand log of a map of `sites` sites: a first-evaluation record per site,
/// and as many again plus [`OPERAND_EXTRA`] for later evaluations.
pub const fn operand_capacity(sites: u32) -> usize {
    2 * sites as usize + OPERAND_EXTRA as usize
}

/// Records of the string operand log (one per string-compare site that ran, in the order the
/// sites were first reached); string compares beyond this many in one execution are not logged.
pub const STR_LOG_CAPACITY: u32 = 1024;

/// One entry of the string operand log: the two byte strings a `strcmp`, `strncmp` or `memcmp`
/// (or `bcmp`) compared at its site's first evaluation in the execution (Aschermann et al. 2019,
/// REDQUEEN's routine operands). The strings are what the call compared: for `strcmp` the bytes
/// before each string's NUL; for `strncmp` at most `n` of them; for `memcmp` exactly `n` bytes.
/// A record of site [`RTN_SITE`] holds the arguments of a routine call
/// ([`crate::names::PROBE_RTN`]): two C strings as a `strcmp`, or readable bytes as a `memcmp`
/// whose `n` is the bytes read when the routine has a length argument and 0 when it has none.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StrOperandRec {
    /// Global site ID ([`RTN_SITE`] for a routine call's arguments).
    pub site: u32,
    /// The function: [`crate::distance::STR_STRCMP`], [`crate::distance::STR_STRNCMP`],
    /// [`crate::distance::STR_MEMCMP`], … [`crate::distance::STR_STRCASESTR`].
    pub func: u32,
    /// The length argument of `strncmp`/`memcmp` (saturated to `u32::MAX`); 0 for `strcmp`, and
    /// for a routine call's bytes of unknown extent.
    pub n: u32,
    /// Length in bytes of the first compared string (before the cut to [`STR_OPERAND_CAP`]).
    pub a_len: u32,
    /// Length in bytes of the second compared string (before the cut).
    pub b_len: u32,
    pub _pad: u32,
    /// The first `min(a_len, STR_OPERAND_CAP)` bytes of the first string; the rest is unspecified.
    pub a: [u8; STR_OPERAND_CAP],
    /// The first `min(b_len, STR_OPERAND_CAP)` bytes of the second string.
    pub b: [u8; STR_OPERAND_CAP],
}

impl Default for StrOperandRec {
    fn default() -> Self {
        StrOperandRec {
            site: 0,
            func: 0,
            n: 0,
            a_len: 0,
            b_len: 0,
            _pad: 0,
            a: [0; STR_OPERAND_CAP],
            b: [0; STR_OPERAND_CAP],
        }
    }
}

impl StrOperandRec {
    /// A record of `func` comparing `a` with `b` at `site` (each cut to [`STR_OPERAND_CAP`]
    /// bytes, their lengths kept).
    pub fn new(site: u32, func: u32, n: u64, a: &[u8], b: &[u8]) -> StrOperandRec {
        let mut r = StrOperandRec {
            site,
            func,
            n: n.min(u32::MAX as u64) as u32,
            a_len: a.len().min(u32::MAX as usize) as u32,
            b_len: b.len().min(u32::MAX as usize) as u32,
            ..Default::default()
        };
        let (ka, kb) = (a.len().min(STR_OPERAND_CAP), b.len().min(STR_OPERAND_CAP));
        r.a[..ka].copy_from_slice(&a[..ka]);
        r.b[..kb].copy_from_slice(&b[..kb]);
        r
    }

    /// The logged bytes of the first string (at most [`STR_OPERAND_CAP`]).
    pub fn a(&self) -> &[u8] {
        &self.a[..(self.a_len as usize).min(STR_OPERAND_CAP)]
    }

    /// The logged bytes of the second string (at most [`STR_OPERAND_CAP`]).
    pub fn b(&self) -> &[u8] {
        &self.b[..(self.b_len as usize).min(STR_OPERAND_CAP)]
    }

    /// Whether the first string was longer than what is logged.
    pub fn a_cut(&self) -> bool {
        self.a_len as usize > STR_OPERAND_CAP
    }

    /// Whether the second string was longer than what is logged.
    pub fn b_cut(&self) -> bool {
        self.b_len as usize > STR_OPERAND_CAP
    }
}

/// `Event::id` bit marking a definition.
pub const EVENT_DEF: u32 = 1 << 31;

/// Byte offsets of the regions of a segment with the given capacities.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub site_capacity: u32,
    pub outcome_capacity: u32,
    pub input_capacity: u32,
    pub event_capacity: u32,
    pub sites_off: usize,
    pub outcomes_off: usize,
    pub input_off: usize,
    pub events_off: usize,
    /// The operand log: [`operand_capacity`] [`OperandRec`]s.
    pub operands_off: usize,
    /// The string operand log: [`STR_LOG_CAPACITY`] [`StrOperandRec`]s.
    pub str_operands_off: usize,
    /// The touched list: `site_capacity` `u32` site IDs.
    pub touched_off: usize,
    /// The quiet map: `site_capacity` bytes.
    pub quiet_off: usize,
    /// The lite map: `outcome_capacity` bytes.
    pub lite_off: usize,
    /// Total bytes of the segment.
    pub size: usize,
}

const fn round_up(n: usize, to: usize) -> usize {
    n.div_ceil(to) * to
}

impl Layout {
    /// Offsets for a segment holding `sites` site records, `outcomes` distances and an input of up
    /// to `input` bytes.
    pub const fn new(sites: u32, outcomes: u32, input: u32, events: u32) -> Layout {
        let sites_off = HEADER_SIZE;
        let outcomes_off = round_up(
            sites_off + sites as usize * core::mem::size_of::<SiteRec>(),
            64,
        );
        let input_off = round_up(outcomes_off + outcomes as usize * 8, 64);
        let events_off = round_up(input_off + input as usize, 64);
        let operands_off = round_up(
            events_off + events as usize * core::mem::size_of::<Event>(),
            64,
        );
        let str_operands_off = round_up(
            operands_off + operand_capacity(sites) * core::mem::size_of::<OperandRec>(),
            64,
        );
        let touched_off = round_up(
            str_operands_off + STR_LOG_CAPACITY as usize * core::mem::size_of::<StrOperandRec>(),
            64,
        );
        let quiet_off = round_up(touched_off + sites as usize * 4, 64);
        let lite_off = round_up(quiet_off + sites as usize, 64);
        let size = round_up(lite_off + outcomes as usize, 4096);
        Layout {
            site_capacity: sites,
            outcome_capacity: outcomes,
            input_capacity: input,
            event_capacity: events,
            sites_off,
            outcomes_off,
            input_off,
            events_off,
            operands_off,
            str_operands_off,
            touched_off,
            quiet_off,
            lite_off,
            size,
        }
    }

    /// Recompute the layout from a mapped header's capacities.
    pub fn from_header(h: &Header) -> Layout {
        Layout::new(
            h.site_capacity,
            h.outcome_capacity,
            h.input_capacity,
            h.event_capacity,
        )
    }
}

/// The per-module descriptor the pass emits as a private global in each instrumented unit, and
/// whose address every probe receives. The runtime fills `site_base`/`outcome_base` when the
/// module's constructor calls `__evotest_register_module`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ModuleDesc {
    pub site_base: u32,
    pub outcome_base: u32,
    pub n_sites: u32,
    pub n_outcomes: u32,
    pub module_id: u64,
    /// [`DESC_UNREGISTERED`], [`DESC_ACTIVE`] or [`DESC_DROPPED`].
    pub state: u32,
    pub def_base: u32,
    pub n_defs: u32,
    /// [`DESC_FLAG_RECS`] when the descriptor has the `recs` field (the pass of this version
    /// emits it; an older one emitted a 40-byte descriptor ending here, with 0).
    pub flags: u32,
    /// This module's first [`SiteRec`] in the trace map (`n_sites` records), set at registration
    /// when `flags` has [`DESC_FLAG_RECS`]; before, the pass's own zeroed array of `n_sites`
    /// records. The inline quiet path reads it ([`crate::names::PROBE_CMP_INT`]): a site whose
    /// record has [`FIRST_SEQ_QUIET`] only counts the hit, without calling the probe.
    pub recs: *mut SiteRec,
    /// This module's first outcome's byte in the lite map (`n_outcomes` bytes), set at
    /// registration when `flags` has [`DESC_FLAG_LITE`]; null before (and for a module that was
    /// dropped). The inline quiet path counts a coverage-only execution's outcomes through it
    /// ([`crate::names::PROBE_CMP_INT`]).
    pub lite: *mut u8,
}

impl Default for ModuleDesc {
    fn default() -> Self {
        ModuleDesc {
            site_base: 0,
            outcome_base: 0,
            n_sites: 0,
            n_outcomes: 0,
            module_id: 0,
            state: DESC_UNREGISTERED,
            def_base: 0,
            n_defs: 0,
            flags: 0,
            recs: core::ptr::null_mut(),
            lite: core::ptr::null_mut(),
        }
    }
}

/// `ModuleDesc::flags`: the descriptor has the `recs` field, which the runtime sets at
/// registration.
pub const DESC_FLAG_RECS: u32 = 1;
/// Index of `ModuleDesc::recs` among the descriptor's fields (the pass's struct type).
pub const DESC_RECS_FIELD: u32 = 9;
/// `ModuleDesc::flags`: the descriptor has the `lite` field, which the runtime sets at
/// registration.
pub const DESC_FLAG_LITE: u32 = 2;
/// Index of `ModuleDesc::lite` among the descriptor's fields.
pub const DESC_LITE_FIELD: u32 = 10;

/// One mutable global variable of an instrumented module, as the pass registers it
/// ([`crate::names::REGISTER_GLOBALS`]): its address and its size in bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct GlobalRange {
    pub addr: *mut u8,
    pub size: u64,
}

/// `ModuleDesc::state`: not registered yet; probes register it on first use.
pub const DESC_UNREGISTERED: u32 = 0;
/// Registered; the bases are valid.
pub const DESC_ACTIVE: u32 = 1;
/// Did not fit in shared memory; probes ignore it.
pub const DESC_DROPPED: u32 = 2;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_regions_do_not_overlap_and_are_aligned() {
        let l = Layout::new(10, 25, 100, 7);
        assert_eq!(l.sites_off % 4096, 0);
        assert!(l.outcomes_off >= l.sites_off + 80);
        assert_eq!(l.outcomes_off % 8, 0);
        assert!(l.input_off >= l.outcomes_off + 25 * 8);
        assert!(l.events_off >= l.input_off + 100);
        assert_eq!(l.events_off % 8, 0);
        assert!(l.operands_off >= l.events_off + 7 * 16);
        assert!(l.str_operands_off >= l.operands_off + 10 * 24);
        assert_eq!(l.str_operands_off % 8, 0);
        assert!(l.size >= l.str_operands_off + STR_LOG_CAPACITY as usize * 152);
        assert_eq!(core::mem::size_of::<OperandRec>(), 24);
        assert_eq!(core::mem::size_of::<StrOperandRec>(), 152);
        assert!(l.quiet_off >= l.touched_off + 10 * 4);
        assert!(l.lite_off >= l.quiet_off + 10);
        assert_eq!(
            l.lite_off % 64,
            0,
            "the engine reads the lite map a word at a time"
        );
        assert!(l.size >= l.lite_off + 25);
        assert_eq!(core::mem::size_of::<ModuleDesc>(), 56);
        assert_eq!(core::mem::offset_of!(ModuleDesc, recs), 40);
        assert_eq!(core::mem::offset_of!(ModuleDesc, lite), 48);
        assert_eq!(core::mem::size_of::<ModuleEntry>(), 32);
        assert_eq!(core::mem::size_of::<Event>(), 16);
    }

    #[test]
    fn string_operand_records_cut_long_strings_and_keep_their_lengths() {
        let long = [b'x'; STR_OPERAND_CAP + 10];
        let r = StrOperandRec::new(3, crate::distance::STR_MEMCMP, 1 << 40, b"MAGIC", &long);
        assert_eq!(
            (r.site, r.n, r.a_len, r.b_len),
            (3, u32::MAX, 5, STR_OPERAND_CAP as u32 + 10)
        );
        assert_eq!(r.a(), b"MAGIC");
        assert_eq!(r.b(), &long[..STR_OPERAND_CAP]);
        assert!(!r.a_cut() && r.b_cut());
        let e = StrOperandRec::new(0, crate::distance::STR_STRCMP, 0, b"", b"");
        assert!(e.a().is_empty() && e.b().is_empty());
    }
}
