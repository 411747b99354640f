#!/usr/bin/env bash
# The whole wild-model campaign: every model of testsuite/wild/models.toml
# through import, the interpreter, `opt --target cpu`, `opt --target
# rk3588-npu --shape ...` and `compile` (no flags) + `verify`, each on the
# onnxruntime reference data of fetch.sh. Writes the per-model table to
# testsuite/wild/results.md (the README quotes it).
#
# Usage: bash testsuite/wild/run.sh [ID ...]      (about an hour for all)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
bash testsuite/wild/fetch.sh "$@" || echo "wild: some models could not be prepared (listed above)"
cargo build -q --release -p compiler --bin edgec
exec target/wild/venv/bin/python testsuite/wild/run.py --manifest testsuite/wild/models.toml \
    --wild target/wild --edgec target/release/edgec --table testsuite/wild/results.md "$@"
