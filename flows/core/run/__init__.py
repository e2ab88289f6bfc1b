"""A run: the ``Run`` context every batch step and platform is handed (``run_context``), the
Prefect API client (``prefect_api``) and memory handed back between steps (``free_memory``).

May import: every other package of the core (it is the core's top layer).
"""
