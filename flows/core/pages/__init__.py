"""Pages: the one Jinja environment, report templates, MTurk's page and answer formats, telemetry."""
