"""edgec's and onnx2tf's INT8 TFLite of one image model, each compiled by
Vela for Ethos-U accelerators: Vela's estimated cycles, the TRANSPOSE
operators in each file and their share of the cycles. Run by
vs_onnx2tf.sh, which sets up the pinned venv.

Both routes calibrate on the same 4 images (uniform noise, seed 0; cycles
do not depend on the calibration data, only the grids do), normalized with
the ImageNet mean and std that PaddleOCR and most image models use: onnx2tf
takes them as NHWC images with the mean and std, edgec as normalized NCHW
samples.
"""
import argparse
import csv
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx

MEAN = np.array([0.485, 0.456, 0.406], np.float32)
STD = np.array([0.229, 0.224, 0.225], np.float32)
VELA = str(Path(sys.executable).parent / "vela")


def onnx2tf_convert(model, out, calib_nhwc, inp, size):
    import onnx2tf.onnx2tf as o
    # onnx2tf overwrites its input with onnxsim's simplification: give it a copy.
    copy = out.parent / "onnx2tf-input.onnx"
    shutil.copyfile(model, copy)
    calib = np.load(calib_nhwc)
    # onnx2tf downloads sample images from GitHub to check its outputs; use
    # the calibration images instead (this machine reaches only PyPI).
    o.download_test_image_data = lambda: calib
    o.convert(input_onnx_file_path=str(copy), output_folder_path=str(out),
              overwrite_input_shape=[f"{inp}:1,3,{size},{size}"], output_integer_quantized_tflite=True,
              quant_type="per-channel", input_quant_dtype="int8", output_quant_dtype="int8", non_verbose=True,
              custom_input_op_name_np_data_path=[[inp, str(calib_nhwc), MEAN.reshape(1, 1, 1, 3).tolist(),
                                                  STD.reshape(1, 1, 1, 3).tolist()]])
    return out / f"{copy.stem}_full_integer_quant.tflite"


def vela(tflite, accel, out):
    """(total cycles, TRANSPOSE cycles, CPU operators) from Vela's per-layer CSV."""
    r = subprocess.run([VELA, str(tflite), "--accelerator-config", accel, "--verbose-performance",
                        "--output-dir", str(out)], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"vela failed on {tflite}:\n{r.stderr[-2000:]}")
    rows = list(csv.DictReader(open(out / f"{tflite.stem}_per-layer.csv")))
    total = sum(float(x["Op Cycles"]) for x in rows)
    tr = sum(float(x["Op Cycles"]) for x in rows if x["Original Operator"] == "Transpose")
    return total, tr, sum(1 for x in rows if x["Target"] != "NPU")


def transposes(edgec, tflite):
    listing = subprocess.run([edgec, "inspect", str(tflite)], capture_output=True, text=True, check=True).stdout
    return sum(1 for line in listing.splitlines() if line.split()[1:2] == ["Transpose"] and line.startswith("  op"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--edgec", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--size", type=int, default=640)
    ap.add_argument("--out", required=True)
    ap.add_argument("--accels", default="ethos-u55-256,ethos-u65-512")
    a = ap.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    inp = onnx.load(a.model, load_external_data=False).graph.input[0].name
    images = np.random.default_rng(0).uniform(0, 1, (4, a.size, a.size, 3)).astype(np.float32)
    np.save(out / "calib_nhwc.npy", images)
    for i, img in enumerate(images):
        (out / "calib" / f"s{i}").mkdir(parents=True, exist_ok=True)
        np.save(out / "calib" / f"s{i}" / f"{inp}.npy", ((img - MEAN) / STD).transpose(2, 0, 1)[None])
    ours = out / "edgec.tflite"
    subprocess.run([a.edgec, "compile", a.model, "--target", "ethos-u55-256", "--shape",
                    f"{inp}=1,3,{a.size},{a.size}", "--quantize", "int8", "--calib", str(out / "calib"),
                    "--emit", "tflite", "-o", str(ours)], check=True)
    theirs = onnx2tf_convert(Path(a.model), out / "onnx2tf", out / "calib_nhwc.npy", inp, a.size)
    name = Path(a.model).parent.name
    print(f"\n{name} at 1x3x{a.size}x{a.size}; TRANSPOSE operators: edgec {transposes(a.edgec, ours)}, "
          f"onnx2tf {transposes(a.edgec, theirs)}\n")
    print("| accelerator | edgec cycles | onnx2tf cycles (transposes' share) | edgec / onnx2tf |")
    print("|---|---|---|---|")
    for acc in a.accels.split(","):
        e, _, ecpu = vela(ours, acc, out / f"vela-edgec-{acc}")
        t, ttr, tcpu = vela(theirs, acc, out / f"vela-onnx2tf-{acc}")
        cpu = "" if ecpu == tcpu == 0 else f" (CPU operations: edgec {ecpu}, onnx2tf {tcpu})"
        print(f"| {acc} | {e:,.0f} | {t:,.0f} ({100 * ttr / t:.0f}%) | {e / t:.3f}{cpu} |", flush=True)


if __name__ == "__main__":
    main()
