"""Text QC on every free-text field of a campaign on the user's own page, one frame per field (docs/custom_pages.md)."""

from __future__ import annotations

import html
import re
from typing import Any

import numpy as np
import pandas as pd

from flows.campaigns.page_text import visible_text
from flows.core.pages.asks_worker import question_texts
from flows.core.pages.mturk_forms import field_base, read_page
from flows.core.pages.templates import MASK
from qc.asked_limits import (
    asks_for_copy,
    asks_own_words,
    forbids_quality_talk,
    stated_banned_openings,
    stated_max_words,
    stated_min_words,
    stated_one_sentence,
)
from qc.caption_rules import PICTURE_QUALITY_WORDS
from qc.echo_rules import page_lines
from qc.listed_answers import run_named_apart
from qc.submit_rules import SubmitRules, is_blank
from qc.telemetry_rules import TELEMETRY_RULES
from qc.text_features import canned_mask

# Rules that read one answer's text (``caption``): run per free-text field, never on the response frame.
TEXT_LEVEL = ("duplicate_text", "shared_template", "consensus", "consensus_rate", "near_template", "instruction_echo",
              "canned_overuse", "canned_lone_use", "canned_lone_nonuse", "quality_words", "quality_words_rate",
              "quality_talk", "source_copy", "short_answer", "caps_lock", "min_words", "max_words", "one_sentence",
              "banned_prefix", "max_chars", *TELEMETRY_RULES)
NO_CANNED_TEXT = "\x00"  # the submit rules' own canned text: nothing typed equals this (canned answers: below)
CANNED_RULES = ("canned_overuse", "canned_lone_use", "canned_lone_nonuse")
QUALITY_RULES = ("quality_words", "quality_words_rate")
# a box for a few words: the same answer from many people, or one person on many items, is honest work there
NAME_IT_WORDS = 6
SAME_TEXT_RULES = ("shared_template", "duplicate_text")
# A canned answer a page's script writes into a field, of three words or more; shorter ones are sentinels.
SCRIPT_VALUE = re.compile(r"""\.value\s*=\s*(?P<q>["'])(?P<text>(?:(?!(?P=q))[^\\\n]|\\.){3,300})(?P=q)""")


def field_submit_rules(conf: dict[str, Any], asked: str = "") -> SubmitRules:
    """One field's limits from ``[qc.fields.<name>]`` and the page (``asked``): the larger minimum, both's openings,
    one sentence where either asks it."""
    banned = tuple(dict.fromkeys([*(conf.get("banned_prefixes") or ()), *stated_banned_openings(asked)]))
    return SubmitRules(min_words=max(int(conf.get("min_words") or 0), stated_min_words(asked)),
                       one_sentence=bool(conf.get("one_sentence")) or stated_one_sentence(asked),
                       banned_prefixes=banned, max_chars=int(conf.get("max_chars") or 0) or None, required=False,
                       canned_text=NO_CANNED_TEXT)


def field_max_words(conf: dict[str, Any], asked: str = "") -> int:
    """One field's most words: the fewer of ``[qc.fields.<name>] max_words`` and what the page states (0: none)."""
    return min((n for n in (int(conf.get("max_words") or 0), stated_max_words(asked)) if n > 0), default=0)


def asked_of(field: str, params: dict[str, Any], several: bool) -> str:
    """A field's question, after the page's instructions when it is the only free-text field (their limits are its)."""
    question = (params.get("field_questions") or {}).get(field) or ""
    return f"{'' if several else params.get('page_text') or ''}\n{question}"


def limit_lines(params: dict[str, Any], enabled: tuple[str, ...], text_fields: list[str]) -> list[str]:
    """For the dry run: each free-text field's word limits and forbidden openings, and where each comes from."""
    lines = []
    for field in text_fields:
        rules, conf = field_rules(field, params, enabled), (params.get("fields") or {}).get(field) or {}
        asked, table = asked_of(field, params, len(text_fields) > 1), f"[qc.fields.{field}]"
        page, own = stated_min_words(asked), int(conf.get("min_words") or 0)
        also = {0: "", page: f"; {table} min_words too"}.get(own, f"; {table} min_words = {own} is below it")
        source = f"the page's words{also}" if page >= own else f"{table} min_words" + (
            f"; the page asks {page}" if page else "")
        said = [f"at least {max(page, own)} words ({source})"] if "min_words" in rules and (page or own) else []
        if "max_words" in rules and (most := field_max_words(conf, asked)):
            from_page = most == stated_max_words(asked)
            said.append(f"at most {most} word{'s' * (most > 1)} (" + ("the page's words)" if from_page else
                                                                        f"{table} max_words)"))
        if "one_sentence" in rules and ((one := stated_one_sentence(asked)) or conf.get("one_sentence")):
            said.append("one sentence (" + ("the page's words)" if one else f"{table} one_sentence)"))
        stated, set_ = stated_banned_openings(asked), tuple(conf.get("banned_prefixes") or ())
        said += [f"not starting with {', '.join(repr(b) for b in bans)} ({where})" for bans, where in
                 ((stated, "the page's words"), (tuple(b for b in set_ if b not in stated), f"{table} banned_prefixes"))
                 if bans and "banned_prefix" in rules]
        lines.append(f"  limits on {field}: {'; '.join(said) or 'none stated (no word limit, no forbidden opening)'}")
    return lines


def page_canned_texts(page_html: str) -> list[str]:
    """The canned answers the page offers: texts of three words or more its scripts write into a field."""
    found = [html.unescape(m["text"]).replace("\\'", "'").replace('\\"', '"') for m in SCRIPT_VALUE.finditer(page_html)]
    return list(dict.fromkeys(t.strip() for t in found if len(t.split()) >= 3))


def canned_texts(field: str, params: dict[str, Any]) -> list[str]:
    """The field's canned answers: its ``[qc.fields.<name>] canned_text``, else the page's."""
    conf = (params.get("fields") or {}).get(field) or {}
    return list(conf.get("canned_text") or params.get("canned_texts") or ())


def field_rules(field: str, params: dict[str, Any], enabled: tuple[str, ...]) -> tuple[str, ...]:
    """One field's text rules: its own, else the campaign's; instruction_echo and source_copy only where they apply."""
    conf = (params.get("fields") or {}).get(field) or {}
    rules = tuple(r for r in (conf.get("rules") or enabled) if r in TEXT_LEVEL and r not in (conf.get("ignore") or ()))
    if not page_lines(str(params.get("page_text") or "")):
        rules = tuple(r for r in rules if r != "instruction_echo")
    if not canned_texts(field, params):  # the seed's canned rules need the answer the page offers
        rules = tuple(r for r in rules if r not in CANNED_RULES)
    if not forbids_quality_talk(str(params.get("page_text") or "")) and params.get("shows_picture", True):
        rules = tuple(r for r in rules if r not in QUALITY_RULES)  # naming blur is then no broken instruction
    if asks_for_copy(asked_of(field, params, several=False)):
        rules = tuple(r for r in rules if r != "source_copy")
    if 0 < stated_max_words((params.get("field_questions") or {}).get(field) or "") <= NAME_IT_WORDS:
        rules = tuple(r for r in rules if r not in SAME_TEXT_RULES)  # "postcode" from everyone is no template
    return rules


def text_flags(texts: pd.DataFrame, params: dict[str, Any], enabled: tuple[str, ...]) -> list[pd.DataFrame]:
    """Each free-text field's flags (``texts``: the answers of kind "text", with their telemetry)."""
    frames, several = [], texts["field"].nunique() > 1
    blank = [is_blank(str(t)) for t in texts["answer"]]
    answered = texts.loc[[not b for b in blank]] if blank else texts  # a blank optional answer is no text to judge
    for field, group in answered.groupby("field"):
        rules = field_rules(str(field), params, enabled)
        if not rules:
            continue
        conf = (params.get("fields") or {}).get(field) or {}
        canned = _canned(group["answer"], canned_texts(field, params))
        frame = group.assign(caption=group["answer"], is_precanned=canned).reset_index(drop=True)
        asked = asked_of(str(field), params, several)
        own = asks_own_words(asked_of(str(field), params, several=False))  # a piece of the item is then no answer
        flags = run_named_apart(frame, {**params, **_quality_words(params), "submit_rules": field_submit_rules(
            conf, asked), "max_words": field_max_words(conf, asked), "source_copy_fragments": own}, rules, asked)
        frames.append(flags.assign(detail=[f"{field}: {d}" for d in flags["detail"]]))
    return frames


def _quality_words(params: dict[str, Any]) -> dict[str, Any]:
    """Where the page forbids no quality talk, the quality rules run only on a page with no picture, and there read
    a picture's quality named (a word such as "quality" alone is about the item on a page of text)."""
    if forbids_quality_talk(str(params.get("page_text") or "")) or params.get("shows_picture", True):
        return {}
    return {"quality_words": PICTURE_QUALITY_WORDS}


def field_questions(page_html: str) -> dict[str, str]:
    """Per field: the words a person reads as its question, masked item values left out."""
    asked: dict[str, str] = {}
    for name, question in question_texts(read_page(page_html)).items():
        asked.setdefault(field_base(name), " ".join(question.replace(MASK, " ").split()))
    return asked


def page_reading(masked_page: str) -> dict[str, Any]:
    """What text rules read on a page rendered with item values masked: the requester's words, each field's question and
    canned answers. An item's text never sets a limit ("at least 400 words" in a review to summarise)."""
    lines = (" ".join(line.replace(MASK, " ").split()) for line in visible_text(masked_page).splitlines())
    answers = choice_labels(masked_page)  # a reason naming the option it chose echoes no instruction
    return {"page_text": "\n".join(line for line in lines if line and line.lower() not in answers),
            "field_questions": field_questions(masked_page),
            "canned_texts": page_canned_texts(masked_page),
            "shows_picture": not masked_page or bool(PICTURE.search(masked_page))}  # an unread page may show one


# What shows a picture, a video or a drawing: an element, a crowd element that shows one, an image file's address
PICTURE = re.compile(r"<(?:img|video|picture|canvas|svg|object|embed|iframe|crowd-image-classifier|crowd-bounding-box|"
                     r"crowd-polygon|crowd-semantic-segmentation|crowd-instance-segmentation|crowd-keypoint|"
                     r"crowd-line|crowd-point)\b|\.(?:jpe?g|png|gif|webp|bmp|tiff?)\b|background(?:-image)?\s*:[^;\"]*url\(",
                     re.I)


CHOICE_LABEL = re.compile(r"<option\b[^>]*>(.*?)</option>|<crowd-radio-button\b[^>]*>(.*?)</crowd-radio-button>|"
                          r"<label\b[^>]*>((?:(?!</label>).)*?type=[\"']?(?:radio|checkbox)\b.*?)</label>", re.I | re.S)


def choice_labels(page: str) -> set[str]:
    """The words of the page's options (a select's, a radio button's or box's label), lowercased."""
    texts = ("".join(m.groups(default="")) for m in CHOICE_LABEL.finditer(page))
    return {" ".join(html.unescape(re.sub(r"<[^>]+>", " ", t)).replace(MASK, " ").split()).lower() for t in texts}


def _canned(answers: pd.Series, canned: list[str]) -> np.ndarray:
    """Where an answer is one of the field's canned answers (as the caption task reads its canned text)."""
    found = np.zeros(len(answers), dtype=bool)
    for text in canned:
        found |= canned_mask(answers.fillna("").astype(str), text)
    return found
