"""The contrib-op cases (imported by make_contrib.py, which runs them)."""

import numpy as np

from make_contrib import F, case, qrand, rand, scalar

U8, I8, I32, I64 = np.uint8, np.int8, np.int32, np.int64


def q(dtype, x):
    return np.array(x, dtype=dtype)


# ---------------------------------------------------------------- quantized
for dt, tag in [(U8, "u8"), (I8, "i8")]:
    zp = 128 if dt == U8 else 0
    for op in ["QLinearAdd", "QLinearMul"]:
        case(f"{op.lower()}_{tag}", op, {
            "A": qrand(dt, 2, 3, 4, 5), "As": scalar(0.05), "Az": q(dt, zp + 3),
            "B": qrand(dt, 2, 3, 4, 5), "Bs": scalar(0.02), "Bz": q(dt, zp - 5),
            "Cs": scalar(0.07 if op == "QLinearAdd" else 0.4), "Cz": q(dt, zp + 1)})
    case(f"qlinearadd_bcast_{tag}", "QLinearAdd", {
        "A": qrand(dt, 2, 3, 4), "As": scalar(0.03), "Az": q(dt, zp),
        "B": qrand(dt, 4), "Bs": scalar(0.05), "Bz": q(dt, zp + 2),
        "Cs": scalar(0.06), "Cz": q(dt, zp - 1)}, init=["B", "Bs", "Bz"])
    case(f"qlinearsigmoid_{tag}", "QLinearSigmoid", {
        "X": qrand(dt, 3, 64), "Xs": scalar(0.05), "Xz": q(dt, zp + 2), "Ys": scalar(1 / 256), "Yz": q(dt, zp - 128 if dt == U8 else -128)})
    case(f"qlinearleakyrelu_{tag}", "QLinearLeakyRelu", {
        "X": qrand(dt, 3, 64), "Xs": scalar(0.05), "Xz": q(dt, zp + 2), "Ys": scalar(0.04), "Yz": q(dt, zp - 7)},
        attrs={"alpha": 0.1})
    case(f"qlinearglobalaveragepool_{tag}", "QLinearGlobalAveragePool", {
        "X": qrand(dt, 2, 3, 5, 5), "Xs": scalar(0.05), "Xz": q(dt, zp + 2), "Ys": scalar(0.03), "Yz": q(dt, zp - 3)},
        attrs={"channels_last": 0})
    case(f"qlinearglobalaveragepool_nhwc_{tag}", "QLinearGlobalAveragePool", {
        "X": qrand(dt, 2, 5, 5, 3), "Xs": scalar(0.05), "Xz": q(dt, zp + 2), "Ys": scalar(0.03), "Yz": q(dt, zp - 3)},
        attrs={"channels_last": 1})
    case(f"qlinearaveragepool_{tag}", "QLinearAveragePool", {
        "X": qrand(dt, 1, 2, 6, 6), "Xs": scalar(0.05), "Xz": q(dt, zp + 2), "Ys": scalar(0.04), "Yz": q(dt, zp - 3)},
        attrs={"kernel_shape": [3, 3], "pads": [1, 1, 1, 1], "count_include_pad": 0})
    case(f"qlinearaveragepool_nhwc_{tag}", "QLinearAveragePool", {
        "X": qrand(dt, 1, 7, 7, 2), "Xs": scalar(0.05), "Xz": q(dt, zp), "Ys": scalar(0.04), "Yz": q(dt, zp + 1)},
        attrs={"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1], "count_include_pad": 1, "channels_last": 1})
    case(f"qlinearconcat_{tag}", "QLinearConcat", {
        "Ys": scalar(0.05), "Yz": q(dt, zp + 1),
        "X0": qrand(dt, 2, 3, 4), "X0s": scalar(0.05), "X0z": q(dt, zp + 1),
        "X1": qrand(dt, 2, 2, 4), "X1s": scalar(0.03), "X1z": q(dt, zp - 4),
        "X2": qrand(dt, 2, 1, 4), "X2s": scalar(0.08), "X2z": q(dt, zp + 9)}, attrs={"axis": 1})
    case(f"qlinearsoftmax_{tag}", "QLinearSoftmax", {
        "X": qrand(dt, 2, 3, 16), "Xs": scalar(0.1), "Xz": q(dt, zp), "Ys": scalar(1 / 256), "Yz": q(dt, 0 if dt == U8 else -128)},
        attrs={"axis": -1, "opset": 13})
    case(f"qlinearsoftmax_opset12_{tag}", "QLinearSoftmax", {
        "X": qrand(dt, 2, 3, 4), "Xs": scalar(0.1), "Xz": q(dt, zp), "Ys": scalar(1 / 256), "Yz": q(dt, 0 if dt == U8 else -128)},
        attrs={"axis": 1, "opset": 12})
    case(f"qlinearwhere_{tag}", "QLinearWhere", {
        "C": RNG_BOOL if False else (np.arange(24).reshape(2, 3, 4) % 3 == 0),
        "X": qrand(dt, 2, 3, 4), "Xs": scalar(0.05), "Xz": q(dt, zp + 1),
        "Y": qrand(dt, 3, 4), "Ys": scalar(0.03), "Yz": q(dt, zp - 2),
        "Zs": scalar(0.04), "Zz": q(dt, zp + 3)})

# QLinearConv (com.microsoft): u8/i8 activations, i8 weights, per-channel weight scales, channels_last.
for dt, tag in [(U8, "u8"), (I8, "i8")]:
    zp = 128 if dt == U8 else 0
    for cl in [0, 1]:
        x = qrand(dt, 1, 3, 6, 6) if cl == 0 else qrand(dt, 1, 6, 6, 3)
        case(f"qlinearconv_{tag}{'_nhwc' if cl else ''}", "QLinearConv", {
            "x": x, "xs": scalar(0.05), "xz": q(dt, zp + 3),
            "w": qrand(I8, 4, 3, 3, 3), "ws": rand(4, lo=0.01, hi=0.03), "wz": np.zeros(4, I8),
            "ys": scalar(0.2), "yz": q(dt, zp - 2), "B": np.arange(-2, 2, dtype=I32) * 50},
            init=["w", "ws", "wz", "B"], attrs={"pads": [1, 1, 1, 1], "strides": [1, 1], "channels_last": cl})

case("nhwcmaxpool_u8", "NhwcMaxPool", {"x": qrand(U8, 1, 7, 7, 3)},
     attrs={"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]})
case("nhwcmaxpool_i8", "NhwcMaxPool", {"x": qrand(I8, 2, 5, 5, 4)}, attrs={"kernel_shape": [2, 2]})

# QuantizeLinear / DequantizeLinear (com.microsoft): 16-bit QDQ and per-axis int8.
case("quantizelinear_u16", "QuantizeLinear", {"x": rand(3, 8, lo=-4, hi=4), "s": scalar(0.0002), "z": q(np.uint16, 30000)})
case("quantizelinear_i16", "QuantizeLinear", {"x": rand(3, 8, lo=-4, hi=4), "s": scalar(0.0002), "z": q(np.int16, -100)})
case("quantizelinear_axis_i8", "QuantizeLinear", {"x": rand(2, 3, 4, lo=-2, hi=2), "s": rand(3, lo=0.01, hi=0.02), "z": np.array([0, 1, -1], I8)},
     init=["s", "z"], attrs={"axis": 1})
case("dequantizelinear_u16", "DequantizeLinear", {"x": qrand(np.uint16, 3, 8), "s": scalar(0.0002), "z": q(np.uint16, 30000)})
case("dequantizelinear_i16", "DequantizeLinear", {"x": qrand(np.int16, 3, 8), "s": scalar(0.0002), "z": q(np.int16, 7)})
case("dequantizelinear_axis_u8", "DequantizeLinear", {"x": qrand(U8, 2, 3, 4), "s": rand(4, lo=0.01, hi=0.02), "z": np.array([128, 120, 130, 0], U8)},
     init=["s", "z"], attrs={"axis": -1})

# ----------------------------------------------------- integer matmuls
case("dynamicquantizematmul_i8", "DynamicQuantizeMatMul", {
    "A": rand(4, 16), "B": qrand(I8, 16, 8), "bs": scalar(0.02), "bz": None, "bias": None}, init=["B", "bs"])
case("dynamicquantizematmul_u8_bias", "DynamicQuantizeMatMul", {
    "A": rand(2, 3, 16, lo=-2, hi=3), "B": qrand(U8, 16, 8), "bs": scalar(0.01), "bz": q(U8, 128), "bias": rand(8)},
    init=["B", "bs", "bz", "bias"])
case("dynamicquantizematmul_perchannel", "DynamicQuantizeMatMul", {
    "A": rand(5, 12, lo=-0.5, hi=2), "B": qrand(I8, 12, 6), "bs": rand(6, lo=0.005, hi=0.02), "bz": np.zeros(6, I8), "bias": rand(6)},
    init=["B", "bs", "bz", "bias"])
case("matmulintegertofloat_u8i8", "MatMulIntegerToFloat", {
    "A": qrand(U8, 3, 16), "B": qrand(I8, 16, 8), "as": scalar(0.03), "bs": scalar(0.02),
    "az": q(U8, 120), "bz": None, "bias": rand(8)}, init=["B", "bs", "bias"])
case("matmulintegertofloat_perchannel", "MatMulIntegerToFloat", {
    "A": qrand(U8, 2, 3, 16), "B": qrand(U8, 16, 4), "as": scalar(0.03), "bs": rand(4, lo=0.01, hi=0.03),
    "az": q(U8, 100), "bz": np.array([128, 120, 130, 125], U8)}, init=["B", "bs", "bz"])
case("matmulintegertofloat_i8i8", "MatMulIntegerToFloat", {
    "A": qrand(I8, 3, 8), "B": qrand(I8, 8, 5), "as": scalar(0.05), "bs": scalar(0.02), "az": q(I8, -3)}, init=["B", "bs"])
case("qgemm_float_out", "QGemm", {
    "A": qrand(U8, 4, 16), "as": scalar(0.03), "az": q(U8, 125),
    "B": qrand(I8, 16, 8), "bs": scalar(0.02), "bz": q(I8, 0)}, init=["B", "bs", "bz"])
case("qgemm_requant_bias", "QGemm", {
    "A": qrand(U8, 4, 16), "as": scalar(0.03), "az": q(U8, 125),
    "B": qrand(I8, 8, 16), "bs": rand(8, lo=0.01, hi=0.03), "bz": np.zeros(8, I8),
    "C": RNG_C if False else np.arange(-400, 400, 100, dtype=I32), "ys": scalar(0.5), "yz": q(U8, 128)},
    init=["B", "bs", "bz", "C"], attrs={"transB": 1, "alpha": 0.5})
case("qgemm_i8_transa", "QGemm", {
    "A": qrand(I8, 16, 3), "as": scalar(0.03), "az": q(I8, 2),
    "B": qrand(I8, 16, 5), "bs": scalar(0.02), "bz": q(I8, 0), "C": None, "ys": scalar(0.3), "yz": q(I8, -5)},
    init=["B", "bs", "bz"], attrs={"transA": 1})


def nbits_case(name, k, n, block, bits, with_zp, bias):
    blocks = (k + block - 1) // block
    blob = block * bits // 8
    b = qrand(U8, n, blocks, blob)
    scales = rand(n * blocks, lo=0.01, hi=0.05)
    ins = {"A": rand(2, k), "B": b, "scales": scales}
    init = ["B", "scales"]
    if with_zp:
        per_byte = 8 // bits
        ins["zp"] = qrand(U8, n * ((blocks + per_byte - 1) // per_byte))
        init.append("zp")
    elif bias is not None:
        ins["zp"] = None
    if bias is not None:
        ins["g_idx"] = None
        ins["bias"] = bias
        init.append("bias")
    case(name, "MatMulNBits", ins, init=init, attrs={"K": k, "N": n, "block_size": block, "bits": bits})


nbits_case("matmulnbits_4bit_zp", 32, 8, 16, 4, True, None)
nbits_case("matmulnbits_4bit_nozp_bias", 48, 4, 32, 4, False, rand(4))
nbits_case("matmulnbits_8bit", 32, 6, 16, 8, True, None)


# DynamicQuantizeLSTM: W [D, I, 4H], R [D, H, 4H] quantized; gates i, o, f, c.
def qlstm_case(name, direction, seq, batch, inp, hidden, wdt, per_channel, extras, dyn=None, attrs=None):
    d = 2 if direction == "bidirectional" else 1
    ins = {"X": rand(seq, batch, inp, lo=-2, hi=2), "W": qrand(wdt, d, inp, 4 * hidden), "R": qrand(wdt, d, hidden, 4 * hidden)}
    ins["B"] = rand(d, 8 * hidden) if "bias" in extras else None
    ins["sequence_lens"] = None
    ins["initial_h"] = rand(d, batch, hidden) if "init" in extras else None
    ins["initial_c"] = rand(d, batch, hidden) if "init" in extras else None
    ins["P"] = rand(d, 3 * hidden) if "peephole" in extras else None
    scale_shape = (d, 4 * hidden) if per_channel else (d,)
    zp = np.zeros(scale_shape, wdt) if wdt == I8 else np.full(scale_shape, 128, U8)
    ins["W_scale"] = rand(*scale_shape, lo=0.002, hi=0.01)
    ins["W_zero_point"] = zp
    ins["R_scale"] = rand(*scale_shape, lo=0.002, hi=0.01)
    ins["R_zero_point"] = zp.copy()
    init = [k for k in ins if k not in ("X", "initial_h", "initial_c") and ins[k] is not None]
    case(name, "DynamicQuantizeLSTM", ins, init=init, outputs=3,
         attrs={"hidden_size": hidden, "direction": direction, **(attrs or {})}, dyn=dyn)


qlstm_case("dynamicquantizelstm_forward", "forward", 4, 2, 5, 3, I8, False, ())
qlstm_case("dynamicquantizelstm_reverse_bias_init", "reverse", 3, 1, 4, 4, U8, False, ("bias", "init"))
qlstm_case("dynamicquantizelstm_bidir_perchannel", "bidirectional", 3, 2, 4, 3, I8, True, ("bias", "init", "peephole"))

# ------------------------------------------------------- fused float ops
for act, params in [("Relu", None), ("LeakyRelu", [0.2]), ("Clip", [-0.5, 0.6]), ("Sigmoid", None),
                    ("Tanh", None), ("HardSigmoid", [0.3, 0.4])]:
    attrs = {"activation": act, "pads": [1, 1, 1, 1], "kernel_shape": [3, 3]}
    if params:
        attrs["activation_params"] = params
    case(f"fusedconv_{act.lower()}", "FusedConv", {"X": rand(1, 3, 5, 5), "W": rand(4, 3, 3, 3), "B": rand(4)},
         init=["W", "B"], attrs=attrs)
case("fusedconv_relu_sum", "FusedConv", {"X": rand(1, 2, 5, 5), "W": rand(3, 2, 3, 3), "B": rand(3), "Z": rand(1, 3, 3, 3)},
     init=["W", "B"], attrs={"activation": "Relu"})
case("fusedconv_grouped_nobias", "FusedConv", {"X": rand(1, 4, 6, 6), "W": rand(4, 2, 3, 3)},
     init=["W"], attrs={"activation": "Relu", "group": 2, "strides": [2, 2]})
case("fusedgemm_relu", "FusedGemm", {"A": rand(3, 5), "B": rand(5, 4), "C": rand(4)}, init=["B", "C"],
     attrs={"activation": "Relu"})
case("fusedgemm_leakyrelu_transb", "FusedGemm", {"A": rand(3, 5), "B": rand(4, 5), "C": rand(3, 4)}, init=["B", "C"],
     attrs={"activation": "LeakyRelu", "activation_alpha": 0.3, "transB": 1, "alpha": 0.7, "beta": 1.5})
case("fusedgemm_tanh_noc", "FusedGemm", {"A": rand(5, 3), "B": rand(5, 4)}, init=["B"],
     attrs={"activation": "Tanh", "transA": 1})
case("fusedmatmul_alpha", "FusedMatMul", {"A": rand(2, 3, 4), "B": rand(4, 5)}, attrs={"alpha": 0.125})
case("fusedmatmul_transb", "FusedMatMul", {"A": rand(2, 3, 4), "B": rand(2, 5, 4)}, attrs={"transB": 1})
case("fusedmatmul_transa", "FusedMatMul", {"A": rand(4, 3), "B": rand(4, 5)}, attrs={"transA": 1, "alpha": 2.0})
case("fusedmatmul_transbatch_a", "FusedMatMul", {"A": rand(3, 2, 4), "B": rand(2, 4, 5)}, attrs={"transBatchA": 1})
case("fusedmatmul_transbatch_b_transb", "FusedMatMul", {"A": rand(2, 3, 4), "B": rand(5, 2, 4)},
     attrs={"transBatchB": 1, "transB": 1})
case("gelu", "Gelu", {"X": rand(3, 40, lo=-5, hi=5)})
case("fastgelu", "FastGelu", {"X": rand(3, 40, lo=-5, hi=5)})
case("fastgelu_bias", "FastGelu", {"X": rand(2, 3, 16, lo=-5, hi=5), "bias": rand(16)}, init=["bias"])
case("biasgelu", "BiasGelu", {"A": rand(2, 3, 16, lo=-5, hi=5), "B": rand(16)}, init=["B"])
case("quickgelu", "QuickGelu", {"X": rand(3, 40, lo=-6, hi=6)})
case("quickgelu_alpha1", "QuickGelu", {"X": rand(3, 40, lo=-6, hi=6)}, attrs={"alpha": 1.0})
case("biasadd", "BiasAdd", {"X": rand(2, 4, 8), "bias": rand(8), "skip": rand(2, 4, 8)}, init=["bias"],
     ref=lambda X, bias, skip: [(X + bias) + skip])

# ------------------------------------------------------- normalization
case("skiplayernorm", "SkipLayerNormalization", {
    "input": rand(2, 3, 16), "skip": rand(2, 3, 16), "gamma": rand(16), "beta": rand(16), "bias": rand(16)},
    init=["gamma", "beta", "bias"], outputs=4, attrs={"epsilon": 1e-5})
case("skiplayernorm_nobeta_default_eps", "SkipLayerNormalization", {
    "input": rand(2, 3, 16), "skip": rand(2, 3, 16), "gamma": rand(16)}, init=["gamma"])
case("skipsimplifiedlayernorm", "SkipSimplifiedLayerNormalization", {
    "input": rand(2, 3, 16), "skip": rand(2, 3, 16), "gamma": rand(16), "bias": rand(16)},
    init=["gamma", "bias"], outputs=[True, False, True, True], attrs={"epsilon": 1e-6})
case("skipsimplifiedlayernorm_nobias", "SkipSimplifiedLayerNormalization", {
    "input": rand(1, 4, 8), "skip": rand(1, 4, 8), "gamma": rand(8)}, init=["gamma"])
case("simplifiedlayernorm", "SimplifiedLayerNormalization", {"X": rand(2, 3, 16), "scale": rand(16)},
     init=["scale"], outputs=2, domain="", attrs={"epsilon": 1e-6})
case("simplifiedlayernorm_axis", "SimplifiedLayerNormalization", {"X": rand(2, 3, 4), "scale": rand(3, 4)},
     init=["scale"], domain="", attrs={"axis": 1})
def layer_norm(X, Scale, B, eps=1e-5):
    x = X.astype(np.float64)
    m = x.mean(axis=-1, keepdims=True)
    v = ((x - m) ** 2).mean(axis=-1, keepdims=True)
    return (x - m) / np.sqrt(v + eps) * Scale + B


case("layernorm_ms", "LayerNormalization", {"X": rand(2, 3, 8), "Scale": rand(8), "B": rand(8)}, init=["Scale", "B"],
     ref=lambda X, Scale, B: [layer_norm(X, Scale, B)])
case("embedlayernorm", "EmbedLayerNormalization", {
    "ids": np.array([[1, 4, 2, 0], [3, 3, 5, 1]], I32), "seg": np.array([[0, 0, 1, 1], [0, 1, 1, 1]], I32),
    "word": rand(6, 8), "pos": rand(5, 8), "segemb": rand(2, 8), "gamma": rand(8), "beta": rand(8),
    "mask": np.array([[1, 1, 1, 0], [1, 1, 0, 0]], I32)},
    init=["word", "pos", "segemb", "gamma", "beta"], outputs=3, attrs={"epsilon": 1e-5})
case("embedlayernorm_noseg", "EmbedLayerNormalization", {
    "ids": np.array([[1, 4, 2], [3, 3, 5]], I32), "seg": None,
    "word": rand(6, 8), "pos": rand(4, 8), "segemb": None, "gamma": rand(8), "beta": rand(8)},
    init=["word", "pos", "gamma", "beta"], outputs=[True, False, True])
case("embedlayernorm_posids", "EmbedLayerNormalization", {
    "ids": np.array([[1, 4, 2], [3, 3, 5]], I32), "seg": np.array([[0, 0, 1], [1, 1, 1]], I32),
    "word": rand(6, 8), "pos": rand(6, 8), "segemb": rand(2, 8), "gamma": rand(8), "beta": rand(8),
    "mask": np.array([[1, 1, 1], [1, 1, 0]], I32), "pids": np.array([[2, 3, 4], [0, 1, 2]], I32)},
    init=["word", "pos", "segemb", "gamma", "beta"], outputs=2)

# ------------------------------------------------------- attention
B_, S_, H_, N_ = 2, 4, 8, 2
def attn(name, mask=None, attrs=None, past=None, abias=None, qkv=(8, 8, 8), outputs=1, seq=S_):
    total = sum(qkv)
    ins = {"input": rand(B_, seq, H_), "weights": rand(H_, total, lo=-0.5, hi=0.5), "bias": rand(total),
           "mask_index": mask, "past": past, "attention_bias": abias}
    while list(ins.values())[-1] is None:
        ins.popitem()
    a = {"num_heads": N_}
    a.update(attrs or {})
    if qkv != (8, 8, 8):
        a["qkv_hidden_sizes"] = list(qkv)
    case(name, "Attention", ins, init=["weights", "bias"], attrs=a, outputs=outputs)


attn("attention_nomask")
attn("attention_mask1d", mask=np.array([3, 2], I32))
attn("attention_mask1d_leftpad", mask=np.array([4, 4, 1, 2], I32))
attn("attention_mask2d", mask=np.array([[1, 1, 0, 1], [1, 0, 1, 1]], I32))
attn("attention_mask3d", mask=(np.arange(B_ * S_ * S_).reshape(B_, S_, S_) % 3 != 1).astype(I32))
attn("attention_unidirectional", attrs={"unidirectional": 1})
attn("attention_mask2d_unidirectional", mask=np.array([[1, 1, 1, 1], [1, 1, 1, 0]], I32), attrs={"unidirectional": 1})
attn("attention_qkv_sizes_scale", qkv=(8, 8, 4), attrs={"scale": 0.3})
attn("attention_bias", abias=rand(1, N_, S_, S_))
attn("attention_past", past=rand(2, B_, N_, 3, H_ // N_), outputs=2, seq=1, attrs={"unidirectional": 1})
attn("attention_past_mask", past=rand(2, B_, N_, 2, H_ // N_), outputs=2,
     mask=np.array([[1, 1, 1, 1, 1, 1], [0, 1, 1, 1, 1, 1]], I32))
attn("attention_filter_value", mask=np.array([[1, 1, 0, 0], [1, 0, 0, 0]], I32), attrs={"mask_filter_value": -1e4 * 3})


def mha(name, l=S_, bias=True, kpm=None, abias=None, past=False, attrs=None, bnsh=False, outputs=1):
    ins = {"query": rand(B_, S_, H_), "key": rand(B_, l, H_), "value": rand(B_, l, H_)}
    if bnsh:
        ins["key"] = rand(B_, N_, l, H_ // N_)
        ins["value"] = rand(B_, N_, l, H_ // N_)
    ins["bias"] = rand(3 * H_) if bias else None
    ins["key_padding_mask"] = kpm
    ins["attention_bias"] = abias
    if past:
        ins["past_key"] = rand(B_, N_, 2, H_ // N_)
        ins["past_value"] = rand(B_, N_, 2, H_ // N_)
    while list(ins.values())[-1] is None:
        ins.popitem()
    a = {"num_heads": N_}
    a.update(attrs or {})
    case(name, "MultiHeadAttention", ins, init=["bias"] if bias else [], attrs=a, outputs=outputs)


mha("multiheadattention_bias")
mha("multiheadattention_cross", l=6, bias=False)
mha("multiheadattention_kpm2d", kpm=np.array([[1, 1, 1, 0], [1, 1, 0, 0]], I32))
mha("multiheadattention_kpm1d", kpm=np.array([3, 1], I32), bias=False)
mha("multiheadattention_attnbias_scale", abias=rand(B_, 1, S_, S_), attrs={"scale": 0.2})
mha("multiheadattention_unidirectional", attrs={"unidirectional": 1})
mha("multiheadattention_bnsh", l=5, bias=False, bnsh=True)
mha("multiheadattention_past", past=True, outputs=3)

def softmax_from(x, axis):
    flat = x.reshape(int(np.prod(x.shape[:axis])), -1).astype(np.float64)
    e = np.exp(flat - flat.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True)).reshape(x.shape)


case("biassoftmax_outer", "BiasSoftmax", {"data": rand(2, 3, 4, 8, lo=-3, hi=3), "bias": rand(3, 4, 8, lo=-3, hi=3)},
     attrs={"axis": 2, "is_inner_broadcast": 0}, ref=lambda data, bias: [softmax_from(data + bias, 2)])
case("biassoftmax_inner", "BiasSoftmax", {"data": rand(2, 3, 4, 8, lo=-3, hi=3), "bias": rand(2, 1, 1, 8, lo=-3, hi=3)},
     attrs={"axis": 3, "is_inner_broadcast": 1}, ref=lambda data, bias: [softmax_from(data + bias, 3)])

# ------------------------------------------------------- misc
case("range_float", "Range", {"start": scalar(1.5), "limit": scalar(7.0), "delta": scalar(0.75)})
case("range_int_nodelta", "Range", {"start": scalar(-3, I64), "limit": scalar(5, I64)})
case("trilu_upper", "Trilu", {"X": rand(2, 4, 5)})
case("trilu_lower_k", "Trilu", {"X": rand(4, 5), "k": scalar(-1, I64)}, attrs={"upper": 0})
case("gridsample_bilinear", "GridSample", {"X": rand(1, 2, 4, 5), "grid": rand(1, 3, 3, 2, lo=-1.2, hi=1.2)})
case("gridsample_nearest_border", "GridSample", {"X": rand(1, 2, 4, 5), "grid": rand(1, 3, 3, 2, lo=-1.2, hi=1.2)},
     attrs={"mode": "nearest", "padding_mode": "border", "align_corners": 1})
case("gridsample_bicubic_reflection", "GridSample", {"X": rand(1, 1, 5, 5), "grid": rand(1, 2, 4, 2, lo=-1.2, hi=1.2)},
     attrs={"mode": "bicubic", "padding_mode": "reflection"})
case("inverse", "Inverse", {"X": rand(2, 3, 3) + 3 * np.eye(3, dtype=F)})
case("inverse_4x4", "Inverse", {"X": rand(4, 4) + 2 * np.eye(4, dtype=F)})
case("inverse_needs_pivot", "Inverse", {"X": np.array([[0, 1, 0], [1, 0, 0], [0, 0, 2]], F) + rand(3, 3, lo=-0.01, hi=0.01)})


# QAttention (quantizer's dynamic BERT attention): u8 input, i8/u8 weights.
def qattn(name, wdt, mask=None, per_column=False, attrs=None):
    ins = {"input": qrand(U8, B_, S_, H_), "weight": qrand(wdt, H_, 3 * H_), "bias": rand(3 * H_),
           "input_scale": scalar(0.02), "weight_scale": rand(3 * H_, lo=0.01, hi=0.02) if per_column else scalar(0.015),
           "mask_index": mask, "input_zero_point": q(U8, 120),
           "weight_zero_point": np.zeros(3 * H_, wdt) + (128 if wdt == U8 else 0) if per_column else q(wdt, 128 if wdt == U8 else 0)}
    a = {"num_heads": N_}
    a.update(attrs or {})
    case(name, "QAttention", ins, init=["weight", "bias", "weight_scale", "weight_zero_point"], attrs=a)


qattn("qattention_i8", I8)
qattn("qattention_u8_mask", U8, mask=np.array([3, 2], I32))
qattn("qattention_perchannel_unidirectional", I8, per_column=True, attrs={"unidirectional": 1})


# RotaryEmbedding (com.microsoft): 3-D input with num_heads, position_ids (B, S) or a 1-element offset.
def rope(name, interleaved, offset, four_d=False, rot=None):
    head = 8
    half = (rot or head) // 2
    x = rand(B_, N_, S_, head) if four_d else rand(B_, S_, N_ * head)
    pos = np.array([2], I64) if offset else np.array([[0, 1, 2, 3], [3, 4, 5, 6]], I64)
    ang = np.arange(10)[:, None] * (1.0 / 10000 ** (np.arange(half) / half))[None, :]
    a = {"interleaved": interleaved}
    if not four_d or rot:
        a["num_heads"] = N_
    if rot:
        a["rotary_embedding_dim"] = rot
    case(name, "RotaryEmbedding", {"input": x, "position_ids": pos, "cos_cache": np.cos(ang).astype(F),
                                   "sin_cache": np.sin(ang).astype(F)}, init=["cos_cache", "sin_cache"], attrs=a)


rope("rotaryembedding", 0, False)
rope("rotaryembedding_interleaved_offset", 1, True)
rope("rotaryembedding_4d_partial", 0, False, four_d=True, rot=4)

# ------------------------------------------------------- aliases and small ops
case("transposematmul", "TransposeMatMul", {"A": rand(2, 4, 3), "B": rand(5, 4)}, attrs={"transA": 1, "transB": 1, "alpha": 0.5})
case("expanddims", "ExpandDims", {"X": rand(2, 3), "axis": scalar(-1, I32)}, init=["axis"])
case("pad_constant", "Pad", {"data": rand(2, 3), "pads": np.array([0, 1, 1, 2], I64), "value": scalar(1.5)}, init=["pads", "value"])
case("pad_reflect_2d_pads", "Pad", {"data": rand(1, 4, 4), "pads": np.array([[0, 1, 2, 0, 2, 1]], I64)}, init=["pads"],
     attrs={"mode": "reflect"})
case("pad_edge", "Pad", {"data": rand(3, 4), "pads": np.array([1, 0, 2, 3], I64)}, init=["pads"], attrs={"mode": "edge"})
case("gathernd_int32", "GatherND", {"data": rand(3, 4, 5), "indices": np.array([[0, 1], [2, 3], [1, 0]], I32)}, init=["indices"])
case("gathernd_int64", "GatherND", {"data": rand(3, 4, 5), "indices": np.array([[[2]], [[0]]], I64)})
case("unique", "Unique", {"x": np.array([2.0, 1.0, 1.0, 3.0, 4.0, 3.0, 2.0], F)}, outputs=3)
case("matmulinteger16", "MatMulInteger16", {"A": qrand(np.int16, 3, 8) // 8, "B": qrand(np.int16, 8, 4) // 8})
case("cdist_sqeuclidean", "CDist", {"A": rand(4, 6), "B": rand(5, 6)})
case("cdist_euclidean", "CDist", {"A": rand(3, 6), "B": rand(4, 6)}, attrs={"metric": "euclidean"})


def qtable(x, dt=U8):
    lo, hi = min(float(x.min()), 0.0), max(float(x.max()), 0.0)
    scale = (hi - lo) / 255.0
    zp = int(round(-lo / scale))
    return np.clip(np.round(x / scale) + zp, 0, 255).astype(dt), scalar(scale), q(dt, zp)


def qembed(name, with_seg):
    tabs = {k: qtable(v) for k, v in {"word": rand(6, 8), "pos": rand(5, 8), "seg": rand(2, 8), "gamma": rand(8, lo=0.5, hi=1.5), "beta": rand(8)}.items()}
    ins = {"ids": np.array([[1, 4, 2, 0], [3, 3, 5, 1]], I32),
           "seg_ids": np.array([[0, 0, 1, 1], [0, 1, 1, 1]], I32) if with_seg else None,
           "word": tabs["word"][0], "pos": tabs["pos"][0], "segemb": tabs["seg"][0] if with_seg else None,
           "gamma": tabs["gamma"][0], "beta": tabs["beta"][0], "mask": np.array([[1, 1, 1, 0], [1, 1, 0, 0]], I32)}
    for part, key in [(1, "scale"), (2, "zp")]:
        for t, nm in [("word", "word"), ("pos", "pos"), ("seg", "segemb"), ("gamma", "gamma"), ("beta", "beta")]:
            ins[f"{nm}_{key}"] = tabs[t][part] if (with_seg or t != "seg") else None
    init = [k for k, v in ins.items() if v is not None and k not in ("ids", "seg_ids", "mask")]
    case(name, "QEmbedLayerNormalization", ins, init=init, outputs=2)


qembed("qembedlayernorm", True)
qembed("qembedlayernorm_noseg", False)


def gbq(name, bits, with_zp):
    rows, k, block = 6, 32, 16
    ins = {"data": qrand(U8, rows, k * bits // 8), "indices": np.array([[4, 0], [2, 5]], I64),
           "scales": rand(rows, k // block, lo=0.01, hi=0.05)}
    if with_zp:
        ins["zero_points"] = qrand(U8, rows, (k // block * bits + 7) // 8)
    case(name, "GatherBlockQuantized", ins, init=[k for k in ins if k != "indices"],
         attrs={"bits": bits, "block_size": block, "quantize_axis": 1})


gbq("gatherblockquantized_4bit", 4, False)
gbq("gatherblockquantized_4bit_zp", 4, True)
gbq("gatherblockquantized_8bit_zp", 8, True)

# ------------------------------------------ Stable Diffusion fusions (CUDA-only in ORT: numpy references)
from math import erf as _erf  # noqa: E402

_verf = np.vectorize(_erf)


def gelu_ref(x):
    x = x.astype(np.float64)
    return 0.5 * x * (1 + _verf(x / np.sqrt(2)))


def group_norm_ref(x, gamma, beta, groups, eps, act):
    n, h, w, c = x.shape
    g = x.astype(np.float64).reshape(n, h * w, groups, c // groups)
    m = g.mean(axis=(1, 3), keepdims=True)
    v = ((g - m) ** 2).mean(axis=(1, 3), keepdims=True)
    y = ((g - m) / np.sqrt(v + eps)).reshape(n, h, w, c) * gamma + beta
    return y / (1 + np.exp(-y)) if act else y


case("groupnorm_silu", "GroupNorm", {"X": rand(2, 3, 3, 8), "gamma": rand(8), "beta": rand(8)}, init=["gamma", "beta"],
     attrs={"groups": 4, "activation": 1},
     ref=lambda X, gamma, beta: [group_norm_ref(X, gamma, beta, 4, 1e-5, True)])
case("groupnorm_noact_eps", "GroupNorm", {"X": rand(1, 2, 4, 6), "gamma": rand(6), "beta": rand(6)}, init=["gamma", "beta"],
     attrs={"groups": 2, "activation": 0, "epsilon": 1e-3},
     ref=lambda X, gamma, beta: [group_norm_ref(X, gamma, beta, 2, 1e-3, False)])
case("skipgroupnorm", "SkipGroupNorm", {"X": rand(2, 3, 3, 8), "gamma": rand(8), "beta": rand(8), "skip": rand(2, 8), "bias": rand(8)},
     init=["gamma", "beta", "bias"], attrs={"groups": 4, "activation": 1}, outputs=2,
     ref=lambda X, gamma, beta, skip, bias: [group_norm_ref((X + skip[:, None, None, :]) + bias, gamma, beta, 4, 1e-5, True),
                                             (X + skip[:, None, None, :]) + bias])
case("biassplitgelu", "BiasSplitGelu", {"X": rand(2, 4, 16, lo=-3, hi=3), "bias": rand(16)}, init=["bias"],
     ref=lambda X, bias: [(X + bias)[..., :8] * gelu_ref((X + bias)[..., 8:])])
case("gemmfastgelu", "GemmFastGelu", {"X": rand(2, 3, 8), "W": rand(8, 6), "bias": rand(6)}, init=["W", "bias"],
     ref=lambda X, W, bias: [(lambda y: 0.5 * y * (1 + np.tanh(np.sqrt(2 / np.pi) * (y + 0.044715 * y ** 3))))(X.astype(np.float64) @ W + bias)])


def nbits_acc4(name, k, n, block, with_zp, m=3):
    blocks = (k + block - 1) // block
    ins = {"A": rand(m, k, lo=-2, hi=2), "B": qrand(U8, n, blocks, block // 2), "scales": rand(n * blocks, lo=0.01, hi=0.05)}
    init = ["B", "scales"]
    if with_zp:
        ins["zp"] = qrand(U8, n * ((blocks + 1) // 2))
        init.append("zp")
    case(name, "MatMulNBits", ins, init=init, attrs={"K": k, "N": n, "block_size": block, "bits": 4, "accuracy_level": 4})


nbits_acc4("matmulnbits_acc4", 64, 8, 32, False)
nbits_acc4("matmulnbits_acc4_zp", 64, 16, 16, True, m=5)


# ------------------------------------------------------- symbolic batch / sequence dims
BS = ["batch", "seq", None]
case("attention_mask2d_dynamic", "Attention", {
    "input": rand(B_, S_, H_), "weights": rand(H_, 3 * H_, lo=-0.5, hi=0.5), "bias": rand(3 * H_),
    "mask_index": np.array([[1, 1, 0, 1], [1, 0, 1, 1]], I32)}, init=["weights", "bias"], attrs={"num_heads": N_},
    dyn={"input": BS, "mask_index": ["batch", "seq"]})
case("multiheadattention_dynamic", "MultiHeadAttention", {
    "query": rand(B_, S_, H_), "key": rand(B_, 5, H_), "value": rand(B_, 5, H_)}, attrs={"num_heads": N_},
    dyn={"query": BS, "key": ["batch", "kv", None], "value": ["batch", "kv", None]})
case("skiplayernorm_dynamic", "SkipLayerNormalization", {
    "input": rand(2, 3, 16), "skip": rand(2, 3, 16), "gamma": rand(16), "beta": rand(16)},
    init=["gamma", "beta"], outputs=[True, False, False, True], dyn={"input": BS, "skip": BS})
case("embedlayernorm_dynamic", "EmbedLayerNormalization", {
    "ids": np.array([[1, 4, 2], [3, 3, 5]], I32), "seg": np.array([[0, 0, 1], [1, 1, 1]], I32),
    "word": rand(6, 8), "pos": rand(4, 8), "segemb": rand(2, 8), "gamma": rand(8), "beta": rand(8),
    "mask": np.array([[1, 1, 1], [1, 1, 0]], I32)},
    init=["word", "pos", "segemb", "gamma", "beta"], outputs=2,
    dyn={"ids": ["batch", "seq"], "seg": ["batch", "seq"], "mask": ["batch", "seq"]})
case("dynamicquantizematmul_dynamic", "DynamicQuantizeMatMul", {
    "A": rand(2, 3, 16), "B": qrand(I8, 16, 8), "bs": scalar(0.02), "bz": q(I8, 0), "bias": rand(8)},
    init=["B", "bs", "bz", "bias"], dyn={"A": BS})
case("qlinearadd_dynamic", "QLinearAdd", {
    "A": qrand(U8, 2, 3, 4), "As": scalar(0.03), "Az": q(U8, 128),
    "B": qrand(U8, 2, 3, 4), "Bs": scalar(0.05), "Bz": q(U8, 130), "Cs": scalar(0.06), "Cz": q(U8, 127)},
    init=["As", "Az", "Bs", "Bz", "Cs", "Cz"], dyn={"A": BS, "B": BS})
case("fastgelu_dynamic", "FastGelu", {"X": rand(2, 3, 16, lo=-4, hi=4), "bias": rand(16)}, init=["bias"], dyn={"X": BS})
# GPT-2 style: unidirectional Attention with past, symbolic batch/sequence/past lengths.
case("attention_past_unidirectional_dynamic", "Attention", {
    "input": rand(B_, 2, H_), "weights": rand(H_, 3 * H_, lo=-0.5, hi=0.5), "bias": rand(3 * H_),
    "mask_index": np.array([[1, 1, 1, 1, 1], [0, 1, 1, 1, 1]], I32), "past": rand(2, B_, N_, 3, H_ // N_)},
    init=["weights", "bias"], attrs={"num_heads": N_, "unidirectional": 1}, outputs=2,
    dyn={"input": BS, "mask_index": ["batch", "total"], "past": [None, "batch", None, "past", None]})
case("attention_mask1d_dynamic", "Attention", {
    "input": rand(B_, S_, H_), "weights": rand(H_, 3 * H_, lo=-0.5, hi=0.5), "bias": rand(3 * H_),
    "mask_index": np.array([3, 2], I32)}, init=["weights", "bias"], attrs={"num_heads": N_},
    dyn={"input": BS, "mask_index": ["batch"]})
case("multiheadattention_past_unidirectional_dynamic", "MultiHeadAttention", {
    "query": rand(B_, 2, H_), "key": rand(B_, 2, H_), "value": rand(B_, 2, H_), "bias": None,
    "key_padding_mask": None, "attention_bias": None,
    "past_key": rand(B_, N_, 3, H_ // N_), "past_value": rand(B_, N_, 3, H_ // N_)},
    attrs={"num_heads": N_, "unidirectional": 1}, outputs=3,
    dyn={"query": BS, "key": BS, "value": BS, "past_key": ["batch", None, "past", None], "past_value": ["batch", None, "past", None]})

# DynamicQuantizeLSTM with a symbolic sequence length and batch > 1 (a Scan
# over the steps, h of all rows quantized together): every direction, with and
# without initial states, peepholes, clip and input_forget; the longer ones
# would show a one-ulp float difference as a flipped quantization step of h.
# (At the end of the file so the cases above keep their random data.)
QLSTM_SB = {"X": ["seq", "batch", None], "initial_h": [None, "batch", None], "initial_c": [None, "batch", None]}
qlstm_case("dynamicquantizelstm_dyn_forward", "forward", 12, 3, 6, 8, I8, False, ("bias", "init"), dyn=QLSTM_SB)
qlstm_case("dynamicquantizelstm_dyn_reverse_noinit", "reverse", 9, 2, 5, 6, U8, True, ("bias",), dyn=QLSTM_SB)
qlstm_case("dynamicquantizelstm_dyn_bidir_peephole", "bidirectional", 10, 4, 6, 5, I8, True,
           ("bias", "init", "peephole"), dyn=QLSTM_SB)
qlstm_case("dynamicquantizelstm_dyn_bidir_nobias", "bidirectional", 7, 5, 4, 4, U8, False, (), dyn=QLSTM_SB)
qlstm_case("dynamicquantizelstm_dyn_clip_input_forget", "forward", 6, 2, 4, 3, I8, False, ("bias", "peephole"),
           dyn=QLSTM_SB, attrs={"clip": 0.7, "input_forget": 1})
qlstm_case("dynamicquantizelstm_dyn_long", "forward", 40, 3, 16, 32, I8, False, ("bias",), dyn=QLSTM_SB)

# ------------------------------------------------------- added one by one
# ScaledTanh (`alpha * tanh(beta * x)`): an experimental ONNX op of opsets
# 1-9 that onnxruntime still runs in the default domain; added through the
# new-op checklist of docs/architecture.md. (These two cases were made with
# onnxruntime 1.32, the others with the pinned 1.29.)
case("scaledtanh", "ScaledTanh", {"X": rand(3, 40, lo=-4, hi=4)}, attrs={"alpha": 0.7, "beta": 1.3}, domain="",
     opset=9)
case("scaledtanh_3d", "ScaledTanh", {"X": rand(2, 5, 7, lo=-3, hi=3)}, attrs={"alpha": -1.5, "beta": 0.4}, domain="",
     opset=9)
