# Sourced by the benchmark scripts (after `cd "$ROOT"`): the benchmark venv
# (onnxruntime, onnx and numpy from PyPI, made on first use) as $PY, a
# release edgec as $EDGEC, and the helpers every table needs.
VENV="$ROOT/target/bench-venv"
if [[ ! -x "$VENV/bin/python" ]]; then
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q onnxruntime onnx numpy
fi
PY="$VENV/bin/python"
cargo build -q --release -p compiler --bin edgec
EDGEC="$ROOT/target/release/edgec"

# The median of the numbers on stdin.
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# The value of the first `KEY=value` line on stdin (reads all of its input:
# an early close would break the writer's pipe).
field() { awk -F= -v k="$1" '$1 == k && !found { print $2; found = 1 }'; }
