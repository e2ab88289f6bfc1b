"""The driver: runs a task kind on a platform, step by step (docs/architecture.md)."""
