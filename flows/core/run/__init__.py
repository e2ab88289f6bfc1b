"""A run: the ``Run`` context, the Prefect API client and memory handed back between steps."""
