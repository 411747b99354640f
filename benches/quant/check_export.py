"""onnxruntime runs edgec's QDQ export; its outputs against edgec's reference
interpreter on the quantized module (issue 16, acceptance 3, second half).

For each model: `edgec quantize` writes the module twice (.eir and .onnx),
the interpreter runs the .eir (`edgec run`) and onnxruntime the .onnx on
every evaluation sample. Differences are given in units of the output's
quantization step (LSB) where the output comes out of a DequantizeLinear,
else as absolute values.

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
            subprocess.run([edgec, "quantize", src, "--calib", f"{data}/{m}/calib", "-o", o], check=True,
                           stderr=subprocess.DEVNULL)
        model = onnx.load(onx)
        onnx.checker.check_model(model)
        so = ort.SessionOptions()
        so.log_severity_level = 3
        sess = ort.InferenceSession(onx, so, providers=["CPUExecutionProvider"])
        names = [o.name for o in model.graph.output]
        worst = {n: 0.0 for n in names}
        for s in sorted(glob.glob(f"{data}/{m}/eval/test_data_set_*")):
            t = onnx.TensorProto()
            t.ParseFromString(open(os.path.join(s, "input_0.pb"), "rb").read())
            x = numpy_helper.to_array(t)
            with tempfile.TemporaryDirectory() as d:
                np.save(os.path.join(d, "x.npy"), x)
                inp = model.graph.input[0].name
                subprocess.run([edgec, "run", eir, "--input", f"{inp}={d}/x.npy", "-o", d], check=True,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                got = sess.run(None, {inp: x})
                for n, g in zip(names, got):
                    ref = np.load(os.path.join(d, n.replace("/", "_") + ".npy"))
                    worst[n] = max(worst[n], float(np.max(np.abs(ref.astype(np.float64) - g))))
        for n in names:
            step = lsb(model, n)
            what = f"{worst[n] / step:.2f} LSB (step {step:.3g})" if step else f"max |diff| {worst[n]:.3g} (float output)"
            print(f"| {m} | {n} | {what} |")


if __name__ == "__main__":
    main()
