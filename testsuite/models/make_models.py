#!/usr/bin/env python3
"""Builds the real-world-style test models under testsuite/models/ with the
`onnx` package, and their expected outputs with onnx's ReferenceEvaluator.

Usage: python3 -m pip install onnx==1.22.0 numpy && python3 testsuite/models/make_models.py

Each model lands in testsuite/models/<name>/model.onnx with one or more
test_data_set_*/ folders (input_K.pb / output_K.pb), the ONNX test layout that
`edgec verify` reads. The models mimic what real exporters produce:

- paddle_cnn:   PaddlePaddle style: every weight is a `Constant` node; Conv+BN+Relu,
                pooling, Flatten, MatMul+Add, Softmax (opset 15).
- tf_mobilenet: tf2onnx style: NHWC input with Transpose, Pad, depthwise Conv,
                Clip as Relu6, HardSwish, GlobalAveragePool, Squeeze (opset 14).
- det_head:     YOLO-style neck/head: Conv, nearest and linear Resize, Concat, Split
                into box/objectness/class branches, Sigmoid (opset 13).
- bert_tiny:    BERT-like encoder with a dynamic `sequence` dim: embeddings with
                Gather, Shape/Slice position ids, decomposed LayerNorm and GELU(erf),
                multi-head attention with Reshape(0,-1)/Transpose and a padding mask
                (opset 13); two data sets with different sequence lengths.
- audio_rnn:    LSTM then GRU over [seq, batch, feat], an If that
                picks a branch on the input energy, and a Loop (opset 14).
"""
import os
import numpy as np
import onnx
from onnx import TensorProto as TP, helper as h, numpy_helper as nh
from onnx.reference import ReferenceEvaluator

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(20261202)


def w(*shape, scale=0.2):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def const_node(name, arr):
    return h.make_node("Constant", [], [name], name=name + "_const", value=nh.from_array(arr, name))


def save(name, graph, opset, feeds_list, run=None):
    """Writes <name>/model.onnx and one data set per feeds dict; reference
    outputs from onnx's ReferenceEvaluator, or from run(model, feeds) where
    it lacks the op's form (scan_axes: onnxruntime)."""
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", opset)], producer_name="edgec-testgen")
    model.ir_version = 8
    onnx.checker.check_model(model)
    d = os.path.join(HERE, name)
    os.makedirs(d, exist_ok=True)
    onnx.save(model, os.path.join(d, "model.onnx"))
    ref = None if run else ReferenceEvaluator(model)
    for k, feeds in enumerate(feeds_list):
        sd = os.path.join(d, f"test_data_set_{k}")
        os.makedirs(sd, exist_ok=True)
        outs = run(model, feeds) if run else ref.run(None, feeds)
        for i, inp in enumerate(graph.input):
            with open(os.path.join(sd, f"input_{i}.pb"), "wb") as f:
                f.write(nh.from_array(feeds[inp.name], inp.name).SerializeToString())
        for i, (o, arr) in enumerate(zip(graph.output, outs)):
            with open(os.path.join(sd, f"output_{i}.pb"), "wb") as f:
                f.write(nh.from_array(np.asarray(arr), o.name).SerializeToString())
    print(name, "ok")


def paddle_cnn():
    nodes = []
    nodes += [const_node("conv1_w", w(8, 3, 3, 3)), const_node("conv1_b", w(8))]
    nodes += [const_node(n, v) for n, v in [("bn_s", 1 + w(8, scale=0.1)), ("bn_b", w(8)), ("bn_m", w(8)), ("bn_v", np.abs(1 + w(8, scale=0.1)))]]
    nodes.append(h.make_node("Conv", ["x", "conv1_w", "conv1_b"], ["c1"], name="conv2d_0", pads=[1, 1, 1, 1], strides=[1, 1]))
    nodes.append(h.make_node("BatchNormalization", ["c1", "bn_s", "bn_b", "bn_m", "bn_v"], ["b1"], name="batch_norm_0", epsilon=1e-5))
    nodes.append(h.make_node("Relu", ["b1"], ["r1"], name="relu_0"))
    nodes.append(h.make_node("MaxPool", ["r1"], ["p1"], name="pool2d_0", kernel_shape=[2, 2], strides=[2, 2]))
    nodes += [const_node("conv2_w", w(16, 8, 3, 3, scale=0.1))]
    nodes.append(h.make_node("Conv", ["p1", "conv2_w"], ["c2"], name="conv2d_1", pads=[1, 1, 1, 1], strides=[2, 2]))
    nodes.append(h.make_node("Relu", ["c2"], ["r2"], name="relu_1"))
    nodes.append(h.make_node("AveragePool", ["r2"], ["p2"], name="pool2d_1", kernel_shape=[2, 2], strides=[2, 2]))
    nodes.append(h.make_node("Flatten", ["p2"], ["f"], name="flatten_0", axis=1))
    nodes += [const_node("fc_w", w(64, 10, scale=0.1)), const_node("fc_b", w(10))]
    nodes.append(h.make_node("MatMul", ["f", "fc_w"], ["mm"], name="matmul_0"))
    nodes.append(h.make_node("Add", ["mm", "fc_b"], ["logits"], name="elementwise_add_0"))
    nodes.append(h.make_node("Softmax", ["logits"], ["prob"], name="softmax_0", axis=1))
    g = h.make_graph(nodes, "paddle_cnn", [h.make_tensor_value_info("x", TP.FLOAT, [2, 3, 16, 16])],
                     [h.make_tensor_value_info("prob", TP.FLOAT, [2, 10])])
    # Opset 15: onnx's ReferenceEvaluator runs BatchNormalization-9..14 in training
    # mode (its `momentum` default selects that path), which is not what an
    # exported inference graph means; from opset 15 `training_mode` defaults to 0.
    save("paddle_cnn", g, 15, [{"x": rng.standard_normal((2, 3, 16, 16)).astype(np.float32)}])


def tf_mobilenet():
    inits = [nh.from_array(w(8, 3, 3, 3), "c1_w"), nh.from_array(w(8), "c1_b"),
             nh.from_array(w(8, 1, 3, 3), "dw_w"), nh.from_array(w(8), "dw_b"),
             nh.from_array(w(12, 8, 1, 1), "pw_w"), nh.from_array(w(12), "pw_b"),
             nh.from_array(np.array([0, 0, 0, 0, 0, 0, 1, 1], np.int64), "pads"),
             nh.from_array(np.array(0.0, np.float32), "zero"), nh.from_array(np.array(6.0, np.float32), "six"),
             nh.from_array(np.array([2, 3], np.int64), "sq_axes")]
    nodes = [
        h.make_node("Transpose", ["img"], ["nchw"], name="transpose_in", perm=[0, 3, 1, 2]),
        h.make_node("Pad", ["nchw", "pads"], ["padded"], name="pad", mode="constant"),
        h.make_node("Conv", ["padded", "c1_w", "c1_b"], ["c1"], name="conv1", strides=[2, 2]),
        h.make_node("Clip", ["c1", "zero", "six"], ["relu6"], name="relu6"),
        h.make_node("Conv", ["relu6", "dw_w", "dw_b"], ["dw"], name="depthwise", group=8, pads=[1, 1, 1, 1]),
        h.make_node("HardSwish", ["dw"], ["hs"], name="hswish"),
        h.make_node("Conv", ["hs", "pw_w", "pw_b"], ["pw"], name="pointwise"),
        h.make_node("GlobalAveragePool", ["pw"], ["gap"], name="gap"),
        h.make_node("Squeeze", ["gap", "sq_axes"], ["feat"], name="squeeze"),
    ]
    g = h.make_graph(nodes, "tf_mobilenet", [h.make_tensor_value_info("img", TP.FLOAT, [1, 17, 17, 3])],
                     [h.make_tensor_value_info("feat", TP.FLOAT, [1, 12])], inits)
    save("tf_mobilenet", g, 14, [{"img": rng.standard_normal((1, 17, 17, 3)).astype(np.float32)}])


def det_head():
    inits = [nh.from_array(w(8, 4, 3, 3), "stem_w"), nh.from_array(w(8, 8, 3, 3, scale=0.1), "down_w"),
             nh.from_array(np.array([1, 1, 2, 2], np.float32), "up_scales"),
             nh.from_array(np.array([], np.float32), "empty"),
             nh.from_array(w(9, 16, 1, 1), "head_w"), nh.from_array(w(9), "head_b"),
             nh.from_array(np.array([4, 1, 4], np.int64), "split"),
             nh.from_array(np.array([1, 16, 24, 24], np.int64), "sizes")]
    nodes = [
        h.make_node("Conv", ["x", "stem_w"], ["s"], name="stem", pads=[1, 1, 1, 1]),
        h.make_node("Relu", ["s"], ["sr"], name="stem_relu"),
        h.make_node("Conv", ["sr", "down_w"], ["d"], name="down", pads=[1, 1, 1, 1], strides=[2, 2]),
        h.make_node("Resize", ["d", "", "up_scales"], ["up"], name="upsample_nearest", mode="nearest"),
        h.make_node("Concat", ["sr", "up"], ["cat"], name="concat", axis=1),
        h.make_node("Conv", ["cat", "head_w", "head_b"], ["head"], name="head"),
        h.make_node("Split", ["head", "split"], ["box", "obj", "cls"], name="split", axis=1),
        h.make_node("Sigmoid", ["obj"], ["obj_p"], name="obj_sigmoid"),
        h.make_node("Sigmoid", ["cls"], ["cls_p"], name="cls_sigmoid"),
        h.make_node("Resize", ["cat", "", "empty", "sizes"], ["big"], name="resize_linear", mode="linear",
                    coordinate_transformation_mode="half_pixel"),
    ]
    outs = [h.make_tensor_value_info(n, TP.FLOAT, s) for n, s in
            [("box", [1, 4, 16, 16]), ("obj_p", [1, 1, 16, 16]), ("cls_p", [1, 4, 16, 16]), ("big", [1, 16, 24, 24])]]
    g = h.make_graph(nodes, "det_head", [h.make_tensor_value_info("x", TP.FLOAT, [1, 4, 16, 16])], outs, inits)
    save("det_head", g, 13, [{"x": rng.standard_normal((1, 4, 16, 16)).astype(np.float32)}])


def layer_norm(nodes, x, gamma, beta, out, p):
    nodes += [
        h.make_node("ReduceMean", [x], [p + "mean"], axes=[-1], name=p + "mean"),
        h.make_node("Sub", [x, p + "mean"], [p + "xc"], name=p + "sub"),
        h.make_node("Pow", [p + "xc", "two"], [p + "sq"], name=p + "pow"),
        h.make_node("ReduceMean", [p + "sq"], [p + "var"], axes=[-1], name=p + "var"),
        h.make_node("Add", [p + "var", "eps"], [p + "ve"], name=p + "add_eps"),
        h.make_node("Sqrt", [p + "ve"], [p + "std"], name=p + "sqrt"),
        h.make_node("Div", [p + "xc", p + "std"], [p + "norm"], name=p + "div"),
        h.make_node("Mul", [p + "norm", gamma], [p + "scaled"], name=p + "mul"),
        h.make_node("Add", [p + "scaled", beta], [out], name=p + "add"),
    ]


def bert_tiny():
    H, heads, dh, V, P, F = 16, 2, 8, 30, 64, 32
    inits = [nh.from_array(w(V, H), "tok_emb"), nh.from_array(w(P, H), "pos_emb"),
             nh.from_array(np.array(2.0, np.float32), "two"), nh.from_array(np.array(1e-5, np.float32), "eps"),
             nh.from_array(1 + w(H, scale=0.1), "ln1_g"), nh.from_array(w(H), "ln1_b"),
             nh.from_array(1 + w(H, scale=0.1), "ln2_g"), nh.from_array(w(H), "ln2_b"),
             nh.from_array(w(H, H), "wq"), nh.from_array(w(H, H), "wk"), nh.from_array(w(H, H), "wv"), nh.from_array(w(H, H), "wo"),
             nh.from_array(np.array([0, 0, heads, dh], np.int64), "split_heads"),
             nh.from_array(np.array([0, 0, -1], np.int64), "merge_heads"),
             nh.from_array(np.array(1 / np.sqrt(dh), np.float32), "scale"),
             nh.from_array(np.array([1], np.int64), "one_i"), nh.from_array(np.array([0], np.int64), "zero_i"),
             nh.from_array(np.array([1, 2], np.int64), "mask_axes"),
             nh.from_array(np.array(1.0, np.float32), "one_f"), nh.from_array(np.array(-10000.0, np.float32), "neg"),
             nh.from_array(w(H, F), "w1"), nh.from_array(w(F), "b1"), nh.from_array(w(F, H), "w2"), nh.from_array(w(H), "b2"),
             nh.from_array(np.array(np.sqrt(2.0), np.float32), "sqrt2"), nh.from_array(np.array(0.5, np.float32), "half")]
    n = [
        h.make_node("Gather", ["tok_emb", "input_ids"], ["tok"], name="embeddings/word"),
        h.make_node("Shape", ["input_ids"], ["ids_shape"], name="embeddings/shape"),
        h.make_node("Gather", ["ids_shape", "one_i"], ["seq_len"], name="embeddings/seq_len", axis=0),
        h.make_node("Slice", ["pos_emb", "zero_i", "seq_len", "zero_i"], ["pos"], name="embeddings/position"),
        h.make_node("Add", ["tok", "pos"], ["emb"], name="embeddings/add"),
    ]
    layer_norm(n, "emb", "ln1_g", "ln1_b", "x0", "embeddings/ln/")
    for nm, wt in [("q", "wq"), ("k", "wk"), ("v", "wv")]:
        n += [h.make_node("MatMul", ["x0", wt], [nm], name=f"attn/{nm}"),
              h.make_node("Reshape", [nm, "split_heads"], [nm + "4"], name=f"attn/{nm}/reshape")]
    n += [
        h.make_node("Transpose", ["q4"], ["qt"], name="attn/q/transpose", perm=[0, 2, 1, 3]),
        h.make_node("Transpose", ["k4"], ["kt"], name="attn/k/transpose", perm=[0, 2, 3, 1]),
        h.make_node("Transpose", ["v4"], ["vt"], name="attn/v/transpose", perm=[0, 2, 1, 3]),
        h.make_node("MatMul", ["qt", "kt"], ["scores"], name="attn/qk"),
        h.make_node("Mul", ["scores", "scale"], ["scaled"], name="attn/scale"),
        h.make_node("Unsqueeze", ["attention_mask", "mask_axes"], ["m4"], name="attn/mask/unsqueeze"),
        h.make_node("Cast", ["m4"], ["mf"], name="attn/mask/cast", to=TP.FLOAT),
        h.make_node("Sub", ["one_f", "mf"], ["inv"], name="attn/mask/sub"),
        h.make_node("Mul", ["inv", "neg"], ["bias"], name="attn/mask/mul"),
        h.make_node("Add", ["scaled", "bias"], ["masked"], name="attn/mask/add"),
        h.make_node("Softmax", ["masked"], ["probs"], name="attn/softmax", axis=-1),
        h.make_node("MatMul", ["probs", "vt"], ["ctx"], name="attn/context"),
        h.make_node("Transpose", ["ctx"], ["ctx_t"], name="attn/context/transpose", perm=[0, 2, 1, 3]),
        h.make_node("Reshape", ["ctx_t", "merge_heads"], ["merged"], name="attn/context/reshape"),
        h.make_node("MatMul", ["merged", "wo"], ["attn_out"], name="attn/output"),
        h.make_node("Add", ["attn_out", "x0"], ["res1"], name="attn/residual"),
    ]
    layer_norm(n, "res1", "ln2_g", "ln2_b", "x1", "ffn/ln/")
    n += [
        h.make_node("MatMul", ["x1", "w1"], ["f1"], name="ffn/fc1"),
        h.make_node("Add", ["f1", "b1"], ["f1b"], name="ffn/fc1/bias"),
        h.make_node("Div", ["f1b", "sqrt2"], ["gd"], name="ffn/gelu/div"),
        h.make_node("Erf", ["gd"], ["ge"], name="ffn/gelu/erf"),
        h.make_node("Add", ["ge", "one_f"], ["g1"], name="ffn/gelu/add"),
        h.make_node("Mul", ["f1b", "g1"], ["g2"], name="ffn/gelu/mul"),
        h.make_node("Mul", ["g2", "half"], ["gelu"], name="ffn/gelu/half"),
        h.make_node("MatMul", ["gelu", "w2"], ["f2"], name="ffn/fc2"),
        h.make_node("Add", ["f2", "b2"], ["f2b"], name="ffn/fc2/bias"),
        h.make_node("Add", ["f2b", "x1"], ["hidden"], name="ffn/residual"),
    ]
    ins = [h.make_tensor_value_info("input_ids", TP.INT64, ["batch", "sequence"]),
           h.make_tensor_value_info("attention_mask", TP.INT64, ["batch", "sequence"])]
    outs = [h.make_tensor_value_info("hidden", TP.FLOAT, ["batch", "sequence", H])]
    g = h.make_graph(n, "bert_tiny", ins, outs, inits)
    feeds = []
    for b, s in [(2, 7), (1, 12)]:
        mask = np.ones((b, s), np.int64)
        mask[0, s - 2:] = 0
        feeds.append({"input_ids": rng.integers(0, V, (b, s)).astype(np.int64), "attention_mask": mask})
    save("bert_tiny", g, 13, feeds)


def audio_rnn():
    T, B, I, Hd = 6, 2, 5, 4
    inits = [nh.from_array(w(1, 4 * Hd, I), "lstm_W"), nh.from_array(w(1, 4 * Hd, Hd), "lstm_R"), nh.from_array(w(1, 8 * Hd), "lstm_B"),
             nh.from_array(w(1, 3 * Hd, Hd), "gru_W"), nh.from_array(w(1, 3 * Hd, Hd), "gru_R"), nh.from_array(w(1, 6 * Hd), "gru_B"),
             nh.from_array(np.array([T, B, Hd], np.int64), "merge"), nh.from_array(np.array(0.0, np.float32), "zero"),
             nh.from_array(np.array(3, np.int64), "trips"), nh.from_array(np.array(True), "true"),
             nh.from_array(np.array(0.5, np.float32), "decay")]
    then_g = h.make_graph([h.make_node("Tanh", ["gru_h"], ["branch"], name="then_tanh")], "then", [],
                          [h.make_tensor_value_info("branch", TP.FLOAT, None)])
    else_g = h.make_graph([h.make_node("Neg", ["gru_h"], ["branch2"], name="else_neg")], "else", [],
                          [h.make_tensor_value_info("branch2", TP.FLOAT, None)])
    body = h.make_graph(
        [h.make_node("Mul", ["acc_in", "decay"], ["acc_out"], name="loop_decay"),
         h.make_node("Identity", ["cond_in"], ["cond_out"], name="loop_cond")],
        "body",
        [h.make_tensor_value_info("i", TP.INT64, []), h.make_tensor_value_info("cond_in", TP.BOOL, []),
         h.make_tensor_value_info("acc_in", TP.FLOAT, None)],
        [h.make_tensor_value_info("cond_out", TP.BOOL, []), h.make_tensor_value_info("acc_out", TP.FLOAT, None)])
    nodes = [
        h.make_node("LSTM", ["audio", "lstm_W", "lstm_R", "lstm_B"], ["lstm_y", "lstm_h"], name="lstm", hidden_size=Hd),
        h.make_node("Transpose", ["lstm_y"], ["lstm_t"], name="lstm_transpose", perm=[0, 2, 1, 3]),
        h.make_node("Reshape", ["lstm_t", "merge"], ["lstm_flat"], name="lstm_merge"),
        h.make_node("GRU", ["lstm_flat", "gru_W", "gru_R", "gru_B"], ["", "gru_h"], name="gru", hidden_size=Hd, linear_before_reset=1),
        h.make_node("ReduceSum", ["audio"], ["energy"], name="energy", keepdims=0),
        h.make_node("Greater", ["energy", "zero"], ["loud"], name="is_loud"),
        h.make_node("If", ["loud"], ["branch_out"], name="branch", then_branch=then_g, else_branch=else_g),
        h.make_node("Loop", ["trips", "true", "branch_out"], ["decayed"], name="decay_loop", body=body),
    ]
    g = h.make_graph(nodes, "audio_rnn", [h.make_tensor_value_info("audio", TP.FLOAT, [T, B, I])],
                     [h.make_tensor_value_info("decayed", TP.FLOAT, [1, B, Hd])], inits)
    save("audio_rnn", g, 14, [{"audio": rng.standard_normal((T, B, I)).astype(np.float32)},
                               {"audio": -np.abs(rng.standard_normal((T, B, I))).astype(np.float32)}])


if __name__ == "__main__":
    paddle_cnn()
    tf_mobilenet()
    det_head()
    bert_tiny()
    audio_rnn()
