"""What the task is, for human-evaluation studies: five evaluation pages over one campaign frame.

Owns the ``[study]``/``[screen]`` config sections, the item files and each page's questions
(``study_plan``), the study's QC step (``study_review``), the self-hosted links route
(``study_links``), the readers of published evaluation files, the analysis, outputs and plots.

May import: the core modules at the top of ``flows/``, ``flows.platforms``, ``flows.taskserver``,
``flows.campaigns`` (the batch steps a study reuses), ``qc`` and ``postprocess``.
"""
