"""What the task is, for caption campaigns: the plan and the batch steps, and everything around a run.

Owns the item plan (``campaign_plan``; the run's context is ``flows/core/run_context.py``), the batch
steps in order (publish -> collect, which the platform provides: MTurk's are ``batch_publish`` and
``batch_collect`` -> ``batch_review``: QC, then decisions and blocks sent through the platform), the
qualification stage, the budget,
the driver (``campaign``) and its Prefect flow (``campaign_flow``), dry runs, operations on a stored
campaign (reconcile, cancel, status), outputs, the HTML report and the end-of-run summary.

May import: the core modules at the top of ``flows/``, ``flows.platforms`` (``platform_for``; MTurk's
own steps and the dry run call its adapter and XML codec),
``flows.taskserver`` (the live routes' pages), ``flows.studies`` and ``flows.custom`` (the other task
types a run may carry), ``flows.review`` (a batch may wait for a person), ``qc`` and ``postprocess``.
"""
