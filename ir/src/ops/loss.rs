//! Shape inference: loss ops.
