"""The answers' files: reading a labels file and the control items, writing answers.csv, workers.csv
and their summary, for ``hitflow aggregate`` and for every campaign's answers step alike. The models
are postprocess/answers/ (pure); this package is their I/O.

Owns reading labels (``label_files``, ``excluded``: a study's screened-out rows), ``hitflow aggregate``'s
work (``answers_files``; ``kinded_files`` with ``--numbers``/``--ticks``), a campaign's answers step
(``answers_step``), a page's answers sorted by field kind (``field_answers``) and the control items' file and
plan (``control_items``).

May import: ``flows.core`` (and ``flows.platforms``, though it needs none), ``qc`` and ``postprocess``.
Never a task kind (``flows.campaigns``, ``flows.studies``, ``flows.custom``: they import it), the task
server, the review page, the driver or the CLI (``make lint``), so ``hitflow aggregate`` on a plain labels
file loads no caption campaign's or study's code (tests/test_layers.py).
"""
