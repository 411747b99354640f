//! Sizes in generated code: a number known when the crate is generated, or
//! a Rust expression of type `usize` evaluated when the model runs (a dim of
//! a model with symbolic shapes).
//!
//! Arithmetic folds numbers, so a lowering written once over [`Sz`] emits
//! the same literals for a static model as it always did and expressions
//! only where a size is symbolic.

use std::fmt;
use std::ops::{Add, Div, Mul, Rem, Sub};

/// A size: a literal or a run-time `usize` expression.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Sz {
    /// Known when generating.
    Lit(usize),
    /// A Rust expression (already parenthesized where it needs to be).
    Expr(String),
}

impl Sz {
    /// A run-time expression.
    pub fn expr(e: impl Into<String>) -> Sz {
        Sz::Expr(e.into())
    }
    /// The number, if known when generating.
    pub fn lit(&self) -> Option<usize> {
        match self {
            Sz::Lit(n) => Some(*n),
            Sz::Expr(_) => None,
        }
    }
    /// True if this is the literal `n`.
    pub fn is(&self, n: usize) -> bool {
        self.lit() == Some(n)
    }
    /// `self - o`, 0 if negative.
    pub fn sat_sub(&self, o: &Sz) -> Sz {
        match (self, o) {
            (Sz::Lit(a), Sz::Lit(b)) => Sz::Lit(a.saturating_sub(*b)),
            (a, Sz::Lit(0)) => a.clone(),
            (a, b) => Sz::Expr(format!("{a}.saturating_sub({b})")),
        }
    }
    /// `ceil(self / o)`.
    pub fn div_ceil(&self, o: &Sz) -> Sz {
        match (self, o) {
            (Sz::Lit(a), Sz::Lit(b)) if *b > 0 => Sz::Lit(a.div_ceil(*b)),
            (a, Sz::Lit(1)) => a.clone(),
            (a, b) => Sz::Expr(format!("{a}.div_ceil({b})")),
        }
    }
    /// The larger of the two.
    pub fn max(&self, o: &Sz) -> Sz {
        match (self, o) {
            (Sz::Lit(a), Sz::Lit(b)) => Sz::Lit(*a.max(b)),
            (a, b) if a == b => a.clone(),
            (a, b) => Sz::Expr(format!("{a}.max({b})")),
        }
    }
    /// The smaller of the two.
    pub fn min(&self, o: &Sz) -> Sz {
        match (self, o) {
            (Sz::Lit(a), Sz::Lit(b)) => Sz::Lit(*a.min(b)),
            (a, b) if a == b => a.clone(),
            (a, b) => Sz::Expr(format!("{a}.min({b})")),
        }
    }
    /// The product of `dims` (1 for none).
    pub fn product<'a>(dims: impl IntoIterator<Item = &'a Sz>) -> Sz {
        dims.into_iter().fold(Sz::Lit(1), |acc, d| &acc * d)
    }
    /// The sum of `dims` (0 for none).
    pub fn sum<'a>(dims: impl IntoIterator<Item = &'a Sz>) -> Sz {
        dims.into_iter().fold(Sz::Lit(0), |acc, d| &acc + d)
    }
    /// A Rust slice literal of `dims`: `&[1, 3, s7[2]]`.
    pub fn slice(dims: &[Sz]) -> String {
        format!("&{}", Sz::array(dims))
    }
    /// A Rust array literal of `dims`: `[1, 3, s7[2]]`.
    pub fn array(dims: &[Sz]) -> String {
        let parts: Vec<String> = dims.iter().map(Sz::to_string).collect();
        format!("[{}]", parts.join(", "))
    }
    /// Literal dims.
    pub fn lits(dims: &[usize]) -> Vec<Sz> {
        dims.iter().map(|&d| Sz::Lit(d)).collect()
    }
    /// The dims as numbers, if all are known when generating.
    pub fn all_lit(dims: &[Sz]) -> Option<Vec<usize>> {
        dims.iter().map(Sz::lit).collect()
    }
}

impl From<usize> for Sz {
    fn from(n: usize) -> Sz {
        Sz::Lit(n)
    }
}

impl fmt::Display for Sz {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Sz::Lit(n) => write!(f, "{n}"),
            Sz::Expr(e) => f.write_str(e),
        }
    }
}

macro_rules! binop {
    ($trait:ident, $method:ident, $sym:literal, $fold:expr, $ident_r:expr) => {
        impl $trait<&Sz> for &Sz {
            type Output = Sz;
            fn $method(self, o: &Sz) -> Sz {
                let fold: fn(usize, usize) -> Option<usize> = $fold;
                let ident_r: Option<usize> = $ident_r;
                match (self, o) {
                    (Sz::Lit(a), Sz::Lit(b)) => match fold(*a, *b) {
                        Some(n) => Sz::Lit(n),
                        None => Sz::Expr(format!("({a} {} {b})", $sym)),
                    },
                    (a, Sz::Lit(b)) if Some(*b) == ident_r => a.clone(),
                    (a, b) => Sz::Expr(format!("({a} {} {b})", $sym)),
                }
            }
        }
        impl $trait<Sz> for Sz {
            type Output = Sz;
            fn $method(self, o: Sz) -> Sz {
                (&self).$method(&o)
            }
        }
        impl $trait<usize> for &Sz {
            type Output = Sz;
            fn $method(self, o: usize) -> Sz {
                self.$method(&Sz::Lit(o))
            }
        }
        impl $trait<usize> for Sz {
            type Output = Sz;
            fn $method(self, o: usize) -> Sz {
                (&self).$method(&Sz::Lit(o))
            }
        }
    };
}

binop!(Add, add, "+", |a, b| a.checked_add(b), Some(0));
binop!(Sub, sub, "-", |a, b| a.checked_sub(b), Some(0));
binop!(Div, div, "/", |a, b| a.checked_div(b), Some(1));
binop!(Rem, rem, "%", |a, b| a.checked_rem(b), None);

impl Mul<&Sz> for &Sz {
    type Output = Sz;
    fn mul(self, o: &Sz) -> Sz {
        match (self, o) {
            (Sz::Lit(a), Sz::Lit(b)) => a.checked_mul(*b).map_or_else(|| Sz::Expr(format!("({a} * {b})")), Sz::Lit),
            (Sz::Lit(0), _) | (_, Sz::Lit(0)) => Sz::Lit(0),
            (Sz::Lit(1), x) | (x, Sz::Lit(1)) => x.clone(),
            (a, b) => Sz::Expr(format!("({a} * {b})")),
        }
    }
}
impl Mul<Sz> for Sz {
    type Output = Sz;
    fn mul(self, o: Sz) -> Sz {
        &self * &o
    }
}
impl Mul<usize> for &Sz {
    type Output = Sz;
    fn mul(self, o: usize) -> Sz {
        self * &Sz::Lit(o)
    }
}
impl Mul<usize> for Sz {
    type Output = Sz;
    fn mul(self, o: usize) -> Sz {
        &self * &Sz::Lit(o)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_fold_and_expressions_stay_symbolic() {
        let h = Sz::expr("s3[2]");
        assert_eq!(&Sz::Lit(3) * &Sz::Lit(4), Sz::Lit(12));
        assert_eq!((&h * 1).to_string(), "s3[2]");
        assert_eq!(((&h + 2) / 2).to_string(), "((s3[2] + 2) / 2)");
        assert_eq!(Sz::product(&[Sz::Lit(2), h.clone(), Sz::Lit(3)]).to_string(), "((2 * s3[2]) * 3)");
        assert_eq!(Sz::slice(&[Sz::Lit(1), h.clone()]), "&[1, s3[2]]");
        assert_eq!(Sz::Lit(2).sat_sub(&Sz::Lit(5)), Sz::Lit(0));
        assert_eq!(Sz::Lit(5).div_ceil(&Sz::Lit(2)), Sz::Lit(3));
    }
}
