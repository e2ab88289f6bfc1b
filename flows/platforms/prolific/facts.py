"""What Prolific is, as a reader of the ledger needs to know it (:class:`flows.platforms.interface.PlatformFacts`),
without loading the client and steps its platform module imports: ``hitflow status`` asks these alone;
the platform module (platform.py) offers them too. ``WORDS``: how the route names its
work in every view (flows/platforms/words.py)."""

from flows.platforms.words import RouteWords

NAME = "prolific"
LABEL = "Prolific"
SENDS_DECISIONS = True
WHOLE_MINUTES = True  # a study's estimated_completion_time

# a study's places less those released when it closed short (what the batch still offers or was filled)
WORDS = RouteWords("study", "studies", "submission", "submissions",
                   "SELECT count(*) AS n, coalesce(sum(places - coalesce(released, 0)), 0) AS places "
                   "FROM studies WHERE campaign = ? AND batch = ?", people="participant(s)")
