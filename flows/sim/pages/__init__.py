"""How a simulated person works a page; no marketplace is imported at run time (flows/sim/README.md)."""
