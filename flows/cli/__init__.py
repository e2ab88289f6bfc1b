"""The command line (``hitflow``): the top layer, the one that may import every other.

Owns the parser (``parser``, ``args``), the commands (``main``, ``run``) and the pipe-safe output.

May import: every ``flows.<package>``, ``qc`` and ``postprocess``.
"""
