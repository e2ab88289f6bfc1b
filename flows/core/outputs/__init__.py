"""Where a run's outputs go and how they look: the output folder or URL (``output_location``),
its copy at an fsspec URL (``output_mirror``), report figures (``figures``) and the spelling index's
cache on disk (``spelling_cache``).

May import: the core's base modules only (``make lint``).
"""
