"""The driver: runs a task kind on a platform, with its task server and reviewers, step by step
(docs/architecture.md)."""
