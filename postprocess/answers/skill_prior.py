"""A worker's assumed skill before their own judgements say otherwise."""

from __future__ import annotations

import math
from dataclasses import dataclass

# [answers] typical_prior_weight's bound: above ~1e15 its evidence is rounding error
TYPICAL_WEIGHT_MAX = 100000.0
# and below: a subnormal weight rounds its pseudo-counts to 0 (NaN confidences)
TYPICAL_WEIGHT_MIN = 1e-6
# the same for the prior's accuracy: within a millionth of 0 or 1 is as good as 0 or 1
ACCURACY_MIN, ACCURACY_MAX = 1e-6, 1 - 1e-6
WEIGHT_MIN = 1e-6  # judgements the prior is worth: fewer is as good as none, and a subnormal one underflows


@dataclass(frozen=True)
class SkillPrior:
    accuracy: float = 0.7  # a worker's assumed accuracy before their judgements say otherwise
    weight: float = 4.0  # how many judgements that assumption is worth
    crowd_weight: float = 0.0  # >0: the crowd's own accuracy, this prior worth so many judgements against it
    # >0: a worker is shrunk toward the typical worker, worth this many judgements a row; 0: weak prior alone
    typical_weight: float = 0.0

    def check(self) -> None:
        if not ACCURACY_MIN <= self.accuracy <= ACCURACY_MAX:  # NaN fails this too
            raise ValueError(f"skill prior {self.accuracy:g}: give an accuracy between {ACCURACY_MIN:g} and "
                             f"1 - {ACCURACY_MIN:g}")
        if not WEIGHT_MIN <= self.weight < math.inf:  # NaN fails this too: it would make every posterior NaN
            raise ValueError(f"skill prior weight {self.weight:g}: give a finite number of judgements, at least "
                             f"{WEIGHT_MIN:g}")
        if not 0 <= self.crowd_weight < math.inf:
            raise ValueError(f"skill prior crowd weight {self.crowd_weight}: give a finite number of judgements, "
                             "at least 0")
        if not (self.typical_weight == 0 or TYPICAL_WEIGHT_MIN <= self.typical_weight <= TYPICAL_WEIGHT_MAX):
            raise ValueError(f"typical worker prior weight {self.typical_weight}: give 0 (none) or a number of "
                             f"judgements between {TYPICAL_WEIGHT_MIN:g} and {TYPICAL_WEIGHT_MAX:g}")
