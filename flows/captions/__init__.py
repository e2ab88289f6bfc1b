"""The caption task (``task = "caption"``, the VizWiz seed's design) and its outputs."""
