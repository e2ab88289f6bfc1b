"""What the task is, when it is the user's own page (``task = "custom"``).

Owns the custom page and its rules (``custom_task``; reading a form's controls is
``flows/core/pages/form_spec.py``), the custom campaign's QC step and outputs, and ``hitflow new``
(``scaffold``; ``--from PAGE``: ``scaffold_import``, ``page_import``, ``foreign_syntax``,
``question_form_page``).

May import: ``flows.core``, ``flows.platforms``, its sibling kinds ``flows.campaigns`` and
``flows.studies``, ``qc`` and ``postprocess`` (``make lint``).
"""
