"""Who works: the :class:`~flows.platforms.interface.Platform` protocol, its three implementations, which know
nothing of each other, and what they share (docs/architecture.md); ``registry`` picks one by name."""

PLATFORMS = ("mturk", "prolific", "links")
DEFAULT_PLATFORM = "mturk"  # --platform's default: a command for it needs no --platform
