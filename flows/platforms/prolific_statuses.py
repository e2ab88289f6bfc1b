"""Prolific's submission statuses, as its OpenAPI spells them (Submission.status), grouped by
what they mean for a batch: finished, still holding a place, or never paid by hitflow.

RESERVED holds a place before the participant starts (ten minutes); SCREENED OUT (with a space)
is paid Prolific's own fixed screen-out reward, never approved or rejected here; the list
endpoint spells a timed-out submission TIME-OUT where the detail says TIMED-OUT.
"""

from __future__ import annotations

FINISHED = ("AWAITING REVIEW", "APPROVED", "REJECTED")
UNPAID = ("RETURNED", "TIMED-OUT", "SCREENED OUT")
PENDING = ("ACTIVE", "RESERVED", "UNKNOWN")  # holding a place, not finished yet: wait for Prolific's word
SPELLINGS = {"TIME-OUT": "TIMED-OUT"}  # one name in the store for each status
