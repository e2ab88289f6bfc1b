"""Answers, in one room: one answer per item from several workers' labels, how far to trust it, how
good each worker is, and when an item has judgements enough. Pure models over pandas DataFrames in
crowd-kit's style (each module's docstring gives its columns); the files they are read from and written
to are flows/answers/, beside the CLI.

From the top (``make lint`` holds the order; a module imports only those below it):

- ``extension_rounds``: a live campaign's extra rounds (which units get one more judgement, top-ups, why an
  item is still short);
- ``adaptive``: the stopping rule of adaptive overlap, and its replay over a recorded file;
- ``aggregation``: ``aggregate(frame) -> Aggregation(answers, workers)``, every method;
- the models it composes: ``skill_posterior`` (Dawid-Skene with a prior on each worker's skill: the
  confidence), ``calibration`` (bounded by the judgements, calibrated on control items),
  ``method_choice`` (``auto``), ``crowdkit_models`` (crowd-kit's, loaded lightly), then ``mace_em`` (MACE),
  then ``fast_em`` (vectorised GLAD and one-coin, and the codes and sums MACE uses) and ``fast_ds``
  (Dawid-Skene with crowd-kit's floats);
- the base, which imports nothing of the package: ``judgements`` (the column contract every model reads),
  ``skill_prior``, ``em_progress``, ``label_hygiene``, ``adaptive_budget`` (the replay's budget), and the worker
  scores: ``control_items``,
  ``worker_skill`` (pooled with agreement), ``answer_agreement``;
- beside them, the fields that are not single choices: ``number_answers`` (a number or slider: the median,
  its interval, each worker's bias) and ``option_answers`` (a checkbox group: an option a yes/no label).
"""
