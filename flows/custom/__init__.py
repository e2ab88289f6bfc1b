"""What the task is, when it is the user's own page (``task = "custom"``): the page, its rules, QC step and
outputs, and ``hitflow new`` (``--from PAGE``: ``page_import``).

May import: ``flows.core``, ``flows.platforms``, its sibling kinds ``flows.campaigns`` and
``flows.studies``, ``qc`` and ``postprocess`` (``make lint``).
"""
