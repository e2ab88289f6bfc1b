"""Tables the report and the demo summary show. Pure functions over DataFrames.
``blocking_vs_truth`` inputs: truth ``worker_id, profile`` [, ``gate``]; blocked ``worker_id, batch, rules``;
work ``worker_id, assignments``."""

from __future__ import annotations

import pandas as pd

# the simulator's honest profiles (flows/sim/people/crowd_model.py HONEST_PROFILES)
GOOD_PROFILES = ("diligent", "typo_prone", "slow", "note_paster", "fast_typist", "slow_typist")


def blocking_vs_truth(truth: pd.DataFrame, blocked: pd.DataFrame, work: pd.DataFrame) -> pd.DataFrame:
    """Per profile: workers, worked, gated out, never reached, blocked and the rate."""
    done = dict(zip(work["worker_id"], work["assignments"].fillna(0).astype(int), strict=True))
    out = set(blocked["worker_id"])
    refused = (truth["gate"] == "refused").tolist() if "gate" in truth else [False] * len(truth)
    # per profile, first seen first: each worker's (worked, refused at the gate, blocked), no frame a profile
    groups: dict[str, list[tuple[bool, bool, bool]]] = {}
    for worker, profile, gate in zip(truth["worker_id"], truth["profile"], refused, strict=True):
        if pd.notna(profile):
            groups.setdefault(profile, []).append((done.get(worker, 0) > 0, gate, worker in out))
    rows = []
    for profile, group in groups.items():
        worked = sum(w for w, _, _ in group)
        gated = sum(g and not w for w, g, _ in group)
        n_blocked = sum(b for _, _, b in group)
        good = profile in GOOD_PROFILES
        caught = n_blocked if good else n_blocked + gated
        judged = worked + (0 if good else gated)
        rows.append({
            "profile": profile, "workers": len(group), "worked": worked, "gated_out": gated,
            "never_reached": len(group) - worked - gated, "blocked": n_blocked,
            "rate": round(caught / judged, 3) if judged else 0.0,
            "meaning": _rate_meaning(good, caught, judged),
        })
    return pd.DataFrame(rows)


def _rate_meaning(good: bool, caught: int, judged: int) -> str:
    """The row's rate in words, as a reader takes it: a rate of 0.0 is "none caught", never "caught"."""
    if not judged:
        return "never met: nothing to judge"
    if good:
        return "none wrongly blocked" if not caught else f"{caught} of {judged} wrongly blocked"
    if not caught:
        return f"none of {judged} caught"
    return f"{caught} of {judged} caught (blocked or gated out)"


def batch_counts(assignments: pd.DataFrame, decisions: pd.DataFrame, blocked: pd.DataFrame,
                 flags: pd.DataFrame) -> pd.DataFrame:
    """Per batch (``batch``; decisions ``action``): assignments, approved, rejected, flags, workers blocked."""
    batches = sorted(set(assignments["batch"]) | set(decisions.get("batch", [])))
    rows = []
    for b in batches:
        d = decisions[decisions["batch"] == b]
        rows.append({"batch": int(b), "assignments": int((assignments["batch"] == b).sum()),
                     "approved": int((d["action"] == "approve").sum()),
                     "rejected": int((d["action"] == "reject").sum()),
                     "flags": int((flags["batch"] == b).sum()),
                     "blocked": int((blocked["batch"] == b).sum())})
    return pd.DataFrame(rows, columns=["batch", "assignments", "approved", "rejected", "flags", "blocked"])


def time_bands(times: pd.DataFrame, sigmas: float = 1.95) -> pd.DataFrame:
    """Per batch (``batch, work_time_s``): ``batch, mu, sigma, low, high, sigmas``."""
    grouped = times.groupby("batch")["work_time_s"]
    out = pd.DataFrame({"mu": grouped.mean(), "sigma": grouped.std(ddof=1)}).reset_index()
    out["low"] = out["mu"] - sigmas * out["sigma"]
    out["high"] = out["mu"] + sigmas * out["sigma"]
    out["sigmas"] = float(sigmas)
    return out
