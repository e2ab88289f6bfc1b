"""What Prolific is to a reader of the ledger (:class:`flows.platforms.interface.PlatformFacts`); loads nothing else."""

from flows.platforms.words import RouteWords

NAME = "prolific"
LABEL = "Prolific"
SENDS_DECISIONS = True
WHOLE_MINUTES = True  # a study's estimated_completion_time
SIM_TOKEN = "simulator-token"  # the one token the simulator's Prolific API accepts unless told otherwise

# a study's places less those released when it closed short (what the batch still offers or was filled)
WORDS = RouteWords("study", "studies", "submission", "submissions",
                   "SELECT count(*) AS n, coalesce(sum(places - coalesce(released, 0)), 0) AS places "
                   "FROM studies WHERE campaign = ? AND batch = ?", people="participant(s)")
