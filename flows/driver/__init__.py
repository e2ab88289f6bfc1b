"""The driver: runs a task kind on a platform, with its task server and its reviewers, step by step.

Owns the run itself (``campaign``: the steps in order; ``campaign_run``: a whole run with its task
server and outputs), its Prefect flow and schedules (``campaign_flow``, ``prefect_server``), the
operations on a stored campaign (reconcile, cancel, refresh: ``operations``), its status
(``campaign_status``) and the review demo.

May import: ``flows.campaigns``, ``flows.studies``, ``flows.custom``, ``flows.review``,
``flows.taskserver``, ``flows.platforms``, the core modules (``flows.core``), ``qc`` and ``postprocess``.
"""
