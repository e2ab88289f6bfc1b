"""What a simulated person can and would answer on a page of our own in the shapes third-party
templates use (Done-when line 1): a select's disabled placeholder is not an answer, an item
whose whole task is two optional boxes is answered, a colour picker is not one colour for every
song, and a song's genre is not read off a photo the simulator imagined for an item showing none."""

from __future__ import annotations

import random
from collections import Counter

from flows.core.pages.mturk_forms import form_fields
from flows.sim.pages.any_form import fill_unhinted
from flows.sim.pages.page_common import OpenedPages, page_chunks
from flows.sim.people.crowd_model import BankEntry, new_worker

SONG = """<form><input type="hidden" name="item_id_{i}" value="song-{i}">
<iframe src="https://music.example.org/embed/{i}"></iframe>
<p>Which genre is this song?</p>
<select name="genre_{i}"><option disabled selected>-</option><option value="blues">Blues</option>
<option value="rock">Rock</option><option value="other">Other</option></select>
<p>Pick a colour for it</p><input type="color" name="colour_{i}"></form>"""
SURROUND = """<form><input type="hidden" name="item_id_{i}" value="part-{i}">
<p>Text to surround: ___ {text} ___</p>
<input type="text" name="beginning_{i}"><input type="text" name="end_{i}"></form>"""
# a bank whose photos are all blue: an item that shows no photo must not be "Blues" because of them
BANK = {f"b{k}": BankEntry([f"A blue mug number {k} on a blue table."], 0) for k in range(5)}


def test_a_disabled_placeholder_option_is_not_an_option() -> None:
    genre = next(f for f in form_fields(SONG.format(i=0)) if f.name == "genre_0")
    assert genre.options == ["blues", "rock", "other"]  # "-" was an option: 7 of 36 answers were "-"


def test_a_songs_answers_are_not_read_off_an_imagined_photo() -> None:
    genres, colours = Counter(), set()
    for k in range(40):
        worker = new_worker("diligent", {}, random.Random(k))
        page = SONG.format(i=k % 10)
        values = fill_unhinted(worker, form_fields(page), page, BANK, random.Random(k))
        genres[values[f"genre_{k % 10}"]] += 1
        colours.add(values[f"colour_{k % 10}"])
    assert genres["blues"] < 30, genres  # every song was "blues" (the photos' "blue") before
    assert len(colours) > 3, colours  # "#336699" for every song before


def test_two_optional_boxes_that_are_the_whole_task_are_answered() -> None:
    filled = empty = 0
    for k in range(30):
        worker = new_worker("diligent", {}, random.Random(k))
        page = SURROUND.format(i=0, text="the red bicycle")
        values = fill_unhinted(worker, form_fields(page), page, {}, random.Random(k))
        answered = [v for v in (values["beginning_0"], values["end_0"]) if v.strip()]
        filled += bool(answered)
        empty += not answered
    assert empty <= 2, (filled, empty)  # about half handed back nothing before: empty_answer held the batch


SAMPLE = """<form><input type="hidden" name="item_id_{i}" value="clip-{i}">
<audio controls><source src="https://audio.example.org/clip{i}.wav"></audio>
<label><input type="radio" name="score_{i}" value="1" required> 1</label>
<label><input type="radio" name="score_{i}" value="5"> 5</label>
<p>Any comments about this sample (optional):</p><textarea name="comments_{i}"></textarea></form>"""


def test_an_optional_comment_on_a_sound_is_not_a_photo_description() -> None:
    """A sound sample shows nothing to describe: honest workers wrote the description of a photo the
    simulator imagined for it ("The picture shows ... next to a green jar") into its comment box."""
    written = []
    for k in range(30):
        worker = new_worker("diligent", {}, random.Random(k))
        page = SAMPLE.format(i=k % 6)
        common = page_chunks(SAMPLE.format(i=k % 6 + 1)) & page_chunks(SAMPLE.format(i=k % 6 + 2))  # as other HITs show
        values = fill_unhinted(worker, form_fields(page), page, BANK, random.Random(k), common=common)
        written += [values[f"comments_{k % 6}"]] if values[f"comments_{k % 6}"].strip() else []
    assert not written, written


ONE_ITEM = """<form><input type="hidden" name="image_id_0" value="photo-{k}">
<img src="https://example.org/{k}.jpg"><p>Avoid assumptions or interpretations; stick to what can be seen.</p>
<p>{note}</p><textarea name="caption_0" required></textarea></form>"""
NOTES_SEEN = ["A red bicycle leaning against a garden fence.", "Two mugs of coffee beside a newspaper.",
              "A yellow train arriving at a crowded platform.", "A grey cat asleep on a blue sofa.",
              "Three boats tied up in a small harbour.", "A child flying a kite on a windy beach.",
              "A plate of pancakes with berries on top.", "An old car parked under a street lamp."]


def test_pages_opened_over_http_know_the_studys_own_text_whatever_the_order() -> None:
    """Prolific's and the invite links' simulated people learn a study's own text from the pages
    their crowd opened at the same address: the instructions, never the item's text, and once all
    pages were opened the same whatever order they were opened in (the first opener knows none)."""
    credit = " <p>Photo lent by the town museum's archive team.</p>"  # three items' own text, not the page's
    pages = [ONE_ITEM.format(k=k, note=note + credit * (k >= 5)) for k, note in enumerate(NOTES_SEEN)]
    url = "http://127.0.0.1:9/task/photos?PROLIFIC_PID={}&SESSION_ID=s{}"
    knowledge = []
    for order in (list(range(8)), [5, 2, 7, 0, 3, 6, 1, 4]):
        opened = OpenedPages()
        first = opened.shared(url.format("p", order[0]), pages[order[0]])
        assert first == frozenset()  # nothing seen yet: the page's own text is not known
        for k in order[1:]:
            opened.shared(url.format(k, k), pages[k])
        knowledge.append([opened.shared(url.format("again", k), pages[k]) for k in range(8)])
    assert knowledge[0] == knowledge[1]
    for k, common in enumerate(knowledge[0]):
        assert "Avoid assumptions or interpretations; stick to what can be seen." in common
        assert NOTES_SEEN[k] not in common and "Photo lent by the town museum's archive team." not in common
    elsewhere = opened.shared("http://127.0.0.1:9/task/other?invite=x", pages[0])
    assert elsewhere == frozenset()  # another campaign's address shares nothing with this one
