"""MTurk's side of the simulator; it knows nothing of Prolific (what it holds: flows/sim/README.md)."""
