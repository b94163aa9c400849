//! Havoc-style byte mutations (after AFL's havoc stage and libFuzzer's mutators): a stack of 1 to
//! 16 random operations on a copy of a corpus entry, each chosen uniformly among bit flips,
//! interesting and random values of 1, 2 and 4 bytes in either byte order, small additions and
//! subtractions, block deletion, insertion, duplication and overwrite, dictionary tokens (the
//! user's, and the strings the program was seen comparing at run time), the program's harvested
//! constants (as binary integers of their width and as decimal text), and splicing with another
//! corpus entry. Given the random generator's state, the result is fixed.

use rand::Rng;

const INTERESTING_8: [i8; 9] = [-128, -1, 0, 1, 16, 32, 64, 100, 127];
const INTERESTING_16: [i16; 10] = [-32768, -129, 128, 255, 256, 512, 1000, 1024, 4096, 32767];
const INTERESTING_32: [i32; 8] = [
    i32::MIN,
    -100663046,
    -32769,
    32768,
    65535,
    65536,
    100663045,
    i32::MAX,
];

/// Most constant byte forms kept from the program.
const MAX_CONSTANTS: usize = 8192;
/// Most tokens kept from the program's string compares ([`Mutator::observe_token`]); the oldest
/// goes first.
pub const MAX_OBSERVED_TOKENS: usize = 256;
/// Largest arithmetic step.
const ARITH_MAX: u32 = 35;

/// The mutation operators, for statistics and tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    FlipBit,
    Interesting8,
    Interesting16,
    Interesting32,
    Arith8,
    Arith16,
    Arith32,
    RandomByte,
    DeleteBlock,
    CloneBlock,
    OverwriteBlock,
    InsertBytes,
    DictInsert,
    DictOverwrite,
    ConstInsert,
    ConstOverwrite,
    Splice,
    CopyPart,
}

const OPS: [Op; 18] = [
    Op::FlipBit,
    Op::Interesting8,
    Op::Interesting16,
    Op::Interesting32,
    Op::Arith8,
    Op::Arith16,
    Op::Arith32,
    Op::RandomByte,
    Op::DeleteBlock,
    Op::CloneBlock,
    Op::OverwriteBlock,
    Op::InsertBytes,
    Op::DictInsert,
    Op::DictOverwrite,
    Op::ConstInsert,
    Op::ConstOverwrite,
    Op::Splice,
    Op::CopyPart,
];

/// See module docs.
#[derive(Clone, Debug, Default)]
pub struct Mutator {
    /// Longest input produced, in bytes.
    pub max_len: usize,
    /// Dictionary tokens (`-dict=`).
    pub dict: Vec<Vec<u8>>,
    /// Byte forms of the program's constants.
    pub constants: Vec<Vec<u8>>,
    /// Strings the program compared at run time ([`Mutator::observe_token`]), at most
    /// [`MAX_OBSERVED_TOKENS`], oldest first; the dictionary operators draw from `dict` and these.
    pub observed: Vec<Vec<u8>>,
}

/// The byte forms of integer constant `c`: little- and big-endian at the smallest width that
/// holds it (1, 2, 4 or 8 bytes), and its decimal text when that has two or more digits.
pub fn int_forms(c: i128) -> Vec<Vec<u8>> {
    let mut v = Vec::new();
    let width = if (-128..=255).contains(&c) {
        1
    } else if (-32768..=65535).contains(&c) {
        2
    } else if (i32::MIN as i128..=u32::MAX as i128).contains(&c) {
        4
    } else {
        8
    };
    let le = (c as u128).to_le_bytes();
    v.push(le[..width].to_vec());
    if width > 1 {
        let mut be = le[..width].to_vec();
        be.reverse();
        v.push(be);
    }
    if !(-9..=9).contains(&c) {
        v.push(c.to_string().into_bytes());
    }
    v
}

/// The byte forms of float constant `f`: its `f64` and (when exact) `f32` little-endian bytes,
/// and its shortest decimal text.
pub fn float_forms(f: f64) -> Vec<Vec<u8>> {
    let mut v = vec![f.to_le_bytes().to_vec()];
    if f.is_nan() || (f as f32) as f64 == f {
        v.push((f as f32).to_le_bytes().to_vec());
    }
    if f.is_finite() {
        v.push(format!("{f}").into_bytes());
    }
    v
}

impl Mutator {
    /// A mutator for inputs of up to `max_len` bytes with dictionary `dict` and the program's
    /// constants `ints`, `floats` and compared string literals `strs` (the strings first).
    pub fn new(
        max_len: usize,
        dict: Vec<Vec<u8>>,
        ints: &[i128],
        floats: &[f64],
        strs: &[Vec<u8>],
    ) -> Mutator {
        let mut constants: Vec<Vec<u8>> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let forms = strs
            .iter()
            .cloned()
            .chain(ints.iter().flat_map(|&c| int_forms(c)))
            .chain(floats.iter().flat_map(|&f| float_forms(f)));
        for f in forms {
            if constants.len() >= MAX_CONSTANTS {
                break;
            }
            if seen.insert(f.clone()) {
                constants.push(f);
            }
        }
        Mutator {
            max_len: max_len.max(1),
            dict,
            constants,
            observed: vec![],
        }
    }

    /// Add `t`, a string the program compared at run time (from the string operand log; see
    /// [`super::i2s::str_tokens`]), to the tokens of the dictionary operators, unless it is empty,
    /// longer than `max_len`, or already a token. Returns whether it was added.
    pub fn observe_token(&mut self, t: &[u8]) -> bool {
        if t.is_empty()
            || t.len() > self.max_len
            || self
                .dict
                .iter()
                .chain(&self.observed)
                .any(|d| d.as_slice() == t)
        {
            return false;
        }
        if self.observed.len() >= MAX_OBSERVED_TOKENS {
            self.observed.remove(0);
        }
        self.observed.push(t.to_vec());
        true
    }

    /// Replace `data` by a mutant: a stack of 1 to 16 operations; `other` (another corpus entry)
    /// is the material of splicing. The result is at most `max_len` bytes.
    pub fn mutate<R: Rng>(&self, rng: &mut R, data: &mut Vec<u8>, other: Option<&[u8]>) {
        self.mutate_within(rng, data, other, self.max_len);
    }

    /// [`Mutator::mutate`] with the result at most `limit` bytes (and `max_len`): operators that
    /// insert stop growing the input at `limit` (length control, libFuzzer's `-len_control`).
    pub fn mutate_within<R: Rng>(
        &self,
        rng: &mut R,
        data: &mut Vec<u8>,
        other: Option<&[u8]>,
        limit: usize,
    ) {
        let limit = limit.clamp(1, self.max_len);
        let stack = 1usize << rng.random_range(0..=4);
        for _ in 0..stack {
            let mut op = OPS[rng.random_range(0..OPS.len())];
            // an operator without material falls back to a plain one
            if (matches!(op, Op::DictInsert | Op::DictOverwrite)
                && self.dict.is_empty()
                && self.observed.is_empty())
                || (matches!(op, Op::ConstInsert | Op::ConstOverwrite) && self.constants.is_empty())
                || (matches!(op, Op::Splice | Op::CopyPart) && other.is_none_or(|o| o.is_empty()))
            {
                op = Op::InsertBytes;
            }
            self.apply_within(rng, op, data, other.unwrap_or(&[]), limit);
        }
        if data.len() > limit {
            data.truncate(limit);
        }
    }

    /// Apply one operator.
    pub fn apply<R: Rng>(&self, rng: &mut R, op: Op, data: &mut Vec<u8>, other: &[u8]) {
        self.apply_within(rng, op, data, other, self.max_len);
    }

    /// Apply one operator; those that insert do not grow `data` beyond `max` bytes (splicing may:
    /// [`Mutator::mutate_within`] cuts the result).
    fn apply_within<R: Rng>(
        &self,
        rng: &mut R,
        op: Op,
        data: &mut Vec<u8>,
        other: &[u8],
        max: usize,
    ) {
        let len = data.len();
        // operators that need bytes to work on grow an empty input instead
        let needs = |n: usize| len >= n;
        match op {
            Op::FlipBit if needs(1) => {
                let b = rng.random_range(0..len * 8);
                data[b / 8] ^= 1 << (b % 8);
            }
            Op::Interesting8 if needs(1) => {
                let i = rng.random_range(0..len);
                data[i] = INTERESTING_8[rng.random_range(0..INTERESTING_8.len())] as u8;
            }
            Op::Interesting16 if needs(2) => {
                let i = rng.random_range(0..=len - 2);
                let v = INTERESTING_16[rng.random_range(0..INTERESTING_16.len())] as u16;
                let b = if rng.random_bool(0.5) {
                    v.to_le_bytes()
                } else {
                    v.to_be_bytes()
                };
                data[i..i + 2].copy_from_slice(&b);
            }
            Op::Interesting32 if needs(4) => {
                let i = rng.random_range(0..=len - 4);
                let v = INTERESTING_32[rng.random_range(0..INTERESTING_32.len())] as u32;
                let b = if rng.random_bool(0.5) {
                    v.to_le_bytes()
                } else {
                    v.to_be_bytes()
                };
                data[i..i + 4].copy_from_slice(&b);
            }
            Op::Arith8 if needs(1) => {
                let i = rng.random_range(0..len);
                let d = rng.random_range(1..=ARITH_MAX) as u8;
                data[i] = if rng.random_bool(0.5) {
                    data[i].wrapping_add(d)
                } else {
                    data[i].wrapping_sub(d)
                };
            }
            Op::Arith16 if needs(2) => {
                let i = rng.random_range(0..=len - 2);
                let d = rng.random_range(1..=ARITH_MAX) as u16;
                let be = rng.random_bool(0.5);
                let mut v = [data[i], data[i + 1]];
                let x = if be {
                    u16::from_be_bytes(v)
                } else {
                    u16::from_le_bytes(v)
                };
                let y = if rng.random_bool(0.5) {
                    x.wrapping_add(d)
                } else {
                    x.wrapping_sub(d)
                };
                v = if be { y.to_be_bytes() } else { y.to_le_bytes() };
                data[i..i + 2].copy_from_slice(&v);
            }
            Op::Arith32 if needs(4) => {
                let i = rng.random_range(0..=len - 4);
                let d = rng.random_range(1..=ARITH_MAX);
                let be = rng.random_bool(0.5);
                let mut v = [data[i], data[i + 1], data[i + 2], data[i + 3]];
                let x = if be {
                    u32::from_be_bytes(v)
                } else {
                    u32::from_le_bytes(v)
                };
                let y = if rng.random_bool(0.5) {
                    x.wrapping_add(d)
                } else {
                    x.wrapping_sub(d)
                };
                v = if be { y.to_be_bytes() } else { y.to_le_bytes() };
                data[i..i + 4].copy_from_slice(&v);
            }
            Op::RandomByte if needs(1) => {
                let i = rng.random_range(0..len);
                data[i] ^= rng.random_range(1..=255u8);
            }
            Op::DeleteBlock if needs(2) => {
                let n = block_len(rng, len - 1);
                let i = rng.random_range(0..=len - n);
                data.drain(i..i + n);
            }
            Op::CloneBlock if needs(1) && len < max => {
                let n = block_len(rng, len.min(max - len));
                let from = rng.random_range(0..=len - n);
                let at = rng.random_range(0..=len);
                let block: Vec<u8> = if rng.random_bool(0.75) {
                    data[from..from + n].to_vec()
                } else {
                    vec![
                        if rng.random_bool(0.5) {
                            rng.random()
                        } else {
                            data[rng.random_range(0..len)]
                        };
                        n
                    ]
                };
                data.splice(at..at, block);
            }
            Op::OverwriteBlock if needs(2) => {
                let n = block_len(rng, len - 1);
                let from = rng.random_range(0..=len - n);
                let to = rng.random_range(0..=len - n);
                data.copy_within(from..from + n, to);
            }
            Op::DictInsert | Op::DictOverwrite | Op::ConstInsert | Op::ConstOverwrite => {
                let dict = matches!(op, Op::DictInsert | Op::DictOverwrite);
                let n = if dict {
                    self.dict.len() + self.observed.len()
                } else {
                    self.constants.len()
                };
                if n == 0 {
                    return self.apply_within(rng, Op::InsertBytes, data, other, max);
                }
                let k = rng.random_range(0..n);
                let t = match (dict, k.checked_sub(self.dict.len())) {
                    (false, _) => &self.constants[k],
                    (true, None) => &self.dict[k],
                    (true, Some(j)) => &self.observed[j],
                };
                let overwrite = matches!(op, Op::DictOverwrite | Op::ConstOverwrite);
                if overwrite && len >= t.len() {
                    let at = rng.random_range(0..=len - t.len());
                    data[at..at + t.len()].copy_from_slice(t);
                } else if len + t.len() <= max {
                    let at = rng.random_range(0..=len);
                    data.splice(at..at, t.iter().copied());
                }
            }
            Op::Splice if !other.is_empty() => {
                // a prefix of this input and a suffix of the other
                let cut_a = if len == 0 {
                    0
                } else {
                    rng.random_range(0..=len)
                };
                let cut_b = rng.random_range(0..other.len());
                data.truncate(cut_a);
                data.extend_from_slice(&other[cut_b..]);
            }
            Op::CopyPart if !other.is_empty() => {
                let n = block_len(rng, other.len());
                let from = rng.random_range(0..=other.len() - n);
                if len >= n && rng.random_bool(0.5) {
                    let to = rng.random_range(0..=len - n);
                    data[to..to + n].copy_from_slice(&other[from..from + n]);
                } else if len + n <= max {
                    let at = rng.random_range(0..=len);
                    data.splice(at..at, other[from..from + n].iter().copied());
                }
            }
            _ => {
                // InsertBytes, and the operators above on inputs too short for them
                if len < max {
                    let n = rng.random_range(1..=(max - len).min(4));
                    let at = rng.random_range(0..=len);
                    let bytes: Vec<u8> = (0..n).map(|_| rng.random()).collect();
                    data.splice(at..at, bytes);
                } else if len > 0 {
                    let i = rng.random_range(0..len);
                    data[i] = rng.random();
                }
            }
        }
    }
}

/// A block length in 1..=max, mostly short (as AFL's `choose_block_len`).
fn block_len<R: Rng>(rng: &mut R, max: usize) -> usize {
    let max = max.max(1);
    let cap = match rng.random_range(0..3) {
        0 => 32,
        1 => 128,
        _ => 1500,
    };
    rng.random_range(1..=max.min(cap))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn constants_have_binary_and_text_forms() {
        assert_eq!(int_forms(7), vec![vec![7u8]]);
        assert_eq!(
            int_forms(0x1234),
            vec![vec![0x34, 0x12], vec![0x12, 0x34], b"4660".to_vec()]
        );
        assert_eq!(int_forms(-1)[0], vec![0xff]);
        assert_eq!(int_forms(1 << 40)[0].len(), 8);
        assert_eq!(float_forms(1.5).len(), 3);
        assert_eq!(float_forms(f64::NAN).len(), 2);
    }

    #[test]
    fn every_operator_respects_the_length_limit_on_any_input() {
        let m = Mutator::new(16, vec![b"TOKEN".to_vec()], &[0x41424344, 3], &[2.5], &[]);
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        for op in OPS {
            for len in [0usize, 1, 2, 3, 4, 5, 15, 16] {
                for _ in 0..50 {
                    let mut d: Vec<u8> = (0..len as u8).collect();
                    m.apply(&mut rng, op, &mut d, b"other input");
                    assert!(d.len() <= 16 + 11, "{op:?} made {} bytes", d.len());
                }
            }
        }
        for _ in 0..2000 {
            let mut d = b"hello".to_vec();
            m.mutate(&mut rng, &mut d, Some(b"splice me in please"));
            assert!(d.len() <= 16);
        }
    }

    #[test]
    fn length_control_caps_growth_but_not_the_input_mutated() {
        let m = Mutator::new(
            4096,
            vec![b"A LONG DICTIONARY TOKEN".to_vec()],
            &[],
            &[],
            &[],
        );
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let mut grew = false;
        for _ in 0..3000 {
            let mut d = b"0123456789".to_vec();
            m.mutate_within(&mut rng, &mut d, Some(b"material to splice with"), 12);
            assert!(d.len() <= 12, "{} bytes over a limit of 12", d.len());
            grew |= d.len() > 10;
        }
        assert!(grew, "inputs still grow up to the limit");
        // at the full length the stack is the same as mutate's, draw for draw
        let (mut a, mut b) = (ChaCha8Rng::seed_from_u64(9), ChaCha8Rng::seed_from_u64(9));
        for _ in 0..200 {
            let (mut x, mut y) = (b"same start".to_vec(), b"same start".to_vec());
            m.mutate(&mut a, &mut x, Some(b"other"));
            m.mutate_within(&mut b, &mut y, Some(b"other"), 4096);
            assert_eq!(x, y);
        }
    }

    #[test]
    fn mutation_is_deterministic_and_uses_dictionary_tokens() {
        let m = Mutator::new(64, vec![b"MAGIC".to_vec()], &[], &[], &[]);
        let run = |seed| {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            (0..200)
                .map(|_| {
                    let mut d = b"0123456789".to_vec();
                    m.mutate(&mut rng, &mut d, None);
                    d
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(run(5), run(5));
        assert_ne!(run(5), run(6));
        assert!(run(5).iter().any(|d| d.windows(5).any(|w| w == b"MAGIC")));
    }

    #[test]
    fn observed_tokens_are_inserted_and_capped() {
        let mut m = Mutator::new(64, vec![], &[], &[], &[]);
        assert!(m.observe_token(b"xK9#qZ!vR2"));
        assert!(!m.observe_token(b"xK9#qZ!vR2"), "no duplicates");
        assert!(!m.observe_token(b""));
        assert!(!m.observe_token(&[b'a'; 65]), "longer than max_len");
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let hit = (0..300).any(|_| {
            let mut d = b"0123456789".to_vec();
            m.mutate(&mut rng, &mut d, None);
            d.windows(10).any(|w| w == b"xK9#qZ!vR2")
        });
        assert!(hit, "havoc inserts an observed token");
        for i in 0..MAX_OBSERVED_TOKENS + 5 {
            m.observe_token(format!("tok{i}").as_bytes());
        }
        assert_eq!(m.observed.len(), MAX_OBSERVED_TOKENS);
        assert_eq!(
            m.observed.last().unwrap(),
            format!("tok{}", MAX_OBSERVED_TOKENS + 4).as_bytes()
        );
    }
}
