"""What the task is, for human-evaluation studies: five evaluation pages over one campaign frame, their QC,
readers, analysis, outputs and plots; its modules and what they may import: docs/architecture.md."""
