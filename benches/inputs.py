#!/usr/bin/env python3
"""Write the benchmark inputs of one model as .npy files.

Usage: inputs.py MODEL.onnx OUT_DIR
A model with a test_data_set_0/ beside it uses that data set's inputs; others
(the ONNX `light` models) get ONNX's dummy input `arange(n) / n` in f32.
Prints one NAME=FILE.npy per input.
"""
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper


def main():
    model_path, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    model = onnx.load(model_path, load_external_data=False)
    inits = {i.name for i in model.graph.initializer}
    inputs = [i for i in model.graph.input if i.name not in inits]
    data = os.path.join(os.path.dirname(model_path), "test_data_set_0")
    for k, inp in enumerate(inputs):
        pb = os.path.join(data, f"input_{k}.pb")
        if os.path.exists(pb):
            t = onnx.TensorProto()
            with open(pb, "rb") as f:
                t.ParseFromString(f.read())
            arr = numpy_helper.to_array(t)
        else:
            dims = [d.dim_value if d.dim_value > 0 else 1 for d in inp.type.tensor_type.shape.dim]
            n = int(np.prod(dims))
            arr = (np.arange(n, dtype=np.float64) / n).astype(np.float32).reshape(dims)
        path = os.path.join(out, f"input_{k}.npy")
        np.save(path, arr)
        print(f"{inp.name}={path}")


if __name__ == "__main__":
    main()
