"""The built-in marketplace simulator: MTurk's and Prolific's APIs and a seeded crowd, over HTTP.

A separate, bounded package: what it models and what it may import are in flows/sim/README.md.
Production code reaches it only through ``flows.platforms.targets`` (and ``hitflow sim serve``).
"""
