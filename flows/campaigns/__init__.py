"""What every task kind shares: plan, page, QC step, review data, budget, dry run and outputs."""
