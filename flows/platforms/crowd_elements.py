"""MTurk's crowd HTML elements (``<crowd-form>``, ``<crowd-input>``, ``<crowd-classifier>`` ...): which
ones a page uses and whether hitflow can read them.

Reference: MTurk's "Crowd HTML Elements" (docs.aws.amazon.com/AWSMechTurk/latest/AWSMturkAPI/
ApiReference_HTMLCustomElementsArticle.html) and the element reference it links
(docs.aws.amazon.com/sagemaker/latest/dg/sms-ui-template-reference.html).
"""

from __future__ import annotations

from html.parser import HTMLParser

READ: tuple[str, ...] = ()  # the elements hitflow reads as answer fields (none yet)
NOT_FIELDS = ("crowd-form", "crowd-button", "crowd-instructions", "crowd-card", "crowd-icon-button",
              "crowd-toast", "crowd-tooltip", "crowd-alert", "crowd-badge", "crowd-fab", "crowd-modal",
              "crowd-radio-button")  # layout and help, or part of a field (a radio group's buttons)


class _CrowdTags(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[int, str, str]] = []  # (line, tag, name)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag.startswith("crowd-"):
            self.tags.append((self.getpos()[0], tag, dict(attrs).get("name") or ""))


def unreadable_crowd_elements(html: str) -> list[str]:
    """One line per crowd element whose answer hitflow cannot read (it would be silently lost)."""
    scan = _CrowdTags()
    scan.feed(html)
    out = []
    for line, tag, name in scan.tags:
        if tag not in READ and tag not in NOT_FIELDS:
            named = f" {name!r}" if name else ""
            out.append(f"<{tag}>{named} (rendered line {line}) is a crowd element hitflow cannot read: its answer "
                       "would be lost; use one hitflow reads (see docs/custom_pages.md) or a plain HTML control")
    return out
