"""``make bench-short-answer-real``: ``short_answer`` (qc/short_answer.py) over real captions written five a
photo by different people, to say how often an honest answer is that short.

- Flickr8k (``flickr8k-text/Flickr8k.token.txt``): 8,092 photos, five captions each, none rejected;
- VizWiz-Captions v1 val (``vizwiz-captions-v1-val``): five captions a photo with the reviewers' ``is_rejected``;
  canned captions left out, as ``make bench-qc-real`` does. (Its page refused captions of fewer than 8 words.)

Each caption is its own pseudo worker (the data name no workers), so a flag lands on one caption: the share
flagged among accepted captions is the rule's honest flag rate per answer, among rejected ones its recall.
Figures go to ``bench/results-short-answer-real.json``; nothing here is a test.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pandas as pd

from qc.short_answer import short_answer
from qc.submit_rules import CANNED_TEXT
from qc.text_features import canned_mask

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
FLICKR = DATA / "flickr8k-text" / "Flickr8k.token.txt"
VIZWIZ = DATA / "vizwiz-captions-v1-val" / "VizWiz_Captions_v1_val_updated.json"
RESULTS = ROOT / "bench" / "results-short-answer-real.json"


def flickr_frame(path: Path = FLICKR) -> pd.DataFrame:
    rows = [line.rstrip("\n").split("\t", 1) for line in path.read_text(encoding="utf-8").splitlines() if line]
    return pd.DataFrame({"image_id": [k.split("#")[0] for k, _ in rows], "caption": [c for _, c in rows],
                         "is_rejected": False})


def vizwiz_frame(path: Path = VIZWIZ) -> pd.DataFrame:
    data = pd.DataFrame(json.loads(path.read_text(encoding="utf-8"))["annotations"])
    canned = canned_mask(data["caption"].fillna("").astype(str), CANNED_TEXT)  # by its text, as bench-qc-real
    return data[~canned][["image_id", "caption", "is_rejected"]]


def measured(frame: pd.DataFrame) -> dict[str, Any]:
    """The rule over the whole set at once (every photo's captions are one item's answers)."""
    frame = frame.reset_index(drop=True).assign(image_id=lambda f: f["image_id"].astype(str))
    frame = frame.assign(worker_id=[f"C{k}" for k in range(len(frame))], assignment_id=lambda f: f["worker_id"])
    flags = short_answer(frame, {})
    flagged = frame["assignment_id"].isin(set(flags["assignment_id"]))
    rejected = frame["is_rejected"].astype(bool)
    return {"captions": len(frame), "photos": int(frame["image_id"].nunique()),
            "accepted": int((~rejected).sum()), "accepted_flagged": int((flagged & ~rejected).sum()),
            "accepted_flagged_share": round(float((flagged & ~rejected).sum() / max(1, (~rejected).sum())), 4),
            "rejected": int(rejected.sum()), "rejected_flagged": int((flagged & rejected).sum())}


def main() -> int:
    missing = [p for p in (FLICKR, VIZWIZ) if not p.is_file()]
    if missing:
        print(f"bench-short-answer-real needs {missing[0]} (../shared/data beside the project); nothing measured")
        return 0
    results = {"flickr8k": measured(flickr_frame()), "vizwiz_v1_val": measured(vizwiz_frame())}
    for name, r in results.items():
        print(f"{name:14} {r['captions']:6} captions on {r['photos']} photos: accepted flagged "
              f"{r['accepted_flagged']} ({r['accepted_flagged_share']:.2%}); rejected flagged "
              f"{r['rejected_flagged']} of {r['rejected']}")
    RESULTS.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
