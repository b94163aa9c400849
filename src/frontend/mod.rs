//! Frontends: what the bytes of an input mean for a kind of target.
//!
//! A frontend supplies the input domain (the field map of [`crate::input`]), shows inputs to
//! people, and writes the artefacts that only it knows how to write: the standalone test file of
//! a suite, the harness through which a peer fuzzer runs the target, a replay program for an
//! independent coverage observer. The engine never looks inside inputs except through the field
//! map.
//!
//! * [`function::FunctionFrontend`]: one C function whose parameters are scalars, arrays, strings
//!   or buffers; a generated harness decodes the fields and calls it.
//! * [`rust::RustFrontend`]: one Rust function of a library crate, called by its path from a
//!   generated Rust harness; the suite is a Rust test file.
//! * [`sequence::SequenceFrontend`]: the external functions of C sources as an API, tested with
//!   call sequences (Pacheco 2009); a generated harness decodes and runs them.
//! * [`bytes::BytesFrontend`]: a target that takes the bytes as they are (a libFuzzer harness, a
//!   program reading stdin or a file); no fields, any length up to a maximum.
//!
//! Adding a frontend means adding a module with a type implementing [`Frontend`] and a way to
//! build its target (see `ARCHITECTURE.md`).

pub mod bytes;
pub mod function;
pub mod rust;
pub mod sequence;

use crate::archive::TestCase;
use crate::input::{Domain, Input};
use serde_json::Value as Json;
use std::path::PathBuf;

/// A peer fuzzer that can run the target through a harness of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Peer {
    /// `LLVMFuzzerTestOneInput`, compiled with `clang-22 -fsanitize=fuzzer`, with evotest's
    /// runtime observing in the same process.
    LibFuzzer,
    /// AFL++'s persistent mode (`__AFL_LOOP`), compiled with `afl-clang-fast`.
    Afl,
    /// `LLVMFuzzerTestOneInput` without the observer, for `evotest fuzz` (built as `evotest-cc
    /// -fsanitize=fuzzer` builds it).
    EvotestFuzz,
}

/// One case of a test file.
pub struct TestEntry<'a> {
    /// `test_3`, `fault_1`.
    pub name: String,
    pub case: &'a TestCase,
    /// What it covers, as short goal labels.
    pub covers: Vec<String>,
}

/// What a standalone test file is written from.
pub struct TestFile<'a> {
    /// Lines for the file's header comment: the search and its coverage.
    pub header: Vec<String>,
    /// Where the file is written.
    pub path: PathBuf,
    pub cases: Vec<TestEntry<'a>>,
    /// Seconds after which a case recorded as a hang counts as hanging again.
    pub hang_seconds: u32,
    /// Resident memory (bytes) beyond which a case recorded as out of memory counts as such again.
    pub memory_limit: u64,
    /// Largest file (bytes) a case may write, as in the search (0 = none).
    pub file_limit: u64,
    /// Whether kept inputs ended differently when the check before the suite was written ran
    /// them again in a fresh process (state the code keeps between calls): the file then runs
    /// each case in a process of its own, as its recorded result was obtained.
    pub fresh_results_differ: bool,
}

/// See module docs.
pub trait Frontend: Send + Sync {
    /// The input domain: field map, constant pools, initialisation mode.
    fn domain(&self) -> &Domain;
    /// The name of what is tested, e.g. `triangle`.
    fn name(&self) -> &str;
    /// The name as a report shows it in a call: [`Frontend::name`] by default (a C++ function's
    /// source name, `shapes::locate`, rather than its linkage name).
    fn shown_name(&self) -> &str {
        self.name()
    }
    /// What is tested, for headers: `int triangle(int a, int b, int c)`.
    fn describe(&self) -> &str;
    /// An input for people: `a=1, b=2, c=3`.
    fn display(&self, input: &Input) -> String;
    /// How a report shows a run on `input` that returned `ret` (`None`: it did not return;
    /// [`crate::exec::RetVal::Void`]: nothing recorded, as for a `void` function or a returned
    /// pointer): `triangle(a=1, b=2, c=3) = 4` by default.
    fn call_text(&self, input: &Input, ret: Option<&crate::exec::RetVal>) -> String {
        match ret {
            Some(r) if *r != crate::exec::RetVal::Void => format!(
                "{}({}) = {}",
                self.shown_name(),
                self.display(input),
                self.result_text(r)
            ),
            _ => format!("{}({})", self.shown_name(), self.display(input)),
        }
    }
    /// The C type of a result the harness does not record (a returned pointer, whose value
    /// `tests.c` reads from its own build), or `None` when results are recorded (or there are
    /// none): `suite.json` then gives no `void` for it.
    fn unrecorded_return(&self) -> Option<String> {
        None
    }
    /// A result `r` (not `Void`) as [`Frontend::call_text`] shows it: as the executor read it by
    /// default (a C `_Bool` as 0 or 1).
    fn result_text(&self, r: &crate::exec::RetVal) -> String {
        r.to_string()
    }
    /// An input as a JSON object of named values.
    fn json(&self, input: &Input) -> Json;
    /// The shape of inputs for `suite.json` (a list of parameters, or a description).
    fn params_json(&self) -> Json;
    /// The standalone test file of a suite, if this frontend writes one: its name in the output
    /// directory and its text.
    fn test_file(&self, _file: &TestFile) -> Option<(String, String)> {
        None
    }
    /// Whether [`Frontend::test_file`] replays `case` (a case it only shows as a comment, such as
    /// one that sets a global the file cannot reach, covers nothing there). True by default.
    fn replays(&self, _case: &TestCase) -> bool {
        true
    }
    /// The source of a harness through which `peer` runs the target, reading the peer's bytes
    /// into the domain with `encoding` (`None` if this frontend has none).
    fn peer_harness(
        &self,
        _peer: Peer,
        _encoding: crate::input::mapped::PeerEncoding,
    ) -> Option<String> {
        None
    }
    /// What a fault's input did, in words, when the frontend can tell more than its exit status
    /// (a Rust panic's message). `None` by default.
    fn fault_message(&self, _case: &TestCase) -> Option<String> {
        None
    }
    /// C source of a program that runs each of `inputs` once, each in a forked child, for an
    /// independent coverage observer (`None` if this frontend has none).
    fn replay_program(&self, _inputs: &[Input]) -> Option<String> {
        None
    }
    /// The functions of the sources the harness calls itself when they are not one function under
    /// test (an API's operations): the goals are in these and the functions they reach. `None`
    /// (the default): the function under test.
    fn called_functions(&self) -> Option<Vec<String>> {
        None
    }
    /// What the frontend decided for the user that the user should know (a shape it inferred),
    /// one line each, for the report's notes. None by default.
    fn notes(&self) -> Vec<String> {
        Vec::new()
    }
    /// The inputs whose size evotest chose by default (a `char *` of at most 16 characters, an
    /// inferred buffer of at most 16 elements), each as `` `name` (at most N …: --option) ``: when
    /// goals are set aside as suspected infeasible, the report says that these caps may be why.
    fn default_caps(&self) -> Vec<String> {
        Vec::new()
    }
}

/// `text` made safe inside a C block comment of a generated file: `*/` (which would end it) is
/// written `*\/`, and `/*` (which `-Wcomment` flags) `/\*`; nothing else changes, so an input
/// shown in a comment reads as it is, with those two escapes.
pub fn comment_text(text: &str) -> String {
    text.replace("*/", "*\\/").replace("/*", "/\\*")
}

#[cfg(test)]
mod comment_tests {
    #[test]
    fn comment_text_neither_ends_nor_opens_a_comment() {
        for t in ["1`/*W|C #q*/)", "*/*", "/*/", "a*/b/*c", "plain"] {
            let c = super::comment_text(t);
            assert!(!c.contains("*/") && !c.contains("/*"), "{t} -> {c}");
        }
        assert_eq!(super::comment_text("x*/y"), "x*\\/y");
        assert_eq!(super::comment_text("plain"), "plain");
    }
}
