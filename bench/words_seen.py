"""``python -m bench.words_seen``: the honest simulated free text of the seen held-out sets' pages (15 to 20 by
default) without running their campaigns, judged by each set's own judges.

Each page is imported as a user would (``scaffold_from``), its items laid out as its set's runner lays them out,
and every page filled by each honest profile (``--seeds`` workers each) as bench/words_heldout.py fills them (no
browser, no retyping after a page's refusal), the simulator holding the known answers a run hands it (the set's
truth mapping, the text boxes' known-answer columns); each free-text box is judged as the runs' ``both_share`` judges it
(the box's stated least words and the set's judge) and against the whole stated limit its set's figures name. The
box's limits as the simulator reads them (:func:`flows.sim.people.plain_text.box_limits`) are printed beside it.
The runs of bench/gate_heldoutN.py stay the figures of record; this is a quick look for diagnosis.
"""

from __future__ import annotations

import argparse
import importlib
import random
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bench.gate_heldout import HeldoutPage, words
from bench.gate_heldout3 import one_sentence
from flows.sim.people.crowd_model import BankEntry

SETS = (15, 16, 17, 18, 19, 20)


def filled(folder: Path, page: HeldoutPage, seeds: int, tmp: Path) -> list[tuple[dict, dict[str, str]]]:
    """(item row, its answers by field) for every item, honest profile and seed, as bench/words_heldout.py's
    ``filled``, with the known answers a run hands the simulator (its set's truth
    mapping, its text boxes' columns found by name: flows/custom/truth_source.py) in the bank."""
    from flows.campaigns.task_kinds import load_campaign
    from flows.core.pages.mturk_forms import form_fields
    from flows.core.pages.templates import page_items
    from flows.custom.custom_task import custom_page, custom_spec, field_specs, first_page_rows, read_custom_items
    from flows.custom.scaffold_import import scaffold_from
    from flows.custom.truth_source import blank_fields, known_answers
    from flows.sim.pages.any_form import fill_unhinted
    from flows.sim.pages.page_common import common_among, page_chunks
    from flows.sim.people.crowd_model import HONEST_PROFILES, new_worker
    from flows.sim.people.known_answers import add_known

    scaffold_from(page.name, folder / f"{page.name}{page.source}", tmp, items=folder / f"{page.name}_items.csv")
    toml = tmp / "config" / f"{page.name}.toml"
    if page.truth:
        toml.write_text(toml.read_text().replace("[campaign]\n", f"[campaign]\ntruth = {page.truth}\n", 1))
    cfg = load_campaign(toml)
    specs = field_specs(custom_spec(cfg, page_items(first_page_rows(cfg))))
    bank: dict[str, BankEntry] = {}
    add_known(bank, [{k: r[k] for k in ("item_id", "field", "answer")}
                     for r in known_answers(cfg, read_custom_items(cfg), blank_fields(specs), specs)])
    rows = read_custom_items(cfg)
    groups = [rows[k:k + page.images_per_hit] for k in range(0, len(rows), page.images_per_hit)]
    pages = [custom_page(cfg, [{**r, "image_id": r["item_id"]} for r in g]) for g in groups]
    refs = [(g[0]["item_id"], page_chunks(html)) for g, html in zip(groups, pages, strict=True)]
    out = []
    for k, (group, html) in enumerate(zip(groups, pages, strict=True)):  # as bench/words_heldout.py fills them
        common = common_among(refs, group[0]["item_id"])
        for p, profile in enumerate(HONEST_PROFILES):
            for s in range(seeds):
                worker = new_worker(profile, {}, random.Random(9000 + 1000 * p + s))
                values = fill_unhinted(worker, form_fields(html), html, bank, random.Random(90 * k + 10 * p + s),
                                       common=common)
                out += [(row, {n.rsplit("_", 1)[0]: str(v) for n, v in values.items() if n.endswith(f"_{j}")})
                        for j, row in enumerate(group)]
    return out


def _whole_limits(extra: Any) -> Iterator[tuple[str, tuple[int, int, bool]]]:
    """(box, (least, most words, one sentence)) of each whole-limit figure an ``extra`` combines."""
    if extra is None:
        return
    code = getattr(extra, "__code__", None)
    cells = dict(zip(code.co_freevars, (c.cell_contents for c in extra.__closure__ or ()), strict=True)) if code \
        else {}
    if {"low", "high", "sentence", "fld"} <= set(cells):
        yield cells["fld"], (cells["low"], cells["high"], cells["sentence"])
    for value in cells.values():
        for inner in value if isinstance(value, (list, tuple)) else (value,):
            if callable(inner) and inner is not extra:
                yield from _whole_limits(inner)


def _kinds(folder: Path, page: HeldoutPage) -> dict[str, str]:
    """The limits the simulator reads off each text box's question on the imported page (people/plain_text.py)."""
    from flows.core.pages.asks_worker import question_texts
    from flows.core.pages.mturk_forms import read_page
    from flows.sim.people.plain_text import box_limits

    html = (folder / f"{page.name}{page.source}").read_text()
    questions = question_texts(read_page(html))
    return {box: str(box_limits(q, {})) for name, q in questions.items() for box in page.texts if name.startswith(box)}


def judged(number: int, names: list[str], seeds: int, show: int) -> dict[str, Any]:
    mod = importlib.import_module(f"bench.gate_heldout{number}")
    out: dict[str, Any] = {}
    for page in mod.PAGES:
        if not page.texts or (names and page.name not in names):
            continue
        limits, kinds = dict(_whole_limits(page.extra)), _kinds(page.folder, page)
        with tempfile.TemporaryDirectory() as d:
            rows = filled(page.folder, page, seeds, Path(d))
        for box, spec in page.texts.items():
            got = [(r, a.get(box, "")) for r, a in rows if box in a and spec.applies(r)]
            both = [spec.answers(t, r) and len(words(t)) >= spec.min_words for r, t in got]
            low, high, one = limits.get(box, (spec.min_words, 10**6, False))
            whole = [b and low <= len(words(t)) <= high and (not one or one_sentence(t))
                     for b, (_r, t) in zip(both, got, strict=True)]
            key = f"{number}.{page.name}.{box}"
            out[key] = {"n": len(got), "both_share": round(sum(both) / max(1, len(got)), 3),
                        "whole_limit_share": round(sum(whole) / max(1, len(got)), 3)}
            print(f"{key} [{kinds.get(box, '?')!r}]: both {sum(both)}/{len(got)} = {out[key]['both_share']:.2f}, "
                  f"within {low}-{high} words"
                  f"{' one sentence' if one else ''} too {out[key]['whole_limit_share']:.2f} "
                  f"(blank {sum(not t.strip() for _r, t in got)})")
            bad = [(r, t) for (r, t), good in zip(got, both, strict=True) if not good]
            for r, t in random.Random(1).sample(bad, min(show, len(bad))):
                print(f"   x {r.get('item_id', '')}: {t!r}")
            for r, t in random.Random(2).sample(got, min(show // 2, len(got))):
                print(f"   . {r.get('item_id', '')}: {t!r}")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", default=",".join(map(str, SETS)), help="comma-separated set numbers")
    ap.add_argument("--seeds", type=int, default=1, help="workers per honest profile and page")
    ap.add_argument("--show", type=int, default=4, help="failing answers shown per box")
    ap.add_argument("pages", nargs="*", help="page names (default: every page with a free-text box)")
    args = ap.parse_args()
    for number in (int(n) for n in args.sets.split(",")):
        judged(number, args.pages, args.seeds, args.show)


if __name__ == "__main__":
    main()
