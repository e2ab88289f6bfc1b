"""What MTurk is, as a reader of the ledger needs to know it (:class:`flows.platforms.interface.PlatformFacts`),
without loading the client and steps its platform module imports: ``hitflow status`` asks these alone;
the platform module (platform.py) offers them too. ``WORDS``: how the route names its
work in every view (flows/platforms/words.py)."""

from flows.platforms.words import RouteWords

NAME = "mturk"
LABEL = "MTurk"
SENDS_DECISIONS = True
WHOLE_MINUTES = False

WORDS = RouteWords("HIT", "HITs", "assignment", "assignments",
                   "SELECT count(*) AS n, NULL AS places FROM hits WHERE campaign = ? AND batch = ?")
