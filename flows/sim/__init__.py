"""The built-in marketplace simulator: MTurk's and Prolific's APIs and a seeded crowd, over HTTP. What it models,
its rooms and what it may import: flows/sim/README.md; production code reaches it only through
``flows.platforms.targets`` (and ``hitflow sim serve``)."""
