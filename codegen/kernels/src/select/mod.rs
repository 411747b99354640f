//! Selection: ops whose result size depends on the data (NonZero, Compress,
//! Unique: [`dynamic`]; NonMaxSuppression: [`nms`]) and TopK
//! ([`mod@top_k`]).

pub mod dynamic;
pub mod nms;
pub mod top_k;

pub use top_k::top_k;

use std::cmp::Ordering;

/// Total order of TopK and Unique: numeric, NaN above every number and
/// equal to itself.
#[allow(clippy::eq_op)]
#[inline]
pub(crate) fn order<T: PartialOrd>(a: &T, b: &T) -> Ordering {
    match (a != a, b != b) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        _ => a.partial_cmp(b).unwrap_or(Ordering::Equal),
    }
}
