"""What invite links is to a reader of the ledger; loads nothing else."""

from flows.platforms.words import RouteWords

NAME = "links"
LABEL = "invite links"
SENDS_DECISIONS = False
WHOLE_MINUTES = False

# a batch's pages are its planned units (the task server hands each to invitees through their links)
WORDS = RouteWords("page", "pages", "response", "responses",
                   "SELECT count(DISTINCT hit_index) AS n, NULL AS places FROM items WHERE campaign = ? AND batch = ?"
                   " AND EXISTS (SELECT 1 FROM batches b WHERE b.campaign = items.campaign AND b.batch = items.batch"
                   " AND b.status NOT IN ('planned'))", invited="invite links", people="invitee(s)")
