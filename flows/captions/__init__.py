"""What the task is, when it is the caption task (``task = "caption"``, the VizWiz seed's design).

Owns the caption kind's seam (``caption_kind``: its fields, review card rows, QC frame and outputs), the
top-up rounds that give an image short of accepted captions more assignments (``caption_top_up``,
``short_images``), the tallies of the caption dataset (``caption_tally``), the caption page's typing
telemetry (``caption_telemetry``), the qualification test's kind (``qualification_kind``), and its outputs: the
spell-corrected dataset written a batch at a time (``outputs``, ``dataset_files``) and what a rehearsal's
captions mean (``content_blind``).

May import: ``flows.core``, ``flows.platforms`` (``platform_for`` and the protocol), ``flows.campaigns`` (what
every kind shares), its sibling kinds, ``qc`` and ``postprocess``. Never the task server, the review page, the
driver or the CLI (``make lint``).
"""
