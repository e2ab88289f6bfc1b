"""The ``[telemetry]`` table: whether pages with free text record how it was entered."""

from __future__ import annotations

from pydantic import Field, model_validator

from flows.core.config.config_types import Section

TELEMETRY_NOTICE = ("This page records how text is entered in its text boxes (counts and times of typing, pasting and "
                    "switching tabs), never what you copy or paste and never which keys you press.")


class TelemetrySection(Section):  # docs/telemetry.md
    record: bool = Field(True, description="Pages with free text record how it was entered (counts, never text)")
    notice: str = Field(TELEMETRY_NOTICE, max_length=500, description="What the page says about it, above its "
                                                                      "fields (never empty)")

    @model_validator(mode="after")
    def _says_so(self) -> TelemetrySection:
        if not self.notice.strip():
            raise ValueError("notice must not be empty: a page that records typing says so; leave the key out for "
                             "the default wording, or set record = false")
        return self
