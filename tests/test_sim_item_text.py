"""The simulated crowd writes about the item, not the page's labels (its free-text
half): a choice's own text (a crowd-radio-button's, the words after a plain radio button) is a label,
never the item's content the free text is written from."""

from __future__ import annotations

import random

from flows.core.pages.mturk_forms import form_fields, read_page
from flows.sim.pages.any_form import fill_unhinted
from flows.sim.people.crowd import Worker
from flows.sim.people.page_context import item_contexts

NOTE = "A red double-decker bus waits at a rainy crossing in the evening."
PAGE = f"""<crowd-form>
<input type="hidden" name="image_id_0" value="bus-1">
<p>{NOTE}</p>
<crowd-text-area name="description_0" label="Describe it" required></crowd-text-area>
<crowd-radio-group>
  <crowd-radio-button name="clear_0" value="clear">The photo is clear and sharp</crowd-radio-button>
  <crowd-radio-button name="unusable_0" value="unusable">Cannot tell what it shows</crowd-radio-button>
</crowd-radio-group>
<input type="radio" name="light_0" value="dark"> It is far too dark to see
<input type="radio" name="light_0" value="fine"> The light is good enough here
</crowd-form>"""
LABELS = ("The photo is clear and sharp", "Cannot tell what it shows", "It is far too dark to see",
          "The light is good enough here")


def test_a_choices_text_is_a_label_not_the_items_content() -> None:
    texts = {t: is_label for _, t, is_label in read_page(PAGE).texts}
    assert all(texts[label] for label in LABELS) and not texts[NOTE]
    assert item_contexts(read_page(PAGE))["0"].texts == [NOTE]


def test_honest_workers_write_about_the_item_not_the_labels() -> None:
    fields = form_fields(PAGE)
    written = []
    for n in range(20):
        worker = Worker(f"W{n}", "honest", {}, 1000, 99, skill=0.9)
        written.append(fill_unhinted(worker, fields, PAGE, {}, random.Random(n), "page")["description_0"])
    assert all(w.strip() for w in written)
    assert not any(label.lower() in w.lower() for w in written for label in LABELS)
    bus_words = {"bus", "red", "rain", "rainy", "crossing", "evening", "double-decker"}
    assert sum(bool(bus_words & set(w.lower().replace(".", " ").replace(",", " ").split())) for w in written) >= 18
