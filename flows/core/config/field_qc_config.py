"""``[qc.fields.<name>]``: the text rules of one free-text field of a campaign on the user's own page."""

from __future__ import annotations

from pydantic import Field

from flows.core.config.config_types import Count, NonEmptyText, RuleName, Section


class FieldQc(Section):
    rules: list[RuleName] | None = Field(None, description="The text rules run on this field, exactly (default: the "
                                                           "[qc] rules that judge text)")
    ignore: list[RuleName] = Field(default_factory=list, description="The [qc] rules this field leaves out")
    min_words: Count = Field(0, le=10000, description="min_words: fewer words than this flags the answer (0: off)")
    max_words: Count = Field(0, le=10000, description="max_words: more words than this flags the answer (0: off; the "
                             "page's own \"no more than N words\" where it states fewer)")
    one_sentence: bool = Field(False, description="one_sentence: a second sentence flags the answer")
    max_chars: Count = Field(0, le=1000000, description="max_chars: more characters than this flags it (0: off)")
    banned_prefixes: list[NonEmptyText] = Field(default_factory=list, description="banned_prefix: openings "
                                                                                  "that flag the answer")
    canned_text: list[NonEmptyText] = Field(default_factory=list, description="the canned answers the page offers "
                                            "for this field (default: what its scripts write into a field)")


FIELDS_QC: dict[str, FieldQc] = Field(default_factory=dict, description='task = "custom": each free-text '
                                      "field's text rules ([qc.fields.<name>], the name without its item index)")
