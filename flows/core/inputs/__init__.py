"""Files a user hands hitflow: text files read safely (``text_files``), CSV files with their
columns checked (``csv_files``), paths kept inside a folder (``contained_paths``) and the
qualification test's answer key (``answer_key``).

May import: the core's base modules only (``make lint``).
"""
