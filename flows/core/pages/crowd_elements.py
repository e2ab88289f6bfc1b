"""MTurk's crowd HTML elements read as answer fields with their constraints."""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass, field
from typing import Any

from flows.core.pages.radio_buttons import BUTTONS, group_field_name, per_button
from flows.core.pages.tolerant_html import TolerantHTMLParser
from qc.worker_values import check_fields, read_json


@dataclass
class FormField:
    """One answer field a page's form holds (a plain control, or the one a crowd element stands for)."""

    name: str
    kind: str  # text | textarea | hidden | radio | checkbox | select | number | range | email | url | ...
    value: str = ""
    options: list[str] = field(default_factory=list)
    attrs: dict[str, str] = field(default_factory=dict)
    checked: list[str] = field(default_factory=list)  # options ticked (or selected) as the page loads
    required_options: list[str] = field(default_factory=list)  # checkboxes that must each be ticked
    labels: dict[str, str] = field(default_factory=dict)  # a button's value -> the text right after it


TASK_ANSWERS = "taskAnswers"
TOP_LEVEL = ("assignmentId", "sig")  # posted beside taskAnswers, not inside it
ENTITIES = "crowd-entity-annotation"
ANNOTATIONS = ("crowd-bounding-box", "crowd-keypoint", ENTITIES)
SELF_CONTAINED = (ENTITIES,)  # submits itself on MTurk: a page of one is a crowd page without a crowd-form
KINDS = {  # element -> the plain control it behaves as ("" = its type attribute), or its own kind
    "crowd-input": "", "crowd-text-area": "textarea", "crowd-checkbox": "checkbox", "crowd-radio-group": "radio",
    "crowd-classifier": "radio", "crowd-image-classifier": "radio", "crowd-classifier-multi-select": "checkbox",
    "crowd-image-classifier-multi-select": "checkbox", "crowd-slider": "range",
    "crowd-bounding-box": "crowd-bounding-box", "crowd-keypoint": "crowd-keypoint", ENTITIES: ENTITIES,
}
READ = (*KINDS, "crowd-radio-button")
NOT_FIELDS = ("crowd-form", "crowd-button", "crowd-instructions", "crowd-card", "crowd-icon-button",
              "crowd-toast", "crowd-tooltip", "crowd-alert", "crowd-badge", "crowd-fab", "crowd-modal")
INSTRUCTIONS = ("crowd-instructions", "short-instructions", "full-instructions", "detailed-instructions",
                "positive-example", "negative-example")
ALIASES = {"max-length": "maxlength", "min-length": "minlength"}
OPTION_ATTRS = {"crowd-classifier": "categories", "crowd-image-classifier": "categories",
                "crowd-classifier-multi-select": "categories", "crowd-image-classifier-multi-select": "categories",
                "crowd-bounding-box": "labels", "crowd-keypoint": "labels",  # keypoint: "labels", per its reference
                ENTITIES: "labels"}


def categories(text: str) -> list[str]:
    """``"['Cat', 'Dog']"`` or a JSON array (even inside a JSON string) -> the strings."""
    try:
        value = json.loads(text)
    except ValueError:
        try:
            value = ast.literal_eval(text.strip())
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return []
    if isinstance(value, str) and value.strip()[:1] == "[":
        return categories(value)
    return [str(v.get("label", v) if isinstance(v, dict) else v) for v in value] if isinstance(value, list) else []


def crowd_control(tag: str, attrs: dict[str, str]) -> tuple[str, dict[str, str], list[str]] | None:
    """(kind, attributes as a plain control's, options) of an answer element; None for anything else."""
    if tag not in KINDS or tag == "crowd-radio-group":
        return None
    plain = {ALIASES.get(k, k): v for k, v in attrs.items()}
    plain["data-crowd"] = tag
    kind = KINDS[tag] or plain.get("type", "text").lower()
    options = categories(attrs.get(OPTION_ATTRS[tag], "")) if tag in OPTION_ATTRS else []
    if tag in ("crowd-classifier", "crowd-image-classifier"):
        plain["required"] = ""  # the element submits no answer without a category (one of ``categories``)
    return kind, plain, options


def open_crowd_element(page: Any, tag: str, name: str, attrs: dict[str, str]) -> None:
    """For ``form_parser.FormParser``: the image, radio buttons or plain control a crowd element stands for."""
    if attrs.get("src"):
        page.images.append((page.step, attrs.get("src", "")))
    if tag == "crowd-radio-group":
        page.group = FormField("", "radio", "", [], {**attrs, "data-crowd": tag})
        page.buttons = []
        return
    if tag == "crowd-radio-button" and page.group is not None and "disabled" not in attrs:
        group, value = page.group, attrs.get("value") or name
        group.name = group.name or name
        page.buttons.append((name, value))
        group.options.append(value)
        group.checked += [value] if "checked" in attrs else []
        if "required" in attrs:
            group.attrs.setdefault("required", "")
        return
    control = crowd_control(tag, attrs)
    if control is None or not name or "disabled" in attrs:
        return
    kind, plain, options = control
    if kind == "checkbox" and not options:  # crowd-checkbox: one box of a group sharing the name
        page.add_input(name, {**plain, "type": "checkbox", "value": attrs.get("value") or "on"})
        return
    page.fields[name] = FormField(name, kind, attrs.get("value", ""), options, plain)
    page.positions[name] = page.step


def close_radio_group(page: Any) -> None:
    """The end of a crowd-radio-group: the group becomes one field (or one per button, as MTurk does)."""
    group, page.group = page.group, None
    names = [n for n, _ in getattr(page, "buttons", [])]
    if group is not None and len(set(names)) == len(names) > 1 and all(names):
        group.name = group_field_name(group.attrs, names, set(page.fields))
        group.attrs[BUTTONS] = json.dumps(dict(page.buttons))
    if group is not None and group.name and group.options:
        page.fields[group.name] = group
        page.positions[group.name] = page.step


def is_crowd_page(html: str) -> bool:
    return "<crowd-form" in (html or "")


def _shape(f: FormField | None, name: str, value: str) -> Any:
    """One flat value in the shape its element answers with."""
    tag = f.attrs.get("data-crowd", "") if f is not None else ""
    picked = [v for v in value.split("|") if v]
    if tag in ("crowd-checkbox", "crowd-radio-group") and f is not None:
        return {o: o in picked for o in f.options}
    if tag in ("crowd-classifier", "crowd-image-classifier"):
        return {"label": value}
    if tag.endswith("-multi-select"):
        return {"labels": picked}
    if tag == "crowd-slider":
        number = float(value or 0)
        return int(number) if number.is_integer() else number
    if tag in ANNOTATIONS:
        return json.loads(value) if value else {}
    return value


def task_answers(values: dict[str, str], fields: list[FormField]) -> dict[str, str]:
    """What a crowd-form posts for these flat values: ``taskAnswers`` beside the session fields."""
    by_name = {f.name: f for f in fields}
    unanswered = {f.name: "" for f in fields if f.attrs.get("data-crowd") and f.name not in values}
    answers: dict[str, Any] = {}
    for n, v in {**values, **unanswered}.items():
        f = by_name.get(n)
        if f is not None and f.attrs.get(BUTTONS):  # MTurk's per-button shape: one entry per button name
            answers.update(per_button(json.loads(f.attrs[BUTTONS]), v))
        elif n not in TOP_LEVEL:
            answers[n] = _shape(f, n, v)
    return {**{n: values[n] for n in TOP_LEVEL if n in values}, TASK_ANSWERS: json.dumps([answers])}


def posted_answer(values: dict[str, str], fields: list[FormField], html: str) -> dict[str, str]:
    """The fields MTurk records for a page's answer: a crowd-form's single ``taskAnswers``, else the values."""
    if not is_crowd_page(html):
        return values
    return {TASK_ANSWERS: task_answers(values, fields)[TASK_ANSWERS]}


def _flat(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(int(value)) if float(value).is_integer() else f"{value:.10g}"
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and set(value) == {"label"}:
        return _flat(value["label"])
    if isinstance(value, dict) and set(value) == {"labels"} and isinstance(value["labels"], list):
        return "|".join(_flat(v) for v in value["labels"])
    if isinstance(value, dict) and value and all(isinstance(v, bool) for v in value.values()):
        return "|".join(k for k, v in value.items() if v)  # checkboxes, radio buttons: the ticked values
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def flatten_task_answers(text: str) -> dict[str, str]:
    """``taskAnswers`` -> one flat value per element name; ValueError when malformed or past a bound."""
    data = read_json(text)
    if isinstance(data, list):
        if not all(isinstance(d, dict) for d in data):
            raise ValueError("taskAnswers is not a list of objects")
        data = {k: v for d in data for k, v in d.items()}
    if not isinstance(data, dict):
        raise ValueError("taskAnswers is not a JSON object")
    return {str(k): _flat(v) for k, v in data.items()}


def flat_answers(fields: dict[str, str]) -> dict[str, str]:
    """An answer's fields with ``taskAnswers`` flattened in its place (ValueError past the value bounds too)."""
    check_fields(fields)
    if TASK_ANSWERS not in fields:
        return fields
    rest = {k: v for k, v in fields.items() if k != TASK_ANSWERS}
    return check_fields({**rest, **flatten_task_answers(fields[TASK_ANSWERS])})  # counted as one answer


class _CrowdTags(TolerantHTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[int, str, dict[str, str]]] = []  # (line, tag, attributes)
        self.in_crowd_form = 0
        self.outside: list[tuple[int, str]] = []  # answer elements outside any crowd-form
        self.groups: list[tuple[int, list[str]]] = []  # each radio group's button names

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: v or "" for k, v in attrs}
        if tag == "crowd-form":
            self.in_crowd_form += 1
        if tag == "crowd-radio-group":
            self.groups.append((self.getpos()[0], []))
        if tag == "crowd-radio-button" and self.groups:
            self.groups[-1][1].append(values.get("name", ""))
        if tag.startswith("crowd-"):
            self.tags.append((self.getpos()[0], tag, values))
            if tag in KINDS and not self.in_crowd_form:
                self.outside.append((self.getpos()[0], tag))

    def handle_endtag(self, tag: str) -> None:
        if tag == "crowd-form":
            self.in_crowd_form = max(0, self.in_crowd_form - 1)


def unreadable_crowd_elements(html: str) -> list[str]:
    """One line per crowd element whose answer hitflow cannot read or MTurk would not submit."""
    scan = _CrowdTags()
    scan.feed(html)
    out = []
    for line, tag, attrs in scan.tags:
        where = f"<{tag}>" + (f" {attrs['name']!r}" if attrs.get("name") else "") + f" (rendered line {line})"
        if tag not in READ and tag not in NOT_FIELDS:
            out.append(f"{where} is a crowd element hitflow cannot read: its answer would be lost; use one it reads "
                       "(docs/custom_pages.md) or a plain HTML control")
        elif tag == "crowd-keypoint" and "keypoints" in attrs and "labels" not in attrs:
            out.append(f"{where} lists its labels in keypoints=, which MTurk does not read (no label to choose): "
                       "rename the attribute to labels=")
        elif tag in KINDS and tag != "crowd-radio-group" and not attrs.get("name") and "disabled" not in attrs:
            out.append(f"{where} has no name: its answer has no column; give it name=\"<field>_{{{{ i }}}}\"")
    out += [f"<{tag}> (rendered line {line}) is outside any <crowd-form>: MTurk does not submit it; extend "
            "_crowd_page.html.j2 (its items sit inside the crowd-form)" for line, tag in scan.outside]
    out += [f"<crowd-radio-group> (rendered line {line}) has buttons named "
            f"{', '.join(sorted(n or '(none)' for n in set(names)))}: give every crowd-radio-button of a group its "
            "own name (as MTurk's reference does) or all the same name, so the group is one answer"
            for line, names in scan.groups if "" in names or len(set(names)) not in (1, len(names))]
    return out
