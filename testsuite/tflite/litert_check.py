"""Run an edgec TFLite model in LiteRT and compare it with edgec's interpreter.

    litert_check.py MODEL.tflite --input X.npy ... --ref Y.npy ... [--float F.npy ...]

Inputs are the float tensors the ONNX model takes, in graph order; they
are quantized on the TFLite inputs' grids (round half to even, as
QuantizeLinear) and laid out as `--report` (edgec's compile report) says
each input and output is stored (without it: rank 4 as NHWC). `--ref` are edgec's
quantized interpreter's outputs (dequantized floats, `edgec run -o`), in
graph order; each is put back on its output grid and compared with LiteRT's
integers. `--float` (optional) are the FP32 model's outputs, for the cosine
of LiteRT's dequantized outputs against them. LiteRT runs its builtin
kernels (no XNNPACK delegate): the reference integer arithmetic that
TFLite Micro on an Ethos-U's Cortex-M and Vela's CPU fallback share.

Prints one JSON object: per output the largest difference in LSB, the
share of elements that differ, and the cosines.
"""
import argparse
import json
import sys

import numpy as np
from ai_edge_litert.interpreter import Interpreter, OpResolverType


def quantize(x, scale, zp, dtype):
    info = np.iinfo(dtype)
    return np.clip(np.rint(x.astype(np.float64) / scale) + zp, info.min, info.max).astype(dtype)


def layouts(report_path, n_in, n_out):
    """Each input's and output's stored layout: stored axis i = model axis perm[i]."""
    if report_path:
        r = json.load(open(report_path))
        return [io["perm"] for io in r["inputs"]], [io["perm"] for io in r["outputs"]]
    return [None] * n_in, [None] * n_out


def to_stored(x, perm):
    if perm is None:
        perm = [0, 2, 3, 1] if x.ndim == 4 else list(range(x.ndim))
    return x.transpose(perm)


def from_stored(y, perm):
    if perm is None:
        perm = [0, 2, 3, 1] if y.ndim == 4 else list(range(y.ndim))
    return y.transpose(np.argsort(perm))


def cosine(a, b):
    a, b = a.ravel().astype(np.float64), b.ravel().astype(np.float64)
    na, nb = np.linalg.norm(a), np.linalg.norm(b)
    if na == 0 or nb == 0:
        return 1.0 if na == nb else 0.0
    return float(a @ b / (na * nb))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("--input", action="append", default=[])
    ap.add_argument("--ref", action="append", default=[])
    ap.add_argument("--float", action="append", default=[])
    ap.add_argument("--report")
    a = ap.parse_args()
    it = Interpreter(model_path=a.model, experimental_op_resolver_type=OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
    it.allocate_tensors()
    ins, outs = it.get_input_details(), it.get_output_details()
    if len(ins) != len(a.input) or len(outs) != len(a.ref):
        sys.exit(f"the model has {len(ins)} inputs and {len(outs)} outputs; given {len(a.input)} and {len(a.ref)}")
    in_perms, out_perms = layouts(a.report, len(ins), len(outs))
    for d, path, perm in zip(ins, a.input, in_perms):
        x = to_stored(np.load(path), perm)
        scale, zp = d["quantization"]
        q = quantize(x, scale, zp, d["dtype"])
        if tuple(q.shape) != tuple(d["shape"]):
            sys.exit(f"input {d['name']}: shape {q.shape} vs the model's {tuple(d['shape'])}")
        it.set_tensor(d["index"], q)
    it.invoke()
    report = {"outputs": []}
    for i, d in enumerate(outs):
        y = from_stored(it.get_tensor(d["index"]).astype(np.int64), out_perms[i])
        scale, zp = d["quantization"]
        ref = np.load(a.ref[i])
        q_ref = np.rint(ref.astype(np.float64) / scale) + zp
        if q_ref.shape != y.shape:
            sys.exit(f"output {i}: LiteRT shape {y.shape} vs edgec's {q_ref.shape}")
        diff = np.abs(y - q_ref)
        deq = (y - zp) * scale
        o = {
            "name": d["name"],
            "max_lsb": int(diff.max()) if diff.size else 0,
            "differ": float((diff > 0).mean()) if diff.size else 0.0,
            "over_1_lsb": int((diff > 1).sum()),
            "cosine_vs_edgec": cosine(deq, ref),
        }
        if i < len(a.float):
            o["cosine_vs_fp32"] = cosine(deq, np.load(a.float[i]))
        report["outputs"].append(o)
    print(json.dumps(report))


if __name__ == "__main__":
    main()
