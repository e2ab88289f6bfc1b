"""``python -m bench.text_answers``: does an honest simulated worker's free text answer the question a user's own
page asks, within the limits the page states? Six pages of our own (bench/text_pages/), each imported with
``hitflow new NAME --from PAGE --items CSV`` and run on the MTurk simulator (``--no-prefect``); per page and
text field, the share of honest-profile answers that pass the field's check below. Two pages (``app_users``,
``letter_fix``) are held apart: never looked at while the writers were tuned, run only before and after.

The checks, one per kind of question, written before any answer was read (words: lower-case runs of letters,
digits and apostrophes; content words: those of 3+ letters outside STOP, matched on their first 4 letters):

- audience ("who is it for, and why"): names a group of people (WHO), gives a reason (WHY), shares a content
  word with the item's text, is no question, copies no run of more than 10 of the item's words;
- correction ("rewrite the sentence correctly"): the item's ``right`` words are in it (a word of 4+ letters
  matches at a similarity of 0.75, so a typo does not fail a fix) and its ``wrong`` words are not (exactly: the
  first version matched those loosely too, which failed "doesn't" for "don't"), and it is a small edit of the
  source: at most 4 of the source's words changed and 70% of them kept in order;
- title ("a clearer headline"): 2 or more words, shares a content word with the item, is not the headline it
  replaces, is one line with no sentence after a full stop;
- one_sentence ("summarise in one sentence"): one sentence of 6 to 40 words, 2+ content words of the item's,
  no run of more than 12 of its words, shorter than the item;
- question ("what would you ask the author"): ends with "?", opens with a question word or an auxiliary,
  shares a content word with the item;
- retell ("describe what happened, in your own words"): 2+ content words of the item's, no run of more than
  10 of its words, no question.

Each field also has the limits its page states (words), met or the answer fails. A blank answer fails a
required field; an optional field's blanks are counted apart and its share is of the answers given.
``--quick`` fills the imported pages in-process (each honest profile, ``--seeds`` workers) instead of a CLI run:
for tuning. Figures go to bench/results-text-answers.json under the label (default: the code's commit).
"""

from __future__ import annotations

import argparse
import csv
import difflib
import json
import os
import random
import re
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.newcomer_kit import edit_config
from bench.results_file import keep_result

ROOT = Path(__file__).resolve().parents[1]
PAGES_DIR = ROOT / "bench" / "text_pages"
RESULTS = ROOT / "bench" / "results-text-answers.json"
HONEST = ("diligent", "typo_prone", "slow", "note_paster", "fast_typist", "slow_typist")
KEYS = {"batches": "2", "assignments_per_image": "5", "budget": '"100000.00 USD"'}
WORDS = re.compile(r"[a-z0-9']+")
STOP = frozenset(("the", "and", "for", "with", "that", "this", "are", "was", "were", "its", "from", "but", "you",
                  "your", "they", "them", "their", "has", "have", "had", "not", "all", "can", "will", "would", "who",
                  "what", "why", "how", "one", "out", "use", "into", "over", "after", "been", "more", "than", "each",
                  "every", "our", "she", "her", "his", "him", "there", "when", "any", "some", "just", "also", "very"))
WHO = re.compile(r"\b(?:people|persons?|anyone|anybody|someone|everyone|those who|users?|owners?|parents?|"
                 r"famil(?:y|ies)|"
                 r"students?|kids|children|adults?|teens?|teenagers|beginners?|households?|customers?|buyers?|fans?|"
                 r"couples?|friends|housemates|flatmates|residents|commuters?|readers?|workers?|professionals?|"
                 r"athletes?|travell?ers?|hikers?|campers?|cooks?|gardeners?|cyclists?|runners?|drivers?|"
                 r"[a-z]{3,}(?:ers|ists|ians)|older|elderly|anyone who|whoever)\b", re.I)
NOT_WHO = frozenset(("others", "answers", "fingers", "numbers", "orders", "matters", "papers", "letters", "layers",
                     "covers", "offers", "centers", "centres", "timers", "speakers", "containers", "trackers"))
WHY = re.compile(r"\b(?:because|since|so (?:that|they|it|he|she|you)|as (?:it|they|the|this)|to (?:help|keep|save|"
                 r"stop|avoid|make|get|find|know|track|see|plan|cut)|helps?|lets?|means|saves?|without|thanks to|"
                 r"would (?:help|save|let|make|love|like|want|find|enjoy|appreciate|benefit)|need|needs|want|wants|"
                 r"useful|handy|easier|never|no longer)\b", re.I)
ASKING = re.compile(r"^(?:what|why|how|when|where|which|who|whose|did|do|does|was|were|is|are|would|will|could|can|"
                    r"have|has|had|should)\b", re.I)


def words(text: str) -> list[str]:
    return WORDS.findall(text.lower())


def content(text: str) -> set[str]:
    return {w[:4] for w in words(text) if len(w) >= 3 and w not in STOP}


def copied_run(text: str, source: str) -> int:
    """The longest run of ``source``'s words that ``text`` repeats in order."""
    a, b = words(text), words(source)
    m = difflib.SequenceMatcher(None, a, b, autojunk=False)
    return max((blk.size for blk in m.get_matching_blocks()), default=0)


def sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+(?=[A-Z\"'])", text.strip()) if s]


def audience(text: str, item: dict[str, str], source: str) -> bool:
    named = [m.group(0).lower() for m in WHO.finditer(text) if m.group(0).lower() not in NOT_WHO]
    return bool(named) and bool(WHY.search(text)) and bool(content(text) & content(source)) \
        and not text.rstrip().endswith("?") and copied_run(text, source) <= 10


def _same(a: str, b: str, loose: bool) -> bool:
    return a == b or (loose and len(b) >= 4 and difflib.SequenceMatcher(None, a, b).ratio() >= 0.75)


def _holds(text: list[str], part: list[str], loose: bool = True) -> bool:
    return any(all(_same(text[i + k], p, loose) for k, p in enumerate(part)) for i in range(len(text) - len(part) + 1))


def correction(text: str, item: dict[str, str], source: str) -> bool:
    mine, theirs = words(text), words(source)
    m = difflib.SequenceMatcher(None, theirs, mine, autojunk=False)
    kept = sum(blk.size for blk in m.get_matching_blocks())
    changed = sum(max(i2 - i1, j2 - j1) for tag, i1, i2, j1, j2 in m.get_opcodes() if tag != "equal")
    return _holds(mine, words(item["right"])) and not _holds(mine, words(item["wrong"]), False) and changed <= 4 \
        and kept >= 0.7 * len(theirs)


def title(text: str, item: dict[str, str], source: str) -> bool:
    given = item.get("headline", "")
    return len(words(text)) >= 2 and bool(content(text) & content(source)) and words(text) != words(given) \
        and len(sentences(text)) == 1 and "\n" not in text.strip()


def one_sentence(text: str, item: dict[str, str], source: str) -> bool:
    n = len(words(text))
    return len(sentences(text)) == 1 and 6 <= n <= 40 and len(content(text) & content(source)) >= 2 \
        and copied_run(text, source) <= 12 and n < len(words(source))


def question(text: str, item: dict[str, str], source: str) -> bool:
    t = text.strip()
    return t.endswith("?") and bool(ASKING.match(t)) and bool(content(t) & content(source))


def retell(text: str, item: dict[str, str], source: str) -> bool:
    return len(content(text) & content(source)) >= 2 and copied_run(text, source) <= 10 \
        and not text.rstrip().endswith("?")


@dataclass(frozen=True)
class Field:
    name: str
    check: Callable[[str, dict[str, str], str], bool]
    least: int = 0  # the words the page states, at least and at most
    most: int = 10**6
    required: bool = True


@dataclass(frozen=True)
class Page:
    name: str
    fields: tuple[Field, ...]
    held_apart: bool = False


PAGES = (
    Page("gadget", (Field("for_whom", audience, least=10),)),
    Page("grammar", (Field("rewrite", correction),)),
    Page("news", (Field("new_headline", title, most=12), Field("one_line", one_sentence))),
    Page("memo_fix", (Field("corrected", correction), Field("subject", title, most=8, required=False))),
    Page("review_ask", (Field("ask_author", question), Field("what_happened", retell, least=8))),
    Page("app_users", (Field("who_useful", audience, least=15, most=40),), held_apart=True),
    Page("letter_fix", (Field("fixed", correction), Field("letter_title", title, most=6, required=False)),
         held_apart=True),
)


def item_rows(page: str) -> dict[str, dict[str, str]]:
    with (PAGES_DIR / f"{page}_items.csv").open(encoding="utf-8") as f:
        return {r["item_id"]: r for r in csv.DictReader(f)}


def shown(row: dict[str, str]) -> str:
    """The item's words the page shows (the check's columns ``wrong`` and ``right`` are not shown)."""
    return " ".join(v for k, v in row.items() if k not in ("item_id", "wrong", "right"))


def judge(page: Page, given: list[tuple[str, str, str]]) -> dict[str, Any]:
    """``given``: (item id, field, text) of honest workers; per field the share that passes, and a sample."""
    rows, out = item_rows(page.name), {}
    for f in page.fields:
        texts = [(i, t) for i, name, t in given if name == f.name and i in rows]
        filled = [(i, t) for i, t in texts if t.strip()]
        counted = texts if f.required else filled
        ok = [(i, t) for i, t in filled if f.least <= len(words(t)) <= f.most and f.check(t, rows[i], shown(rows[i]))]
        failing = [f"{i}: {t}" for i, t in filled if (i, t) not in ok]
        out[f.name] = {"answers": len(counted), "blank": len(texts) - len(filled), "pass": len(ok),
                       "share": round(len(ok) / len(counted), 2) if counted else None,
                       "sample": [f"{i}: {t}" for i, t in filled[:: max(1, len(filled) // 10)][:10]],
                       "failing": failing[:6]}
    return out


def hitflow(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    exe = Path(sys.executable).parent / "hitflow"
    return subprocess.run(["nice", str(exe if exe.exists() else "hitflow"), *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=1800)


def run_cli(page: Page, folder: Path, env: dict[str, str], seed: int) -> tuple[list[tuple[str, str, str]], int]:
    """The page imported and run on the MTurk simulator; (item, field, text) of every honest worker, and the
    honest workers QC blocked (honest text that answers the question must not look like a template's)."""
    for suffix in (".html", "_items.csv"):
        (folder / f"{page.name}{suffix}").write_bytes((PAGES_DIR / f"{page.name}{suffix}").read_bytes())
    made = hitflow(["new", page.name, "--from", f"{page.name}.html", "--items", f"{page.name}_items.csv"], folder, env)
    if made.returncode != 0:
        raise SystemExit(f"{page.name}: import failed: {(made.stdout + made.stderr).strip()[-300:]}")
    edit_config(folder / "config" / f"{page.name}.toml", {**KEYS, "images_per_hit": "1"})
    ran = hitflow(["run", f"config/{page.name}.toml", "--no-prefect", "--platform", "mturk", "--seed", str(seed)],
                  folder, env)
    truth = folder / "runs" / page.name / "sim_workers.json"
    if not truth.exists():
        raise SystemExit(f"{page.name}: run failed ({ran.returncode}): {(ran.stdout + ran.stderr).strip()[-300:]}")
    profiles = {w["worker_id"]: w["profile"] for w in json.loads(truth.read_text(encoding="utf-8"))}
    with sqlite3.connect(folder / "runs" / "hitflow.db") as db:
        blocked = sum(profiles.get(w) in HONEST for (w,) in db.execute("SELECT worker_id FROM blocks"))
        return [(i, f, v or "") for w, i, f, v in db.execute(
            "SELECT a.worker_id, an.item_id, an.field, an.value FROM answers an JOIN assignments a "
            "ON a.assignment_id = an.assignment_id WHERE an.campaign = ? AND a.batch > 0", [page.name])
            if profiles.get(w) in HONEST], blocked


def run_quick(page: Page, folder: Path, seeds: int) -> list[tuple[str, str, str]]:
    """The imported page filled in-process by ``seeds`` workers of every honest profile, who know the text
every item's page shows as the page's own (as the simulator learns it from a type's first HITs)."""
    from flows.campaigns.task_kinds import load_campaign
    from flows.core.pages.mturk_forms import form_fields
    from flows.custom.custom_task import custom_page, read_custom_items
    from flows.custom.scaffold_import import scaffold_from
    from flows.sim.pages.any_form import fill_unhinted
    from flows.sim.pages.page_common import page_chunks
    from flows.sim.people.crowd_model import new_worker

    scaffold_from(page.name, PAGES_DIR / f"{page.name}.html", folder, items=PAGES_DIR / f"{page.name}_items.csv")
    cfg = load_campaign(folder / "config" / f"{page.name}.toml")
    pages = [(row, custom_page(cfg, [{**row, "image_id": row["item_id"]}])) for row in read_custom_items(cfg)]
    common = frozenset.intersection(*(page_chunks(html) for _, html in pages))  # as the simulator learns it
    out = []
    for k, (row, html) in enumerate(pages):
        for p, profile in enumerate(HONEST):
            for s in range(seeds):
                worker = new_worker(profile, {}, random.Random(1000 * p + s))
                values = fill_unhinted(worker, form_fields(html), html, {}, random.Random(100 * k + 10 * p + s),
                                       common=common)
                out += [(row["item_id"], n.rsplit("_", 1)[0], v) for n, v in values.items() if n.endswith("_0")]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pages", default="", help="comma-separated page names (default: all)")
    parser.add_argument("--quick", action="store_true", help="fill in-process instead of a CLI run")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7, help="the simulator's seed for a CLI run")
    parser.add_argument("--label", default="")
    parser.add_argument("--show", type=int, default=0, help="print this many sample answers per field")
    parser.add_argument("--repo", type=Path, default=ROOT, help="the checkout whose hitflow runs (default: this one)")
    args = parser.parse_args(argv)
    env = {**os.environ, "PYTHONPATH": str(args.repo.resolve()), "PYTHONDONTWRITEBYTECODE": "1"}
    run: dict[str, Any] = {}
    for page in [p for p in PAGES if not args.pages or p.name in args.pages.split(",")]:
        with tempfile.TemporaryDirectory(prefix=f"text-{page.name}-") as tmp:
            given, blocked = (run_quick(page, Path(tmp), args.seeds), None) if args.quick else \
                run_cli(page, Path(tmp), env, args.seed)
        run[page.name] = {"held_apart": page.held_apart, "honest_blocked": blocked, "fields": judge(page, given)}
        print(f"{page.name:<11} honest workers blocked: {blocked}", flush=True)
        for name, r in run[page.name]["fields"].items():
            tag = "held apart" if page.held_apart else "tuning"
            print(f"{page.name:<11} {name:<14} {tag:<10} {r['pass']}/{r['answers']} = {r['share']}"
                  f"{'  blank ' + str(r['blank']) if r['blank'] else ''}", flush=True)
            for line in (r["sample"][: args.show] + ["  FAIL " + x for x in r["failing"][:3]]) if args.show else []:
                print("     ", line)
    label = args.label or subprocess.run(["git", "-C", str(args.repo), "rev-parse", "--short", "HEAD"],
                                         capture_output=True, text=True).stdout.strip()
    keep_result(RESULTS, f"{label}, {'quick ' + str(args.seeds) if args.quick else 'mturk seed ' + str(args.seed)}",
                run)
    return 0


if __name__ == "__main__":
    sys.exit(main())
