"""Compile wild-corpus models to INT8 TFLite with edgec and check each with
the vendor tools: LiteRT runs it against edgec's quantized interpreter (the
integer module of the same quantization, folded for the target: its
profile's `arithmetic = "tflite"` makes each integer op round as LiteRT's
kernel does), Vela compiles it for an Ethos-U.

    check_wild.py --edgec BIN --wild target/wild --out DIR [--target T] MODEL...

Each model is calibrated on its test_data_set_0 (the same sample it is then
run on: this checks the arithmetic of the emitted operators, not accuracy)
at that sample's shapes. Prints a Markdown table; exits 1 when any model
fails to compile, has an operator Vela leaves on the CPU, or differs from
the interpreter by more than `--max-lsb` (default 1: one operator's
rounding) on some output whose cosine with the interpreter's is also below
`--min-cosine` (default 1.0: the LSB bound alone). Ops the integer module
keeps in QDQ form (float steps between DequantizeLinear and QuantizeLinear:
PRelu, Softmax, ...) round differently from LiteRT's fixed-point kernels,
and a 1 LSB difference early in a deep model grows by the ratio of later
grids; such models take `--min-cosine 0.99`.

With `--cycle-tolerance F`, `edgec report` also runs on each model before
compiling, with Vela's per-layer estimate of the compiled file beside it: a
model fails when the report's placement differs from Vela's (some op on the
CPU: a different count) or its predicted cycles are off Vela's
estimate by more than the fraction F (`inf`: the ratios are only
printed), for each profile of
`--cycle-targets` (built-in Ethos-U profiles, named like Vela's
accelerator configurations). With `--placement-only`, operators may stay
on the CPU, and the report must predict how many (Vela's constraints).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import onnx
from onnx import numpy_helper

HERE = Path(__file__).resolve().parent


def load_pb(path):
    t = onnx.TensorProto()
    t.ParseFromString(Path(path).read_bytes())
    return numpy_helper.to_array(t)


def prepare(model_dir, out):
    """Inputs and FP32 outputs of test_data_set_0 as .npy; the --shape flags."""
    model = onnx.load(str(model_dir / "model.onnx"), load_external_data=False)
    inits = {i.name for i in model.graph.initializer}
    names = [i.name for i in model.graph.input if i.name not in inits]
    data = model_dir / "test_data_set_0"
    inputs, shapes = [], []
    for k, n in enumerate(names):
        x = load_pb(data / f"input_{k}.pb")
        p = out / f"input_{k}.npy"
        np.save(p, x)
        inputs.append((n, p))
        shapes += ["--shape", f"{n}={','.join(map(str, x.shape))}"]
    floats = []
    for k in range(len(model.graph.output)):
        if not (data / f"output_{k}.pb").exists():
            break
        p = out / f"fp32_{k}.npy"
        np.save(p, load_pb(data / f"output_{k}.pb"))
        floats.append(p)
    return inputs, shapes, floats


def run(cmd, log):
    with open(log, "a") as f:
        f.write("$ " + " ".join(map(str, cmd)) + "\n")
        f.flush()
        return subprocess.run(list(map(str, cmd)), stdout=f, stderr=subprocess.STDOUT).returncode


def vela_placement(vela, tflite, accel, out):
    """(NPU operators, CPU operators) from Vela's summary, or None. Vela
    also writes its per-layer estimate, out/model_per-layer.csv."""
    r = subprocess.run([vela, str(tflite), "--accelerator-config", accel, "--output-dir", str(out),
                        "--verbose-performance"],
                       capture_output=True, text=True)
    (out / "vela.log").write_text(r.stdout + r.stderr)
    npu = re.search(r"NPU operators = (\d+)", r.stdout)
    cpu = re.search(r"CPU operators = (\d+)", r.stdout)
    if r.returncode != 0 or not npu or not cpu:
        return None
    return int(npu.group(1)), int(cpu.group(1))


def check(m, a):
    out = Path(a.out) / m
    out.mkdir(parents=True, exist_ok=True)
    log = out / "log.txt"
    log.write_text("")
    mdir = Path(a.wild) / "models" / m
    inputs, shapes, floats = prepare(mdir, out)
    calib = out / "calib"
    calib.mkdir(exist_ok=True)
    link = calib / "test_data_set_0"
    if not link.exists():
        link.symlink_to((mdir / "test_data_set_0").resolve())
    common = ["--target", a.target, *shapes, "--calib", calib, "--act-type", a.act_type]
    common += [x for node in a.i16 for x in ("--i16", node)]
    tfl = out / "model.tflite"
    t0 = time.time()
    if run([a.edgec, "compile", mdir / "model.onnx", *common, "--quantize", "int8", "--emit", "tflite", "-o", tfl,
            "--report", out / "report.json"], log):
        last = [line for line in log.read_text().splitlines() if line.strip()][-1]
        return {"model": m, "error": "edgec compile: " + last.strip()}
    secs = time.time() - t0
    integer = out / "integer.eir"
    if run([a.edgec, "quantize", mdir / "model.onnx", *common, "--policy", "tflite", "-o", integer], log):
        return {"model": m, "error": "edgec quantize failed"}
    ref = out / "ref"
    ins = [x for n, p in inputs for x in ("--input", f"{n}={p}")]
    if run([a.edgec, "run", integer, *ins, "-o", ref], log):
        return {"model": m, "error": "edgec run failed"}
    report = json.loads((out / "report.json").read_text())
    # `edgec run -o` names files after the outputs, other characters than [A-Za-z0-9._-] as `_`.
    refs = [ref / (re.sub(r"[^A-Za-z0-9._-]", "_", o["name"]) + ".npy") for o in report["outputs"]]
    cmd = [sys.executable, HERE / "litert_check.py", tfl, "--report", out / "report.json",
           *[x for _, p in inputs for x in ("--input", p)],
           *[x for r in refs for x in ("--ref", r)], *[x for f in floats for x in ("--float", f)]]
    r = subprocess.run(list(map(str, cmd)), capture_output=True, text=True)
    if r.returncode != 0:
        return {"model": m, "error": "LiteRT: " + (r.stderr.strip().splitlines() or ["?"])[-1]}
    lite = json.loads(r.stdout)
    place = vela_placement(a.vela, tfl, a.accel, out / "vela")
    ops = sum(report["operators"].values())
    res = {"model": m, "ops": ops, "transposes": len(report["transposes"]), "lite": lite["outputs"],
           "vela": place, "secs": secs}
    if (a.cycle_tolerance is not None or a.placement_only) and place is not None:
        res["predicted"] = {}
        for t in a.cycle_targets.split(","):
            # `edgec report` before compiling, beside Vela's estimate of the compiled file.
            csv = out / "vela" / "model_per-layer.csv"
            if t != a.accel:
                vela_placement(a.vela, tfl, t, out / f"vela-{t}")
                csv = out / f"vela-{t}" / "model_per-layer.csv"
            cmd = [a.edgec, "report", mdir / "model.onnx", "--target", t, *shapes, "--json", "--vela", csv]
            r = subprocess.run(list(map(str, cmd)), capture_output=True, text=True)
            if r.returncode != 0:
                return {"model": m, "error": f"edgec report --target {t}: " + (r.stderr.strip().splitlines() or ["?"])[-1]}
            rep = json.loads(r.stdout)
            res["predicted"][t] = (rep["cycles"], rep["vela"]["cycles"], rep["fallback_ops"], len(rep["vela"]["cpu_ops"]))
    return res


def row(r, a):
    if "error" in r:
        return f"| {r['model']} | FAILED: {r['error'][:160]} | | | | | | |", False
    worst = max(o["max_lsb"] for o in r["lite"])
    differ = max(o["differ"] for o in r["lite"])
    cos = min(o.get("cosine_vs_fp32", float("nan")) for o in r["lite"])
    cos = "-" if cos != cos else f"{cos:.5f}"
    ce = min(o["cosine_vs_edgec"] for o in r["lite"])
    v = r["vela"]
    vela = "Vela failed" if v is None else f"{v[0]}/{v[0] + v[1]} ({100 * v[0] / max(1, v[0] + v[1]):.1f}%)"
    close = all(o["max_lsb"] <= a.max_lsb or o["cosine_vs_edgec"] >= a.min_cosine for o in r["lite"])
    ok = close and v is not None and (v[1] == 0 or a.placement_only or a.allow_cpu)
    preds = []
    for t, (cyc, vcyc, fall, vcpu) in r.get("predicted", {}).items():
        ratio = cyc / vcyc if vcyc else float("inf")
        agree = fall == vcpu
        preds.append(f"{t[6:]}: {cyc:.0f} / {vcyc:.0f} = {ratio:.2f}"
                     + ("" if agree else f" PLACEMENT DIFFERS ({fall} vs {vcpu})"))
        ok = ok and agree and (a.placement_only or abs(ratio - 1) <= a.cycle_tolerance)
    pred = "<br>".join(preds) or "-"
    return (f"| {r['model']} | {r['ops']} ({r['transposes']} transposes) | {worst} | {100 * differ:.2f}% | "
            f"{ce:.5f} | {cos} | {vela} | {pred} |"), ok


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--edgec", required=True)
    ap.add_argument("--wild", default="target/wild")
    ap.add_argument("--out", default="target/tflite-check")
    ap.add_argument("--act-type", default="i8", help="activation type (i8, or i16: TFLite's 16x8 operators)")
    ap.add_argument("--i16", action="append", default=[], metavar="NODE",
                    help="quantize this op's results as int16 (edgec's --i16; repeatable)")
    ap.add_argument("--target", default="ethos-u55-256")
    ap.add_argument("--accel", default="ethos-u55-256")
    ap.add_argument("--vela", default=str(Path(sys.executable).parent / "vela"))
    ap.add_argument("--max-lsb", type=int, default=1)
    ap.add_argument("--min-cosine", type=float, default=1.0)
    ap.add_argument("--cycle-tolerance", type=float, default=None,
                    help="also run `edgec report`: its cycles within this fraction of Vela's, same placement")
    ap.add_argument("--cycle-targets", default="ethos-u55-256",
                    help="comma-separated Ethos-U profiles (= Vela accelerator configs) to check the report on")
    ap.add_argument("--placement-only", action="store_true",
                    help="operators may run on the CPU; `edgec report` must predict which (cycles not compared)")
    ap.add_argument("--allow-cpu", action="store_true",
                    help="operators may run on the CPU, placement not compared (CPU islands the report does not model)")
    ap.add_argument("models", nargs="+")
    a = ap.parse_args()
    print("| model | TFLite operators | max LSB vs edgec | elements differing | cosine vs edgec | cosine vs FP32 "
          "| Vela NPU operators | edgec report / Vela cycles |")
    print("|---|---|---|---|---|---|---|---|")
    bad = []
    for m in a.models:
        line, ok = row(check(m, a), a)
        print(line, flush=True)
        if not ok:
            bad.append(m)
    if bad:
        print(f"\nfailed: {' '.join(bad)}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
