"""Boxes and points a simulated worker draws on an item's image."""

from __future__ import annotations

import json
import random

IMAGE_SIZE = (640, 480)  # the simulated image every mark is drawn on (its inputImageProperties)


def marks(kind: str, labels: list[str], truth: random.Random, profile: str, careful: bool,
          rng: random.Random) -> str:
    """The JSON answer of a crowd-bounding-box (``kind``) or crowd-keypoint; ``truth`` is the item's own."""
    width, height = IMAGE_SIZE
    labels = labels or ["object"]
    real = [(truth.choice(labels), truth.uniform(0, 0.7), truth.uniform(0, 0.7)) for _ in range(truth.randint(1, 3))]
    if profile == "contrarian":
        real = [(labels[0], 0.0, 0.0)]
    elif not careful:
        real = [(rng.choice(labels), rng.uniform(0, 0.7), rng.uniform(0, 0.7))]
    drawn = [(label, max(0.0, x + rng.uniform(-0.02, 0.02)), max(0.0, y + rng.uniform(-0.02, 0.02)))
             for label, x, y in real]
    size = {"width": width, "height": height}
    if kind == "crowd-keypoint":
        points = [{"label": label, "x": round(x * width, 1), "y": round(y * height, 1)} for label, x, y in drawn]
        return json.dumps({"inputImageProperties": size, "keypoints": points})
    boxes = [{"label": label, "left": round(x * width), "top": round(y * height), "width": round(0.25 * width),
              "height": round(0.25 * height)} for label, x, y in drawn]
    return json.dumps({"boundingBoxes": boxes, "inputImageProperties": size})
