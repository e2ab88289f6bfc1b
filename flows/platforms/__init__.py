"""Who works: the platforms a campaign posts to, behind one small interface.

Owns the MTurk adapter (boto3, 2017-01-17 API) with its question/answer XML, qualification XML and fee
table; the Prolific adapter (httpx) and Prolific's batch steps; the choice of target (the simulator by
default); the decision senders per platform; the readers of platforms' results files.

May import: the core modules at the top of ``flows/`` (store, config, errors, ledger), ``qc`` and
``postprocess``; ``flows.taskserver`` for the links and completion codes a Prolific study carries.

The simulator is never imported at module level: only ``targets`` opens one, inside a function.
"""
