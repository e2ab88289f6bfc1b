"""The qualification test (hit_templates/qualification.html.j2) declared as a task kind."""

from __future__ import annotations

from flows.campaigns.answer_cards import answer_cards
from flows.campaigns.batch_review import qc_batch
from flows.captions.caption_kind import caption_outputs, caption_rules, caption_task_page
from flows.captions.caption_top_up import top_up_round
from flows.core.task_kinds import AnswerField, PlanDefaults, TaskKind, register, unit_minutes
from qc.qualification import ALLOWED

ANSWER = AnswerField("answer", "choice", tuple(sorted(set().union(*ALLOWED.values()))))
QUALIFICATION_KIND = register(TaskKind(
    names=("qualification",), label="qualification test", unit_word="answer", done_key="captions",
    fields=lambda cfg: [ANSWER],
    cards=lambda run, cards, most: answer_cards(run, [ANSWER], cards, most),
    plan=lambda cfg: PlanDefaults(minutes=unit_minutes([ANSWER], cfg.images_per_hit)),
    qc=qc_batch, outputs=caption_outputs, page=caption_task_page, rules=caption_rules, extra={"tops_up": top_up_round}))
DECLARED = (QUALIFICATION_KIND,)  # read by flows/core/kind_registry.py
