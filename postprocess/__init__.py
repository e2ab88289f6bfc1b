"""Pure post-processing over pandas DataFrames: spell-correction, datasets, report data."""
