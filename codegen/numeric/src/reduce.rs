//! Reduction kinds.

/// A reduction kind (`Reduce*` and the pooling/window reductions).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Reduce {
    /// `Σ x`.
    Sum,
    /// `Σ x / n`.
    Mean,
    /// NaN-propagating maximum.
    Max,
    /// NaN-propagating minimum.
    Min,
    /// `Π x`.
    Prod,
    /// `Σ |x|`.
    L1,
    /// `sqrt(Σ x²)`.
    L2,
    /// `Σ x²`.
    SumSquare,
    /// `ln Σ x`.
    LogSum,
    /// `ln Σ e^x`, shifted by the largest finite element for stability.
    LogSumExp,
}

impl Reduce {
    /// Every kind.
    pub const ALL: [Reduce; 10] = [
        Reduce::Sum,
        Reduce::Mean,
        Reduce::Max,
        Reduce::Min,
        Reduce::Prod,
        Reduce::L1,
        Reduce::L2,
        Reduce::SumSquare,
        Reduce::LogSum,
        Reduce::LogSumExp,
    ];
}
