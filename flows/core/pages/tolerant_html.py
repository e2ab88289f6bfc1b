"""html.parser as every page reader of hitflow uses it, reading marked sections as browsers do."""

from __future__ import annotations

from html.parser import HTMLParser


class TolerantHTMLParser(HTMLParser):
    def parse_marked_section(self, i: int, report: bool = True) -> int:
        where = self.getpos()
        try:
            return super().parse_marked_section(i, report)
        except AssertionError:  # it moved the position to where it gave up: back to the section's start
            self.lineno, self.offset = where
            return self.parse_bogus_comment(i, report)
