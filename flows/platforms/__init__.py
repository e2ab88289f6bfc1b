"""Who works: the :class:`~flows.platforms.interface.Platform` protocol and its three implementations
(``mturk/``, ``prolific/``, ``links/``), which know nothing of each other (``make lint``), and what they share.
:mod:`flows.platforms.registry` picks one by name; the simulator is reached only through ``targets``."""

PLATFORMS = ("mturk", "prolific", "links")
DEFAULT_PLATFORM = "mturk"  # --platform's default: a command for it needs no --platform
