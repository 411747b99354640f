#!/usr/bin/env python3
"""Builds models for the NPU rewrites, with the helpers of make_models.py and
make_dynamic_models.py (same layout: <name>/model.onnx + test_data_set_*/).

Usage: python3 -m pip install onnx==1.22.0 numpy && python3 testsuite/models/make_npu_models.py

- vit_decoder: a ViT segmentation model (opset 13) on x f32[1, 3, 32, 32]:
               Conv 4x4 stride 4 patch embedding to 8x8 tokens of 32 channels,
               Transpose/Reshape to [1, 64, 32] tokens + position embedding, one
               post-norm encoder layer (4 heads, erf GELU), back to a [1, 32, 8, 8]
               map, then a decoder: Conv 1x1, Resize x2 linear (half_pixel),
               Conv 3x3 + Relu, Resize x2 cubic (pytorch_half_pixel, A = -0.75 as
               torch writes), Conv 1x1 to 3 classes: f32[1, 3, 32, 32].
               Every Resize has an integer scale, so the NPU profile needs none.
"""
import numpy as np
from onnx import TensorProto as TP, helper as h, numpy_helper as nh

import make_models as mm
import make_dynamic_models as dm

mm.rng = np.random.default_rng(20261204)
w = mm.w


def encoder_inits(H, heads, dh, P):
    return [nh.from_array(w(P, H, scale=0.5), "pos_emb"),
            nh.from_array(np.array(2.0, np.float32), "two"), nh.from_array(np.array(1e-5, np.float32), "eps"),
            nh.from_array(np.array([0, 0, heads, dh], np.int64), "split_heads"),
            nh.from_array(np.array([0, 0, -1], np.int64), "merge_heads"),
            nh.from_array(np.array(np.sqrt(dh), np.float32), "sqrt_dh"),
            nh.from_array(np.zeros((1, 1, 1, P), np.float32), "mask_bias"),
            nh.from_array(np.array(1.0, np.float32), "one_f"),
            nh.from_array(np.array(np.sqrt(2.0), np.float32), "sqrt2"), nh.from_array(np.array(0.5, np.float32), "half"),
            nh.from_array(np.array([1, 32, 64], np.int64), "to_tokens"),
            nh.from_array(np.array([1, 8, 8, 32], np.int64), "to_grid"),
            nh.from_array(np.array([], np.float32), "no_roi"),
            nh.from_array(np.array([1, 1, 2, 2], np.float32), "x2")]


def vit_decoder():
    H, heads, dh, P, F = 32, 4, 8, 64, 64
    inits = encoder_inits(H, heads, dh, P) + dm.layer_inits("layer0/", H, F)
    inits += [nh.from_array(w(H, 3, 4, 4), "patch_w"), nh.from_array(w(H, scale=0.05), "patch_b"),
              nh.from_array(w(16, H, 1, 1), "dec1_w"), nh.from_array(w(16, scale=0.05), "dec1_b"),
              nh.from_array(w(16, 16, 3, 3), "dec2_w"), nh.from_array(w(16, scale=0.05), "dec2_b"),
              nh.from_array(w(3, 16, 1, 1), "head_w"), nh.from_array(w(3, scale=0.05), "head_b")]
    n = [
        h.make_node("Conv", ["x", "patch_w", "patch_b"], ["patches"], name="patch_embed", kernel_shape=[4, 4], strides=[4, 4]),
        h.make_node("Reshape", ["patches", "to_tokens"], ["flat"], name="patch_flatten"),
        h.make_node("Transpose", ["flat"], ["tokens"], name="patch_transpose", perm=[0, 2, 1]),
        h.make_node("Add", ["tokens", "pos_emb"], ["x0"], name="pos_add"),
    ]
    dm.attention_layer(n, "x0", "layer0/res1", "layer0/attn/", heads, dh)
    mm.layer_norm(n, "layer0/res1", "layer0/ln_a_g", "layer0/ln_a_b", "layer0/x1", "layer0/ln_a/")
    dm.ffn_layer(n, "layer0/x1", "layer0/res2", "layer0/ffn/")
    mm.layer_norm(n, "layer0/res2", "layer0/ln_f_g", "layer0/ln_f_b", "enc", "layer0/ln_f/")
    n += [
        h.make_node("Reshape", ["enc", "to_grid"], ["grid_nhwc"], name="to_grid"),
        h.make_node("Transpose", ["grid_nhwc"], ["grid"], name="to_nchw", perm=[0, 3, 1, 2]),
        h.make_node("Conv", ["grid", "dec1_w", "dec1_b"], ["d1"], name="decoder/proj"),
        h.make_node("Resize", ["d1", "no_roi", "x2"], ["up1"], name="decoder/up_linear", mode="linear",
                    coordinate_transformation_mode="half_pixel"),
        h.make_node("Conv", ["up1", "dec2_w", "dec2_b"], ["d2"], name="decoder/conv", pads=[1, 1, 1, 1]),
        h.make_node("Relu", ["d2"], ["r2"], name="decoder/relu"),
        h.make_node("Resize", ["r2", "no_roi", "x2"], ["up2"], name="decoder/up_cubic", mode="cubic",
                    coordinate_transformation_mode="pytorch_half_pixel", cubic_coeff_a=-0.75),
        h.make_node("Conv", ["up2", "head_w", "head_b"], ["seg"], name="decoder/head"),
    ]
    g = h.make_graph(n, "vit_decoder", [h.make_tensor_value_info("x", TP.FLOAT, [1, 3, 32, 32])],
                     [h.make_tensor_value_info("seg", TP.FLOAT, [1, 3, 32, 32])], inits)
    mm.save("vit_decoder", g, 13, [{"x": mm.rng.standard_normal((1, 3, 32, 32)).astype(np.float32)}])


if __name__ == "__main__":
    vit_decoder()
