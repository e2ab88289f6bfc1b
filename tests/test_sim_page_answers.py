"""What a simulated person can and would answer on a page of our own in the shapes third-party
templates use (issue 44, Done-when line 1): a select's disabled placeholder is not an answer, an item
whose whole task is two optional boxes is answered, a colour picker is not one colour for every
song, and a song's genre is not read off a photo the simulator imagined for an item showing none."""

from __future__ import annotations

import random
from collections import Counter

from flows.core.pages.mturk_forms import form_fields
from flows.sim.any_form import fill_unhinted
from flows.sim.crowd_model import BankEntry, new_worker
from flows.sim.page_common import page_chunks

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
