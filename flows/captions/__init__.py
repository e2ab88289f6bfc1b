"""The caption task (``task = "caption"``, the VizWiz seed's design): its kind, top-up rounds, tallies,
telemetry, qualification test and spell-corrected dataset (docs/architecture.md)."""
