"""The simulated crowd: who its people are (profiles, crowd files, a roster that scales), what they
know and read (known answers, latent choices, the item's content, images they cannot see), what
they write (captions, free text, slots, entities, boxes) and how their text arrives (typing).
The bottom room: it imports no other room of the simulator (flows/sim/README.md)."""
