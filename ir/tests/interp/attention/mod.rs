//! Attention-family kernels: Attention and RotaryEmbedding, LinearAttention and FlexAttention,
//! CausalConvWithState, `core.attention_blocked`, the window ops and fused `core.attention`.

mod attention_rotary;
mod blocked;
mod causal_conv;
mod fused;
mod linear_flex;
mod window;
