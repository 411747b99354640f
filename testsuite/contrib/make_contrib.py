#!/usr/bin/env python3
"""Generate the com.microsoft contrib-op test cases.

Each case is a small ONNX model (one contrib node, weights as initializers)
run by onnxruntime on the CPU EP with every graph optimization disabled, saved
in ONNX test layout: ``<case>/model.onnx`` and ``<case>/test_data_set_0/
input_K.pb, output_K.pb``. The Rust test ``testsuite/tests/contrib_ops.rs``
imports each model, runs edgec and compares with these outputs.

Pinned: onnx==1.22.0, onnxruntime==1.29.0 (the newest 1.2x release), numpy.
Setup (from the repo root):
    python3 -m venv target/venv
    target/venv/bin/pip install onnx==1.22.0 onnxruntime==1.29.0 numpy
    target/venv/bin/python testsuite/contrib/make_contrib.py
"""

import os
import shutil
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
MS = "com.microsoft"
F = np.float32
RNG = np.random.default_rng(20260)


def rand(*shape, lo=-1.0, hi=1.0):
    return RNG.uniform(lo, hi, size=shape).astype(F)


def qrand(dtype, *shape):
    info = np.iinfo(dtype)
    return RNG.integers(info.min, info.max + 1, size=shape).astype(dtype)


def scalar(x, dtype=F):
    return np.array(x, dtype=dtype)


def elem_type(dtype):
    return helper.np_dtype_to_tensor_dtype(np.dtype(dtype))


CASES = []


def case(name, op, ins, init=(), attrs=None, outputs=1, domain=MS, ref=None, dyn=None, opset=21):
    """Register a one-node case. ``ins`` maps node input names to arrays in
    node-input order (``None`` keeps an empty optional slot); names in
    ``init`` become initializers, the others graph inputs. ``outputs`` is a
    count or a list of booleans (False leaves that output slot empty).
    ``ref`` computes the expected outputs with numpy from the input arrays
    (by name); it is used only where onnxruntime has no CPU kernel for the op,
    and the case then records that in a ``REFERENCE`` file. ``dyn`` maps
    graph inputs to a list of dimension names (``None`` keeps that dim
    static), so a case also checks import with symbolic shapes. ``opset`` is
    the default domain's (ops onnxruntime keeps from old opsets need one)."""
    CASES.append((name, op, ins, set(init), attrs or {}, outputs, domain, ref, dyn or {}, opset))


def run_case(name, op, ins, init, attrs, outputs, domain, ref=None, dyn=None, opset=21):
    names, gin, inis, feeds = [], [], [], {}
    for key, arr in ins.items():
        if arr is None:
            names.append("")
            continue
        names.append(key)
        if key in init:
            inis.append(numpy_helper.from_array(arr, key))
        else:
            dims = [d if sym is None else sym for d, sym in zip(arr.shape, (dyn or {}).get(key, [None] * arr.ndim))]
            gin.append(helper.make_tensor_value_info(key, elem_type(arr.dtype), dims))
            feeds[key] = arr
    flags = [True] * outputs if isinstance(outputs, int) else outputs
    out_names = [f"y{i}" if f else "" for i, f in enumerate(flags)]
    outs = [o for o in out_names if o]
    node = helper.make_node(op, names, out_names, domain=domain, name=f"{name}_node", **attrs)
    opsets = [helper.make_opsetid("", opset), helper.make_opsetid(MS, 1)]

    def make(types):
        vis = []
        for o, t in zip(outs, types):
            vi = onnx.ValueInfoProto(name=o)
            if t is not None:
                vi = helper.make_tensor_value_info(o, t, None)
            vis.append(vi)
        g = helper.make_graph([node], name, gin, vis, inis)
        m = helper.make_model(g, opset_imports=opsets, producer_name="edgec-contrib-gen")
        m.ir_version = 10
        return m

    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    so.intra_op_num_threads = 1
    reference = None
    try:
        probe = make([None] * len(outs))
        sess = ort.InferenceSession(probe.SerializeToString(), so, providers=["CPUExecutionProvider"])
        results = sess.run(None, feeds)
    except Exception as e:  # noqa: BLE001
        why = str(e).splitlines()[0][:300]
        if ref is None:
            print(f"SKIP {name}: onnxruntime cannot run it: {why}")
            return False
        reference = f"numpy reference in make_contrib.py: onnxruntime 1.29.0 has no CPU kernel ({why})\n"
        results = [np.asarray(r, dtype=F) for r in ref(**{k: v for k, v in ins.items() if v is not None})]
        print(f"NUMPY {name}: {why[:120]}")
    if any(r is None for r in results):
        # ORT leaves some optional outputs unwritten: drop those slots.
        it = iter(results)
        kept = [f and next(it) is not None for f in flags]
        print(f"NOTE {name}: onnxruntime does not produce output(s) {[i for i, (f, k) in enumerate(zip(flags, kept)) if f and not k]}")
        return run_case(name, op, ins, init, attrs, kept, domain, ref, dyn)
    model = make([elem_type(np.asarray(r).dtype) for r in results])
    d = os.path.join(HERE, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(os.path.join(d, "test_data_set_0"))
    onnx.save(model, os.path.join(d, "model.onnx"))
    if reference:
        with open(os.path.join(d, "REFERENCE"), "w") as f:
            f.write(reference)
    for i, g in enumerate(gin):
        t = numpy_helper.from_array(feeds[g.name], g.name)
        with open(os.path.join(d, "test_data_set_0", f"input_{i}.pb"), "wb") as f:
            f.write(t.SerializeToString())
    for i, (o, r) in enumerate(zip(outs, results)):
        t = numpy_helper.from_array(np.asarray(r), o)
        with open(os.path.join(d, "test_data_set_0", f"output_{i}.pb"), "wb") as f:
            f.write(t.SerializeToString())
    return True


def main():
    import contrib_cases  # noqa: F401  (registers every case)

    want = set(sys.argv[1:])
    if not want:  # a full run replaces every case directory
        for entry in os.listdir(HERE):
            if os.path.isfile(os.path.join(HERE, entry, "model.onnx")):
                shutil.rmtree(os.path.join(HERE, entry))
    ok = 0
    for c in CASES:
        if want and c[0] not in want:
            continue
        ok += run_case(*c)
    print(f"{ok} case(s) written, {len(CASES) - ok if not want else len(want) - ok} skipped")


if __name__ == "__main__":
    sys.path.insert(0, HERE)
    sys.modules["make_contrib"] = sys.modules[__name__]
    main()
