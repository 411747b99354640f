"""Accuracy of edgec's INT8 TFLite files on realistic data, as LiteRT runs them.

    python benches/tflite/accuracy.py --edgec BIN [--data target/quant-data] [--calib-method M] [--i16 MODEL:NODE]...
        [--auto-mixed COSINE] MODEL...

For each model of the wild corpus: `edgec compile --target ethos-u55-256
--quantize int8 --emit tflite`, calibrated on DATA/MODEL/calib (realistic
inputs from benches/quant/make_data.py), then every sample of DATA/MODEL/eval
(disjoint from the calibration set) through LiteRT (builtin kernels) and
through edgec's interpreter on the FP32 model; prints, per output, the cosine
of LiteRT's dequantized outputs with the FP32 ones over all samples at once,
and Vela's NPU placement for ethos-u55-256. Run with the venv
testsuite/tflite/check.sh makes (plus pillow and scikit-image for make_data.py).
"""
import argparse
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
from ai_edge_litert.interpreter import Interpreter, OpResolverType
from onnx import numpy_helper

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "testsuite" / "tflite"))
from check_wild import vela_placement  # noqa: E402
from litert_check import cosine, from_stored, layouts, quantize, to_stored  # noqa: E402


def load_pb(p):
    t = onnx.TensorProto()
    t.ParseFromString(Path(p).read_bytes())
    return numpy_helper.to_array(t)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--edgec", required=True)
    ap.add_argument("--data", default="target/quant-data")
    ap.add_argument("--wild", default="target/wild")
    ap.add_argument("--out", default="target/tflite-accuracy")
    ap.add_argument("--calib-method", default="mse", help="edgec's --calib-method (default mse, edgec's default)")
    ap.add_argument("--i16", action="append", default=[], metavar="MODEL:NODE",
                    help="quantize NODE's result of MODEL as int16 (TFLite 16x8; repeatable)")
    ap.add_argument("--auto-mixed", type=float, metavar="COSINE",
                    help="edgec's --auto-mixed: widen the most sensitive activations to int16 until the outputs reach COSINE")
    ap.add_argument("models", nargs="+")
    a = ap.parse_args()
    vela = str(Path(sys.executable).parent / "vela")
    print("| model | eval samples | output | cosine vs FP32 (LiteRT, int8) | Vela NPU operators |")
    print("|---|---|---|---|---|")
    for m in a.models:
        out = Path(a.out) / m
        out.mkdir(parents=True, exist_ok=True)
        onnx_path = Path(a.wild) / "models" / m / "model.onnx"
        calib, ev = Path(a.data) / m / "calib", Path(a.data) / m / "eval"
        model = onnx.load(str(onnx_path), load_external_data=False)
        inits = {i.name for i in model.graph.initializer}
        name = [i.name for i in model.graph.input if i.name not in inits][0]
        samples = sorted(ev.glob("test_data_set_*"), key=lambda p: int(p.name.rsplit("_", 1)[1]))
        x0 = load_pb(samples[0] / "input_0.pb")
        tfl = out / "model.tflite"
        cmd = [a.edgec, "compile", onnx_path, "--target", "ethos-u55-256", "--shape",
               f"{name}={','.join(map(str, x0.shape))}", "--quantize", "int8", "--calib", calib,
               "--calib-method", a.calib_method, "--eval", ev,
               "--act-type", "i8", "--emit", "tflite", "-o", tfl, "--report", out / "report.json"]
        cmd += [x for mn in a.i16 if mn.split(":", 1)[0] == m for x in ("--i16", mn.split(":", 1)[1])]
        cmd += ["--auto-mixed", a.auto_mixed] if a.auto_mixed is not None else []
        r = subprocess.run(list(map(str, cmd)), capture_output=True, text=True)
        (out / "compile.log").write_text(r.stderr)
        if r.returncode != 0:
            print(f"| {m} | | | FAILED: {r.stderr.strip().splitlines()[-1][:120]} | |", flush=True)
            continue
        in_perms, out_perms = layouts(out / "report.json", 1, len(model.graph.output))
        it = Interpreter(model_path=str(tfl),
                         experimental_op_resolver_type=OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
        it.allocate_tensors()
        i_d, o_ds = it.get_input_details()[0], it.get_output_details()
        lite, ref = [[] for _ in o_ds], [[] for _ in o_ds]
        for k, s in enumerate(samples):
            x = load_pb(s / "input_0.pb")
            np.save(out / "x.npy", x)
            fp = out / f"fp32_{k}"
            subprocess.run([a.edgec, "run", str(onnx_path), "--input", f"{name}={out / 'x.npy'}", "-o", str(fp)],
                           check=True, capture_output=True)
            sc, zp = i_d["quantization"]
            it.set_tensor(i_d["index"], quantize(to_stored(x, in_perms[0]), sc, zp, i_d["dtype"]))
            it.invoke()
            for j, d in enumerate(o_ds):
                y = it.get_tensor(d["index"]).astype(np.float64)
                y = (y - d["quantization"][1]) * d["quantization"][0]
                lite[j].append(from_stored(y, out_perms[j]))
            outs = [o.name for o in model.graph.output]
            for j, o in enumerate(outs):
                ref[j].append(np.load(fp / (re.sub(r"[^A-Za-z0-9._-]", "_", o) + ".npy")))
        place = vela_placement(vela, tfl, "ethos-u55-256", out / "vela")
        v = "Vela failed" if place is None else f"{place[0]}/{sum(place)}"
        for j, o in enumerate(model.graph.output):
            c = cosine(np.concatenate([t.ravel() for t in lite[j]]), np.concatenate([t.ravel() for t in ref[j]]))
            print(f"| {m} | {len(samples)} | {o.name} | {c:.5f} | {v} |", flush=True)


if __name__ == "__main__":
    main()
