"""``python -m bench.words_heldout``: a quick look at the honest simulated free text on held-out sets 2 to 6
without running their campaigns. Each page is imported as a user would (``scaffold_from``), its items are laid out
``per_page`` to a page as the set's runner does, and every page is filled by each honest profile (``--seeds``
workers each) the way bench/words_answered.py fills its own pages; each free-text field is judged by its set's own
judge (bench/gate_heldout2.py to 6: imported, not copied) and the page's whole stated limit; a box asked after a
"no" is judged where the worker said no (the runs count the others too). Only the held-out
sets that may be used for diagnosis are here; the runs of bench/gate_heldout2-4.py stay the figures of record.
"""

from __future__ import annotations

import argparse
import random
import tempfile
from collections.abc import Callable
from pathlib import Path

from bench import gate_heldout2 as h2
from bench import gate_heldout3 as h3
from bench import gate_heldout4 as h4
from bench import gate_heldout5 as h5
from bench import gate_heldout6 as h6
from flows.campaigns.task_kinds import load_campaign
from flows.core.pages.mturk_forms import form_fields
from flows.custom.custom_task import custom_page, read_custom_items
from flows.custom.scaffold_import import scaffold_from
from flows.sim.pages.any_form import fill_unhinted
from flows.sim.pages.page_common import common_among, page_chunks
from flows.sim.people.crowd_model import HONEST_PROFILES, new_worker

Judge = Callable[[str, dict[str, str]], bool]
ALWAYS: Callable[[dict[str, str]], bool] = lambda _item: True  # noqa: E731
# (set folder, page, per page, field, judge, items it applies to, (least, most words, one sentence))
FIELDS: tuple[tuple[Path, str, int, str, Judge, Callable[[dict[str, str]], bool], tuple[int, int, bool]], ...] = (
    (h2.PAGES_DIR, "object_clarity", 1, "explanation", lambda t, _i: bool(h2.VISIBILITY.search(t)), ALWAYS,
     (8, 10**6, False)),
    (h2.PAGES_DIR, "summary_match", 2, "whats_wrong", h2.names_mismatch, lambda i: i.get("gold_match") == "no",
     (1, 10**6, False)),
    (h3.PAGES_DIR, "venue_access", 1, "why", h3.points_at_entrance, ALWAYS, (10, 10**6, False)),
    (h3.PAGES_DIR, "fault_reports", 2, "first_step", h3.names_an_action, ALWAYS, (6, 30, True)),
    (h4.PAGES_DIR, "tree_cover", 1, "reason", h4.reason_answers, ALWAYS, (5, 40, False)),
    (h4.PAGES_DIR, "trail_hazards", 2, "ranger_action", h4.action_answers, ALWAYS, (1, 25, True)),
    (h4.PAGES_DIR, "parcel_addresses", 5, "missing", h4.missing_answers,
     lambda i: i.get("gold_deliverable") == "no", (1, 6, False)),
    (h4.PAGES_DIR, "sign_legibility", 1, "sign_description", h4.sign_answers, ALWAYS, (3, 12, False)),
    (h5.PAGES_DIR, "job_ads", 1, "missing_info", h5.names_job_detail, ALWAYS, (1, 20, False)),
    (h6.PAGES_DIR, "math_homework", 1, "how_checked", h6.says_how_checked, ALWAYS, (5, 25, False)),
    (h6.PAGES_DIR, "noise_complaints", 1, "what_to_do", h6.says_what_to_do, ALWAYS, (10, 40, False)),
)


def filled(folder: Path, page: str, per_page: int, seeds: int, tmp: Path,
           source: str = ".html") -> list[tuple[dict, dict[str, str]]]:
    """(item row, that item's answers by field) for every item, honest profile and seed; ``source``: the page
    file's ending."""
    scaffold_from(page, folder / f"{page}{source}", tmp, items=folder / f"{page}_items.csv")
    cfg = load_campaign(tmp / "config" / f"{page}.toml")
    rows = read_custom_items(cfg)
    groups = [rows[k:k + per_page] for k in range(0, len(rows), per_page)]
    pages = [custom_page(cfg, [{**r, "image_id": r["item_id"]} for r in g]) for g in groups]
    refs = [(g[0]["item_id"], page_chunks(html)) for g, html in zip(groups, pages, strict=True)]
    out = []
    for k, (group, html) in enumerate(zip(groups, pages, strict=True)):
        common = common_among(refs, group[0]["item_id"])
        for p, profile in enumerate(HONEST_PROFILES):
            for s in range(seeds):
                worker = new_worker(profile, {}, random.Random(9000 + 1000 * p + s))
                values = fill_unhinted(worker, form_fields(html), html, {}, random.Random(90 * k + 10 * p + s),
                                       common=common)
                for j, row in enumerate(group):
                    out.append((row, {n.rsplit("_", 1)[0]: str(v) for n, v in values.items()
                                      if n.endswith(f"_{j}")}))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=2, help="workers per profile and page")
    ap.add_argument("--show", type=int, default=4, help="failing answers shown per field")
    ap.add_argument("pages", nargs="*", default=[f[1] for f in FIELDS])
    args = ap.parse_args()
    for folder, page, per_page, fld, judge, applies, (low, high, one) in FIELDS:
        if page not in args.pages:
            continue
        with tempfile.TemporaryDirectory() as d:
            got = [(r, a.get(fld, "")) for r, a in filled(folder, page, per_page, args.seeds, Path(d))
                   if fld in a and applies(r) and (applies is ALWAYS or "no" in a.values())]  # (after a "no")
        ok = [low <= len(h3.words(t)) <= high and (not one or h3.one_sentence(t)) and judge(t, r) for r, t in got]
        print(f"{page}.{fld}: {sum(ok)}/{len(got)} = {sum(ok) / max(1, len(got)):.2f}  "
              f"(blank {sum(not t.strip() for _r, t in got)})")
        bad = [(r, t) for (r, t), good in zip(got, ok, strict=True) if not good]
        for r, t in random.Random(1).sample(bad, min(args.show, len(bad))):
            print(f"   x {r.get('item_id', '')}: {t!r}")
        print()


if __name__ == "__main__":
    main()
