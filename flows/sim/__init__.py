"""The built-in marketplace simulator (flows/sim/README.md)."""
