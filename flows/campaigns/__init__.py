"""What the task is, for caption campaigns: the plan and the batch steps, and everything around a run.

Owns the run's context and item plan (``campaign_plan``), the batch steps in order (``batch_publish``
-> ``batch_collect`` -> ``batch_review``: QC, decisions, blocks), the qualification stage, the budget,
the driver (``campaign``) and its Prefect flow (``campaign_flow``), dry runs, operations on a stored
campaign (reconcile, cancel, status), outputs, the HTML report and the end-of-run summary.

May import: the core modules at the top of ``flows/``, ``flows.platforms`` (through its interface),
``flows.taskserver`` (the live routes' pages), ``flows.studies`` and ``flows.custom`` (the other task
types a run may carry), ``flows.review`` (a batch may wait for a person), ``qc`` and ``postprocess``.
"""
