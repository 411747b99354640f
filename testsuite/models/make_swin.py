#!/usr/bin/env python3
"""Builds testsuite/models/swin_block/: a two-block Swin stage (W-MSA then SW-MSA)
written with the `onnx` package the way torch.onnx.export writes Swin
(torchvision `swin_t` / timm `SwinTransformerBlock`, opset 17), and its
reference outputs computed with onnxruntime.

Usage:  /work/pyenv/bin/python testsuite/models/make_swin.py
   or:  python3 -m pip install onnx==1.22.0 numpy onnxruntime && python3 testsuite/models/make_swin.py

Output: testsuite/models/swin_block/model.onnx and test_data_set_0/
(input_0.pb / output_0.pb, the ONNX test layout `edgec verify` reads).
Reruns write the same bytes (seeded weights and inputs).

The graph (x: f32[2, 8, 8, 32] channels-last, window 4x4 (N = 16 tokens, nW = 4
windows per image), 2 heads of 16, shift 2 in the second block):

- LayerNorm: block 1 as LayerNormalization (opset 17), block 2 decomposed
  (ReduceMean/Sub/Pow/ReduceMean/Add/Sqrt/Div/Mul/Add, as below opset 17);
- torch.roll(x, (-2, -2), dims=(1, 2)) as torch.onnx writes it (there is no ONNX
  Roll): per axis `Concat(Slice(x, s, INT64_MAX), Slice(x, 0, s))`;
- window partition: Reshape to 6-D [B, H/4, 4, W/4, 4, C], Transpose
  [0,1,3,2,4,5], then Reshape [-1, 4, 4, C] + Reshape [-1, 16, C] (timm's
  `window_partition` + `view(-1, N, C)`, block 1) or one Reshape [B*nW, N, C]
  (torchvision, block 2);
- qkv Linear (MatMul + Add), Reshape [B_, N, 3, heads, D], Transpose
  [2,0,3,1,4], `qkv[0]`/`qkv[1]`/`qkv[2]` as Gather on axis 0;
- scale: `q * D**-0.5` (block 1) or `(q @ k^T) * D**-0.5` (block 2);
- relative position bias: block 1 as exported without constant folding,
  Gather(table, index) -> Reshape [N, N, heads] -> Transpose [2,0,1] ->
  Unsqueeze 0 ([1, heads, N, N]); block 2 as a folded constant [heads, N, N];
- the shifted-window mask (0 / -100, [nW, N, N]) added through
  Reshape(scores, [-1, nW, heads, N, N]) + Unsqueeze(Unsqueeze(mask, 1), 0)
  then Reshape [-1, heads, N, N] (block 2 only);
- Softmax(-1), @ V, Transpose [0,2,1,3], Reshape [B_, N, C], proj Linear;
- window merge (the reverse chain), reverse roll (+2, +2), residual Add, and an
  MLP (Linear 32 -> 128, GELU as Div(sqrt 2)/Erf/Add/Mul/Mul, Linear 128 -> 32)
  with its residual Add.

The script checks onnxruntime's outputs against a direct numpy implementation
of the same Swin stage (np.roll, 6-D reshapes) before saving.
"""
import math
import os
import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto as TP, helper as h, numpy_helper as nh

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(20260705)
B, H, W, C, WS, HEADS = 2, 8, 8, 32, 4, 2
D, N, NW, SHIFT, HID = C // HEADS, WS * WS, (H // WS) * (W // WS), WS // 2, 4 * C
INT64_MAX = np.iinfo(np.int64).max


def w(*shape, scale=0.2):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def rel_index():
    """Swin's relative_position_index [N, N] into a (2*WS-1)^2 table."""
    coords = np.stack(np.meshgrid(np.arange(WS), np.arange(WS), indexing="ij")).reshape(2, -1)
    rel = (coords[:, :, None] - coords[:, None, :]).transpose(1, 2, 0) + (WS - 1)
    return (rel[:, :, 0] * (2 * WS - 1) + rel[:, :, 1]).astype(np.int64)


def shift_mask():
    """The SW-MSA attention mask [nW, N, N]: 0 within a region, -100 across."""
    img = np.zeros((H, W), np.float32)
    cnt = 0
    for hs in (slice(0, -WS), slice(-WS, -SHIFT), slice(-SHIFT, None)):
        for ws in (slice(0, -WS), slice(-WS, -SHIFT), slice(-SHIFT, None)):
            img[hs, ws] = cnt
            cnt += 1
    win = img.reshape(H // WS, WS, W // WS, WS).transpose(0, 2, 1, 3).reshape(NW, N)
    diff = win[:, None, :] - win[:, :, None]
    return np.where(diff != 0, -100.0, 0.0).astype(np.float32)


class Graph:
    def __init__(self):
        self.nodes, self.inits = [], []

    def const(self, name, arr):
        self.inits.append(nh.from_array(np.asarray(arr), name))
        return name

    def ints(self, name, v):
        """An i64 constant (named `name` + `_c`, apart from node outputs)."""
        return self.const(name + "_c", np.array(v, np.int64))

    def op(self, op, ins, out, name, **attrs):
        self.nodes.append(h.make_node(op, ins, [out], name=name, **attrs))
        return out


def layer_norm(g, x, p, decomposed):
    gamma, beta = g.const(p + "weight", 1 + w(C, scale=0.1)), g.const(p + "bias", w(C, scale=0.1))
    if not decomposed:
        return g.op("LayerNormalization", [x, gamma, beta], p + "out", p + "LayerNormalization", axis=-1, epsilon=1e-5)
    m = g.op("ReduceMean", [x], p + "mean", p + "ReduceMean", axes=[-1])
    d = g.op("Sub", [x, m], p + "sub", p + "Sub")
    sq = g.op("Pow", [d, "two"], p + "pow", p + "Pow")
    var = g.op("ReduceMean", [sq], p + "var", p + "ReduceMean_1", axes=[-1])
    ve = g.op("Add", [var, "eps"], p + "ve", p + "Add")
    sd = g.op("Sqrt", [ve], p + "std", p + "Sqrt")
    n = g.op("Div", [d, sd], p + "norm", p + "Div")
    sc = g.op("Mul", [n, gamma], p + "scaled", p + "Mul")
    return g.op("Add", [sc, beta], p + "out", p + "Add_1")


def roll(g, x, s, p):
    """torch.roll(x, (s, s), dims=(1, 2)) as torch.onnx exports it."""
    for ax in (1, 2):
        a = g.op("Slice", [x, g.ints(f"{p}a{ax}_s", [-s]), g.ints(f"{p}a{ax}_e", [INT64_MAX]),
                           g.ints(f"{p}a{ax}_ax", [ax])], f"{p}slice{ax}a", f"{p}Slice_{ax}a")
        b = g.op("Slice", [x, g.ints(f"{p}b{ax}_s", [0]), g.ints(f"{p}b{ax}_e", [-s]),
                           g.ints(f"{p}b{ax}_ax", [ax])], f"{p}slice{ax}b", f"{p}Slice_{ax}b")
        x = g.op("Concat", [a, b], f"{p}roll{ax}", f"{p}Concat_{ax}", axis=ax)
    return x


def linear(g, x, cin, cout, p):
    wt = g.const(p + "weight", w(cin, cout, scale=cin ** -0.5))
    mm = g.op("MatMul", [x, wt], p + "mm", p + "MatMul")
    return g.op("Add", [mm, g.const(p + "bias", w(cout, scale=0.05))], p + "out", p + "Add")


def attention(g, xw, p, shifted):
    qkv = linear(g, xw, C, 3 * C, p + "qkv/")
    qkv = g.op("Reshape", [qkv, g.ints(p + "qkv_shape", [B * NW, N, 3, HEADS, D])], p + "qkv5", p + "Reshape")
    qkv = g.op("Transpose", [qkv], p + "qkv_t", p + "Transpose", perm=[2, 0, 3, 1, 4])
    q, k, v = (g.op("Gather", [qkv, g.ints(f"{p}i{i}", i)], f"{p}{n}", f"{p}Gather_{i}", axis=0)
               for i, n in enumerate("qkv"))
    scale = g.const(p + "scale", np.array(D ** -0.5, np.float32))
    kt = g.op("Transpose", [k], p + "kt", p + "Transpose_1", perm=[0, 1, 3, 2])
    if not shifted:
        qs = g.op("Mul", [q, scale], p + "q_scaled", p + "Mul")
        s = g.op("MatMul", [qs, kt], p + "scores", p + "MatMul")
        table = g.const(p + "relative_position_bias_table", w((2 * WS - 1) ** 2, HEADS, scale=0.5))
        idx = g.const(p + "relative_position_index", rel_index().reshape(-1))
        rb = g.op("Gather", [table, idx], p + "rb", p + "Gather_3", axis=0)
        rb = g.op("Reshape", [rb, g.ints(p + "rb_shape", [N, N, -1])], p + "rb3", p + "Reshape_1")
        rb = g.op("Transpose", [rb], p + "rbt", p + "Transpose_2", perm=[2, 0, 1])
        bias = g.op("Unsqueeze", [rb, g.ints(p + "rb_ax", [0])], p + "rb4", p + "Unsqueeze")
        s = g.op("Add", [s, bias], p + "biased", p + "Add")
    else:
        s = g.op("MatMul", [q, kt], p + "qk", p + "MatMul")
        s = g.op("Mul", [s, scale], p + "scores", p + "Mul")
        s = g.op("Add", [s, g.const(p + "relative_position_bias", w(HEADS, N, N, scale=0.5))], p + "biased", p + "Add")
        s = g.op("Reshape", [s, g.ints(p + "s5", [-1, NW, HEADS, N, N])], p + "scores5", p + "Reshape_1")
        m = g.op("Unsqueeze", [g.const(p + "attn_mask", shift_mask()), g.ints(p + "m_ax1", [1])], p + "m4", p + "Unsqueeze")
        m = g.op("Unsqueeze", [m, g.ints(p + "m_ax0", [0])], p + "m5", p + "Unsqueeze_1")
        s = g.op("Add", [s, m], p + "masked5", p + "Add_1")
        s = g.op("Reshape", [s, g.ints(p + "s4", [-1, HEADS, N, N])], p + "masked", p + "Reshape_2")
    pr = g.op("Softmax", [s], p + "probs", p + "Softmax", axis=-1)
    o = g.op("MatMul", [pr, v], p + "ctx", p + "MatMul_1")
    o = g.op("Transpose", [o], p + "ctx_t", p + "Transpose_3", perm=[0, 2, 1, 3])
    o = g.op("Reshape", [o, g.ints(p + "ctx_shape", [B * NW, N, C])], p + "ctx3", p + "Reshape_3")
    return linear(g, o, C, C, p + "proj/")


def block(g, x, p, shifted):
    xn = layer_norm(g, x, p + "norm1/", decomposed=shifted)
    xs = roll(g, xn, -SHIFT, p + "roll/") if shifted else xn
    xw = g.op("Reshape", [xs, g.ints(p + "part6", [B, H // WS, WS, W // WS, WS, C])], p + "part6", p + "Reshape")
    xw = g.op("Transpose", [xw], p + "part_t", p + "Transpose", perm=[0, 1, 3, 2, 4, 5])
    if not shifted:  # timm: window_partition's view(-1, ws, ws, C), then view(-1, N, C)
        xw = g.op("Reshape", [xw, g.ints(p + "part4", [-1, WS, WS, C])], p + "part4", p + "Reshape_1")
        xw = g.op("Reshape", [xw, g.ints(p + "part3", [-1, N, C])], p + "windows", p + "Reshape_2")
    else:  # torchvision: reshape(B * nW, N, C)
        xw = g.op("Reshape", [xw, g.ints(p + "part3", [B * NW, N, C])], p + "windows", p + "Reshape_1")
    a = attention(g, xw, p + "attn/", shifted)
    if not shifted:  # timm: view(-1, ws, ws, C), window_reverse
        a = g.op("Reshape", [a, g.ints(p + "merge4", [-1, WS, WS, C])], p + "merge4", p + "Reshape_3")
        a = g.op("Reshape", [a, g.ints(p + "merge6", [-1, H // WS, W // WS, WS, WS, C])], p + "merge6", p + "Reshape_4")
    else:
        a = g.op("Reshape", [a, g.ints(p + "merge6", [B, H // WS, W // WS, WS, WS, C])], p + "merge6", p + "Reshape_3")
    a = g.op("Transpose", [a], p + "merge_t", p + "Transpose_1", perm=[0, 1, 3, 2, 4, 5])
    a = g.op("Reshape", [a, g.ints(p + "merged", [-1, H, W, C])], p + "merged", p + "Reshape_5")
    if shifted:
        a = roll(g, a, SHIFT, p + "unroll/")
    x = g.op("Add", [x, a], p + "res1", p + "Add")
    m = linear(g, layer_norm(g, x, p + "norm2/", decomposed=shifted), C, HID, p + "mlp/fc1/")
    gd = g.op("Div", [m, "sqrt2"], p + "gelu/div", p + "mlp/Div")
    ge = g.op("Erf", [gd], p + "gelu/erf", p + "mlp/Erf")
    g1 = g.op("Add", [ge, "one"], p + "gelu/add", p + "mlp/Add")
    g2 = g.op("Mul", [m, g1], p + "gelu/mul", p + "mlp/Mul")
    gl = g.op("Mul", [g2, "half"], p + "gelu", p + "mlp/Mul_1")
    m = linear(g, gl, HID, C, p + "mlp/fc2/")
    return g.op("Add", [x, m], p + "out", p + "Add_1")


# ----------------------------------------------------------- numpy reference
def np_ln(x, gamma, beta):
    m = x.mean(-1, keepdims=True)
    v = ((x - m) ** 2).mean(-1, keepdims=True)
    return (x - m) / np.sqrt(v + 1e-5) * gamma + beta


def np_block(x, P, p, shifted):
    xn = np_ln(x, P[p + "norm1/weight"], P[p + "norm1/bias"])
    if shifted:
        xn = np.roll(xn, (-SHIFT, -SHIFT), axis=(1, 2))
    xw = xn.reshape(B, H // WS, WS, W // WS, WS, C).transpose(0, 1, 3, 2, 4, 5).reshape(-1, N, C)
    a = p + "attn/"
    qkv = xw @ P[a + "qkv/weight"] + P[a + "qkv/bias"]
    qkv = qkv.reshape(-1, N, 3, HEADS, D).transpose(2, 0, 3, 1, 4)
    q, k, v = qkv[0], qkv[1], qkv[2]
    if shifted:
        bias = P[a + "relative_position_bias"]
    else:
        bias = P[a + "relative_position_bias_table"][rel_index().reshape(-1)].reshape(N, N, -1).transpose(2, 0, 1)
    s = (q @ k.transpose(0, 1, 3, 2)) * D ** -0.5 + bias
    if shifted:
        s = (s.reshape(-1, NW, HEADS, N, N) + shift_mask()[None, :, None]).reshape(-1, HEADS, N, N)
    s = np.exp(s - s.max(-1, keepdims=True))
    s = s / s.sum(-1, keepdims=True)
    o = (s @ v).transpose(0, 2, 1, 3).reshape(-1, N, C) @ P[a + "proj/weight"] + P[a + "proj/bias"]
    o = o.reshape(B, H // WS, W // WS, WS, WS, C).transpose(0, 1, 3, 2, 4, 5).reshape(B, H, W, C)
    if shifted:
        o = np.roll(o, (SHIFT, SHIFT), axis=(1, 2))
    x = x + o
    m = np_ln(x, P[p + "norm2/weight"], P[p + "norm2/bias"]) @ P[p + "mlp/fc1/weight"] + P[p + "mlp/fc1/bias"]
    erf = np.vectorize(math.erf)
    m = m * 0.5 * (1 + erf(m / np.sqrt(2)))
    return x + (m @ P[p + "mlp/fc2/weight"] + P[p + "mlp/fc2/bias"])


def main():
    g = Graph()
    for name, v in [("two", 2.0), ("eps", 1e-5), ("sqrt2", np.sqrt(2.0)), ("one", 1.0), ("half", 0.5)]:
        g.const(name, np.array(v, np.float32))
    y = block(g, "x", "layers.0.blocks.0/", shifted=False)
    y = block(g, y, "layers.0.blocks.1/", shifted=True)
    g.nodes.append(h.make_node("Identity", [y], ["y"], name="output"))
    graph = h.make_graph(g.nodes, "swin_block", [h.make_tensor_value_info("x", TP.FLOAT, [B, H, W, C])],
                         [h.make_tensor_value_info("y", TP.FLOAT, [B, H, W, C])], g.inits)
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", 17)], producer_name="edgec-testgen")
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    x = rng.standard_normal((B, H, W, C)).astype(np.float32)
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    (out,) = sess.run(None, {"x": x})
    params = {i.name: nh.to_array(i).astype(np.float64) for i in g.inits}
    ref = x.astype(np.float64)
    for i, shifted in enumerate([False, True]):
        ref = np_block(ref, params, f"layers.0.blocks.{i}/", shifted)
    err = np.abs(out - ref).max()
    assert err < 1e-4, f"onnxruntime and the numpy Swin stage differ by {err}"
    d = os.path.join(HERE, "swin_block")
    sd = os.path.join(d, "test_data_set_0")
    os.makedirs(sd, exist_ok=True)
    onnx.save(model, os.path.join(d, "model.onnx"))
    with open(os.path.join(sd, "input_0.pb"), "wb") as f:
        f.write(nh.from_array(x, "x").SerializeToString())
    with open(os.path.join(sd, "output_0.pb"), "wb") as f:
        f.write(nh.from_array(out, "y").SerializeToString())
    print(f"swin_block ok: {len(g.nodes)} nodes, max |onnxruntime - numpy| = {err:.2e}")


if __name__ == "__main__":
    main()
