"""Answers a reader would call plausible on pages of our own in the shapes of third-party templates
(Done-when line 1): a blank, a next word and a sentence's missing beginning and end get words
of their own, not the sentence back; questions about the worker (age, home, favourite colour,
headphones) are answered about the worker, the same on each of their HITs; a 1-5 rating of audio the
simulator cannot hear clusters per item instead of jumping across the scale."""

from __future__ import annotations

import random
import statistics
import tomllib
from collections import defaultdict

from flows.core.pages.mturk_forms import form_fields
from flows.custom.scaffold_import import field_qc_table, free_text_fields
from flows.sim.pages.any_form import fill_unhinted
from flows.sim.people.crowd_model import new_worker

BLANK = """<form><input type="hidden" name="item_id_0" value="s-{k}">
<p><strong>Sentence with a gap:</strong> {before} ____ {after}</p>
<input type="text" name="word_0" placeholder="the missing word"></form>"""
NEXT = """<form><input type="hidden" name="item_id_0" value="n-{k}">
<p><strong>Carry on from here:</strong> {before} ____</p><input type="text" name="guess_0"></form>"""
AROUND = """<form><input type="hidden" name="item_id_0" value="a-{k}">
<p>Around this: ___ {middle} ___</p><input type="text" name="start_0"><input type="text" name="finish_0"></form>"""
ABOUT = """<form><input type="hidden" name="item_id_0" value="q-{k}"><p>Thoughts on {topic} please.</p>
<input type="text" name="years_0" required><label>What is your age?</label>
<p>Where do you live? Which country?</p><input type="text" name="home_0" required>
<p>Your favourite colour</p><input type="text" name="hue_0">
<p>I will listen to the files with:</p>
<input type="radio" name="gear_0" value="cans" required> over-ear headphones
<input type="radio" name="gear_0" value="speakers"> laptop speakers</form>"""
MOS = """<form><input type="hidden" name="item_id_0" value="clip-{k}"><audio src="https://e.org/{k}.wav"></audio>
<p>Rate this clip</p>""" + "".join(f'<input type="radio" name="mos_0" value="{v}" required> {v}' for v in range(1, 6)) \
    + "</form>"
SENTENCES = [("She poured a cup of hot", "and sat down."), ("The train leaves from platform", "at seven."),
             ("He locked the front", "and left."), ("My grandmother bakes the best apple", "in town.")]


def answers(page: str, field: str, worker_seed: int, k: int) -> str:
    worker = new_worker("diligent", {}, random.Random(worker_seed))
    return fill_unhinted(worker, form_fields(page), page, {}, random.Random(worker_seed * 100 + k))[field]


def test_a_blank_and_a_next_word_never_get_the_sentence_back() -> None:
    for k, (before, after) in enumerate(SENTENCES * 3):
        blank = answers(BLANK.format(k=k, before=before, after=after), "word_0", k, k)
        following = answers(NEXT.format(k=k, before=before), "guess_0", k, k)
        for value in (blank, following):
            assert value and "____" not in value, value  # the sentence came back before
            assert before.lower() not in value.lower()


def test_a_texts_missing_beginning_and_end_are_words_around_it() -> None:
    for k, middle in enumerate(["went to the market", "the old lighthouse", "because it was raining"] * 4):
        page = AROUND.format(k=k, middle=middle)
        start, finish = answers(page, "start_0", k, k), answers(page, "finish_0", k, k)
        assert start and finish and start != finish, (start, finish)
        assert middle not in start and middle not in finish and "___" not in start + finish


def test_questions_about_the_worker_get_the_workers_own_answer_on_every_hit() -> None:
    for seed in range(12):
        seen = defaultdict(set)
        for k, topic in enumerate(["bees", "bikes", "tea"]):
            worker = new_worker("diligent", {}, random.Random(seed))
            page = ABOUT.format(k=k, topic=topic)
            values = fill_unhinted(worker, form_fields(page), page, {}, random.Random(seed * 10 + k))
            for name in ("years_0", "home_0", "gear_0"):
                seen[name].add(values[name])
            assert values["hue_0"] == "" or values["hue_0"].isalpha(), values["hue_0"]
        assert all(len(v) == 1 for v in seen.values()), seen  # a different age on every HIT before
        age = next(iter(seen["years_0"]))
        assert age.isdigit() and 18 <= int(age) <= 75, age  # a photo's description before
        assert next(iter(seen["home_0"])).replace(" ", "").isalpha()


def test_an_imported_question_about_the_worker_gets_no_repeat_rules() -> None:
    body = ABOUT.format(k=0, topic="bees").replace("_0", "_{{ i }}")
    personal = {name: about for name, _, about, _ in free_text_fields(body)}
    assert personal["years"] and personal["home"]
    table = field_qc_table("years", "text", personal["years"])
    assert "it asks about the worker, so" in table and "missing word" not in table  # the reason this box has
    ignored = tomllib.loads(table)["qc"]["fields"]["years"]["ignore"]
    assert {"duplicate_text", "shared_template"} <= set(ignored) and "caps_lock" not in ignored
    assert field_qc_table("caption", "text", False) == ""  # the [qc] rules that judge text, all of them


def test_ratings_of_unheard_audio_cluster_per_clip_and_use_the_middle_of_the_scale() -> None:
    per_clip = defaultdict(list)
    for k in range(40):
        for w in range(5):
            per_clip[k].append(int(answers(MOS.format(k=k), "mos_0", 1000 + w, k)))
    flat = [v for vs in per_clip.values() for v in vs]
    within = statistics.mean(statistics.pvariance(vs) for vs in per_clip.values())
    assert within < 0.6 * statistics.pvariance(flat), (within, statistics.pvariance(flat))  # clips differ
    assert max(vs.count(v) for vs in [flat] for v in set(flat)) / len(flat) < 0.7
    assert sum(1 for vs in per_clip.values() if max(vs) - min(vs) >= 4) <= 2  # no 1-to-5 jumps on most clips
    ends, middle = flat.count(1) + flat.count(5), flat.count(3) + flat.count(4)
    assert ends < 0.6 * middle, (ends, middle)  # every clip's score drawn uniformly over 1-5 before


def test_an_imported_fill_the_blank_box_gets_no_repeat_rules() -> None:
    """The same missing word on two items ("door") is no copy: shared_template blocked five honest
    simulated workers of a fill-out page before (a beginning and an end each on two items)."""
    body = '<p>{{ item.before }} ____ {{ item.after }}</p><input type="text" name="word_{{ i }}">'
    [(name, _, personal, _)] = free_text_fields(body)
    assert name == "word" and personal
    assert "it asks for a missing word, so" in field_qc_table(name, "text", personal)
    assert "shared_template" in tomllib.loads(field_qc_table(name, "text", personal))["qc"]["fields"]["word"]["ignore"]


def test_openings_and_endings_rarely_coincide_between_honest_workers() -> None:
    seen: list[str] = []
    for k in range(36):
        page = AROUND.format(k=k, middle=["went to the market", "the old lighthouse", "because it was raining"][k % 3])
        seen += [answers(page, "start_0", k, k), answers(page, "finish_0", k, k)]
    assert len(set(seen)) >= 0.85 * len(seen), len(set(seen))
