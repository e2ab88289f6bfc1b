"""What every task kind shares: the plan, the page, the QC step, the review queue's data, the budget,
the dry run and the outputs (docs/architecture.md)."""
