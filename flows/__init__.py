"""hitflow's side-effecting half: flows, platform adapters, simulator, store and CLI."""
