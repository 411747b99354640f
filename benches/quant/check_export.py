"""onnxruntime runs edgec's QDQ export; its outputs against edgec's reference
interpreter on the quantized module (issue 16, acceptance 3, second half).

For each model: `edgec quantize` writes the module twice (.eir and .onnx),
the interpreter runs the .eir (`edgec run`) and onnxruntime the .onnx on
every evaluation sample. Differences are given in units of the output's
quantization step (LSB) where the output comes out of a DequantizeLinear,
else as absolute values.

onnxruntime runs each export twice: with its graph optimizations off (the QDQ
ops as written, float kernels on dequantized values: the same program as the
interpreter's) and on (QDQ fused into its integer kernels, whose rounding
differs, so the difference grows with depth).

Second table, per quantized tensor: every QuantizeLinear output of the export
becomes a graph output too, the interpreter (`edgec run` on that .onnx) and
onnxruntime (optimizations off) run it, and the integer values are compared:
the worst tensor's largest difference in steps (LSB), and the share of all
quantized elements that differ at all.

The .eir is written with `--qdq` (the QDQ form onnxruntime also runs), not
the folded integer module.

Usage: check_export.py EDGEC DATA_DIR OUT_DIR MODEL...
"""
import glob
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
import onnxruntime as ort
from onnx import numpy_helper


def lsb(model, name):
    inits = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    for n in model.graph.node:
        if name in n.output and n.op_type == "DequantizeLinear" and n.input[1] in inits:
            return float(np.max(inits[n.input[1]]))
    return None


def main():
    edgec, data, out = sys.argv[1:4]
    for m in sys.argv[4:]:
        src = f"target/wild/models/{m}/model.onnx"
        eir, onx = os.path.join(out, f"{m}.x.eir"), os.path.join(out, f"{m}.x.onnx")
        for o in (eir, onx):
            subprocess.run([edgec, "quantize", src, "--calib", f"{data}/{m}/calib", "--qdq", "-o", o], check=True,
                           stderr=subprocess.DEVNULL)
        model = onnx.load(onx)
        onnx.checker.check_model(model)
        sessions = {}
        for level in ("off", "on"):
            so = ort.SessionOptions()
            so.log_severity_level = 3
            if level == "off":
                so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
            sessions[level] = ort.InferenceSession(onx, so, providers=["CPUExecutionProvider"])
        names = [o.name for o in model.graph.output]
        worst = {(lv, n): 0.0 for lv in sessions for n in names}
        for s in sorted(glob.glob(f"{data}/{m}/eval/test_data_set_*")):
            t = onnx.TensorProto()
            t.ParseFromString(open(os.path.join(s, "input_0.pb"), "rb").read())
            x = numpy_helper.to_array(t)
            with tempfile.TemporaryDirectory() as d:
                np.save(os.path.join(d, "x.npy"), x)
                inp = model.graph.input[0].name
                subprocess.run([edgec, "run", eir, "--input", f"{inp}={d}/x.npy", "-o", d], check=True,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                for lv, sess in sessions.items():
                    got = sess.run(None, {inp: x})
                    for n, g in zip(names, got):
                        ref = np.load(os.path.join(d, n.replace("/", "_") + ".npy"))
                        worst[(lv, n)] = max(worst[(lv, n)], float(np.max(np.abs(ref.astype(np.float64) - g))))
        for n in names:
            step = lsb(model, n)
            cells = []
            for lv in sessions:
                w = worst[(lv, n)]
                cells.append(f"{w / step:.2f} LSB" if step else f"max abs diff {w:.3g}")
            kind = f"dequantized, step {step:.3g}" if step else "float output"
            print(f"| {m} | {n} ({kind}) | {cells[0]} | {cells[1]} |")
        per_tensor(edgec, data, out, m, model)


def per_tensor(edgec, data, out, m, model):
    """Every QuantizeLinear output: interpreter vs onnxruntime (optimizations off), in steps."""
    qs = [n.output[0] for n in model.graph.node if n.op_type == "QuantizeLinear"]
    have = {o.name for o in model.graph.output}
    for q in qs:
        if q not in have:
            model.graph.output.append(onnx.helper.make_empty_tensor_value_info(q))
    path = os.path.join(out, f"{m}.allq.onnx")
    onnx.save(model, path)
    so = ort.SessionOptions()
    so.log_severity_level = 3
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    names = [o.name for o in sess.get_outputs()]
    worst, worst_name, differ, total = 0, "", 0, 0
    inp = model.graph.input[0].name
    for s in sorted(glob.glob(f"{data}/{m}/eval/test_data_set_*")):
        t = onnx.TensorProto()
        t.ParseFromString(open(os.path.join(s, "input_0.pb"), "rb").read())
        x = numpy_helper.to_array(t)
        got = dict(zip(names, sess.run(None, {inp: x})))
        with tempfile.TemporaryDirectory() as d:
            np.save(os.path.join(d, "x.npy"), x)
            subprocess.run([edgec, "run", path, "--input", f"{inp}={d}/x.npy", "-o", d], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for q in qs:
                ref = np.load(os.path.join(d, q.replace("/", "_") + ".npy")).astype(np.int64)
                diff = np.abs(ref - got[q].astype(np.int64))
                if diff.size and int(diff.max()) > worst:
                    worst, worst_name = int(diff.max()), q
                differ += int(np.count_nonzero(diff))
                total += diff.size
    print(f"| {m} | {len(qs)} quantized tensors | worst {worst} LSB ({worst_name or '-'}) | "
          f"{differ} of {total} elements differ ({100 * differ / max(total, 1):.4f}%) |")


if __name__ == "__main__":
    main()
