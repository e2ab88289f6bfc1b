"""What the task is, for human-evaluation studies: five evaluation pages over one campaign frame (``study_plan``),
the study's QC step (``study_review``), the readers of published evaluation files, the analysis, outputs and
plots. What it may import: docs/architecture.md (``make lint`` holds it)."""
