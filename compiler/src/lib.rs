//! edgec driver and frontends.
