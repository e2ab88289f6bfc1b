"""What MTurk is, as a reader of the ledger needs to know it (:class:`flows.platforms.interface.PlatformFacts`),
without loading the client and steps its platform module imports: ``hitflow status`` asks these alone
(issue 57 point 5); the platform module (platform.py) offers them too."""

NAME = "mturk"
LABEL = "MTurk"
SENDS_DECISIONS = True
