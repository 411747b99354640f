#!/usr/bin/env bash
# Makes sure this machine can cross-build for aarch64-unknown-linux-gnu and
# run the binaries under qemu-user: the rustup target, Debian's cross linker
# and libc, and qemu-user. Installs what is missing (apt needs root) and
# fails naming what it could not install.
set -euo pipefail
T=aarch64-unknown-linux-gnu
if ! rustup target list --installed | grep -qx "$T"; then
    echo "aarch64 setup: rustup target add $T"
    rustup target add "$T"
fi
need=()
command -v aarch64-linux-gnu-gcc >/dev/null || need+=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross)
command -v qemu-aarch64 >/dev/null || need+=(qemu-user)
if ((${#need[@]})); then
    if [ "$(id -u)" != 0 ]; then
        echo "aarch64 setup: missing Debian packages ${need[*]} (run as root, or: sudo apt-get install ${need[*]})" >&2
        exit 1
    fi
    echo "aarch64 setup: apt-get install ${need[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -q --no-install-recommends "${need[@]}" >/dev/null ||
        { apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends "${need[@]}" >/dev/null; }
fi
echo "aarch64 setup: $(rustc --version), $(aarch64-linux-gnu-gcc --version | head -1), $(qemu-aarch64 --version | head -1)"
