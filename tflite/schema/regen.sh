#!/usr/bin/env bash
# Regenerates src/schema/generated.rs from schema.fbs with planus-cli.
#
# schema.fbs is TensorFlow Lite's schema (tensorflow/compiler/mlir/lite/schema/
# schema.fbs as tflite-micro carries it at 90b983c2, Apache-2.0), with one
# change: the `(deprecated)` annotation is dropped from the REDUCE_WINDOW enum
# value, the ReduceWindowOptions union member and its table, which planus 1.3
# does not parse; annotations on fields, which it does, are kept. The wire
# format is unchanged (enum values and union tags keep their numbers).
#
#   cargo install planus-cli --version 1.3.0 --locked
#   bash tflite/schema/regen.sh
set -euo pipefail
cd "$(dirname "$0")/.."
planus rust -o src/schema/generated.rs schema/schema.fbs
rustfmt --edition 2021 src/schema/generated.rs
