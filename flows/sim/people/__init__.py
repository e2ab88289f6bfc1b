"""The simulated crowd: who its people are, what they know and read, what they write and how their text arrives. The
bottom room: it imports no other room of the simulator."""
