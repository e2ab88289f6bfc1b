"""Where the page is served: hitflow's task server (docs/architecture.md)."""
