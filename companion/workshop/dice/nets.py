"""The two networks (torch; imported only by training and export, never at run time)."""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F


def cbr(i: int, o: int, s: int = 1, k: int = 3) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(i, o, k, s, k // 2, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True))


def separable(i: int, o: int, s: int = 1) -> nn.Sequential:
    """3x3 depthwise then 1x1 pointwise conv (each with BN, ReLU): a fifth to a tenth of cbr's multiply-adds."""
    return nn.Sequential(nn.Conv2d(i, i, 3, s, 1, groups=i, bias=False), nn.BatchNorm2d(i), nn.ReLU(inplace=True),
                         nn.Conv2d(i, o, 1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True))


class DiceDetector(nn.Module):
    """Tiny FPN-ish fully convolutional net; outputs at stride 4: centre heatmap logits, 4 regressions."""

    def __init__(self, c=(8, 16, 24, 40, 64), d=(32, 24, 16)):
        super().__init__()
        c1, c2, c3, c4, c5 = c
        d4, d3, d2 = d
        self.s1 = cbr(3, c1, 2)
        self.s2 = cbr(c1, c2, 2)
        self.s3 = nn.Sequential(cbr(c2, c3, 2), cbr(c3, c3))
        self.s4 = nn.Sequential(cbr(c3, c4, 2), cbr(c4, c4))
        self.s5 = nn.Sequential(cbr(c4, c5, 2), cbr(c5, c5))
        self.l4, self.t5, self.m4 = nn.Conv2d(c4, d4, 1), nn.Conv2d(c5, d4, 1), cbr(d4, d4)
        self.l3, self.t4, self.m3 = nn.Conv2d(c3, d3, 1), nn.Conv2d(d4, d3, 1), cbr(d3, d3)
        self.l2, self.t3, self.m2 = nn.Conv2d(c2, d2, 1), nn.Conv2d(d3, d2, 1), cbr(d2, d2)
        self.hm = nn.Conv2d(d2, 1, 1)
        self.reg = nn.Conv2d(d2, 4, 1)
        nn.init.constant_(self.hm.bias, -2.2)

    @staticmethod
    def up(x):
        return F.interpolate(x, scale_factor=2.0, mode="nearest")

    def forward(self, x):
        f2 = self.s2(self.s1(x))
        f3 = self.s3(f2)
        f4 = self.s4(f3)
        f5 = self.s5(f4)
        p4 = self.m4(self.l4(f4) + self.up(self.t5(f5)))
        p3 = self.m3(self.l3(f3) + self.up(self.t4(p4)))
        p2 = self.m2(self.l2(f2) + self.up(self.t3(p3)))
        return self.hm(p2), self.reg(p2)


class DetectorExport(nn.Module):
    def __init__(self, net: DiceDetector):
        super().__init__()
        self.net = net

    def forward(self, x):
        hm, reg = self.net(x)
        return torch.sigmoid(hm), reg


class DiceClassifier(nn.Module):
    """Six conv-BN-ReLU layers, a pool, linear (about 8 M multiply-adds per 48 px crop; the shipped kind).

    ``grid`` 0 pools the last features globally (position thrown away); ``grid`` 3 averages them over
    a 3x3 grid of overlapping cells instead, so the linear layer sees where on the die each feature
    is (a pip in the centre tells 5 from 4) at no measurable cost.
    ``full_res_stem`` keeps the first layer at the full crop resolution and downsamples in the second
    instead (about 9 M multiply-adds, but 1.4x the run time); it did not beat the default on the
    validation photos (models/dice_classifier.md).
    ``separable_layers`` makes every layer after the first a depthwise-separable one (``separable``), and
    ``extra_layers`` adds that many more at the last resolution (named variants: ``CLASSIFIER_ARCHS``):
    4x faster, but they read the validation photos worse within the training budget (model card).
    ``embed_dim`` adds a second head beside the linear one: a unit vector per crop (``embedding``), trained so
    that crops of one face of one set of dice lie together (train.py's episodes): what a taught dice profile
    (``companion.vision.profile``) compares.
    """

    def __init__(self, n_classes: int, c=(16, 24, 32, 48, 64, 96), full_res_stem: bool = False, grid: int = 0,
                 separable_layers: bool = False, extra_layers: int = 0, embed_dim: int = 0):
        super().__init__()
        if grid not in (0, 3):
            raise ValueError("grid must be 0 (global pool) or 3")
        s1, s2 = (1, 2) if full_res_stem else (2, 1)
        block = separable if separable_layers else cbr
        self.body = nn.Sequential(
            cbr(3, c[0], s1), block(c[0], c[1], s2), block(c[1], c[2], 2), block(c[2], c[3]), block(c[3], c[4], 2),
            block(c[4], c[5]), *[block(c[5], c[5]) for _ in range(extra_layers)],
        )
        # 3x3 cells from the 5x5 (40 px crop) or 6x6 (48 px) feature map, zero padding counted: a plain
        # AveragePool that OpenCV's DNN reads as onnxruntime does (it ignores count_include_pad=0, and an
        # adaptive pool does not export for 5 -> 3)
        self.pool = nn.AvgPool2d(3, 2, 1) if grid else None
        self.drop = nn.Dropout(0.2)
        self.fc = nn.Linear(c[5] * max(1, grid) ** 2, n_classes)
        self.embed = nn.Linear(c[5] * max(1, grid) ** 2, embed_dim) if embed_dim else None

    def embedding(self, pooled):
        """Unit vectors from ``pooled`` features (the second head; needs ``embed_dim``)."""
        return F.normalize(self.embed(pooled), dim=1)

    def pooled(self, x):
        """The features the linear layer sees: one vector per crop (per cell of the grid, flattened)."""
        x = self.body(x)
        return torch.flatten(self.pool(x), 1) if self.pool is not None else x.mean(dim=(2, 3))

    def forward(self, x):
        return self.fc(self.drop(self.pooled(x)))


class D8Reader(nn.Module):
    """Reads the numeral on the upward face of a d8 (stage 2b, ``d8read``): seven conv-BN-ReLU layers on a
    64 px crop, the 4x4 map of the last flattened (where a stroke is counts: a 1 and a 7 differ there), linear
    over values 1-8 and "unreadable". About 31 M multiply-adds per crop; it runs on the d8 finds only."""

    def __init__(self, n_classes: int = 9, c=(24, 32, 48, 64, 96, 128), size: int = 64):
        super().__init__()
        if size % 16:
            raise ValueError("size must be a multiple of 16")
        self.body = nn.Sequential(cbr(3, c[0], 2), cbr(c[0], c[1]), cbr(c[1], c[2], 2), cbr(c[2], c[3]),
                                  cbr(c[3], c[4], 2), cbr(c[4], c[5]), cbr(c[5], c[5], 2))
        self.drop = nn.Dropout(0.3)
        self.fc = nn.Linear(c[5] * (size // 16) ** 2, n_classes)

    def forward(self, x):
        return self.fc(self.drop(torch.flatten(self.body(x), 1)))


# named classifier variants (train.py --cls-arch): keyword arguments of DiceClassifier
CLASSIFIER_ARCHS = {
    "conv": {},
    "separable": {"separable_layers": True, "c": (16, 32, 48, 64, 96, 128)},
    "separable-deep": {"separable_layers": True, "extra_layers": 2},
}


class ClassifierExport(nn.Module):
    """Bakes the calibration temperature into the graph: outputs logits / T, and the embedding when the net
    has that head (outputs ``logits``, ``embedding``)."""

    def __init__(self, net: nn.Module, temperature: float):
        super().__init__()
        self.net = net
        self.register_buffer("inv_t", torch.tensor(1.0 / temperature))

    def forward(self, x):
        if getattr(self.net, "embed", None) is None:
            return self.net(x) * self.inv_t
        pooled = self.net.pooled(x)
        return self.net.fc(pooled) * self.inv_t, self.net.embedding(pooled)


def export_onnx(module: nn.Module, example, path, inputs, outputs, dynamic_axes) -> None:
    module.eval()
    torch.onnx.export(module, example, str(path), input_names=inputs, output_names=outputs,
                      dynamic_axes=dynamic_axes, opset_version=13, dynamo=False, do_constant_folding=True)
