"""How each route names what a batch posts and what one person hands in."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


def counted(n: int, one: str, many: str) -> str:
    """"1 study", "3 studies": the noun as the number wants it."""
    return f"{n} {one if n == 1 else many}"


@dataclass(frozen=True)
class RouteWords:
    unit: str  # what a batch posts, one of them: "HIT", "study", "page"
    units: str
    work: str  # what one person hands in on a unit: "assignment", "submission", "response"
    works: str
    # (campaign, batch) -> ``n`` posted, and ``places`` where the route counts places on a unit
    posted_sql: str
    invited: str = ""  # how people reach the work when hitflow invites them ("invite links"), else ""
    people: str = "worker(s)"  # who does the work, as the route calls them: "participant(s)" on Prolific

    def posted(self, n: int, places: int | None = None) -> str:
        """"3 HITs", "1 study (9 places)", "4 pages on invite links"."""
        said = counted(n, self.unit, self.units)
        said += f" ({counted(places, 'place', 'places')})" if places is not None and n else ""
        return f"{said} on {self.invited}" if self.invited else said


def route_words(status: dict[str, Any]) -> str:
    """A campaign's platform and where it answers, from its ``hitflow status`` entry."""
    return f"{status['platform']} via {status['target']}" if status.get("platform") else str(status["target"])
