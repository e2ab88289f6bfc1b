"""The error categories of generated descriptions (seed 001's Table 1)."""

from __future__ import annotations

# Table 1, in the order of the annotation environment: (group, category key, label).
CATEGORIES: tuple[tuple[str, str, str], ...] = (
    ("People", "age", "Age"), ("People", "gender", "Gender"),
    ("People", "type of clothing", "Type of clothing"), ("People", "color of clothing", "Color of clothing"),
    ("Subject", "wrong-subject", "Wrong"), ("Subject", "similar-subject", "Similar"),
    ("Subject", "inexistent-subject", "Inexistent"), ("Subject", "extra subject", "Extra subject"),
    ("Object", "wrong-object", "Wrong"), ("Object", "similar-object", "Similar"),
    ("Object", "inexistent-object", "Inexistent"), ("Object", "extra object", "Extra object"),
    ("General", "stance", "Stance"), ("General", "activity", "Activity"), ("General", "position", "Position"),
    ("General", "number", "Number"), ("General", "scene/event/location", "Scene/event/location"),
    ("General", "other", "Other"), ("General", "color", "Color"),
    ("General", "generally unrelated", "Generally unrelated"),
)
CATEGORY_KEYS = tuple(c[1] for c in CATEGORIES)
