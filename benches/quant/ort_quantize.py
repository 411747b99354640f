"""onnxruntime's static INT8 quantization on the same data as `edgec quantize`,
for the side-by-side figure of issue 16 (acceptance 2).

Same calibration set, QDQ format, per-channel symmetric int8 weights, u8
activations; the ops edgec kept in float (read from its --report JSON) are
excluded on onnxruntime's side with `nodes_to_exclude`. The model first goes
through onnxruntime's `quant_pre_process` (shape inference and graph
optimization, which folds BatchNorm into Conv as edgec's optimizer does).
Cosine is computed as edgec's report computes it: over all evaluation
samples at once, per output, and the worst output is printed.

Usage: ort_quantize.py MODEL.onnx CALIB_DIR EVAL_DIR EDGEC_REPORT.json METHOD(minmax|entropy|percentile) OUT.onnx
"""
import glob
import json
import os
import sys

import numpy as np
import onnx
import onnx.version_converter
import onnxruntime as ort
from onnx import numpy_helper
from onnxruntime.quantization import CalibrationDataReader, CalibrationMethod, QuantFormat, QuantType, quantize_static
from onnxruntime.quantization.shape_inference import quant_pre_process


def samples(d):
    out = []
    for s in sorted(glob.glob(os.path.join(d, "test_data_set_*"))):
        t = onnx.TensorProto()
        with open(os.path.join(s, "input_0.pb"), "rb") as f:
            t.ParseFromString(f.read())
        out.append(numpy_helper.to_array(t))
    return out


class Reader(CalibrationDataReader):
    def __init__(self, name, xs):
        self.it = iter([{name: x} for x in xs])

    def get_next(self):
        return next(self.it, None)


def name_nodes(model):
    """Give unnamed nodes the names edgec's importer gives them (OpType_N, N counting nodes in order)."""
    for i, n in enumerate(model.graph.node, start=1):
        if not n.name:
            n.name = f"{n.op_type}_{i}"


def run(path, name, xs):
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    s = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    return [s.run(None, {name: x}) for x in xs]


def main():
    model, calib, evald, report, method, out = sys.argv[1:7]
    m = onnx.load(model)
    name_nodes(m)
    opset = next(o.version for o in m.opset_import if o.domain in ("", "ai.onnx"))
    if opset < 13:  # per-axis DequantizeLinear needs opset 13
        m = onnx.version_converter.convert_version(m, 13)
    named = out + ".named.onnx"
    onnx.save(m, named)
    pre = out + ".pre.onnx"
    quant_pre_process(named, pre, skip_symbolic_shape=True)
    keep = []
    for k in json.load(open(report))["kept_float"]:
        keep += k["layer"].split("+")
    name = m.graph.input[0].name
    cm = {"minmax": CalibrationMethod.MinMax, "entropy": CalibrationMethod.Entropy, "percentile": CalibrationMethod.Percentile}[method]
    quantize_static(pre, out, Reader(name, samples(calib)), quant_format=QuantFormat.QDQ, per_channel=True,
                    activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8, calibrate_method=cm,
                    nodes_to_exclude=keep)
    xs = samples(evald)
    ref, q = run(model, name, xs), run(out, name, xs)
    worst = 1.0
    for k in range(len(ref[0])):
        a = np.concatenate([r[k].ravel() for r in ref]).astype(np.float64)
        b = np.concatenate([r[k].ravel() for r in q]).astype(np.float64)
        worst = min(worst, float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b))))
    print(json.dumps({"model": os.path.basename(os.path.dirname(model)), "method": method, "cosine": worst, "excluded": keep}))


if __name__ == "__main__":
    main()
