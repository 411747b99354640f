#!/usr/bin/env bash
# Fetch the ONNX backend conformance test data into target/onnx-tests/.
#
# The data ships inside the official `onnx` wheel on PyPI
# (onnx/backend/test/data/...). We download one wheel with pip (no install,
# no dependencies, binary only so nothing is built), and extract the test
# directories with Python's zipfile module (unzip may be missing).
#
# Usage: testsuite/conformance/fetch.sh        (works from any cwd)
# Environment:
#   ONNX_VERSION   onnx release to take the data from (default 1.22.0)
#   FORCE=1        re-extract even if the stamp file says it is done
#
# Idempotent: a stamp file target/onnx-tests/.stamp records the version that
# was extracted; a second run with the same version does nothing. The wheel
# itself is cached in target/onnx-wheel/.
set -euo pipefail

ONNX_VERSION="${ONNX_VERSION:-1.22.0}"
SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPT_DIR/../.." && pwd)"
DEST="$REPO_ROOT/target/onnx-tests"
WHEEL_DIR="$REPO_ROOT/target/onnx-wheel"
STAMP="$DEST/.stamp"
PYTHON="${PYTHON:-python3}"

count_node_tests() {
    find "$DEST/node" -mindepth 1 -maxdepth 1 -type d -name 'test_*' | wc -l | tr -d ' '
}

if [[ "${FORCE:-0}" != "1" && -f "$STAMP" && "$(cat "$STAMP")" == "onnx==$ONNX_VERSION" ]]; then
    echo "onnx-tests: onnx==$ONNX_VERSION already extracted in $DEST"
    echo "onnx-tests: $(count_node_tests) node tests"
    exit 0
fi

mkdir -p "$WHEEL_DIR"
wheel="$(find "$WHEEL_DIR" -maxdepth 1 -name "onnx-${ONNX_VERSION}-*.whl" | head -n 1)"
if [[ -z "$wheel" ]]; then
    echo "onnx-tests: downloading onnx==$ONNX_VERSION wheel from PyPI"
    # The test data is the same in every wheel; ask for one fixed CPython/Linux
    # build so the result does not depend on the host. Newer onnx releases are
    # tagged manylinux_2_27/2_28, older ones manylinux_2_17; accept all.
    "$PYTHON" -m pip download "onnx==$ONNX_VERSION" \
        --no-deps --only-binary=:all: \
        --platform manylinux_2_28_x86_64 \
        --platform manylinux_2_27_x86_64 \
        --platform manylinux_2_17_x86_64 \
        --platform manylinux2014_x86_64 \
        --implementation cp --python-version 3.11 \
        --disable-pip-version-check --quiet \
        -d "$WHEEL_DIR"
    wheel="$(find "$WHEEL_DIR" -maxdepth 1 -name "onnx-${ONNX_VERSION}-*.whl" | head -n 1)"
    if [[ -z "$wheel" ]]; then
        echo "onnx-tests: pip did not produce an onnx-${ONNX_VERSION} wheel in $WHEEL_DIR" >&2
        exit 1
    fi
fi
echo "onnx-tests: extracting $(basename "$wheel")"

# Extract into a scratch directory next to DEST, then swap it in, so an
# interrupted run never leaves a half-populated target/onnx-tests behind.
mkdir -p "$REPO_ROOT/target"
TMP="$(mktemp -d "$REPO_ROOT/target/onnx-tests.tmp.XXXXXX")"
trap 'rm -rf "$TMP"' EXIT

"$PYTHON" - "$wheel" "$TMP" <<'PY'
import os
import shutil
import sys
import zipfile

wheel, out = sys.argv[1], sys.argv[2]
prefix = "onnx/backend/test/data/"
wanted = ("node", "light", "pytorch-converted", "pytorch-operator", "simple", "real")
counts = {}
with zipfile.ZipFile(wheel) as zf:
    for info in zf.infolist():
        name = info.filename
        if not name.startswith(prefix) or name.endswith("/"):
            continue
        rel = name[len(prefix):]
        top = rel.split("/", 1)[0]
        if top not in wanted:
            continue
        parts = rel.split("/")
        if any(p in ("", ".", "..") for p in parts):
            raise SystemExit(f"refusing suspicious path in wheel: {name}")
        target = os.path.join(out, *parts)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with zf.open(info) as src, open(target, "wb") as dst:
            shutil.copyfileobj(src, dst)
        counts[top] = counts.get(top, 0) + 1
if "node" not in counts:
    raise SystemExit("wheel has no onnx/backend/test/data/node directory")
for top in wanted:
    if top in counts:
        print(f"onnx-tests: {top}: {counts[top]} files")
PY

echo "onnx==$ONNX_VERSION" > "$TMP/.stamp"
rm -rf "$DEST"
mv "$TMP" "$DEST"
trap - EXIT
echo "onnx-tests: extracted into $DEST"
echo "onnx-tests: $(count_node_tests) node tests"
