"""Prolific's side of the simulator: the researcher API, its account state and shapes, and the
participants who take places on studies. It knows nothing of MTurk (flows/sim/README.md)."""
