#!/usr/bin/env python3
"""Time one ONNX model in onnxruntime, all graph optimizations, one thread
unless `--threads N` (intra-op threads; inter-op execution stays sequential).

Usage: ort_time.py MODEL.onnx RUNS [--threads N] [--mem] NAME=FILE.npy ...
Prints `median_ms=...` and `min_ms=...` (the same lines the generated crates'
`--bench` prints), after RUNS/10 (at least 3) warm-up runs. With `--mem`,
instead: the session's creation time and what creating it and the first run
add to the resident set (Linux; the generated crates' `--mem` lines: `new_ms=`,
`rss_new_kib=`, `rss_peak_kib=`, `rss_code_kib=`, `rss_data_kib=`), measured
from after the inputs are loaded, as the crates measure.
"""
import sys
import time

import numpy as np
import onnxruntime as ort


def resident():
    """(now, peak, code) resident KiB: VmRSS, VmHWM, executable mappings."""
    status = open("/proc/self/status").read().splitlines()
    field = lambda k: int(next(l for l in status if l.startswith(k)).split()[1])
    code, exec_map = 0, False
    for line in open("/proc/self/smaps"):
        words = line.split()
        if words and "-" in words[0] and all(c in "0123456789abcdef-" for c in words[0]):
            exec_map = len(words) > 1 and "x" in words[1]
        elif words[:1] == ["Rss:"] and exec_map:
            code += int(words[1])
    return field("VmRSS:"), field("VmHWM:"), code


def main():
    model, runs = sys.argv[1], int(sys.argv[2])
    feeds, args, threads, mem = {}, sys.argv[3:], 1, False
    if args[:1] == ["--threads"]:
        threads, args = int(args[1]), args[2:]
    if args[:1] == ["--mem"]:
        mem, args = True, args[1:]
    for arg in args:
        name, path = arg.split("=", 1)
        feeds[name] = np.load(path)
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    if mem:
        open("/proc/self/clear_refs", "w").write("5")
        base = resident()
        t = time.perf_counter()
    sess = ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])
    if mem:
        new_ms = (time.perf_counter() - t) * 1e3
        after_new = resident()
        sess.run(None, feeds)
        now, peak, code = resident()
        print(f"new_ms={new_ms:.3f}")
        print(f"rss_new_kib={after_new[0] - base[0]}")
        print(f"rss_peak_kib={peak - base[0]}")
        print(f"rss_code_kib={code - base[2]}")
        print(f"rss_data_kib={peak - base[0] - (code - base[2])}")
        return
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
