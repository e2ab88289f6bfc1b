"""What the task is, when it is the user's own page (``task = "custom"``).

Owns reading the rules a page's own controls declare (``form_spec``), the custom campaign's QC step and
outputs, and ``hitflow new`` (``scaffold``; ``--from PAGE``: ``scaffold_import``, ``page_import``,
``foreign_syntax``, ``question_form_page``).

May import: the core modules at the top of ``flows/``, ``flows.platforms``, ``flows.taskserver``,
``flows.campaigns`` (the run and the QC step's flag table it reuses), ``flows.studies`` (how a
served page's responses are read back), ``qc`` and ``postprocess``.
"""
