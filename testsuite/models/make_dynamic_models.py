#!/usr/bin/env python3
"""Builds the dynamic-shape test models for shape bucketing, with the helpers of
make_models.py (same layout: <name>/model.onnx + test_data_set_*/).

Usage: python3 -m pip install onnx==1.22.0 numpy onnxruntime && python3 testsuite/models/make_dynamic_models.py

- bert_dynamic: BERT-like encoder (opset 13) on input_ids / attention_mask
                i64[1, sequence] with 256 learned positions: token + position
                embeddings, 2 post-norm layers (d 32, 4 heads, ff 64, erf GELU,
                decomposed LayerNorm), the mask as (1 - mask) * -10000 added to
                the scores, and a tanh pooler on token 0. Outputs hidden
                f32[1, sequence, 32] and pooled f32[1, 32]. Data sets at
                sequence 7, 32 and 100 (the last two with padded positions).
- cnn_dynamic:  a CNN on x f32[1, 3, height, width] (opset 13): Conv 3x3 pad 1
                + Relu, Conv 3x3 stride 2 pad 1 + Relu, GlobalAveragePool,
                Flatten, Gemm to 5 classes. Data sets at 20x28 and 33x17.
                Padding the image changes the pooled features, so bucketing
                it is not exact: `edgec verify` reports the deviation.
- loop_carried: a Loop (opset 17) over a[n], b[n] (n symbolic) computing
                a, b = b, a + b five times with a scan output of a: the
                body's results are views of its carried inputs, so a
                backend must append the scan output before updating the
                state, and update a after reading it for b. Data sets at
                n = 2 and n = 5.
- scan_axes:    a Scan (opset 16) over x f32[b, t, 3] along axis -2 (b, t
                symbolic) accumulating s f32[b, 3]: s' = s + x_t, with scan
                outputs 2 s' stacked along axis 1 in reverse and s' * x_t
                stacked along axis -1. Data sets at (b, t) = (2, 4) and (1, 6).
"""
import numpy as np
from onnx import TensorProto as TP, helper as h, numpy_helper as nh

import make_models as mm

mm.rng = np.random.default_rng(20261203)
w = mm.w


def attention_layer(n, x, out, p, heads, dh):
    for nm in ["q", "k", "v"]:
        n += [h.make_node("MatMul", [x, p + "w" + nm], [p + nm], name=p + nm),
              h.make_node("Add", [p + nm, p + "b" + nm], [p + nm + "b"], name=p + nm + "/bias"),
              h.make_node("Reshape", [p + nm + "b", "split_heads"], [p + nm + "4"], name=p + nm + "/reshape")]
    n += [
        h.make_node("Transpose", [p + "q4"], [p + "qt"], name=p + "q/transpose", perm=[0, 2, 1, 3]),
        h.make_node("Transpose", [p + "k4"], [p + "kt"], name=p + "k/transpose", perm=[0, 2, 3, 1]),
        h.make_node("Transpose", [p + "v4"], [p + "vt"], name=p + "v/transpose", perm=[0, 2, 1, 3]),
        h.make_node("MatMul", [p + "qt", p + "kt"], [p + "scores"], name=p + "qk"),
        h.make_node("Div", [p + "scores", "sqrt_dh"], [p + "scaled"], name=p + "scale"),
        h.make_node("Add", [p + "scaled", "mask_bias"], [p + "masked"], name=p + "mask/add"),
        h.make_node("Softmax", [p + "masked"], [p + "probs"], name=p + "softmax", axis=-1),
        h.make_node("MatMul", [p + "probs", p + "vt"], [p + "ctx"], name=p + "context"),
        h.make_node("Transpose", [p + "ctx"], [p + "ctx_t"], name=p + "context/transpose", perm=[0, 2, 1, 3]),
        h.make_node("Reshape", [p + "ctx_t", "merge_heads"], [p + "merged"], name=p + "context/reshape"),
        h.make_node("MatMul", [p + "merged", p + "wo"], [p + "o"], name=p + "output"),
        h.make_node("Add", [p + "o", p + "bo"], [p + "ob"], name=p + "output/bias"),
        h.make_node("Add", [p + "ob", x], [out], name=p + "residual"),
    ]


def ffn_layer(n, x, out, p):
    n += [
        h.make_node("MatMul", [x, p + "w1"], [p + "f1"], name=p + "fc1"),
        h.make_node("Add", [p + "f1", p + "b1"], [p + "f1b"], name=p + "fc1/bias"),
        h.make_node("Div", [p + "f1b", "sqrt2"], [p + "gd"], name=p + "gelu/div"),
        h.make_node("Erf", [p + "gd"], [p + "ge"], name=p + "gelu/erf"),
        h.make_node("Add", [p + "ge", "one_f"], [p + "g1"], name=p + "gelu/add"),
        h.make_node("Mul", [p + "f1b", p + "g1"], [p + "g2"], name=p + "gelu/mul"),
        h.make_node("Mul", [p + "g2", "half"], [p + "gelu"], name=p + "gelu/half"),
        h.make_node("MatMul", [p + "gelu", p + "w2"], [p + "f2"], name=p + "fc2"),
        h.make_node("Add", [p + "f2", p + "b2"], [p + "f2b"], name=p + "fc2/bias"),
        h.make_node("Add", [p + "f2b", x], [out], name=p + "residual"),
    ]


def layer_inits(p, H, F):
    out = []
    for nm in ["q", "k", "v", "o"]:
        out += [nh.from_array(w(H, H), p + "attn/w" + nm), nh.from_array(w(H, scale=0.05), p + "attn/b" + nm)]
    out += [nh.from_array(w(H, F), p + "ffn/w1"), nh.from_array(w(F, scale=0.05), p + "ffn/b1"),
            nh.from_array(w(F, H), p + "ffn/w2"), nh.from_array(w(H, scale=0.05), p + "ffn/b2")]
    for ln in ["ln_a", "ln_f"]:
        out += [nh.from_array(1 + w(H, scale=0.1), p + ln + "_g"), nh.from_array(w(H, scale=0.1), p + ln + "_b")]
    return out


def bert_dynamic():
    H, heads, dh, V, P, F, L = 32, 4, 8, 100, 256, 64, 2
    inits = [nh.from_array(w(V, H, scale=0.5), "tok_emb"), nh.from_array(w(P, H, scale=0.5), "pos_emb"),
             nh.from_array(1 + w(H, scale=0.1), "emb_ln_g"), nh.from_array(w(H, scale=0.1), "emb_ln_b"),
             nh.from_array(np.array(2.0, np.float32), "two"), nh.from_array(np.array(1e-5, np.float32), "eps"),
             nh.from_array(np.array([0, 0, heads, dh], np.int64), "split_heads"),
             nh.from_array(np.array([0, 0, -1], np.int64), "merge_heads"),
             nh.from_array(np.array(np.sqrt(dh), np.float32), "sqrt_dh"),
             nh.from_array(np.array([1], np.int64), "one_i"), nh.from_array(np.array([0], np.int64), "zero_i"),
             nh.from_array(np.array([1, 2], np.int64), "mask_axes"),
             nh.from_array(np.array(1.0, np.float32), "one_f"), nh.from_array(np.array(-10000.0, np.float32), "neg"),
             nh.from_array(np.array(np.sqrt(2.0), np.float32), "sqrt2"), nh.from_array(np.array(0.5, np.float32), "half"),
             nh.from_array(np.array([0], np.int64), "tok0"), nh.from_array(w(H, H), "pool_w"),
             nh.from_array(w(H, scale=0.05), "pool_b")]
    n = [
        h.make_node("Gather", ["tok_emb", "input_ids"], ["tok"], name="embeddings/word"),
        h.make_node("Shape", ["input_ids"], ["ids_shape"], name="embeddings/shape"),
        h.make_node("Gather", ["ids_shape", "one_i"], ["seq_len"], name="embeddings/seq_len", axis=0),
        h.make_node("Slice", ["pos_emb", "zero_i", "seq_len", "zero_i"], ["pos"], name="embeddings/position"),
        h.make_node("Add", ["tok", "pos"], ["emb"], name="embeddings/add"),
        h.make_node("Unsqueeze", ["attention_mask", "mask_axes"], ["m4"], name="mask/unsqueeze"),
        h.make_node("Cast", ["m4"], ["mf"], name="mask/cast", to=TP.FLOAT),
        h.make_node("Sub", ["one_f", "mf"], ["inv"], name="mask/sub"),
        h.make_node("Mul", ["inv", "neg"], ["mask_bias"], name="mask/mul"),
    ]
    mm.layer_norm(n, "emb", "emb_ln_g", "emb_ln_b", "x0", "embeddings/ln/")
    x = "x0"
    for i in range(L):
        p = f"layer{i}/"
        inits += layer_inits(p, H, F)
        attention_layer(n, x, p + "res1", p + "attn/", heads, dh)
        mm.layer_norm(n, p + "res1", p + "ln_a_g", p + "ln_a_b", p + "x1", p + "ln_a/")
        ffn_layer(n, p + "x1", p + "res2", p + "ffn/")
        mm.layer_norm(n, p + "res2", p + "ln_f_g", p + "ln_f_b", p + "out", p + "ln_f/")
        x = p + "out"
    n += [
        h.make_node("Identity", [x], ["hidden"], name="output/hidden"),
        h.make_node("Gather", [x, "tok0"], ["cls"], name="pooler/token0", axis=1),
        h.make_node("MatMul", ["cls", "pool_w"], ["pm"], name="pooler/dense"),
        h.make_node("Add", ["pm", "pool_b"], ["pmb"], name="pooler/bias"),
        h.make_node("Tanh", ["pmb"], ["pooled3"], name="pooler/tanh"),
        h.make_node("Squeeze", ["pooled3", "one_i"], ["pooled"], name="pooler/squeeze"),
    ]
    ins = [h.make_tensor_value_info("input_ids", TP.INT64, [1, "sequence"]),
           h.make_tensor_value_info("attention_mask", TP.INT64, [1, "sequence"])]
    outs = [h.make_tensor_value_info("hidden", TP.FLOAT, [1, "sequence", H]),
            h.make_tensor_value_info("pooled", TP.FLOAT, [1, H])]
    g = h.make_graph(n, "bert_dynamic", ins, outs, inits)
    feeds = []
    for s, padded in [(7, 0), (32, 5), (100, 17)]:
        mask = np.ones((1, s), np.int64)
        if padded:
            mask[0, s - padded:] = 0
        feeds.append({"input_ids": mm.rng.integers(1, V, (1, s)).astype(np.int64), "attention_mask": mask})
    mm.save("bert_dynamic", g, 13, feeds)


def cnn_dynamic():
    inits = [nh.from_array(w(8, 3, 3, 3), "c1_w"), nh.from_array(w(8, scale=0.05), "c1_b"),
             nh.from_array(w(16, 8, 3, 3), "c2_w"), nh.from_array(w(16, scale=0.05), "c2_b"),
             nh.from_array(w(5, 16), "fc_w"), nh.from_array(w(5, scale=0.05), "fc_b")]
    n = [
        h.make_node("Conv", ["x", "c1_w", "c1_b"], ["c1"], name="conv1", pads=[1, 1, 1, 1]),
        h.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        h.make_node("Conv", ["r1", "c2_w", "c2_b"], ["c2"], name="conv2", pads=[1, 1, 1, 1], strides=[2, 2]),
        h.make_node("Relu", ["c2"], ["r2"], name="relu2"),
        h.make_node("GlobalAveragePool", ["r2"], ["gap"], name="pool"),
        h.make_node("Flatten", ["gap"], ["flat"], name="flatten"),
        h.make_node("Gemm", ["flat", "fc_w", "fc_b"], ["logits"], name="classifier", transB=1),
    ]
    ins = [h.make_tensor_value_info("x", TP.FLOAT, [1, 3, "height", "width"])]
    outs = [h.make_tensor_value_info("logits", TP.FLOAT, [1, 5])]
    g = h.make_graph(n, "cnn_dynamic", ins, outs, inits)
    feeds = [{"x": mm.rng.standard_normal((1, 3, hh, ww)).astype(np.float32)} for hh, ww in [(20, 28), (33, 17)]]
    mm.save("cnn_dynamic", g, 13, feeds)


def loop_carried():
    vi = h.make_tensor_value_info
    body = h.make_graph(
        [h.make_node("Identity", ["cond"], ["cond_out"], name="cond"),
         h.make_node("Identity", ["b"], ["a_next"], name="a_next"),
         h.make_node("Add", ["a", "b"], ["b_next"], name="b_next"),
         h.make_node("Identity", ["a"], ["a_scan"], name="a_scan")],
        "fib", [vi("iter", TP.INT64, []), vi("cond", TP.BOOL, []), vi("a", TP.FLOAT, ["n"]), vi("b", TP.FLOAT, ["n"])],
        [vi("cond_out", TP.BOOL, []), vi("a_next", TP.FLOAT, ["n"]), vi("b_next", TP.FLOAT, ["n"]),
         vi("a_scan", TP.FLOAT, ["n"])])
    g = h.make_graph(
        [h.make_node("Loop", ["trips", "go", "a0", "b0"], ["a", "b", "a_seq"], name="loop", body=body)],
        "loop_carried", [vi("a0", TP.FLOAT, ["n"]), vi("b0", TP.FLOAT, ["n"])],
        [vi("a", TP.FLOAT, ["n"]), vi("b", TP.FLOAT, ["n"]), vi("a_seq", TP.FLOAT, [5, "n"])],
        initializer=[nh.from_array(np.array(5, dtype=np.int64), "trips"), nh.from_array(np.array(True), "go")])
    feeds = [{"a0": w(n, scale=1.0), "b0": w(n, scale=1.0)} for n in (2, 5)]
    mm.save("loop_carried", g, 17, feeds)


def scan_axes():
    vi = h.make_tensor_value_info
    body = h.make_graph(
        [h.make_node("Add", ["s", "xt"], ["s_next"], name="acc"),
         h.make_node("Add", ["s_next", "s_next"], ["twice"], name="twice"),
         h.make_node("Mul", ["s_next", "xt"], ["prod"], name="prod")],
        "acc", [vi("s", TP.FLOAT, ["b", 3]), vi("xt", TP.FLOAT, ["b", 3])],
        [vi("s_next", TP.FLOAT, ["b", 3]), vi("twice", TP.FLOAT, ["b", 3]), vi("prod", TP.FLOAT, ["b", 3])])
    scan = h.make_node("Scan", ["s0", "x"], ["s", "ys", "ps"], name="scan", body=body, num_scan_inputs=1,
                       scan_input_axes=[-2], scan_output_axes=[1, -1], scan_output_directions=[1, 0])
    g = h.make_graph(
        [scan], "scan_axes", [vi("s0", TP.FLOAT, ["b", 3]), vi("x", TP.FLOAT, ["b", "t", 3])],
        [vi("s", TP.FLOAT, ["b", 3]), vi("ys", TP.FLOAT, ["b", "t", 3]), vi("ps", TP.FLOAT, ["b", 3, "t"])])
    feeds = [{"s0": w(b, 3, scale=1.0), "x": w(b, t, 3, scale=1.0)} for b, t in ((2, 4), (1, 6))]
    # onnx's ReferenceEvaluator scans along axis 0 only: onnxruntime computes the outputs.
    import onnxruntime as ort

    def run(model, feeds):
        return ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, feeds)

    mm.save("scan_axes", g, 16, feeds, run)


if __name__ == "__main__":
    bert_dynamic()
    cnn_dynamic()
    loop_carried()
    scan_axes()
