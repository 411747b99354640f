#!/usr/bin/env python3
"""Time one ONNX model in onnxruntime, all graph optimizations, one thread
unless `--threads N` (intra-op threads; inter-op execution stays sequential).

Usage: ort_time.py MODEL.onnx RUNS [--threads N] NAME=FILE.npy ...
Prints `median_ms=...` and `min_ms=...` (the same lines the generated crates'
`--bench` prints), after RUNS/10 (at least 3) warm-up runs.
"""
import sys
import time

import numpy as np
import onnxruntime as ort


def main():
    model, runs = sys.argv[1], int(sys.argv[2])
    feeds, args, threads = {}, sys.argv[3:], 1
    if args[:1] == ["--threads"]:
        threads, args = int(args[1]), args[2:]
    for arg in args:
        name, path = arg.split("=", 1)
        feeds[name] = np.load(path)
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    sess = ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])
    for _ in range(max(3, runs // 10)):
        sess.run(None, feeds)
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        sess.run(None, feeds)
        times.append((time.perf_counter() - t) * 1e3)
    times.sort()
    print(f"median_ms={times[len(times) // 2]:.6f}")
    print(f"min_ms={times[0]:.6f}")


if __name__ == "__main__":
    main()
