"""The core every layer may import, in packages by what they are (docs/architecture.md):

- ``ledger``: the ledger (SQLite or PostgreSQL), its migrations, lock and the intent-call-settle writes;
- ``config``: the config file, its schema and the loaded ``Config``; money and generated items;
- ``pages``: the one Jinja environment, report templates, MTurk's page and answer formats, telemetry;
- ``outputs``: the output folder or URL and its mirror, report figures, the spelling cache;
- ``inputs``: text and CSV files a user hands in, contained paths, the qualification answer key;
- ``run``: a run's context, the Prefect API client, memory handed back between steps.

The modules at this level are the base every package above may import, and import none of them:
``errors`` (the domain errors), ``terminal`` (the terminal's bars), ``db_url`` (ledger URLs),
``site_secrets`` (invite tokens and completion codes), ``decisions`` (a person's review decision) and
``study_kinds`` (the studies' constants). The order inside the core is held by ``make lint``.

May import: nothing else of ``flows/`` (``make lint``); ``qc`` and ``postprocess``.
"""
