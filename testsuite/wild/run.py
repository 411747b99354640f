"""The whole wild-corpus campaign (see run.sh): every model through every stage.

Stages, each timed: import; the reference interpreter on both data sets;
`edgec opt --target cpu` then verify on both; `edgec opt --target
rk3588-npu --shape ...` (the size-0 shapes) then verify on data set 0; and
`edgec compile` with no flags, then `edgec verify CRATE` on both data sets.
Writes a markdown table (one row per model, PASS/FAIL per stage with its
time) to --table and the reasons of every failure after it.
"""

import argparse
import json
import os
import subprocess
import sys
import time
import tomllib


def run(cmd, timeout):
    t = time.perf_counter()
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        ok, err = r.returncode == 0, (r.stderr + r.stdout)
    except subprocess.TimeoutExpired:
        ok, err = False, f"timed out after {timeout} s"
    return ok, time.perf_counter() - t, err


def last_error(text):
    """The first error line and the two lines after it (the details)."""
    lines = text.splitlines()
    at = next((i for i, l in enumerate(lines) if "error" in l.lower() or "FAIL" in l), None)
    if at is None:
        return (lines[-1] if lines else "failed")[:300]
    return " ".join(l.strip() for l in lines[at:at + 3])[:400]


def tol_args(m, stage):
    t = m.get("tolerance", {}).get(stage) or m.get("tolerance", {}).get("all")
    return ["--rtol", str(t[0]), "--atol", str(t[1])] if t else []


def stages(edgec, m, d, work, timeout):
    model = os.path.join(d, "model.onnx")
    sets = [os.path.join(d, f"test_data_set_{k}") for k in range(2)]
    both = sum((["--data", s] for s in sets), [])
    shapes = sum((["--shape", f"{n}={','.join(map(str, s['shapes'][0]))}"] for n, s in m["inputs"].items()), [])
    cpu, npu, crate = (os.path.join(work, x) for x in ("cpu.eir", "npu.eir", "crate"))
    yield "import", [[edgec, "import", model, "-o", os.path.join(work, "import.eir")]]
    yield "interp", [[edgec, "verify", model] + both + tol_args(m, "interp")]
    yield "opt cpu", [[edgec, "opt", model, "--target", "cpu", "-o", cpu], [edgec, "verify", cpu] + both + tol_args(m, "cpu")]
    yield "opt npu", [
        [edgec, "opt", model, "--target", "rk3588-npu", "-o", npu] + shapes,
        [edgec, "verify", npu, "--data", sets[0]] + tol_args(m, "npu"),
    ]
    yield "rust", [[edgec, "compile", model, "-o", crate], [edgec, "verify", crate] + both + tol_args(m, "rust")]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--manifest", required=True)
    ap.add_argument("--wild", required=True)
    ap.add_argument("--edgec", required=True)
    ap.add_argument("--table", required=True)
    ap.add_argument("--timeout", type=int, default=1800)
    ap.add_argument("ids", nargs="*")
    a = ap.parse_args()
    models = tomllib.load(open(a.manifest, "rb"))["model"]
    if a.ids:
        models = [m for m in models if m["id"] in a.ids]
    rows, notes, totals = [], [], {}
    for m in models:
        d = os.path.join(a.wild, "models", m["id"])
        work = os.path.join(a.wild, "work", m["id"])
        os.makedirs(work, exist_ok=True)
        cells = []
        if not os.path.exists(os.path.join(d, "meta.json")):
            cells = ["no data (fetch failed)"] * 5
            notes.append(f"- `{m['id']}`: fetch.sh could not prepare it")
        else:
            for name, cmds in stages(a.edgec, m, d, work, a.timeout):
                ok, secs, err = True, 0.0, ""
                for c in cmds:
                    ok, dt, err = run(c, a.timeout)
                    secs += dt
                    if not ok:
                        break
                unstable = m.get("reference") == "unstable" and name != "import"
                verdict = "PASS" if ok else ("RAN" if unstable and "failed verification" in err else "FAIL")
                ok = ok or verdict == "RAN"
                cells.append(f"{verdict} {secs:.1f}s")
                totals[name] = totals.get(name, 0) + ok
                if not ok:
                    notes.append(f"- `{m['id']}` {name}: {last_error(err)}")
        rows.append(f"| {m['id']} | {m['category']} | `{m['package']}` | " + " | ".join(cells) + " |")
        print(rows[-1], flush=True)
    head = "| model | kind | package | import | interpreter | opt cpu | opt rk3588-npu | Rust (no flags) |\n|---|---|---|---|---|---|---|---|\n"
    summary = " · ".join(f"{k}: {v}/{len(models)}" for k, v in totals.items())
    text = head + "\n".join(rows) + f"\n\nPassing: {summary}.\n"
    text += "\nRAN: every stage ran, outputs not compared (the manifest marks the reference unstable and says why).\n"
    if notes:
        text += "\nFailures:\n" + "\n".join(notes) + "\n"
    open(a.table, "w").write(text)
    print(summary)
    sys.exit(0 if all(v == len(models) for v in totals.values()) and len(totals) == 5 else 1)


if __name__ == "__main__":
    main()
