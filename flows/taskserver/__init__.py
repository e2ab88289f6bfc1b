"""Where the page is served: hitflow's task server for Prolific participants and invited annotators.

Owns the Starlette app (``task_server``), what stands between it and the internet (``task_guard``),
its site and refusals (``task_site``; what it signs is ``flows/core/site_secrets.py``), which unit a
participant gets (``task_units``) and running it in a thread. The page it serves is the kind's
(``flows/campaigns/task_pages.py``). What it may import: docs/architecture.md (``make lint`` holds it).
"""
