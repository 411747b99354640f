//! edgec's driver: loading and saving IR files, running pipelines. The `edgec`
//! binary (`src/main.rs`) is a thin clap front-end over these functions;
//! frontends (ONNX) and backends plug in here.

pub mod driver;
pub mod frontend;

pub use driver::{load_eir, save_eir, DriverError};
