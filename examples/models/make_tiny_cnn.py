#!/usr/bin/env python3
"""Writes tiny_cnn.src.eir: a small CNN in edgec IR with deterministic weights.

`edgec parse tiny_cnn.src.eir -o tiny_cnn.eir` then moves the large constants
into the tiny_cnn.weights sidecar. Result dims are left as `?` on purpose so
`shape-infer` has work to do; an Identity, an inference Dropout and a dead op
give `canonicalize` and `dce` something to remove.
"""

def lcg(seed):
    x = seed
    while True:
        x = (x * 6364136223846793005 + 1442695040888963407) % 2**64
        yield ((x >> 33) / 2**31 - 0.5) * 0.5

def dense(n, gen):
    return ", ".join(repr(round(next(gen), 4)) for _ in range(n))

g = lcg(42)
consts = [
    ("conv1.w", "f32[8, 3, 3, 3]", dense(8 * 27, g)),
    ("conv1.b", "f32[8]", dense(8, g)),
    ("conv2.w", "f32[16, 8, 3, 3]", dense(16 * 72, g)),
    ("conv2.b", "f32[16]", dense(16, g)),
    ("fc.w", "f32[10, 16]", dense(160, g)),
    ("fc.b", "f32[10]", dense(10, g)),
]
lines = ['module @tiny_cnn attributes {phase = "onnx", onnx.opset = 17} {']
for name, ty, vals in consts:
    lines.append(f"  const @{name} : {ty} = dense<[{vals}]>")
lines.append("")
lines.append("  func @main(%image: f32[batch, 3, 32, 32]) -> (f32[batch, 10]) {")
body = """\
%w1 = core.const {value = @conv1.w} : f32[8, 3, 3, 3]
%b1 = core.const {value = @conv1.b} : f32[8]
%c1 = onnx.Conv %image, %w1, %b1 {kernel_shape = [3, 3], pads = [1, 1, 1, 1]} : f32[batch, 8, ?, ?] loc("/conv1/Conv" op "Conv")
%r1 = onnx.Relu %c1 : f32[batch, 8, ?, ?] loc("/relu1/Relu" op "Relu")
%p1 = onnx.MaxPool %r1 {kernel_shape = [2, 2], strides = [2, 2]} : f32[batch, 8, ?, ?] loc("/pool1/MaxPool" op "MaxPool")
%w2 = core.const {value = @conv2.w} : f32[16, 8, 3, 3]
%b2 = core.const {value = @conv2.b} : f32[16]
%c2 = onnx.Conv %p1, %w2, %b2 {pads = [1, 1, 1, 1], strides = [2, 2]} : f32[batch, 16, ?, ?] loc("/conv2/Conv" op "Conv")
%id = onnx.Identity %c2 : f32[batch, 16, ?, ?] loc("/Identity" op "Identity")
%r2 = onnx.Relu %id : f32[batch, 16, ?, ?] loc("/relu2/Relu" op "Relu")
%dead = onnx.Sigmoid %r2 : f32[batch, 16, ?, ?] loc("/unused/Sigmoid" op "Sigmoid")
%gp = onnx.GlobalAveragePool %r2 : f32[batch, 16, ?, ?] loc("/gap/GlobalAveragePool" op "GlobalAveragePool")
%fl = onnx.Flatten %gp : f32[batch, ?] loc("/Flatten" op "Flatten")
%wf = core.const {value = @fc.w} : f32[10, 16]
%bf = core.const {value = @fc.b} : f32[10]
%fc = onnx.Gemm %fl, %wf, %bf {transB = 1} : f32[batch, 10] loc("/fc/Gemm" op "Gemm")
%dr = onnx.Dropout %fc : f32[batch, 10] loc("/dropout/Dropout" op "Dropout")
%sm = onnx.Softmax %dr {axis = 1} : f32[batch, 10] loc("/Softmax" op "Softmax")
return %sm"""
lines += ["    " + l for l in body.splitlines()]
lines += ["  }", "}"]
with open("tiny_cnn.src.eir", "w") as f:
    f.write("\n".join(lines) + "\n")
