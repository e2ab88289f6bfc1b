"""The built-in marketplace simulator: MTurk's and Prolific's APIs and a seeded crowd, over HTTP (flows/sim/README.md);
production code reaches it only through ``flows.platforms.targets``."""
