"""An MTurk QuestionForm as a custom page, a control per Question; AnswerKey options as ``field, answer, score``."""

from __future__ import annotations

import html
import xml.etree.ElementTree as ET

CHECKBOX_STYLES = ("checkbox", "multichooser")
Problems = list[tuple[int, str]]


def _local(element: ET.Element) -> str:
    return element.tag.rpartition("}")[2]


def _child(element: ET.Element, name: str) -> ET.Element | None:
    return next((c for c in element if _local(c) == name), None)


def _text(element: ET.Element | None, name: str) -> str:
    child = _child(element, name) if element is not None else None
    return (child.text or "").strip() if child is not None else ""


def _content(element: ET.Element | None, dropped: list[str] | None = None) -> str:
    """Title and Text as paragraphs, a List as a list, FormattedContent kept; Binary and Application in ``dropped``."""
    if element is None:
        return ""
    parts = []
    for c in element:
        if _local(c) in ("Title", "Text") and c.text:
            parts.append(f"<p>{html.escape(' '.join(c.text.split()))}</p>")
        elif _local(c) == "List":
            items = [" ".join((i.text or "").split()) for i in c if _local(i) == "ListItem"]
            parts.append("<ul>" + "".join(f"<li>{html.escape(i)}</li>" for i in items) + "</ul>")
        elif _local(c) == "FormattedContent" and c.text:
            parts.append(c.text)
        elif dropped is not None and _local(c) not in ("Title", "Text", "FormattedContent"):
            dropped.append(_local(c))
    return "\n".join(parts)


def _free_text(name: str, spec: ET.Element, required: str) -> str:
    attrs = [f'name="{name}_{{{{ i }}}}"', required]
    constraints = _child(spec, "Constraints")
    numeric = _child(constraints, "IsNumeric") if constraints is not None else None
    length = _child(constraints, "Length") if constraints is not None else None
    regex = _child(constraints, "AnswerFormatRegex") if constraints is not None else None
    if numeric is not None:
        attrs += ['type="number"'] + [f'{a}="{numeric.get(k)}"' for k, a in (("minValue", "min"), ("maxValue", "max"))
                                      if numeric.get(k) is not None]
    for key, attr in (("minLength", "minlength"), ("maxLength", "maxlength")):
        if length is not None and length.get(key) is not None:
            attrs.append(f'{attr}="{length.get(key)}"')
    if regex is not None and regex.get("regex"):
        attrs.append(f'pattern="{html.escape(str(regex.get("regex")))}"')
    default = html.escape(_text(spec, "DefaultText"))
    joined = " ".join(a for a in attrs if a)
    if numeric is not None or regex is not None:
        return f'<input {joined} value="{default}">'
    return f"<textarea {joined}>{default}</textarea>"


def _selection(name: str, spec: ET.Element, required: str) -> str:
    style = _text(spec, "StyleSuggestion") or "radiobutton"
    high = int(_text(spec, "MaxSelectionCount") or 1)
    low = int(_text(spec, "MinSelectionCount") or (1 if required else 0))
    selections = [(_text(s, "SelectionIdentifier"), _text(s, "Text") or _text(s, "SelectionIdentifier"))
                  for s in spec.iter() if _local(s) == "Selection"]
    field = f"{name}_{{{{ i }}}}"
    if style in ("dropdown", "list") and high <= 1:
        options = "".join(f'<option value="{html.escape(v)}">{html.escape(t)}</option>' for v, t in selections)
        return f'<select name="{field}" {required}><option value="">choose</option>{options}</select>'
    if high > 1 or style in CHECKBOX_STYLES:
        limits = f' data-min-selections="{low}" data-max-selections="{high}"'
        return "\n".join(f'<label><input type="checkbox" name="{field}" value="{html.escape(v)}"'
                         f'{limits if n == 0 else ""}> {html.escape(t)}</label>' for n, (v, t) in enumerate(selections))
    return "\n".join(f'<label><input type="radio" name="{field}" value="{html.escape(v)}" {required}> '
                     f'{html.escape(t)}</label>' for v, t in selections)


def question_form_page(xml: str, answer_key: str = "",
                       dropped: list[str] | None = None) -> tuple[str, list[dict[str, str]], Problems]:
    """(the item block, the answer key's rows, problems by line); content it cannot show goes in ``dropped``."""
    root = ET.fromstring(xml.strip())
    parts, problems, names = [], [], []
    for element in root:
        if _local(element) == "Overview":
            parts.append(f'<div class="overview">{_content(element, dropped)}</div>')
            continue
        if _local(element) != "Question":
            continue
        name = _text(element, "QuestionIdentifier")
        required = "required" if _text(element, "IsRequired").lower() == "true" else ""
        answer = _child(element, "AnswerSpecification")
        kind = _local(answer[0]) if answer is not None and len(answer) else ""
        if kind == "FreeTextAnswer":
            control = _free_text(name, answer[0], required)  # type: ignore[index]
        elif kind == "SelectionAnswer":
            control = _selection(name, answer[0], required)  # type: ignore[index]
        else:
            problems.append((_line(xml, name), f"question {name!r} asks for {kind or 'nothing'}; hitflow's pages "
                                               "take text and selections: ask for a link to the file instead"))
            continue
        names.append(name)
        parts.append(f'<fieldset class="question"><legend>{html.escape(name)}</legend>\n'
                     f'{_content(_child(element, "QuestionContent"), dropped)}\n{control}\n</fieldset>')
    if not names:
        problems.append((1, "the QuestionForm has no Question with a FreeTextAnswer or SelectionAnswer"))
    key, key_problems = answer_key_rows(answer_key, names) if answer_key else ([], [])
    return "\n".join(parts) + "\n", key, problems + key_problems


def _line(xml: str, name: str) -> int:
    at = xml.find(f">{name}<")
    return xml.count("\n", 0, at) + 1 if at >= 0 else 1


def answer_key_rows(xml: str, names: list[str]) -> tuple[list[dict[str, str]], Problems]:
    """``field, answer, score`` per AnswerOption's SelectionIdentifier (or its FreeText)."""
    try:
        root = ET.fromstring(xml.strip())
    except ET.ParseError as exc:
        return [], [(exc.position[0], f"the AnswerKey is not well-formed XML ({exc}); fix it")]
    rows, problems = [], []
    for question in (q for q in root if _local(q) == "Question"):
        name = _text(question, "QuestionIdentifier")
        if name not in names:
            problems.append((_line(xml, name), f"the AnswerKey scores question {name!r}, which the form does not "
                                               "ask; remove it or add the question"))
        for option in (o for o in question if _local(o) == "AnswerOption"):
            score = _text(option, "AnswerScore") or "0"
            answers = sorted((s.text or "").strip() for s in option.iter() if _local(s) in ("SelectionIdentifier",
                                                                                              "FreeText"))
            rows.append({"field": name, "answer": "|".join(answers), "score": score})  # one option: all of them
    return rows, problems
