//! Compare predicates, numbered as LLVM's `CmpInst::Predicate` (`FCMP_FALSE` = 0 … `FCMP_TRUE` =
//! 15, `ICMP_EQ` = 32 … `ICMP_SLE` = 41), so that the pass can pass LLVM's own value through.

use serde::{Deserialize, Serialize};

/// A compare predicate of an `icmp` or `fcmp` instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[repr(u32)]
#[serde(rename_all = "snake_case")]
pub enum Pred {
    // fcmp
    FFalse = 0,
    Oeq = 1,
    Ogt = 2,
    Oge = 3,
    Olt = 4,
    Ole = 5,
    One = 6,
    Ord = 7,
    Uno = 8,
    Ueq = 9,
    Ugt = 10,
    Uge = 11,
    Ult = 12,
    Ule = 13,
    Une = 14,
    FTrue = 15,
    // icmp
    Eq = 32,
    Ne = 33,
    IUgt = 34,
    IUge = 35,
    IUlt = 36,
    IUle = 37,
    Sgt = 38,
    Sge = 39,
    Slt = 40,
    Sle = 41,
}

/// The relation a predicate tests, stripped of signedness and orderedness.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rel {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Pred {
    /// Decode LLVM's numeric predicate. `None` for values outside both ranges.
    #[inline]
    pub fn from_u32(v: u32) -> Option<Pred> {
        use Pred::*;
        Some(match v {
            0 => FFalse,
            1 => Oeq,
            2 => Ogt,
            3 => Oge,
            4 => Olt,
            5 => Ole,
            6 => One,
            7 => Ord,
            8 => Uno,
            9 => Ueq,
            10 => Ugt,
            11 => Uge,
            12 => Ult,
            13 => Ule,
            14 => Une,
            15 => FTrue,
            32 => Eq,
            33 => Ne,
            34 => IUgt,
            35 => IUge,
            36 => IUlt,
            37 => IUle,
            38 => Sgt,
            39 => Sge,
            40 => Slt,
            41 => Sle,
            _ => return None,
        })
    }

    /// True for `icmp` predicates.
    pub fn is_int(self) -> bool {
        (self as u32) >= 32
    }

    /// True for the signed `icmp` predicates (`slt`, `sle`, `sgt`, `sge`).
    pub fn is_signed(self) -> bool {
        matches!(self, Pred::Sgt | Pred::Sge | Pred::Slt | Pred::Sle)
    }

    /// How the pass widens the operands of an `icmp` to 64 bits, and how the runtime reads them:
    /// signed for the signed predicates and for `eq`/`ne`, unsigned for the unsigned ones.
    ///
    /// The IR does not say whether an `eq` compares signed or unsigned values; sign extension keeps
    /// |a − b| right for small negative values (`x == 0` with `x = -1` is 1 away, not 2^32 − 1),
    /// and for unsigned values it distorts only differences across the 2^(w−1) boundary.
    #[inline]
    pub fn int_operands_signed(self) -> bool {
        self.is_signed() || matches!(self, Pred::Eq | Pred::Ne)
    }

    /// True for the unordered `fcmp` predicates, which are true when either operand is NaN.
    #[inline]
    pub fn is_unordered(self) -> bool {
        matches!(
            self,
            Pred::Uno | Pred::Ueq | Pred::Ugt | Pred::Uge | Pred::Ult | Pred::Ule | Pred::Une
        )
    }

    /// The relation tested, or `None` for `false`, `true`, `ord` and `uno`.
    #[inline]
    pub fn rel(self) -> Option<Rel> {
        use Pred::*;
        Some(match self {
            Eq | Oeq | Ueq => Rel::Eq,
            Ne | One | Une => Rel::Ne,
            IUlt | Slt | Olt | Ult => Rel::Lt,
            IUle | Sle | Ole | Ule => Rel::Le,
            IUgt | Sgt | Ogt | Ugt => Rel::Gt,
            IUge | Sge | Oge | Uge => Rel::Ge,
            FFalse | FTrue | Ord | Uno => return None,
        })
    }

    /// True for the predicates that test equality or inequality (`==`, `!=`, ordered or not):
    /// the compares input-to-state can satisfy by writing one operand's value over the other.
    #[inline]
    pub fn is_equality(self) -> bool {
        matches!(self.rel(), Some(Rel::Eq | Rel::Ne))
    }

    /// The C operator spelling, for condition texts (`<=`, `==`, …); orderedness and signedness
    /// are not shown. `ord`/`uno`/`true`/`false` get a descriptive word.
    pub fn c_operator(self) -> &'static str {
        match self.rel() {
            Some(Rel::Eq) => "==",
            Some(Rel::Ne) => "!=",
            Some(Rel::Lt) => "<",
            Some(Rel::Le) => "<=",
            Some(Rel::Gt) => ">",
            Some(Rel::Ge) => ">=",
            None => match self {
                Pred::Ord => "ord",
                Pred::Uno => "uno",
                Pred::FTrue => "true",
                _ => "false",
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equality_predicates_are_those_of_eq_and_ne() {
        let eq: Vec<Pred> = (0..=41)
            .filter_map(Pred::from_u32)
            .filter(|p| p.is_equality())
            .collect();
        assert_eq!(
            eq,
            [
                Pred::Oeq,
                Pred::One,
                Pred::Ueq,
                Pred::Une,
                Pred::Eq,
                Pred::Ne
            ]
        );
    }
}
