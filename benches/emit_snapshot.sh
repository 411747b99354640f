#!/usr/bin/env bash
# Emit (without building) the Rust crate of every bundled, real, light and
# ONNX node-test model with a given edgec binary, keeping each src/lib.rs, so
# two builds of edgec can be compared: what a refactor changed in generated code.
#
#   bash benches/emit_snapshot.sh OLD/edgec /tmp/snap_old
#   bash benches/emit_snapshot.sh NEW/edgec /tmp/snap_new
#   diff -r /tmp/snap_old /tmp/snap_new
#
# Needs the ONNX test data (testsuite/conformance/fetch.sh). Prints how many
# models compiled and how many did not (their errors are kept as NAME.err).
set -euo pipefail
edgec=$(realpath "$1")
out=$2
mkdir -p "$out"
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for m in testsuite/models/*/model.onnx testsuite/models/real/*/model.onnx target/onnx-tests/light/*.onnx \
    target/onnx-tests/node/*/model.onnx; do
    n=$(echo "$m" | tr '/' '_')
    rm -rf "$tmp/c"
    if "$edgec" compile "$m" -o "$tmp/c" >/dev/null 2>"$out/$n.err"; then
        cp "$tmp/c/src/lib.rs" "$out/$n.rs"
        rm "$out/$n.err"
    fi
done
echo "compiled: $(ls "$out" | grep -c '\.rs$'), not compiled: $(ls "$out" | grep -c '\.err$' || true)"
