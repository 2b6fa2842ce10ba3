"""The fitted decision: two logistic regressions over the named features of features.py, their
weights data in weights.json (written by ``python -m torchclaims finder-fit``, read here): one
gives the probability that a passage makes a claim (the mark's confidence), the other, for a
passage that does, the probability that it denies it."""
from __future__ import annotations

import dataclasses
import functools
import json
import math
import operator
import pathlib

WEIGHTS = pathlib.Path(__file__).resolve().parent / "weights.json"


@dataclasses.dataclass(frozen=True)
class Logistic:
    names: tuple[str, ...]
    coef: tuple[float, ...]
    intercept: float

    def __call__(self, features: dict[str, float]) -> float:
        # the same products, summed in the same order as a loop over the names would
        z = self.intercept + sum(map(operator.mul, self.coef, map(features.__getitem__, self.names)))
        return 1 / (1 + math.exp(-max(-30.0, min(30.0, z))))

    def explain(self, features: dict[str, float], top: int = 3) -> str:
        """The features that weighed most in this decision, for a reader who asks why."""
        parts = sorted(((w * features[n], n) for n, w in zip(self.names, self.coef) if features[n]),
                       key=lambda p: -abs(p[0]))[:top]
        return ", ".join(f"{n} {v:+.1f}" for v, n in parts)


@dataclasses.dataclass(frozen=True)
class Model:
    makes: Logistic
    denies: Logistic
    fitted: dict


def _logistic(data: dict) -> Logistic:
    return Logistic(tuple(data["names"]), tuple(data["coef"]), float(data["intercept"]))


@functools.cache
def load(path: pathlib.Path = WEIGHTS) -> Model:
    data = json.loads(path.read_text(encoding="utf-8"))
    return Model(_logistic(data["makes"]), _logistic(data["denies"]), data.get("fitted", {}))
