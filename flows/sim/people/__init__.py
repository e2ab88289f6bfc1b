"""The simulated crowd; the bottom room, importing no other room of the simulator."""
