"""What MTurk is to a reader of the ledger (:class:`flows.platforms.interface.PlatformFacts`); loads nothing else."""

from flows.platforms.words import RouteWords

NAME = "mturk"
LABEL = "MTurk"
SENDS_DECISIONS = True
WHOLE_MINUTES = False

WORDS = RouteWords("HIT", "HITs", "assignment", "assignments",
                   "SELECT count(*) AS n, NULL AS places FROM hits WHERE campaign = ? AND batch = ?")
