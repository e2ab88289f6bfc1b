"""The reader of a page's HTML: its form controls, and the text, images and fields a worker sees."""

from __future__ import annotations

from flows.core.pages.crowd_elements import INSTRUCTIONS, FormField, close_radio_group, open_crowd_element
from flows.core.pages.tolerant_html import TolerantHTMLParser

BUTTON_TYPES = ("submit", "button", "image", "reset", "file")
_SKIPPED_TEXT = ("script", "style", "title", "option", "textarea", "button", "select")
# a choice's own text is a label too; tags inside a sentence leave one run of prose
_INLINE = frozenset(("b", "strong", "i", "em", "u", "mark", "span", "a", "code", "small", "q", "sup", "sub", "font",
                     "abbr", "cite", "kbd", "var", "s", "tt"))
_LABEL_TEXT = ("label", "legend", "h1", "h2", "h3", "h4", "h5", "h6", "th", "crowd-radio-button", "crowd-checkbox",
               *INSTRUCTIONS)


class FormParser(TolerantHTMLParser):
    """Form controls as a browser submits them, and in order what a worker sees around them (text, images)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.fields: dict[str, FormField] = {}
        self._select: FormField | None = None
        self._textarea: FormField | None = None
        self._open: list[str] = []
        self.texts: list[tuple[int, str, bool]] = []
        self.images: list[tuple[int, str]] = []  # (position, src or alt)
        self.positions: dict[str, int] = {}  # field name -> position of its last control
        self.step = 0
        self.group: FormField | None = None  # an open crowd-radio-group (flows/core/pages/crowd_elements.py)
        self._option_text = False
        self._option_words: list[str] | None = None  # the open option's visible text, its label when it closes
        self._choice_text = False
        self._choice: tuple[FormField, str] | None = None  # the radio button or checkbox the next text names
        self.prose: list[tuple[int, str]] = []  # (position of its last part, text) runs joined across inline tags
        self._in_run = False
        self._labels: list[tuple[str, list[int], list[str]]] = []  # open <label>s: for=, text steps, control
        self.label_of: dict[str, str] = {}  # a control's own <label> (wrapping it, or for= its id): name or #id -> text
        self.bound: set[int] = set()  # steps of text in a label of a control of its own: no other control's label
        self.in_label: set[int] = set()  # steps of text inside a <label> element

    def handle_starttag(self, tag: str, attrs_list: list[tuple[str, str | None]]) -> None:
        attrs = {k: v or "" for k, v in attrs_list}
        self.step += 1
        self._in_run = self._in_run and tag in _INLINE
        # the text right after a radio button or checkbox (no <label> around it, or a <label> just after) names it
        self._choice_text = (tag == "input" and attrs.get("type", "").lower() in ("radio", "checkbox")) or \
            (tag == "label" and self._choice_text)
        if tag not in ("input", "img", "br", "hr", "meta", "link"):
            self._open.append(tag)
        if tag == "label":
            self._labels.append((attrs.get("for", ""), [], []))
        if tag == "img":
            self.images.append((self.step, attrs.get("alt") or attrs.get("src", "")))
        name = attrs.get("name", "")
        if tag.startswith("crowd-"):
            open_crowd_element(self, tag, name, attrs)
            return
        if "disabled" in attrs and tag in ("input", "textarea", "select"):
            return  # a browser neither checks nor submits a disabled control
        if tag == "input" and name:
            self.add_input(name, attrs)
        if tag in ("input", "textarea", "select") and name and self._labels and \
                attrs.get("type", "").lower() not in ("radio", "checkbox", *BUTTON_TYPES):
            self._labels[-1][2].append(name)  # a label around a choice names its option, not the question
        if tag == "textarea" and name:
            self._textarea = self.fields[name] = FormField(name, "textarea", "", [], attrs)
            self.positions[name] = self.step
        elif tag == "select" and name:
            self._select = self.fields[name] = FormField(name, "select", "", [], attrs)
            self.positions[name] = self.step
        elif tag == "option" and self._select is not None:
            self._close_option()  # (an option's end tag may be left out)
            # a disabled or blank-valued option ("Choose one") is a placeholder, no answer a person picks
            if "disabled" not in attrs and attrs.get("value") != "":
                self._option_text = "value" not in attrs  # a browser submits the option's text then
                self._select.options.append(attrs.get("value", ""))
                self._option_words = []
                if "selected" in attrs:
                    self._select.checked.append(attrs.get("value", ""))

    def _close_option(self) -> None:
        if self._option_words is not None and self._select is not None:  # what a person reads for the option
            seen = " ".join(self._option_words)
            if self._option_text:  # (an empty one posts a blank: a placeholder too)
                self._select.options[-1:] = [seen] if seen else []
            if seen:
                self._select.labels.setdefault(self._select.options[-1], seen)
        self._option_words, self._option_text = None, False

    def add_input(self, name: str, attrs: dict[str, str]) -> None:
        kind = attrs.get("type", "text").lower()
        if kind in BUTTON_TYPES:
            return
        self.positions[name] = self.step
        existing = self.fields.get(name)
        value = attrs.get("value", "on")
        if kind not in ("radio", "checkbox"):
            self.fields[name] = FormField(name, kind, attrs.get("value", ""), [], attrs)
            return
        if existing:
            existing.options.append(value)
        else:
            existing = self.fields[name] = FormField(name, kind, attrs.get("value", ""), [value], attrs)
        self._choice = (existing, value)
        if "checked" in attrs:
            existing.checked.append(value)
        if "required" in attrs:
            if kind == "checkbox":
                existing.required_options.append(value)
            existing.attrs.setdefault("required", "")

    def handle_endtag(self, tag: str) -> None:
        self._in_run = self._in_run and tag in _INLINE
        if tag == "crowd-radio-group":
            close_radio_group(self)
        if tag in ("select", "option"):
            self._close_option()
        if tag == "select":
            self._select = None
        if tag == "textarea":
            self._textarea = None
        if tag == "label" and self._labels:
            target, steps, controls = self._labels.pop()
            key = controls[0] if controls else f"#{target}" if target else ""
            if key:
                self.label_of[key] = " ".join(t for p, t, _ in self.texts if p in steps)
                self.bound.update(steps)
        if tag in self._open:
            while self._open and self._open.pop() != tag:
                pass

    def handle_data(self, data: str) -> None:
        if self._option_words is not None and data.strip():
            self._option_words.append(" ".join(data.split()))
        if self._textarea is not None:
            self._textarea.value += data.removeprefix("\n") if not self._textarea.value else data
            return
        text = " ".join(data.split())
        if text and not any(t in _SKIPPED_TEXT for t in self._open):
            self.step += 1
            self.texts.append((self.step, text, self._choice_text or any(t in _LABEL_TEXT for t in self._open)))
            if "label" in self._open:
                self.in_label.add(self.step)
            if self._labels:
                self._labels[-1][1].append(self.step)
            if self._choice_text and self._choice is not None:
                self._choice[0].labels.setdefault(self._choice[1], text)
            self._choice_text = False
            if self._in_run and self.prose:
                self.prose[-1] = (self.step, f"{self.prose[-1][1]} {text}")
            else:
                self.prose.append((self.step, text))
            self._in_run = True
