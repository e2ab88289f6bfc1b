"""The user's own page (``task = "custom"``): the page, its rules, QC step and outputs, and ``hitflow new``."""
