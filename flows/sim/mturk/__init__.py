"""MTurk's side of the simulator: the marketplace's state and records, the Requester API's
operations, qualifications, notifications and the worker-facing pages' routes. It sends the crowd
(people) to the pages (pages); it knows nothing of Prolific (flows/sim/README.md)."""
