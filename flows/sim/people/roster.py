"""A crowd that scales like a marketplace: profile shares, a size rule, heavy-tailed activity."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from flows.core.errors import ConfigError
from flows.sim.people.crowd_keys import check_crowd_keys
from flows.sim.people.crowd_model import PROFILE_DEFAULTS, Worker, new_worker

DAY_S = 86400.0


@dataclass(frozen=True)
class CrowdSpec:
    """A crowd file's rules; ``profiles`` holds (name, share or count, parameter overrides)."""

    seed: int
    profiles: tuple[tuple[str, float, dict[str, Any]], ...]
    by_share: bool
    count: int = 0
    images_per_worker: float = 0.0
    min_workers: int = 1
    activity: str = ""  # "", "lognormal" or "pareto"
    activity_shape: float = 1.0
    stay_days_mean: float = 0.0  # 0: workers never leave
    balance: str = ""  # [market] balance: the simulated requester's funds (default: the market's)

    def size(self, images_posted: int) -> int:
        if self.count:
            return self.count
        return max(self.min_workers, math.ceil(images_posted / self.images_per_worker))


def _number(path: Path, where: str, value: Any, low: float, high: float = math.inf) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        raise ConfigError(f"crowd file {path}: {where} must be a number in [{low}, {high}] (got {value!r})")
    return float(value)


def parse_spec(path: Path, spec: dict[str, Any], seed: int | None) -> CrowdSpec:
    """Check a crowd file's profiles, size, activity and arrivals; one-line errors naming the key."""
    check_crowd_keys(path, spec)
    profiles, by_share = [], any("share" in p for p in spec.get("profile", []))
    for prof in spec.get("profile", []):
        name = prof.get("name")
        if name not in PROFILE_DEFAULTS:
            raise ConfigError(f"crowd file {path}: unknown profile {name!r}; use one of {', '.join(PROFILE_DEFAULTS)}")
        key = "share" if by_share else "count"
        amount = _number(path, f"profile {name}.{key}", prof.get(key, 0), 0, 1 if by_share else math.inf)
        profiles.append((name, amount, {k: v for k, v in prof.items() if k not in ("name", "count", "share")}))
    size, activity, arrivals = (spec.get(k, {}) for k in ("size", "activity", "arrivals"))
    if by_share and not size:
        raise ConfigError(f"crowd file {path}: profiles with a share need a [size] table "
                          "(count = N, or images_per_worker = 24)")
    if by_share and abs(sum(p[1] for p in profiles) - 1) > 0.01:
        raise ConfigError(f"crowd file {path}: profile shares add up to {sum(p[1] for p in profiles):.3f}, not 1")
    dist = activity.get("distribution", "lognormal" if activity else "")
    if dist not in ("", "lognormal", "pareto"):
        raise ConfigError(f"crowd file {path}: [activity].distribution must be lognormal or pareto (got {dist!r})")
    shape = _number(path, "[activity] shape", activity.get("sigma", activity.get("alpha", 1.5)), 0.05, 10)
    return CrowdSpec(
        seed=spec.get("seed", 1) if seed is None else seed, profiles=tuple(profiles), by_share=by_share,
        count=int(_number(path, "[size].count", size.get("count", 0), 0)),
        images_per_worker=_number(path, "[size].images_per_worker", size.get("images_per_worker", 24), 0.1),
        min_workers=int(_number(path, "[size].min_workers", size.get("min_workers", 1), 1)),
        activity=dist, activity_shape=shape,
        stay_days_mean=_number(path, "[arrivals].stay_days_mean", arrivals.get("stay_days_mean", 0), 0),
        balance=str(spec.get("market", {}).get("balance", "")))


@dataclass(eq=False)
class Crowd(list[Worker]):
    """The workers of a crowd file, in arrival order; grows with the work posted (size rule)."""

    spec: CrowdSpec | None = None
    images_posted: int = 0
    started: bool = False
    stream: str = "worker"  # whose seed stream a made worker comes from: another stream, other people
    _seen: set[str] = field(default_factory=set)
    _dealt: dict[str, int] = field(default_factory=dict)

    def recruit(self, key: str, images: int, now: float) -> list[Worker]:
        """Newcomers once a piece of work (``key``: a HIT) of ``images`` images is posted at ``now``."""
        if not self.started:
            self.started = True
            for w in self:
                self._arrive(w, now)
        if self.spec is None or not self.spec.by_share or key in self._seen:
            return []
        self._seen.add(key)
        self.images_posted += images
        new = [self._arrive(self._make(len(self)), now) for _ in range(self.spec.size(self.images_posted) - len(self))]
        self.extend(new)
        return new

    def newcomer(self) -> Worker:
        """One more worker of the crowd's mix, made from its seed stream (the same index, the same person)."""
        worker = self._make(len(self))
        self.append(worker)
        return worker

    def _arrive(self, worker: Worker, now: float) -> Worker:
        worker.arrived_at = now
        worker.leaves_at = now + float(worker.params.get("stay_s", math.inf))
        return worker

    def _make(self, index: int) -> Worker:
        """Worker ``index``: the profile furthest behind its share, everything else from its own seed."""
        assert self.spec is not None
        rng = random.Random(f"{self.spec.seed}:{self.stream}:{index}")
        name, _, overrides = max(self.spec.profiles, key=lambda p: p[1] * (index + 1) - self._dealt.get(p[0], 0))
        ordinal = self._dealt.get(name, 0)
        self._dealt[name] = ordinal + 1
        return new_worker(name, personal_params(self.spec, name, overrides, ordinal, rng), rng)


def wider_pool(crowd: Crowd, stream: str) -> Crowd | None:
    """An empty crowd of the same profile mix from its own seed stream: the many more people of a large panel."""
    spec = crowd.spec
    if spec is None:
        return None
    total = sum(amount for _, amount, _ in spec.profiles)
    if total <= 0:
        return None
    shares = tuple((name, amount / total, over) for name, amount, over in spec.profiles if amount > 0)
    return Crowd(spec=replace(spec, profiles=shares, by_share=True), stream=stream)


def personal_params(spec: CrowdSpec, name: str, overrides: dict[str, Any], ordinal: int,
                    rng: random.Random) -> dict[str, Any]:
    """A worker's parameters: the profile's, the file's overrides, then what is the worker's own."""
    params = {**PROFILE_DEFAULTS[name], **overrides}
    if name == "template_ring":
        params["ring"] = ordinal // max(1, int(params["ring_size"]))
    if spec.activity == "lognormal":
        params["activity"] = float(params["activity"]) * rng.lognormvariate(0, spec.activity_shape)
    elif spec.activity == "pareto":
        params["activity"] = float(params["activity"]) * rng.paretovariate(spec.activity_shape)
    if spec.stay_days_mean:
        params["stay_s"] = rng.expovariate(1 / (spec.stay_days_mean * DAY_S))
    return params


def counted_crowd(spec: CrowdSpec) -> Crowd:
    """A scripted crowd: exactly ``count`` workers of each profile, drawn in file order."""
    rng = random.Random(spec.seed)
    crowd = Crowd(spec=spec)
    for name, count, overrides in spec.profiles:
        shared = {**PROFILE_DEFAULTS[name], **overrides}
        for ordinal in range(int(count)):
            personal = spec.activity or spec.stay_days_mean or name == "template_ring"
            # personal draws use their own stream so a plain scripted crowd keeps its seeded ids
            params = personal_params(spec, name, overrides, ordinal, random.Random(f"{spec.seed}:{name}:{ordinal}")) \
                if personal else shared
            crowd.append(new_worker(name, params, rng))
    return crowd


def shared_crowd(spec: CrowdSpec) -> Crowd:
    """A crowd by shares: its first ``size(0)`` workers (``count``, or ``min_workers``); more arrive later."""
    crowd = Crowd(spec=spec)
    crowd.extend(crowd._make(i) for i in range(spec.size(0)))
    return crowd
