"""One small ONNX model per operator form the TFLite writer emits, in the
wild corpus's layout (OUT/models/<name>/model.onnx, test_data_set_0 with a
seeded input), for `check_wild.py --wild OUT`.

    op_models.py OUT            the operator forms (all on the NPU)
    op_models.py --limits OUT   windows at and past Vela's constraints
                                (the profiles' `limits`) and ops with no
                                integer form (float32 CPU islands): some
                                on the CPU
    op_models.py --islands OUT  CPU islands whose placement the report
                                does not model yet

Weights and inputs come from a fixed seed, so the files are the same on
every run. Each operator reads the graph inputs, so the check compares one
operator's integers with edgec's.
"""
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

RNG = np.random.default_rng(20261206)
C, H, W = 8, 12, 16


def const(name, a):
    return numpy_helper.from_array(np.asarray(a, dtype=np.float32), name)


def conv_w(name, cout, cin, k):
    return const(name, RNG.normal(0, 1 / np.sqrt(cin * k * k), (cout, cin, k, k)))


def model(name, nodes, inits, out_shape, inputs=("x",), in_shape=(1, C, H, W)):
    ins = [helper.make_tensor_value_info(n, TensorProto.FLOAT, list(in_shape)) for n in inputs]
    outs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, list(out_shape))]
    g = helper.make_graph(nodes, name, ins, outs, inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def conv(x, y, w, b, **kw):
    return helper.make_node("Conv", [x, w, b], [y], **kw)


def node(op, ins, **kw):
    return helper.make_node(op, ins, ["y"], **kw)


def i64(name, a):
    return numpy_helper.from_array(np.array(a, dtype=np.int64), name)


def models():
    """(name, ModelProto): each operator reads the graph inputs directly, so
    both sides start from the same integers and only the operator's own
    rounding can differ."""
    m = {}
    full = (1, C, H, W)
    w3, b8 = conv_w("w3", C, C, 3), const("b8", RNG.normal(0, 0.1, C))
    m["conv3x3_relu"] = model("c", [conv("x", "t", "w3", "b8", pads=[1] * 4), node("Relu", ["t"])], [w3, b8], full)
    m["conv3x3_s2_pad"] = model("c", [conv("x", "y", "w3", "b8", pads=[1] * 4, strides=[2, 2])], [w3, b8],
                                (1, C, H // 2, W // 2))
    m["conv_relu6"] = model("c", [conv("x", "t", "w3", "b8", pads=[1] * 4), node("Clip", ["t", "lo", "hi"])],
                            [w3, b8, const("lo", 0.0), const("hi", 6.0)], full)
    dw = const("dw", RNG.normal(0, 0.3, (C, 1, 3, 3)))
    m["depthwise"] = model("c", [conv("x", "y", "dw", "b8", pads=[1] * 4, group=C)], [dw, b8], full)
    m["gemm"] = model("c", [node("Gemm", ["x", "gw", "gb"], transB=1)],
                      [const("gw", RNG.normal(0, 0.3, (5, C))), const("gb", RNG.normal(0, 0.1, 5))], (1, 5),
                      in_shape=(1, C))
    # A MatMul of a rank-3 activation by constant weights, plus a bias (a
    # recognizer's head): FULLY_CONNECTED on the [rows, K] flattening, then
    # RESHAPE to the op's result.
    m["linear_rank3"] = model("c", [helper.make_node("MatMul", ["x", "lw"], ["t"]), node("Add", ["t", "lb"])],
                              [const("lw", RNG.normal(0, 0.3, (C, 5))), const("lb", RNG.normal(0, 0.1, 5))],
                              (1, 6, 5), in_shape=(1, 6, C))
    wt = const("wt", RNG.normal(0, 0.3, (C, C, 2, 2)))
    m["conv_transpose"] = model("c", [node("ConvTranspose", ["x", "wt", "b8"], strides=[2, 2])], [wt, b8],
                                (1, C, 2 * H, 2 * W))
    for op in ["Add", "Sub", "Mul"]:
        m[op.lower()] = model("c", [node(op, ["x", "z"])], [], full, inputs=("x", "z"))
    m["concat"] = model("c", [node("Concat", ["x", "z"], axis=1)], [], (1, 2 * C, H, W), inputs=("x", "z"))
    # MAXIMUM / MINIMUM on one grid: two activations (each moved to the
    # result's grid), and a constant bound (tf2onnx's clamp `max(x, -0.4)`).
    m["max"] = model("c", [node("Max", ["x", "z"])], [], full, inputs=("x", "z"))
    m["min_const"] = model("c", [node("Min", ["x", "hi"])], [const("hi", [0.3])], full)
    m["max_after_leaky"] = model("c", [helper.make_node("LeakyRelu", ["x"], ["t"], alpha=0.2), node("Max", ["t", "lo"])],
                                 [const("lo", [[[[-0.4]]]])], full)
    m["maxpool"] = model("c", [node("MaxPool", ["x"], kernel_shape=[3, 3], strides=[2, 2], pads=[1] * 4)], [],
                         (1, C, H // 2, W // 2))
    m["avgpool"] = model("c", [node("AveragePool", ["x"], kernel_shape=[2, 2], strides=[2, 2])], [],
                         (1, C, H // 2, W // 2))
    m["global_avgpool"] = model("c", [node("GlobalAveragePool", ["x"])], [], (1, C, 1, 1))
    m["reduce_mean"] = model("c", [node("ReduceMean", ["x"], axes=[2, 3], keepdims=1)], [], (1, C, 1, 1))
    for mode, coord in [("nearest", "asymmetric"), ("linear", "half_pixel")]:
        extra = {"nearest_mode": "floor"} if mode == "nearest" else {}
        m[f"resize_{mode}"] = model("c", [node("Resize", ["x", "", "sc"], mode=mode,
                                               coordinate_transformation_mode=coord, **extra)],
                                    [const("sc", [1, 1, 2, 2])], (1, C, 2 * H, 2 * W))
    for op in ["Relu", "HardSwish", "HardSigmoid", "Sigmoid", "Tanh", "LeakyRelu"]:
        m[op.lower()] = model("c", [node(op, ["x"])], [], full)
    # Slopes in [0, 1] are written as max(x, a*x); others as PRELU.
    m["prelu"] = model("c", [node("PRelu", ["x", "sl"])], [const("sl", RNG.uniform(0, 0.5, (C, 1, 1)))], full)
    m["prelu_wide"] = model("c", [node("PRelu", ["x", "sl"])], [const("sl", RNG.uniform(-0.5, 1.5, (C, 1, 1)))], full)
    m["softmax"] = model("c", [node("Softmax", ["x"], axis=-1)], [], (1, 5), in_shape=(1, 5))
    m["split"] = model("c", [helper.make_node("Split", ["x", "sp"], ["s0", "s1"], axis=1), node("Add", ["s0", "s1"])],
                       [i64("sp", [4, 4])], (1, 4, H, W))
    m["reshape_nchw"] = model("c", [node("Reshape", ["x", "shp"])], [i64("shp", [1, C, H * W])], (1, C, H * W))
    m["transpose"] = model("c", [node("Transpose", ["x"], perm=[0, 2, 3, 1])], [], (1, H, W, C))
    # Layout: an NHWC model input, a Reshape whose result a Transpose reads, a flatten before a Gemm.
    m["nhwc_input"] = model("c", [helper.make_node("Transpose", ["x"], ["t"], perm=[0, 3, 1, 2]),
                                  conv("t", "y", "w3", "b8", pads=[1] * 4)], [w3, b8], full, in_shape=(1, H, W, C))
    # tf2onnx's NHWC -> NCHW of a one-channel input: a Reshape, stored as given.
    m["reshape_1ch_input"] = model("c", [helper.make_node("Reshape", ["x", "shp1"], ["t"]), node("Relu", ["t"])],
                                   [i64("shp1", [1, 1, H, W])], (1, 1, H, W), in_shape=(1, H, W, 1))
    m["reshape_transpose"] = model("c", [helper.make_node("Reshape", ["x", "shp"], ["r"]),
                                         node("Transpose", ["r"], perm=[0, 2, 1])],
                                   [i64("shp", [1, C, H * W])], (1, H * W, C))
    m["flatten_gemm"] = model("c", [helper.make_node("Flatten", ["x"], ["f"]), node("Gemm", ["f", "fw", "gb"], transB=1)],
                              [const("fw", RNG.normal(0, 0.05, (5, C * H * W))), const("gb", RNG.normal(0, 0.1, 5))],
                              (1, 5))
    m["reduce_max_nhwc"] = model("c", [helper.make_node("Transpose", ["x"], ["t"], perm=[0, 2, 3, 1]),
                                       node("ReduceMax", ["t"], axes=[1, 2], keepdims=0)], [], (1, C))
    m["pad"] = model("c", [node("Pad", ["x", "pd"], mode="constant")], [i64("pd", [0, 0, 2, 1, 0, 0, 2, 1])],
                     (1, C, H + 4, W + 2))
    # Per-channel constant steps (a normalization's `(x - mu) / sd`), one
    # operator each: chained, a 1 LSB difference of the first grows by the
    # ratio of the grids (up to 2 LSB after the division).
    mu, sd = const("mu", RNG.normal(0, 0.2, (1, C, 1, 1))), const("sd", RNG.uniform(0.5, 2, (1, C, 1, 1)))
    m["affine_sub"] = model("c", [node("Sub", ["x", "mu"])], [mu], full)
    m["affine_div"] = model("c", [node("Div", ["x", "sd"])], [sd], full)
    # YOLOX's Focus stem: four pixel phases (Slice with step 2 over H and W), concatenated.
    phases = [(0, 0), (1, 0), (0, 1), (1, 1)]
    focus = [helper.make_node("Slice", ["x", f"st{i}", "en", "ax", "sp2"], [f"p{i}"]) for i in range(4)]
    m["slice_focus"] = model("c", focus + [node("Concat", [f"p{i}" for i in range(4)], axis=1)],
                             [i64(f"st{i}", list(p)) for i, p in enumerate(phases)]
                             + [i64("en", [H, W]), i64("ax", [2, 3]), i64("sp2", [2, 2])],
                             (1, 4 * C, H // 2, W // 2))
    m["slice_range"] = model("c", [node("Slice", ["x", "st", "en", "ax"])],
                             [i64("st", [2, 1]), i64("en", [6, -1]), i64("ax", [1, 2])], (1, 4, H - 2, W))
    # A detector head's scales flattened to [1, C, H*W] and joined along H*W
    # (one CONCATENATION in the layout the flattened maps are stored in).
    m["concat_flat_scales"] = model("c", [helper.make_node("Reshape", ["x", "f1"], ["a"]),
                                          helper.make_node("MaxPool", ["x"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
                                          helper.make_node("Reshape", ["p", "f2"], ["b"]),
                                          node("Concat", ["a", "b"], axis=2)],
                                    [i64("f1", [1, C, H * W]), i64("f2", [1, C, H * W // 4])],
                                    (1, C, H * W + H * W // 4))
    # GELU as exporters write it (x/2 · (1 + erf(x/√2))), found by edgec's
    # recognition rules: TFLite's int8 GELU, a table Vela runs on the NPU.
    mk = helper.make_node
    m["gelu"] = model("c", [mk("Div", ["x", "r2"], ["d"]), mk("Erf", ["d"], ["e"]), mk("Add", ["e", "one"], ["p"]),
                            mk("Mul", ["x", "p"], ["h"]), node("Mul", ["h", "half"])],
                      [const("r2", 2 ** 0.5), const("one", 1.0), const("half", 0.5)], full)
    return m


def limit_models():
    """(name, ModelProto): windows just inside and just past Vela's
    constraints, for `edgec report`'s placement against Vela's."""
    m = {}
    x16 = (1, C, 16, 16)
    w4, w5, b8 = conv_w("w4", C, C, 4), conv_w("w5", C, C, 5), const("b8", RNG.normal(0, 0.1, C))
    dw = const("dw", RNG.normal(0, 0.3, (C, 1, 4, 4)))
    out4 = (1, C, 4, 4)
    m["lim_dw_s4"] = model("c", [conv("x", "y", "dw", "b8", strides=[4, 4], group=C)], [dw, b8], out4, in_shape=x16)
    m["lim_conv_s4_valid"] = model("c", [conv("x", "y", "w4", "b8", strides=[4, 4])], [w4, b8], out4, in_shape=x16)
    m["lim_conv_s4_same"] = model("c", [conv("x", "y", "w5", "b8", strides=[4, 4], pads=[0, 0, 1, 1])], [w5, b8],
                                  out4, in_shape=x16)
    m["lim_avgpool9_same"] = model("c", [node("AveragePool", ["x"], kernel_shape=[9, 9], pads=[4] * 4)], [], x16,
                                   in_shape=x16)
    m["lim_avgpool8_same"] = model("c", [node("AveragePool", ["x"], kernel_shape=[7, 7], pads=[3] * 4)], [], x16,
                                   in_shape=x16)
    m["lim_maxpool5_s4_same"] = model("c", [node("MaxPool", ["x"], kernel_shape=[5, 5], strides=[4, 4],
                                                 pads=[0, 0, 1, 1])], [], out4, in_shape=x16)
    tw = const("tw", RNG.normal(0, 0.3, (C, C, 3, 3)))
    m["lim_tconv_s3"] = model("c", [helper.make_node("ConvTranspose", ["x", "tw"], ["y"], strides=[3, 3])], [tw],
                              (1, C, 12, 12), in_shape=(1, C, 4, 4))
    # Vela strides a STRIDED_SLICE only over H and W; a step over channels stays on the CPU.
    m["lim_slice_c_step2"] = model("c", [node("Slice", ["x", "st", "en", "ax", "sp"])],
                                   [i64("st", [0]), i64("en", [C]), i64("ax", [1]), i64("sp", [2])],
                                   (1, C // 2, 16, 16), in_shape=x16)
    m["lim_slice_hw_step2"] = model("c", [node("Slice", ["x", "st", "en", "ax", "sp"])],
                                    [i64("st", [0, 1]), i64("en", [16, 16]), i64("ax", [2, 3]), i64("sp", [2, 3])],
                                    (1, C, 8, 5), in_shape=x16)
    # Vela 5.2 splits tensors past its older 65535-per-dim limit into several
    # NPU operations (a 2^20-wide conv into 16384): no dim limit to predict.
    m["lim_dim_65536"] = model("c", [node("Sigmoid", ["x"])], [], (1, 1, 1, 65536), in_shape=(1, 1, 1, 65536))
    # No integer TFLite form: float32 between DEQUANTIZE and QUANTIZE, on the CPU.
    mk = helper.make_node
    # x / sqrt(x² + 1): the step (+1) is applied in float with the SQRT reading
    # it, the division by an activation in float too.
    m["cpu_rsqrt_scale"] = model("c", [mk("Mul", ["x", "x"], ["s"]), mk("Add", ["s", "one"], ["v"]),
                                       mk("Sqrt", ["v"], ["r"]), node("Div", ["x", "r"])],
                                 [const("one", 1.0)], x16, in_shape=x16)
    return m


def island_models():
    """(name, ModelProto): float32 CPU islands whose placement `edgec report`
    counts otherwise than Vela (a LayerNorm is one op in the report, nine
    float TFLite operators), checked against edgec's interpreter only."""
    m = {}
    mk = helper.make_node
    # A LayerNorm between int8 ops (a Relu before and after: exact on the integers).
    seq = (1, 16, 32)
    m["cpu_layernorm"] = model("c", [mk("Relu", ["x"], ["r"]),
                                     mk("LayerNormalization", ["r", "g", "bt"], ["n"], axis=-1, epsilon=1e-5),
                                     node("Relu", ["n"])],
                               [const("g", RNG.normal(1, 0.2, 32)), const("bt", RNG.normal(0, 0.2, 32))], seq,
                               in_shape=seq)
    return m


def main():
    kind = {"--limits": limit_models, "--islands": island_models}
    out = Path(sys.argv[-1])
    ms = kind.get(sys.argv[1], models)()
    for name, mp in ms.items():
        d = out / "models" / name / "test_data_set_0"
        d.mkdir(parents=True, exist_ok=True)
        onnx.checker.check_model(mp)
        onnx.save(mp, str(d.parent / "model.onnx"))
        for k, inp in enumerate(mp.graph.input):
            shape = [x.dim_value for x in inp.type.tensor_type.shape.dim]
            x = RNG.normal(0, 1, shape).astype(np.float32)
            (d / f"input_{k}.pb").write_bytes(numpy_helper.from_array(x, inp.name).SerializeToString())
    print(" ".join(ms))


if __name__ == "__main__":
    main()
