"""Who works: the :class:`~flows.platforms.interface.Platform` protocol and its implementations."""

PLATFORMS = ("mturk", "prolific", "links")
DEFAULT_PLATFORM = "mturk"  # --platform's default: a command for it needs no --platform
