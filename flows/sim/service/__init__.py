"""The simulator as a running service: its HTTP server and control routes, pacing, kept-alive
connections, the wall-clock thread and the state file. The top room: it puts the marketplaces
(mturk, prolific) behind one address (flows/sim/README.md)."""
