//! The edgec command-line tool.
fn main() {}
