"""Question specs of the evaluation pages (qc/judgement_spec.py's shape), shared by the browser
parity table and the node parity test."""

MANY = {"name": "sel_0", "type": "many", "options": ["s1", "s2", "none"], "min": 1, "exclusive": "none"}
SLIDER = {"name": "score_0", "type": "slider", "min": 0, "max": 100, "moved": "moved_score_0"}
AGE = {"name": "age", "type": "number", "min": 16, "max": 120}
