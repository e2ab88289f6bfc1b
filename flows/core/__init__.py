"""The core every layer may import: the ledger, a run's context, the config, pages and files.

Owns ``store`` (the SQLite ledger, its migrations and lock), ``ledger_calls`` (every platform write:
intent, call, settle), ``run_context`` (the ``Run`` every step and platform is handed), ``config``
(file, schema, types), the one Jinja environment (``templates``), ``errors``, the CSV and text
readers, the page and answer formats every platform's answers are stored in (``crowd_elements``,
``mturk_forms``, ``form_spec``), the pieces both sides of a layer need (``money``: estimates and the
budget's currency; ``decisions``: a person's decision; ``site_secrets``: invite tokens and completion
codes; ``study_kinds`` and ``study_config``: the [study] section), the terminal's bars and the
Prefect API client.

May import: nothing else of ``flows/`` (``make lint``); ``qc`` and ``postprocess``.
"""
