"""Files a user hands hitflow: text and CSV files, contained paths, the answer key."""
