//! edgec's driver: loading and saving IR files, running pipelines. The `edgec`
//! binary (`src/main.rs`) is a thin clap front-end over these functions;
//! frontends (ONNX) and backends plug in here.

pub mod bucket;
pub mod calib;
pub mod check;
pub mod compile;
pub mod cross;
pub mod driver;
pub mod export_onnx;
pub mod frontend;
pub mod inspect;
pub mod npy;
pub mod optimize;
pub mod pipeline;
pub mod quantize;
pub mod report;
pub mod run;
pub mod vela;

pub use driver::{load_eir, save_eir, DriverError};
