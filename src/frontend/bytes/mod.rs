//! The byte-passing frontend: the target takes the input's bytes as they are (a libFuzzer harness's
//! `LLVMFuzzerTestOneInput(data, size)`, or a whole program's standard input or input file). Its
//! domain has no fields; inputs have any length up to the maximum (held in [`Domain::len`]; the
//! fuzzer never pads inputs to it). It writes no test file: the fuzzing corpus is the suite.

use super::Frontend;
use crate::input::{Domain, Input};
use serde_json::{json, Value as Json};

/// How a byte-passing target reads its input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Delivery {
    /// `LLVMFuzzerTestOneInput`, through evotest's libFuzzer-compatible driver.
    LibFuzzer,
    /// A whole program reading standard input.
    Stdin,
    /// A whole program reading the file named on its command line (`@@`).
    File,
}

/// See module docs.
#[derive(Clone, Debug)]
pub struct BytesFrontend {
    name: String,
    describe: String,
    domain: Domain,
    pub delivery: Delivery,
}

impl BytesFrontend {
    /// The frontend of the executable called `name`, reading inputs of up to `max_len` bytes as
    /// `delivery` says.
    pub fn new(name: &str, delivery: Delivery, max_len: usize) -> BytesFrontend {
        let describe = match delivery {
            Delivery::LibFuzzer => format!("LLVMFuzzerTestOneInput of {name}"),
            Delivery::Stdin => format!("{name} reading standard input"),
            Delivery::File => format!("{name} reading a file (@@)"),
        };
        BytesFrontend {
            name: name.to_string(),
            describe,
            domain: Domain {
                len: max_len,
                ..Default::default()
            },
            delivery,
        }
    }

    /// The largest input, in bytes.
    pub fn max_len(&self) -> usize {
        self.domain.len
    }
}

/// At most `max` bytes of `b` as a C-like string literal (printable ASCII as is, `\n`, `\t`,
/// `\\`, `\"`, others `\xNN`), with `…` when cut.
pub fn escape(b: &[u8], max: usize) -> String {
    let mut s = String::from("\"");
    for &c in b.iter().take(max) {
        match c {
            b'\\' => s.push_str("\\\\"),
            b'"' => s.push_str("\\\""),
            b'\n' => s.push_str("\\n"),
            b'\t' => s.push_str("\\t"),
            b'\r' => s.push_str("\\r"),
            0x20..=0x7e => s.push(c as char),
            _ => s.push_str(&format!("\\x{c:02x}")),
        }
    }
    s.push('"');
    if b.len() > max {
        s.push('…');
    }
    s
}

impl Frontend for BytesFrontend {
    fn domain(&self) -> &Domain {
        &self.domain
    }
    fn name(&self) -> &str {
        &self.name
    }
    fn describe(&self) -> &str {
        &self.describe
    }
    fn display(&self, input: &Input) -> String {
        format!("{} ({} bytes)", escape(&input.bytes, 64), input.bytes.len())
    }
    fn json(&self, input: &Input) -> Json {
        json!({ "len": input.bytes.len(), "hex": crate::util::hex(&input.bytes), "text": escape(&input.bytes, usize::MAX) })
    }
    fn params_json(&self) -> Json {
        json!({ "kind": "bytes", "delivery": self.delivery, "max_len": self.domain.len })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_show_as_escaped_strings() {
        let f = BytesFrontend::new("h", Delivery::LibFuzzer, 10);
        assert_eq!(
            f.display(&Input::new(b"a\"\\\n\x00z".to_vec())),
            "\"a\\\"\\\\\\n\\x00z\" (6 bytes)"
        );
        assert_eq!(escape(b"abcdef", 3), "\"abc\"…");
        assert_eq!(f.json(&Input::new(vec![0xff]))["hex"], "ff");
        assert_eq!(f.max_len(), 10);
        assert!(f.domain().fields.is_empty());
    }
}
