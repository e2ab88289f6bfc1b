"""A campaign's config: the TOML file read (``config_file``), checked against its schema
(``config_schema``, ``config_types``, ``telemetry_config``, ``study_config``) and loaded into the
``Config`` every step reads (``config``); the budget's money (``money``) and generated items
(``item_generator``).

May import: the inputs, outputs and pages packages and the core's base modules; never the ledger's
writers or a run (``make lint``).
"""
