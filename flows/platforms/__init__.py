"""Who works: the platforms a campaign posts to, behind one small interface.

Owns the :class:`~flows.platforms.interface.Platform` protocol (it speaks only core types) and its
three implementations, each a subpackage owning its adapter, batch steps, operations, decision
senders, dry run, estimate and session: ``mturk/`` (boto3, the 2017-01-17 API), ``prolific/``
(httpx) and ``links/`` (invite links to hitflow's own task server). The three know nothing of each
other (an import-linter contract, ``make lint``); what they share sits beside them here: the target
choice and the simulator's door (``targets``), how a batch waits (``batch_window``), a batch's units
(``units``), the decision and cancel steps, the dry-run checks, the retry policy and the readers of
platforms' results files. :mod:`flows.platforms.registry` picks one by name (``platform_for``).

May import: ``flows.core`` only (and ``qc``, ``postprocess``). A task kind's page reaches MTurk's
HITs through ``Run.page``, and a cancel's review through the ``review_undecided`` it is handed.
The simulator is reached only through ``targets``, inside functions.
"""

PLATFORMS = ("mturk", "prolific", "links")
DEFAULT_PLATFORM = "mturk"  # --platform's default: a command for it needs no --platform
