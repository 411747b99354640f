//! The error generated models report to their callers (re-exported as
//! `rt::Error`, where generated code names it).
//! Shared infrastructure: the error of every kernel that checks data or
//! shapes known only when the model runs.

use std::fmt;

/// An error a generated model reports to its caller (bad input, bad weights).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error(pub String);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}
