"""Where the page is served: hitflow's task server for Prolific participants and invited annotators.

Owns the Starlette app (``task_server``), what stands between it and the internet (``task_guard``),
its site, secret and signed links (``task_site``), which unit a participant gets (``task_units``), one
way to render a page from stored items (``task_pages``) and running it in a thread.

May import: the core modules at the top of ``flows/``, ``qc``, ``postprocess``, the task types'
page builders (``flows.studies``, ``flows.custom``) and ``flows.platforms`` (answers are stored as
MTurk's QuestionFormAnswers XML, one format for every route).
"""
