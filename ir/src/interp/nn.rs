//! Reference kernels: nn family.
//!
//! Float kernels compute in f32 for f32/f16/bf16 tensors (rounding once when the
//! result is stored) and in f64 for f64 tensors; integer matrix products wrap.
//! Each submodule holds one group of ops; the kernels are re-exported here so the
//! op table can name them `ik::nn::<kernel>`.

pub mod attention;
pub mod conv;
pub mod einsum;
pub mod matmul;
pub mod norm;
pub mod num;
pub mod pool;
pub mod resize;
pub mod rnn;
pub mod sample;
pub mod softmax;
pub mod space;
pub mod window;

pub use attention::{attention, rotary_embedding};
pub use conv::{col2im, conv, conv_transpose};
pub use einsum::einsum;
pub use matmul::{gemm, matmul};
pub use norm::{
    batch_norm, group_norm, instance_norm, layer_norm, lp_normalization, lrn, mean_variance_norm, rms_norm,
};
pub use pool::{average_pool, global_average_pool, global_lp_pool, global_max_pool, lp_pool, max_pool, max_unpool};
pub use resize::{resize, upsample};
pub use rnn::{gru, lstm, rnn};
pub use sample::{grid_sample, roi_align};
pub use softmax::{hardmax, log_softmax, softmax};
pub use space::{depth_to_space, space_to_depth};
