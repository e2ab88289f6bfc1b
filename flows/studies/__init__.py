"""What the task is, for human-evaluation studies: five evaluation pages over one campaign frame.

Owns each page's questions and units (``study_plan``; the kinds' constants and the ``[study]``
section are in ``flows/core/``), the study's QC step (``study_review``), the readers of published
evaluation files, the analysis, outputs and plots. The links route a study often runs on is a
platform (``flows/platforms/links/``). What it may import: docs/architecture.md (``make lint`` holds it).
"""
