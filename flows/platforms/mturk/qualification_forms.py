"""The qualification test as MTurk XML (a QuestionForm ``Test`` and its ``AnswerKey``), which MTurk scores."""

from __future__ import annotations

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
