"""The simulator as a running service, the top room (what it holds: flows/sim/README.md)."""
