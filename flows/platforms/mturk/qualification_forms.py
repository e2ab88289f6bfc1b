"""The qualification test as MTurk XML: a QuestionForm ``Test`` and its ``AnswerKey``.

MTurk scores a worker's test from the AnswerKey and grants the qualification with the
percentage as its value; hitflow only builds the two documents from the key CSV.
"""

from __future__ import annotations

import json
from typing import Any
from xml.sax.saxutils import escape

import pandas as pd

from flows.core.pages.mturk_forms import NS_FORM

NS_KEY = "http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/2005-10-01/AnswerKey.xsd"
PROMPTS = {
    "spelling": "Is every word in this sentence correctly spelled and correctly used?",
    "grammar": "Is this sentence (or noun phrase) correct English?",
    "judging": "Which sentence describes the image better?",
}
OPTIONS = {"spelling": [("correct", "Yes, correct"), ("incorrect", "No, there is a mistake")],
           "grammar": [("correct", "Yes, correct"), ("incorrect", "No, there is a mistake")],
           "judging": [("1", "Sentence 1"), ("2", "Sentence 2")]}
OVERVIEW = ("This test checks spelling, grammar, and how well you judge image descriptions. "
            "Answer every question; unanswered questions count as wrong.")


def _question(row: pd.Series) -> str:
    text = escape(row["text"]) if row["section"] != "judging" else (
        f"1: {escape(row['text'])} | 2: {escape(row['text_2'])}")
    selections = "".join(f"<Selection><SelectionIdentifier>{sid}</SelectionIdentifier><Text>{escape(label)}</Text>"
                         "</Selection>" for sid, label in OPTIONS[row["section"]])
    return (f"<Question><QuestionIdentifier>{escape(row['item_id'])}</QuestionIdentifier><IsRequired>true"
            f"</IsRequired><QuestionContent><Text>{PROMPTS[row['section']]} {text}</Text></QuestionContent>"
            f"<AnswerSpecification><SelectionAnswer><StyleSuggestion>radiobutton</StyleSuggestion>"
            f"<Selections>{selections}</Selections></SelectionAnswer></AnswerSpecification></Question>")


def build_test_form(key: pd.DataFrame) -> str:
    body = "".join(_question(row) for _, row in key.iterrows())
    return (f'<QuestionForm xmlns="{NS_FORM}"><Overview><Text>{escape(OVERVIEW)}</Text></Overview>'
            f"{body}</QuestionForm>")


def build_answer_key(key: pd.DataFrame) -> str:
    """One point per right answer; the percentage of the maximum becomes the qualification value."""
    parts = [f'<AnswerKey xmlns="{NS_KEY}">']
    for _, row in key.iterrows():
        parts.append(f"<Question><QuestionIdentifier>{escape(row['item_id'])}</QuestionIdentifier><AnswerOption>"
                     f"<SelectionIdentifier>{escape(row['answer'].strip().lower())}</SelectionIdentifier>"
                     "<AnswerScore>1</AnswerScore></AnswerOption></Question>")
    parts.append(f"<QualificationValueMapping><PercentageMapping><MaximumSummedScore>{len(key)}"
                 "</MaximumSummedScore></PercentageMapping></QualificationValueMapping></AnswerKey>")
    return "".join(parts)


QUIZ_OVERVIEW = ("Before the task's pages: a few of its questions whose answers are known. Answer each as you would "
                 "on the task's pages.")


def build_quiz_form(quiz: dict[str, Any]) -> tuple[str, str]:
    """The control quiz (flows/answers/control_quiz.py, as the ledger keeps it) as a Test and its AnswerKey: one
    question an item, showing its columns, offering the answers the quiz's controls give for the field."""
    key = pd.DataFrame(quiz["key"], columns=["item_id", "field", "answer"])
    shown = {r["item_id"]: json.loads(r["payload"]) for r in quiz["rows"]}
    offered = sorted(set(key["answer"]))
    selections = "".join(f"<Selection><SelectionIdentifier>{escape(a.strip().lower())}</SelectionIdentifier>"
                         f"<Text>{escape(a)}</Text></Selection>" for a in offered)
    body = "".join(
        f"<Question><QuestionIdentifier>{escape(r.item_id)}</QuestionIdentifier><IsRequired>true</IsRequired>"
        f"<QuestionContent><Text>{escape(_item_text(shown.get(r.item_id, {})))} {escape(r.field)}?</Text>"
        "</QuestionContent><AnswerSpecification><SelectionAnswer><StyleSuggestion>radiobutton</StyleSuggestion>"
        f"<Selections>{selections}</Selections></SelectionAnswer></AnswerSpecification></Question>"
        for r in key.itertuples())
    overview = f"<Overview><Text>{escape(QUIZ_OVERVIEW)}</Text></Overview>"
    return f'<QuestionForm xmlns="{NS_FORM}">{overview}{body}</QuestionForm>', build_answer_key(key)


def _item_text(row: dict[str, Any]) -> str:
    return " | ".join(f"{k}: {v}" for k, v in row.items() if k != "item_id" and str(v).strip())
