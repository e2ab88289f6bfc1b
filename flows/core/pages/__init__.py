"""Pages: the one Jinja environment (``templates``: autoescape, StrictUndefined) and the report
templates it loads (``report_templates/``), the answer formats of MTurk's pages (``crowd_elements``,
``mturk_forms``, ``form_spec``), the telemetry a page records (``page_telemetry``) and untrusted text
in Markdown (``markdown_text``).

May import: the core's base modules only (``make lint``).
"""
