"""What the task is, for human-evaluation studies: five evaluation pages over one campaign frame.

Owns each page's questions and units (``study_plan``; the kinds' constants and the ``[study]``
section are in ``flows/core/``), the study's QC step (``study_review``), the readers of published
evaluation files, the analysis, outputs and plots. The links route a study often runs on is a
platform (``flows/platforms/links/``).

May import: ``flows.core``, ``flows.platforms``, its sibling kinds ``flows.campaigns`` and
``flows.custom``, ``qc`` and ``postprocess`` (``make lint``).
"""
