"""The answers' files (labels and control items in; answers.csv, workers.csv and their summary out), for
``hitflow aggregate`` and every campaign's answers step; the models are postprocess/answers/ (pure).
Imports no task kind, so ``hitflow aggregate`` on a labels file loads no campaign's code (tests/test_layers.py)."""
