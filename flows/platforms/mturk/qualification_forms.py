"""The qualification test as MTurk XML (a QuestionForm ``Test`` and its ``AnswerKey``), which MTurk scores."""

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


def _question(qid: str, text: str, options: list[tuple[str, str]]) -> str:
    selections = "".join(f"<Selection><SelectionIdentifier>{escape(sid)}</SelectionIdentifier><Text>{escape(label)}"
                         "</Text></Selection>" for sid, label in options)
    return (f"<Question><QuestionIdentifier>{escape(qid)}</QuestionIdentifier><IsRequired>true</IsRequired>"
            f"<QuestionContent><Text>{escape(text)}</Text></QuestionContent><AnswerSpecification><SelectionAnswer>"
            f"<StyleSuggestion>radiobutton</StyleSuggestion><Selections>{selections}</Selections></SelectionAnswer>"
            "</AnswerSpecification></Question>")


def _form(overview: str, questions: list[str]) -> str:
    return f'<QuestionForm xmlns="{NS_FORM}"><Overview><Text>{escape(overview)}</Text></Overview>{"".join(questions)}' \
        "</QuestionForm>"


def build_test_form(key: pd.DataFrame) -> str:
    return _form(OVERVIEW, [_question(r["item_id"], f"{PROMPTS[r['section']]} " + (
        r["text"] if r["section"] != "judging" else f"1: {r['text']} | 2: {r['text_2']}"), OPTIONS[r["section"]])
        for _, r in key.iterrows()])


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


def build_quiz_form(quiz: dict[str, Any]) -> str:
    """The control quiz as a Test without AnswerKey (hitflow judges), a question an item with the page's options."""
    key = pd.DataFrame(quiz["key"], columns=["item_id", "field", "answer"])
    shown = {r["item_id"]: json.loads(r["payload"]) for r in quiz["rows"]}
    offered = [(a.strip().lower(), a) for a in quiz.get("options") or sorted(set(key["answer"]))]
    return _form(QUIZ_OVERVIEW, [_question(r.item_id, " | ".join(
        f"{k}: {v}" for k, v in shown.get(r.item_id, {}).items() if k != "item_id" and str(v).strip()) + f" {r.field}?",
        offered) for r in key.itertuples()])
