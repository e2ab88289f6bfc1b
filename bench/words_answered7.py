"""``python -m bench.words_answered7``: do honest simulated workers' free-text answers meet the limits a page states
in words, on eight pages written fresh for it (bench/words_pages7/, see its README) by a tester who had not read the
simulator? Each page is imported as ``hitflow new NAME --from PAGE --items CSV`` imports it (``scaffold_from``) and
every item's page is filled by each honest profile (``--seeds`` workers each, seeded), the way a run's workers fill
a page they have no hints for, knowing the page's own words (those most other items' pages show).

Per page: ``limits``, the share of honest answers meeting the page's stated limits (a page of two or five items
in one row counts each item's answer on its own; a page with two boxes counts the pair); ``openings``, the share of
distinct first three words among those answers (a template opens them all alike); ``distinct20``, how many
distinct texts 20 honest workers (the profiles in turn) write on the page's first item, per text field.

The judges are mechanical and were written and committed before any answer was read: words are runs of
non-space characters; a sentence is a run of words ended by . ! or ? followed by a space or the end (a decimal
point, "e.g." and a few common abbreviations end none); the last sentence needs no closing mark.

- recipe_tip ("In one sentence, give a home cook one tip"): exactly one sentence, on one line, 3+ words.
- event_blurb ("Write the newsletter listing in 2-3 sentences"): 2 or 3 sentences.
- bug_title ("a title ... in no more than 10 words"): 1-10 words, one line.
- headline_pair ("explain your choice in between 12 and 30 words", two headlines): 12-30 words, each.
- word_mood ("the writer's mood, in one word", five posts): one word each (letters, an inner hyphen or
  apostrophe; a closing . or ! allowed).
- quiz_question ("End your answer with a question mark"; its answer "no more than 5 words"): the question ends
  with ?, 3+ words, one ? only; the answer 1-5 words.
- packing_list ("List three things ..., one per line"): exactly three non-empty lines (``three_any`` also
  records three items split by lines, commas, semicolons or "and", for reading).
- app_review ("Please write at least 20 words"): 20+ words.

Run: ``python -m bench.words_answered7 --label L --results bench/results-words-answered7.json [--kept]
[--dump FILE] [pages]``.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import tempfile
from collections.abc import Callable
from pathlib import Path

from flows.campaigns.task_kinds import load_campaign
from flows.core.pages.mturk_forms import form_fields
from flows.custom.custom_task import custom_page, read_custom_items
from flows.custom.scaffold_import import scaffold_from
from flows.sim.pages.any_form import fill_unhinted
from flows.sim.pages.page_common import common_among, page_chunks
from flows.sim.people.crowd_model import HONEST_PROFILES, new_worker

ROOT = Path(__file__).resolve().parents[1]
PAGES = ROOT / "bench" / "words_pages7"
TUNE = ("recipe_tip", "event_blurb", "bug_title", "headline_pair", "word_mood")
KEPT = ("quiz_question", "packing_list", "app_review")
TEXT_FIELDS = {"recipe_tip": ("tip",), "event_blurb": ("listing",), "bug_title": ("title",),
               "headline_pair": ("why_a", "why_b"), "word_mood": tuple(f"mood_{i}" for i in range(1, 6)),
               "quiz_question": ("question", "answer"), "packing_list": ("items_to_pack",),
               "app_review": ("reason",)}
ABBREV = re.compile(r"\b(?:e\.g|i\.e|etc|approx|tbsp|tsp|mins?|St|Mr|Mrs|Ms|Dr|vs|no)\.(?=\s)", re.I)
SENTENCE_END = re.compile(r"[.!?]+(?=\s|$)")
ONE_WORD = re.compile(r"[A-Za-z]+(?:['-][A-Za-z]+)*[.!]?")


def n_words(text: str) -> int:
    return len(text.split())


def sentences(text: str) -> int:
    """Runs of words ended by . ! ? followed by a space or the end; the last needs no mark."""
    plain = ABBREV.sub(lambda m: m.group(0)[:-1], text.strip())
    return sum(1 for part in SENTENCE_END.split(plain) if part.split())


def one_line(text: str) -> bool:
    return "\n" not in text.strip()


def recipe_tip(a: dict) -> list[bool]:
    t = a.get("tip", "")
    return [sentences(t) == 1 and one_line(t) and n_words(t) >= 3]


def event_blurb(a: dict) -> list[bool]:
    return [2 <= sentences(a.get("listing", "")) <= 3]


def bug_title(a: dict) -> list[bool]:
    t = a.get("title", "")
    return [1 <= n_words(t) <= 10 and one_line(t)]


def headline_pair(a: dict) -> list[bool]:
    return [12 <= n_words(a.get(f, "")) <= 30 for f in ("why_a", "why_b")]


def word_mood(a: dict) -> list[bool]:
    return [ONE_WORD.fullmatch(a.get(f"mood_{i}", "").strip()) is not None for i in range(1, 6)]


def quiz_question(a: dict) -> list[bool]:
    q, ans = a.get("question", "").strip(), a.get("answer", "")
    return [q.endswith("?") and q.count("?") == 1 and n_words(q) >= 3 and 1 <= n_words(ans) <= 5]


def pack_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


def packing_list(a: dict) -> list[bool]:
    return [len(pack_lines(a.get("items_to_pack", ""))) == 3]


def three_any(text: str) -> bool:
    """Three items however split (lines, commas, semicolons, "and"): for reading beside the strict judge."""
    return len([p for p in re.split(r"\n|[,;]|\band\b", text) if p.strip()]) == 3


def app_review(a: dict) -> list[bool]:
    return [n_words(a.get("reason", "")) >= 20]


JUDGES: dict[str, Callable[[dict], list[bool]]] = {
    "recipe_tip": recipe_tip, "event_blurb": event_blurb, "bug_title": bug_title, "headline_pair": headline_pair,
    "word_mood": word_mood, "quiz_question": quiz_question, "packing_list": packing_list, "app_review": app_review}


def filled(page: str, workers: list[tuple[str, int]], first_only: bool = False) -> list[tuple[dict, dict]]:
    """(item row, one worker's answers by field name) for each item of ``page`` (or its first) and each
    (profile, seed) of ``workers``, the page imported and rendered as ``hitflow new --from`` and a run do."""
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        scaffold_from(page, PAGES / f"{page}.html", tmp, items=PAGES / f"{page}_items.csv")
        cfg = load_campaign(tmp / "config" / f"{page}.toml")
        rows = read_custom_items(cfg)
        pages = [custom_page(cfg, [{**row, "image_id": row["item_id"]}]) for row in rows]
    refs = [(row["item_id"], page_chunks(html)) for row, html in zip(rows, pages, strict=True)]
    out = []
    for k, (row, html) in enumerate(zip(rows, pages, strict=True)):
        if first_only and k:
            break
        common = common_among(refs, row["item_id"])
        fields = form_fields(html)
        for w, (profile, seed) in enumerate(workers):
            worker = new_worker(profile, {}, random.Random(9100 + 997 * seed + 31 * HONEST_PROFILES.index(profile)))
            values = fill_unhinted(worker, fields, html, {}, random.Random(913 * k + 17 * w + seed), common=common)
            out.append((row, {n.rsplit("_", 1)[0]: str(v) for n, v in values.items() if n.endswith("_0")}))
    return out


def measured(page: str, seeds: int, dump: Path | None = None) -> dict:
    """The page's limit share, opening variety and distinct texts among 20 workers on its first item."""
    crowd = [(p, s) for p in HONEST_PROFILES for s in range(seeds)]
    got = filled(page, crowd)
    verdicts = [(row["item_id"], a, JUDGES[page](a)) for row, a in got]
    flat = [ok for _i, _a, oks in verdicts for ok in oks]
    texts = [a.get(f, "") for _r, a in got for f in TEXT_FIELDS[page] if (page, f) != ("quiz_question", "answer")]
    openings = [" ".join(t.lower().split()[:3]) for t in texts]
    twenty = [(HONEST_PROFILES[i % len(HONEST_PROFILES)], 50 + i // len(HONEST_PROFILES)) for i in range(20)]
    first = filled(page, twenty, first_only=True)
    distinct = {f: len({a.get(f, "").strip() for _r, a in first}) for f in TEXT_FIELDS[page]}
    if dump:
        with dump.open("a") as fh:
            fh.writelines(json.dumps({"page": page, "item": i, "answer": a, "ok": oks}) + "\n"
                          for i, a, oks in verdicts)
    out = {"limits": round(sum(flat) / max(1, len(flat)), 3), "judged": len(flat),
           "openings": round(len(set(openings)) / max(1, len(openings)), 3), "texts": len(openings),
           "distinct20": distinct}
    if page == "packing_list":
        out["three_any"] = round(sum(three_any(a.get("items_to_pack", "")) for _r, a in got) / max(1, len(got)), 3)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=3, help="workers per honest profile and item")
    ap.add_argument("--kept", action="store_true", help="measure the KEPT pages too (only when told)")
    ap.add_argument("--label", default="", help="record the figures in --results under this label")
    ap.add_argument("--results", type=Path, default=None, help="JSON file the figures are added to")
    ap.add_argument("--dump", type=Path, default=None, help="append every judged answer to this JSON-lines file")
    ap.add_argument("pages", nargs="*", default=None)
    args = ap.parse_args()
    pages = args.pages or [*TUNE, *(KEPT if args.kept else ())]
    got = {}
    for page in pages:
        got[page] = r = measured(page, args.seeds, args.dump)
        print(f"{page:14s} {'KEPT' if page in KEPT else 'TUNE'}  limits {r['limits']:.3f} ({r['judged']})  "
              f"openings {r['openings']:.3f}  distinct of 20 on item 1 {r['distinct20']}", flush=True)
    if args.label and args.results:
        results = json.loads(args.results.read_text()) if args.results.exists() else {}
        results.setdefault(args.label, {}).update(got)
        args.results.write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
