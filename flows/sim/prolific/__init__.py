"""Prolific's side of the simulator; it knows nothing of MTurk (what it holds: flows/sim/README.md)."""
