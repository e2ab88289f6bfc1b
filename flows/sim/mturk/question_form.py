"""A QuestionForm HIT as the form fields a worker fills, and its answer as MTurk returns it."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from flows.core.pages.mturk_forms import NS_ANSWERS, NS_FORM, FormField, _element

_Q = f"{{{NS_FORM}}}"


def _texts(element: ET.Element | None) -> str:
    if element is None:
        return ""
    return " ".join(" ".join((t.text or "").split()) for t in element.iter(f"{_Q}Text") if t.text)


def _free_text(name: str, spec: ET.Element, attrs: dict[str, str]) -> FormField:
    kind = "textarea"
    constraints = spec.find(f"{_Q}Constraints")
    if constraints is not None:
        numeric = constraints.find(f"{_Q}IsNumeric")
        if numeric is not None:
            kind = "number"
            for key, attr in (("minValue", "min"), ("maxValue", "max")):
                if numeric.get(key) is not None:
                    attrs[attr] = str(numeric.get(key))
        length = constraints.find(f"{_Q}Length")
        if length is not None:
            for key, attr in (("minLength", "minlength"), ("maxLength", "maxlength")):
                if length.get(key) is not None:
                    attrs[attr] = str(length.get(key))
        regex = constraints.find(f"{_Q}AnswerFormatRegex")
        if regex is not None and regex.get("regex"):
            attrs["pattern"] = str(regex.get("regex"))
    default = spec.findtext(f"{_Q}DefaultText") or ""
    return FormField(name, kind, default, [], attrs)


def _selection(name: str, spec: ET.Element, attrs: dict[str, str]) -> FormField:
    options = [s.findtext(f"{_Q}SelectionIdentifier") or "" for s in spec.iter(f"{_Q}Selection")]
    low = int(spec.findtext(f"{_Q}MinSelectionCount") or 1)
    high = int(spec.findtext(f"{_Q}MaxSelectionCount") or 1)
    style = (spec.findtext(f"{_Q}StyleSuggestion") or "radiobutton").strip()
    kind = "checkbox" if high > 1 or style in ("checkbox", "multichooser") else "radio"
    attrs.update({"data-min-selections": str(low if "required" in attrs else 0),
                  "data-max-selections": str(high), "data-style": style})
    return FormField(name, kind, "", [o for o in options if o], attrs)


def question_form_fields(xml: str) -> list[FormField]:
    """One field per Question (FileUploadAnswer questions are left out: nothing to type)."""
    root = ET.fromstring(xml.strip())
    overview = " ".join(_texts(o) for o in root.iter(f"{_Q}Overview"))
    fields = []
    for q in root.iter(f"{_Q}Question"):
        name = q.findtext(f"{_Q}QuestionIdentifier") or ""
        answer = q.find(f"{_Q}AnswerSpecification")
        if not name or answer is None:
            continue
        attrs = {"data-item-text": " ".join(filter(None, [_texts(q.find(f"{_Q}QuestionContent")), overview]))}
        if (q.findtext(f"{_Q}IsRequired") or "false").strip().lower() == "true":
            attrs["required"] = ""
        free, select = answer.find(f"{_Q}FreeTextAnswer"), answer.find(f"{_Q}SelectionAnswer")
        if free is not None:
            fields.append(_free_text(name, free, attrs))
        elif select is not None:
            fields.append(_selection(name, select, attrs))
    return fields


def question_form_answer(values: dict[str, str], fields: list[FormField]) -> str:
    """QuestionFormAnswers: a SelectionIdentifier per choice of a selection, FreeText otherwise."""
    choices = {f.name for f in fields if f.kind in ("radio", "checkbox")}
    parts = [f'<?xml version="1.0" encoding="ASCII"?><QuestionFormAnswers xmlns="{NS_ANSWERS}">']
    for name, value in values.items():
        if name in choices:
            body = "".join(_element("SelectionIdentifier", v) for v in value.split("|") if v)
        else:
            body = _element("FreeText", value)
        parts.append(f"<Answer>{_element('QuestionIdentifier', name)}{body}</Answer>")
    parts.append("</QuestionFormAnswers>")
    return "".join(parts)
