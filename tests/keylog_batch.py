"""A keystroke-logged crowd-form batch, written for the tests in MTurk's batch-results layout (no real
one was found: none of ../shared/data's sources holds a keystroke log). Each row is one worker's
summary in ``Answer.taskAnswers`` (``[{"summary": ..., "confidence": {"high": ..}, "keylog": [...]}]``),
the log in the ``[kind, detail, ISO time]`` shape (copies and cuts with no time, as real logs have
them), for some rows in its own ``Answer.events`` column instead.

Each worker behaves one of several ways (types with slips, pastes from outside whole or in part,
edits a paste down, copies or cuts on the page and pastes back, drafts elsewhere and pastes pieces).
The behaviour reference is kept beside the log: a text buffer replays what the worker did with
each character's origin, and ``external_share`` is the share of the final text that arrived by a
paste of text not copied on the page. It is computed from the behaviour, not from the log."""

from __future__ import annotations

import csv
import json
import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

VOCABULARY = ("the council voted to close old library residents asked for a new site near school decision is due in "
         "may storm flooded harbour road overnight boats stayed port crews cleared drains by noon bakers formed "
         "cooperative buy flour together prices doubled this year museum reopened after repairs visitors queued "
         "around square entry stays free month students built solar car came third national race")
WORDS = VOCABULARY.split()
ASSISTANT = ("In summary, the article discusses several key developments and their broader implications for the "
             "local community, highlighting important considerations for residents and officials alike.")
BEHAVIOURS = ("typist", "typist", "typist", "paster", "partial", "edited_paste", "in_page", "cut_move", "notes")
# rehearsal work's two habits of a page that shows a passage (Input.passage): copy it and paste it back with the
# whitespace around it differing from the copy's, or paste the page's own text with no copy logged
PAGE_HABITS = ("copy_passage", "source_paste")
START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


@dataclass
class Session:
    """One worker at one text box: the log written and every character's origin (t, p, x)."""
    rng: random.Random
    clock: datetime
    passage: str = ""  # the text the page shows (its Input.passage)
    log: list[list[object]] = field(default_factory=list)
    text: list[tuple[str, str]] = field(default_factory=list)  # (character, origin)

    def event(self, kind: str, detail: object, gap_ms: float, timed: bool = True) -> None:
        self.clock += timedelta(milliseconds=gap_ms)
        self.log.append([kind, detail, self.clock.isoformat()] if timed else [kind, detail])

    def type(self, words: str, slips: float = 0.03) -> None:
        for ch in words:
            if self.rng.random() < slips:  # a slip, seen and rubbed out
                self.event("key", self.rng.choice("qwxz"), self.rng.gauss(190, 40))
                self.event("key", "Backspace", self.rng.gauss(260, 50))
            self.event("key", ch, max(40.0, self.rng.gauss(190, 60)))
            self.text.append((ch, "t"))

    def paste(self, words: str, origin: str) -> None:
        self.event("paste", words, self.rng.uniform(400, 4000))
        self.text.extend((ch, origin) for ch in words)

    def backspace(self, n: int) -> None:
        for _ in range(min(n, len(self.text))):
            self.event("key", "Backspace", max(30.0, self.rng.gauss(110, 30)))
            self.text.pop()

    def final(self) -> str:
        return "".join(ch for ch, _ in self.text)

    def external_share(self) -> float:
        return sum(o == "x" for _, o in self.text) / max(1, len(self.text))


def sentence(rng: random.Random, n: int) -> str:
    words = [rng.choice(WORDS) for _ in range(n)]
    return " ".join(words).capitalize() + "."


def act(s: Session, behaviour: str) -> None:
    """What the worker does, written into the log and the buffer alike."""
    rng = s.rng
    s.event("focus", "", rng.uniform(500, 3000))
    own = " ".join(sentence(rng, rng.randint(8, 14)) for _ in range(rng.randint(2, 3)))
    if behaviour == "typist":
        s.type(own)
    elif behaviour == "paster":
        s.type(own[: rng.randint(0, 3)])
        s.event("blur", "", rng.uniform(2000, 20000))
        s.paste(ASSISTANT, "x")
    elif behaviour == "partial":  # types part, pastes an assistant's rest
        cut = rng.randint(len(own) // 5, len(own) - 1)
        s.type(own[:cut] + " ")
        s.paste(ASSISTANT[: rng.randint(40, len(ASSISTANT))], "x")
    elif behaviour == "edited_paste":  # pastes, rubs much of it out, types their own ending
        s.paste(ASSISTANT, "x")
        s.backspace(rng.randint(20, len(ASSISTANT) - 10))
        s.type(" " + sentence(rng, rng.randint(6, 16)))
    elif behaviour == "in_page":  # types a sentence, copies it (no time, as real logs), pastes it back
        first = sentence(rng, rng.randint(8, 12))
        s.type(first + " ")
        s.event("copy", first, 0, timed=False)
        s.paste(first, "p")
        s.type(" " + sentence(rng, 6))
    elif behaviour == "cut_move":  # cuts the last sentence and pastes it back after a new one
        first, second = sentence(rng, 9), sentence(rng, 7)
        s.type(first + " " + second)
        del s.text[-len(second):]
        s.event("cut", second, 0, timed=False)
        s.type(" " + sentence(rng, 8) + " ")
        s.paste(second, "p")
    elif behaviour == "copy_passage":  # selects the passage (the copy keeps no line break), pastes it with one
        s.event("copy", s.passage.strip(), 0, timed=False)
        s.paste("\n" + s.passage.strip(), "p")
        s.type(" " + sentence(rng, rng.randint(4, 8)))
    elif behaviour == "source_paste":  # a sentence of the passage, pasted with no copy in the log (copied
        # before the logger started, or from the page's source elsewhere)
        pieces = s.passage.split(". ")
        s.paste(" " + pieces[rng.randrange(len(pieces) - 1)] + ".  ", "p")
        s.type(own)
    else:  # notes: drafted a sentence or two in another window, pasted, then typed the rest
        s.event("blur", "", rng.uniform(2000, 9000))
        draft = sentence(rng, rng.randint(6, 20))
        s.paste(draft, "x")
        s.type(" " + " ".join(sentence(rng, rng.randint(8, 14)) for _ in range(rng.randint(1, 3))))
    s.event("blur", "", rng.uniform(300, 1500))


def passage(n: int) -> str:
    """Article ``n``'s passage as the page shows it: sentences of the vocabulary, about 735 characters."""
    rng, text = random.Random(f"passage-{n}"), ""
    while len(text) < 700:
        text += sentence(rng, rng.randint(10, 16)) + " "
    return text.strip()


def batch(rows: int = 200, seed: int = 44, behaviours: tuple[str, ...] = BEHAVIOURS) -> list[dict[str, str]]:
    """The batch's rows; each with the reference (``Reference.*`` columns, dropped before hitflow reads it)."""
    rng = random.Random(seed)
    out = []
    for n in range(rows):
        behaviour = rng.choice(behaviours)
        t0 = START + timedelta(minutes=3 * n)
        s = Session(random.Random(rng.random()), t0, passage(n % 40))
        act(s, behaviour)
        answer: dict[str, object] = {"summary": s.final(), "confidence": {"high": n % 3 != 0, "low": n % 3 == 0}}
        own_column = n % 5 == 4  # this page version logged into its own hidden input
        if not own_column:
            answer["keylog"] = s.log
        out.append({"HITId": f"3KEYLOGHIT{n // 5:04d}", "AssignmentId": f"3KEYLOGASG{n:04d}",
                    "WorkerId": f"AKEYLOG{n:04d}", "AssignmentStatus": "Submitted", "AcceptTime": t0.isoformat(),
                    "SubmitTime": (s.clock + timedelta(seconds=5)).isoformat(),
                    "WorkTimeInSeconds": str(int((s.clock - t0).total_seconds()) + 5),
                    "Input.article_id": f"art-{n % 40}", "Input.passage": s.passage,
                    "Answer.taskAnswers": json.dumps([answer]),
                    "Answer.events": json.dumps(s.log) if own_column else "",
                    "Reference.behaviour": behaviour, "Reference.external_share": f"{s.external_share():.4f}"})
    return out


def write(path: Path, rows: list[dict[str, str]]) -> Path:
    """The batch as MTurk writes it (every field quoted), without the reference columns."""
    with path.open("w", newline="", encoding="utf-8") as f:
        names = [k for k in rows[0] if not k.startswith("Reference.")]
        writer = csv.DictWriter(f, fieldnames=names, quoting=csv.QUOTE_ALL, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    return path
