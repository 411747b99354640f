#!/usr/bin/env bash
# The kernel crate's tests for aarch64 under qemu-user, once per CPU model:
# cortex-a53 (baseline NEON, no dot product) and max (dotprod, i8mm, SVE),
# so both sides of every run-time feature dispatch run.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash testsuite/aarch64/setup.sh
T=aarch64-unknown-linux-gnu
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
for cpu in cortex-a53 max; do
    echo "--- edgec-kernels tests on $T, qemu -cpu $cpu"
    CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="qemu-aarch64 -L /usr/aarch64-linux-gnu -cpu $cpu" \
        cargo test -q -p edgec-kernels --target "$T"
done
