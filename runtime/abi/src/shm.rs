//! Layout of the shared-memory trace map (one System V segment, mode 0600, per campaign).
//!
//! ```text
//! offset 0             Header            (fixed size, HEADER_SIZE bytes)
//! layout.sites_off     [SiteRec; site_capacity]        8 bytes per branch site
//! layout.outcomes_off  [f64; outcome_capacity]         min branch distance per outcome
//! layout.input_off     [u8; input_capacity]            the input of the next execution
//! layout.events_off    [Event; event_capacity]         the ordered trace (when enabled)
//! ```
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
//! and in each execution updates `SiteRec`s and outcome distances. Outcome distances are *not*
//! reset by the engine: a probe overwrites a site's outcomes on the site's first hit (`hits == 0`)
//! and takes the minimum afterwards, so an outcome's slot is meaningful only when its site's
//! `hits > 0`.

/// `"EVOTSHM\0"` little-endian.
pub const MAGIC: u64 = u64::from_le_bytes(*b"EVOTSHM\0");
/// Bumped whenever anything in this file changes.
pub const LAYOUT_VERSION: u32 = 3;
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
    /// Engine → runtime options: [`FLAG_OPERANDS`], else 0.
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
    pub modules: [ModuleEntry; MAX_MODULES],
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
    pub first_seq: u32,
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

/// `Event::id` bit marking a definition.
pub const EVENT_DEF: u32 = 1 << 31;

/// `Event::id` bit marking an operand of a compare (with the global site ID in the low bits):
/// recorded only under [`FLAG_OPERANDS`]. Each compare adds two, operand a (`outcome` bit 0
/// clear) then b (bit 0 set); `outcome` bit 1 says the operands are floats. `alt` holds the
/// operand's 64 bits (`f64::from_bits`): the `i64` the probe received (widened as
/// [`crate::pred::Pred::int_operands_signed`] says), or the `f64`.
pub const EVENT_OPERAND: u32 = 1 << 30;

/// `Header::flags` bit: while the ordered trace is on, compare probes also append their
/// operands ([`EVENT_OPERAND`]), the values a program compares at run time (dynamic constant
/// seeding of Anjum & Ryan's grammar, beyond their 2021 paper).
pub const FLAG_OPERANDS: u32 = 1;

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
        let outcomes_off = round_up(sites_off + sites as usize * core::mem::size_of::<SiteRec>(), 64);
        let input_off = round_up(outcomes_off + outcomes as usize * 8, 64);
        let events_off = round_up(input_off + input as usize, 64);
        let size = round_up(events_off + events as usize * core::mem::size_of::<Event>(), 4096);
        Layout {
            site_capacity: sites,
            outcome_capacity: outcomes,
            input_capacity: input,
            event_capacity: events,
            sites_off,
            outcomes_off,
            input_off,
            events_off,
            size,
        }
    }

    /// Recompute the layout from a mapped header's capacities.
    pub fn from_header(h: &Header) -> Layout {
        Layout::new(h.site_capacity, h.outcome_capacity, h.input_capacity, h.event_capacity)
    }
}

/// The per-module descriptor the pass emits as a private global in each instrumented unit, and
/// whose address every probe receives. The runtime fills `site_base`/`outcome_base` when the
/// module's constructor calls `__evotest_register_module`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
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
    pub _pad: u32,
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
        assert!(l.size >= l.events_off + 7 * 16);
        assert_eq!(core::mem::size_of::<ModuleDesc>(), 40);
        assert_eq!(core::mem::size_of::<ModuleEntry>(), 32);
        assert_eq!(core::mem::size_of::<Event>(), 16);
    }
}
