"""The gate benchmark's pages (bench/gate_pages/*.html), their items and control items, imported as a new user
imports a page (``hitflow new NAME --from PAGE --items CSV``) and set up as the docs say (control items, a
few batches): each run imports afresh, so the benchmark measures the importer and the starter [qc] a user
gets today, not a copy frozen when the bench was written.

The pages are written in MTurk's requester-UI style (``${column}`` placeholders), in three shapes: an
alt-text check (a 1-7 slider, a checkbox group, a required "what is missing" box; one photo a page), a caption
judgement (a required choice and a required reason, control items; one photo a page) and a product review's
feeling (a required choice and an optional comment, control items; several reviews a page)."""

from __future__ import annotations

import csv
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from bench.newcomer_kit import edit_config

HERE = Path(__file__).resolve().parent / "gate_pages"
PHOTOS = ["a red kettle on a gas stove", "two children on a see-saw in a park", "a tabby cat asleep on a radiator",
          "a bus stop sign in the rain", "a plate of pancakes with blueberries", "a bicycle chained to a railing",
          "a hand holding a tin of chopped tomatoes", "a lighthouse on a rocky shore", "a laptop showing an error",
          "a bunch of bananas on a counter", "a dog fetching a stick from a lake", "a medicine bottle label"]
ALT_TEXTS = ["Image.", "A photo of {p}.", "{P} seen from above, with the label readable.", "Kitchen.",
             "Something on a table.", "{P}, in bright daylight."]
CAPTION_SETS = [("{P}.", "5"), ("{P}, taken at night.", "4"), ("A close view of a wooden fence.", "1"),
                ("Some objects.", "2"), ("{P} beside a window.", "4"), ("A crowd at a football match.", "1")]
REVIEWS = [("positive", "I love it: it heats up fast and the handle stays cool. Excellent value."),
           ("positive", "Great quality, easy to clean, and it arrived early. I would recommend it."),
           ("negative", "The handle snapped in the first week and support ignored my emails. A waste of money."),
           ("negative", "Cheap plastic that smells, and half the parts were missing. Terrible."),
           ("neutral", "It came in a brown box with a manual in three languages and two spare batteries."),
           ("neutral", "The colour is grey and it weighs about a kilo, as the listing says.")]
PRODUCTS = ["toaster", "desk lamp", "rucksack", "kettle", "umbrella", "phone case", "blender", "tent"]


@dataclass(frozen=True)
class GatePage:
    """One page of the benchmark: its source, the fields a worker must answer (from the page as written, not
    as imported: what the importer keeps is under test), its shape, and its control items' field."""
    name: str
    source: str
    required: tuple[str, ...]
    images_per_hit: int
    control_field: str = ""
    settings: dict[str, str] = field(default_factory=dict)


PAGES = (
    GatePage("alt_text", "alt_text.html", ("usefulness", "missing"), 1),
    GatePage("caption_rating", "caption_rating.html", ("accuracy", "reason"), 1, "accuracy"),
    GatePage("review_sentiment", "review_sentiment.html", ("feeling",), 4, "feeling"),
)


def rows(page: GatePage, n: int, start: int = 0) -> tuple[list[str], list[tuple[str, str, list[str]]]]:
    """(the item columns, ``n`` items from ``start``: (item id, its known answer, its columns' values))."""
    out = []
    for k in range(start, start + n):
        photo = PHOTOS[k % len(PHOTOS)]
        fill = {"p": photo, "P": photo[:1].upper() + photo[1:]}
        url = f"https://photos.example.org/{page.name}/{k + 1}.jpg"
        if page.name == "alt_text":
            out.append((f"alt-{k + 1:04d}", "", [url, ALT_TEXTS[k % len(ALT_TEXTS)].format(**fill)]))
        elif page.name == "caption_rating":
            caption, score = CAPTION_SETS[(k // len(PHOTOS) + k) % len(CAPTION_SETS)]
            out.append((f"cap-{k + 1:04d}", score, [url, caption.format(**fill)]))
        else:
            feeling, text = REVIEWS[(k // len(PRODUCTS) + k) % len(REVIEWS)]
            out.append((f"rev-{k + 1:04d}", feeling, [f"The {PRODUCTS[k % len(PRODUCTS)]}: {text}"]))
    columns = {"alt_text": ["image_url", "alt_text"], "caption_rating": ["image_url", "caption"]}
    return columns.get(page.name, ["review"]), out


def prepare(page: GatePage, folder: Path, items: int, batches: int = 3) -> Path:
    """The page imported into ``folder`` with ``items`` items (and half as many control items where the
    page has them), set up with the documented keys; the campaign config's path."""
    from flows.custom.scaffold_import import scaffold_from

    source = folder / page.source
    shutil.copyfile(HERE / page.source, source)
    columns, items_rows = rows(page, items)
    item_file = folder / f"{page.name}_items.csv"
    with item_file.open("w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows([["item_id", *columns]] + [[i, *values] for i, _, values in items_rows])
    written, _notes = scaffold_from(page.name, source, folder, items=item_file)
    config = written[0]
    keys = {"batches": str(batches), "assignments_per_image": "3", "images_per_hit": str(page.images_per_hit),
            "budget": '"100000.00 USD"', **page.settings}
    if page.control_field:
        _, controls = rows(page, max(6, items // 2), start=items)
        control_file = config.parent / f"{page.name}_controls.csv"
        with control_file.open("w", newline="", encoding="utf-8") as f:
            csv.writer(f).writerows([["item_id", "field", "answer", *columns]]
                                    + [[i, page.control_field, answer, *values] for i, answer, values in controls])
        keys |= {"controls": f'"{control_file.name}"', "control_share": "0.2"}
    missing = edit_config(config, keys)
    if missing:
        raise RuntimeError(f"{page.name}: the imported config has no {missing}; the starter config changed")
    return config
