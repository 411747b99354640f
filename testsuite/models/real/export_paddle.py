#!/usr/bin/env python3
"""Exports small PaddlePaddle models to ONNX with the real paddle2onnx exporter.

These are the "real exporter" counterparts of ../make_models.py: the graph
structure is exactly what paddle2onnx emits (Identity chains, HardSigmoid+Mul
for hardswish, decomposed LayerNorm, erf-GELU, Shape/Slice/Range position ids,
Constant nodes in the unoptimized variants), only the widths are reduced and
the weights are seeded random numbers so the files stay small and reproducible.

Setup (versions used to produce the committed files; no torch needed):

    python3 -m venv /tmp/pvenv
    /tmp/pvenv/bin/pip install paddlepaddle==3.3.1 paddle2onnx==2.1.0 \
        onnx==1.17.0 onnxruntime==1.32.0 numpy==2.4.6 polygraphy==0.53.6
    /tmp/pvenv/bin/python testsuite/models/real/export_paddle.py [NAME ...]

With no NAME every model is rebuilt. Each model lands in
testsuite/models/real/<name>/model.onnx with test_data_set_<k>/input_<i>.pb
and output_<i>.pb (ONNX TensorProto), the layout `edgec verify` reads:

    edgec verify testsuite/models/real/<name>/model.onnx

Reference outputs are computed by onnxruntime on seeded random inputs and are
cross-checked against Paddle's own dygraph forward pass (the script fails if
they disagree). Export settings: opset 13 without auto-upgrade.
`optimize_tool="polygraphy"` is paddle2onnx's default (constant folding, which
removes the Constant nodes and shape arithmetic on static shapes);
`optimize_tool="None"` keeps the converter's raw output. paddle2onnx 2.1 never
fuses BatchNormalization into Conv, in either mode.

Models:
- mobilenetv3_small_paddle:     paddle.vision mobilenet_v3_small(scale=0.5, num_classes=10),
                                [1,3,224,224], default (polygraphy) pipeline.
- mobilenetv3_small_paddle_raw: the same network, optimize_tool=None (Constant nodes,
                                Shape/Slice/Concat/Reshape flatten).
- bert_encoder_paddle:          Embedding + nn.TransformerEncoder(2 layers, d 64, 4 heads,
                                ff 128, gelu, post-norm), inputs input_ids/attention_mask
                                int64 [1, seq] with seq dynamic; two data sets (seq 16, 7).
- bert_encoder_paddle_static:   the same with seq fixed to 16.
- bert12_paddle:                12 layers, seq 32 static, optimize_tool=None (~1.5k nodes),
                                for benchmarks.
- vit_tiny_paddle:              ViT-like: Conv patch embedding, cls token, pre-norm
                                TransformerEncoder (2 layers), [1,3,32,32] -> 10 classes.
- ppocr_det_paddle:             PP-OCR-style text detector: Conv+BN+hardswish backbone,
                                FPN with nearest upsampling, DB head with Conv2DTranspose
                                and Sigmoid, [1,3,64,64].
"""
import collections
import os
import sys
import tempfile

import numpy as np
import onnx
import onnxruntime as ort
import paddle
import paddle.nn as nn
import paddle.nn.functional as F
import paddle2onnx
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
OPSET = 13
SEED = 20261202


def init_params(layer, seed):
    """Overwrites every parameter and buffer with seeded numpy values.

    Paddle's own initializers depend on its RNG implementation; numpy keeps the
    files reproducible across Paddle versions. BN variances stay positive and
    norm scales stay near 1 so activations keep a sane range.
    """
    rng = np.random.default_rng(seed)
    state = {}
    for name, t in layer.state_dict().items():
        shape = list(t.shape)
        if name.endswith("_variance"):
            v = rng.uniform(0.5, 1.5, shape)
        elif name.endswith("_mean"):
            v = rng.normal(0.0, 0.1, shape)
        elif len(shape) == 1 and name.endswith("weight"):
            v = 1.0 + rng.normal(0.0, 0.1, shape)
        elif len(shape) == 1:
            v = rng.normal(0.0, 0.05, shape)
        elif len(shape) == 2:
            v = rng.normal(0.0, 1.0 / np.sqrt(shape[0]), shape)
        elif len(shape) == 4:
            v = rng.normal(0.0, np.sqrt(2.0 / np.prod(shape[1:])), shape)
        else:
            v = rng.normal(0.0, 0.1, shape)
        state[name] = v.astype(str(t.dtype).replace("paddle.", ""))
    layer.set_state_dict(state)


class Bert(nn.Layer):
    """BERT-like encoder: word + position embeddings, LayerNorm, post-norm encoder, tanh pooler."""

    def __init__(self, layers, vocab=512, d_model=64, max_pos=64):
        super().__init__()
        self.word = nn.Embedding(vocab, d_model)
        self.pos = nn.Embedding(max_pos, d_model)
        self.norm = nn.LayerNorm(d_model)
        layer = nn.TransformerEncoderLayer(
            d_model, 4, 128, dropout=0.0, activation="gelu", normalize_before=False
        )
        self.encoder = nn.TransformerEncoder(layer, layers)
        self.pooler = nn.Linear(d_model, d_model)

    def forward(self, input_ids, attention_mask):
        seq = paddle.shape(input_ids)[1]
        pos = paddle.arange(seq, dtype="int64").unsqueeze(0)
        x = self.norm(self.word(input_ids) + self.pos(pos))
        mask = (1.0 - attention_mask.astype("float32")) * -10000.0
        hidden = self.encoder(x, mask.unsqueeze([1, 2]))
        return hidden, paddle.tanh(self.pooler(hidden[:, 0]))


class ViT(nn.Layer):
    """ViT-like classifier: patch embedding conv, cls token, pre-norm encoder."""

    def __init__(self, img=32, patch=8, d_model=64, layers=2, classes=10):
        super().__init__()
        n = (img // patch) ** 2
        self.patch = nn.Conv2D(3, d_model, patch, stride=patch)
        self.cls = self.create_parameter([1, 1, d_model])
        self.pos = self.create_parameter([1, n + 1, d_model])
        layer = nn.TransformerEncoderLayer(
            d_model, 4, 128, dropout=0.0, activation="gelu", normalize_before=True
        )
        self.encoder = nn.TransformerEncoder(layer, layers)
        self.norm = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, classes)

    def forward(self, x):
        x = self.patch(x).flatten(2).transpose([0, 2, 1])
        x = paddle.concat([self.cls.expand([x.shape[0], 1, x.shape[2]]), x], axis=1) + self.pos
        x = self.norm(self.encoder(x))
        return self.head(x[:, 0])


def conv_bn(cin, cout, k, stride, act):
    layers = [nn.Conv2D(cin, cout, k, stride=stride, padding=k // 2, bias_attr=False), nn.BatchNorm2D(cout)]
    return nn.Sequential(*layers, act()) if act else nn.Sequential(*layers)


def up(x, k):
    """Nearest upsampling by k. PP-OCR writes F.upsample(scale_factor=2), but
    paddle2onnx 2.1 rejects a float scale_factor ("the 0th elementwise MUST be
    ir::FloatAttribute"), so the static output size is given instead."""
    return F.interpolate(x, size=[x.shape[2] * k, x.shape[3] * k], mode="nearest")


class DBDet(nn.Layer):
    """PP-OCR-style detector: small MobileNet-ish backbone, FPN neck, DB head."""

    def __init__(self):
        super().__init__()
        self.stem = conv_bn(3, 8, 3, 2, nn.Hardswish)
        self.c2 = nn.Sequential(conv_bn(8, 8, 3, 1, nn.ReLU), conv_bn(8, 16, 3, 2, nn.Hardswish))
        self.c3 = conv_bn(16, 24, 3, 2, nn.Hardswish)
        self.c4 = conv_bn(24, 32, 3, 2, nn.Hardswish)
        self.lat = nn.LayerList([nn.Conv2D(c, 32, 1, bias_attr=False) for c in (16, 24, 32)])
        self.smooth = nn.LayerList([nn.Conv2D(32, 8, 3, padding=1, bias_attr=False) for _ in range(3)])
        self.head = nn.Sequential(
            conv_bn(24, 8, 3, 1, nn.ReLU),
            nn.Conv2DTranspose(8, 8, 2, stride=2),
            nn.BatchNorm2D(8),
            nn.ReLU(),
            nn.Conv2DTranspose(8, 1, 2, stride=2),
            nn.Sigmoid(),
        )

    def forward(self, x):
        f2 = self.c2(self.stem(x))
        f3 = self.c3(f2)
        f4 = self.c4(f3)
        p4 = self.lat[2](f4)
        p3 = self.lat[1](f3) + up(p4, 2)
        p2 = self.lat[0](f2) + up(p3, 2)
        o4 = up(self.smooth[2](p4), 4)
        o3 = up(self.smooth[1](p3), 2)
        fuse = paddle.concat([o4, o3, self.smooth[0](p2)], axis=1)
        return self.head(fuse)


def mobilenet():
    return paddle.vision.models.mobilenet_v3_small(scale=0.5, num_classes=10)


def image(shape):
    return lambda rng: [rng.standard_normal(shape).astype(np.float32)]


def token_feeds(seq, pad, vocab=512):
    """input_ids in [0, vocab) and an attention mask whose last `pad` positions are 0."""

    def make(rng):
        ids = rng.integers(0, vocab, size=(1, seq), dtype=np.int64)
        mask = np.ones((1, seq), dtype=np.int64)
        mask[:, seq - pad :] = 0
        return [ids, mask]

    return make


def token_spec(seq):
    return [
        paddle.static.InputSpec([1, seq], "int64", "input_ids"),
        paddle.static.InputSpec([1, seq], "int64", "attention_mask"),
    ]


def image_spec(shape):
    return [paddle.static.InputSpec(shape, "float32", "x")]


# name -> (constructor, input specs, optimize_tool, data-set generators)
MODELS = {
    "mobilenetv3_small_paddle": (mobilenet, image_spec([1, 3, 224, 224]), "polygraphy", [image([1, 3, 224, 224])]),
    "mobilenetv3_small_paddle_raw": (mobilenet, image_spec([1, 3, 224, 224]), "None", [image([1, 3, 224, 224])]),
    "bert_encoder_paddle": (lambda: Bert(2), token_spec(None), "polygraphy", [token_feeds(16, 3), token_feeds(7, 0)]),
    "bert_encoder_paddle_static": (lambda: Bert(2), token_spec(16), "polygraphy", [token_feeds(16, 5)]),
    "bert12_paddle": (lambda: Bert(12), token_spec(32), "None", [token_feeds(32, 6)]),
    "vit_tiny_paddle": (ViT, image_spec([1, 3, 32, 32]), "polygraphy", [image([1, 3, 32, 32])]),
    "ppocr_det_paddle": (DBDet, image_spec([1, 3, 64, 64]), "polygraphy", [image([1, 3, 64, 64])]),
}


def export(name, ctor, spec, tool, out_path, seed):
    """Builds the layer under fresh parameter names, then jit.save + paddle2onnx."""
    paddle.seed(seed)
    with paddle.utils.unique_name.guard():
        layer = ctor()
    init_params(layer, seed)
    layer.eval()
    with tempfile.TemporaryDirectory() as tmp:
        prefix = os.path.join(tmp, "inference")
        paddle.jit.save(layer, prefix, input_spec=spec)
        paddle2onnx.export(
            prefix + ".json",
            prefix + ".pdiparams",
            out_path,
            opset_version=OPSET,
            auto_upgrade_opset=False,
            optimize_tool=tool,
        )
    return layer


def write_data_sets(name, layer, model_path, feed_makers, seed):
    model = onnx.load(model_path)
    sess = ort.InferenceSession(model_path, providers=["CPUExecutionProvider"])
    d = os.path.dirname(model_path)
    for k, make in enumerate(feed_makers):
        feeds = make(np.random.default_rng(seed + 1000 * (k + 1)))
        names = [i.name for i in model.graph.input]
        outs = sess.run(None, dict(zip(names, feeds)))
        with paddle.no_grad():
            ref = layer(*[paddle.to_tensor(f) for f in feeds])
        ref = ref if isinstance(ref, (list, tuple)) else [ref]
        for o, r in zip(outs, ref):
            np.testing.assert_allclose(o, r.numpy(), rtol=1e-3, atol=1e-4, err_msg=f"{name}: ort vs paddle")
        sd = os.path.join(d, f"test_data_set_{k}")
        os.makedirs(sd, exist_ok=True)
        for i, (n, arr) in enumerate(zip(names, feeds)):
            with open(os.path.join(sd, f"input_{i}.pb"), "wb") as f:
                f.write(numpy_helper.from_array(arr, n).SerializeToString())
        for i, (o, arr) in enumerate(zip(model.graph.output, outs)):
            with open(os.path.join(sd, f"output_{i}.pb"), "wb") as f:
                f.write(numpy_helper.from_array(np.asarray(arr), o.name).SerializeToString())


def summarize(name, model_path):
    model = onnx.load(model_path)
    hist = collections.Counter(n.op_type for n in model.graph.node)
    ops = ", ".join(f"{k} {v}" for k, v in sorted(hist.items()))
    size = os.path.getsize(model_path)
    print(f"{name}: {len(model.graph.node)} nodes, {size} bytes, opset {OPSET}: {ops}")


def main(names):
    for idx, name in enumerate(MODELS):
        if names and name not in names:
            continue
        ctor, spec, tool, feed_makers = MODELS[name]
        d = os.path.join(HERE, name)
        os.makedirs(d, exist_ok=True)
        path = os.path.join(d, "model.onnx")
        seed = SEED + idx
        layer = export(name, ctor, spec, tool, path, seed)
        write_data_sets(name, layer, path, feed_makers, seed)
        summarize(name, path)


if __name__ == "__main__":
    main(sys.argv[1:])
