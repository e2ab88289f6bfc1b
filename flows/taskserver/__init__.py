"""Where the page is served: hitflow's task server for Prolific participants and invited annotators; its modules
and what they may import: docs/architecture.md (``make lint`` holds it)."""
