"""Workers scored on control items (known answers) and blocked on them (docs/how-to/control-items.md).
Input columns: ``judgements``: ``worker_id, item_id, field, value`` (every answer given so far to a control item's
field, rejected work too: a control measures the worker, not the assignment); ``controls``: ``item_id, field, answer``.
Output of :func:`control_scores`: ``worker_id, controls, correct, accuracy`` (one row per worker who answered a
control); of :func:`control_blocks`: :data:`qc.worker_history.BLOCK_COLUMNS`, ``rules`` reading
``control_accuracy 20% (1/5)``. :func:`control_verdicts` takes the same as plain rows (:data:`Answer`, :data:`Control`)
and the crowd's answers counted (:func:`crowd_tallies`): the task server asks it after every page."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from qc.worker_history import BLOCK_COLUMNS, wrong_share_blocks

SCORE_COLUMNS = ["worker_id", "controls", "correct", "accuracy"]
RULE = "control_accuracy"
QUIZ_RULE = "control_quiz"
JUDGEMENT, KEY = ("worker_id", "item_id", "field", "value"), ("item_id", "field", "answer")
Answer = tuple[str, str, str, Any]  # a judgement as a plain row (JUDGEMENT)
Control = tuple[str, str, str]  # a control as a plain row (KEY)
Tallies = dict[tuple[str, str], Counter[str]]  # (item_id, field) -> how often each (stripped, non-blank) value


@dataclass(frozen=True)
class ControlPolicy:
    """When control answers block a worker: ``min_seen`` controls answered, and the posterior chance that their accuracy
    reaches ``block_below`` under ``alpha`` (:func:`accuracy_above`). ``alpha`` 0: the rule of campaigns planned before
    it, the wrong share's Wilson lower bound at ``confidence`` z (0: the plain share) above ``1 - block_below``."""

    min_seen: int = 3
    block_below: float = 0.5  # 0: control answers never block
    confidence: float = 1.645
    alpha: float = 0.05
    required: frozenset[str] = frozenset()  # fields whose blank answer is a wrong one (:func:`blanks_as_wrong`)


def control_scores(judgements: pd.DataFrame, controls: pd.DataFrame) -> pd.DataFrame:
    """Per worker: control answers given, how many equal the known answer, the share."""
    return _scores_frame(_seen(_rows(judgements, *JUDGEMENT), _rows(controls, *KEY)))


def _scores_frame(seen: dict[str, list[int]]) -> pd.DataFrame:
    if not seen:
        return pd.DataFrame(columns=SCORE_COLUMNS)
    out = pd.DataFrame([(w, *seen[w]) for w in sorted(seen)], columns=SCORE_COLUMNS[:3])
    return out.assign(accuracy=out["correct"] / out["controls"])


def _seen(judgements: list[Answer], controls: list[Control]) -> dict[str, list[int]]:
    """worker -> [control answers counted, right]: in plain Python, the task server scores after every page."""
    key = _key(controls, as_set)
    seen: dict[str, list[int]] = {}
    for worker, item, field, value in _first_answers(judgements, key):
        tally = seen.setdefault(worker, [0, 0])
        tally[0], tally[1] = tally[0] + 1, tally[1] + (value in key[(item, field)])
    return seen


def _rows(frame: pd.DataFrame, *columns: str) -> list[Any]:
    return list(zip(*(frame[c].tolist() for c in columns), strict=True))


def _key(controls: list[Control], clean: Callable[[Any], str]) -> dict[tuple[str, str], list[str]]:
    """(item_id, field) -> its known answers (a repeated control: each row right), each ``clean``'d."""
    key: dict[tuple[str, str], list[str]] = {}
    for item, field, answer in controls:
        key.setdefault((str(item), str(field)), []).append(clean(answer))
    return key


def _first_answers(judgements: list[Answer], key: dict[tuple[str, str], list[str]]) -> list[Answer]:
    """(worker, item, field, value) of each worker's first non-blank answer to each control field: a control
    counts once per worker, however often it was answered, so the score and the sequential test agree."""
    done: set[tuple[str, str, str]] = set()
    out = []
    for worker, item, field, value in judgements:
        value = as_set(value)
        if value and (item, field) in key and (worker, item, field) not in done:
            done.add((worker, item, field))
            out.append((worker, item, field, value))
    return out


BLANK = "(left blank)"


def blanks_as_wrong(judgements: pd.DataFrame, required: frozenset[str]) -> pd.DataFrame:
    """``judgements`` with each blank answer to a ``required`` field read as :data:`BLANK`, an answer no control
    has, so skipping a required control counts as wrong; blanks to optional fields stay no answer."""
    if not required or judgements.empty:
        return judgements
    blank = (judgements["value"].astype(str).str.strip() == "") & judgements["field"].astype(str).isin(required)
    return judgements.assign(value=judgements["value"].where(~blank, BLANK)) if blank.any() else judgements


def blank_rows(judgements: list[Answer], required: frozenset[str]) -> list[Answer]:
    """:func:`blanks_as_wrong` over plain rows."""
    return [(w, i, f, _blank_as_wrong(f, v, required)) for w, i, f, v in judgements]


def _blank_as_wrong(field: Any, value: Any, required: frozenset[str]) -> Any:
    return BLANK if str(field) in required and str(value).strip() == "" else value


def as_set(value: Any) -> str:
    """An answer stripped, a checkbox group's ``|``-joined ticks in one order (the page's need not be the file's)."""
    text = str(value).strip()
    return "|".join(sorted({t.strip() for t in text.split("|")} - {""})) if "|" in text else text


def _stripped(value: Any) -> str:
    return str(value).strip()


def single_choice(controls: pd.DataFrame) -> pd.DataFrame:
    """The controls of fields whose every known answer is one value (not ticks, not empty): those that block; a
    set of k ticks is right with chance a^k, under the rule's bar for most honest people (0.85^4 = 0.52)."""
    mixed = {f for f, a in _rows(controls, "field", "answer") if "|" in str(a) or not str(a).strip()}
    return controls[np.array([f not in mixed for f in controls["field"].tolist()], dtype=bool)].reset_index(drop=True)


def crowd_tallies(given: Iterable[tuple[Any, Any, Any, int]], required: frozenset[str] = frozenset()) -> Tallies:
    """``(item_id, field, value, how often)`` rows (a GROUP BY's) counted per control and stripped value; blanks
    to ``required`` fields as :data:`BLANK` (:func:`blanks_as_wrong`), other blanks left out."""
    tallies: Tallies = {}
    for item, field, value, n in given:  # a Counter made once a control, not once a row (~500 rows a check)
        if value := str(value).strip() or (BLANK if str(field) in required else ""):
            (tallies.get((item, field)) or tallies.setdefault((item, field), Counter()))[value] += int(n)
    return tallies


def trusted_controls(judgements: pd.DataFrame, controls: pd.DataFrame) -> pd.DataFrame:
    """``controls`` without those whose known answer under a third of their (3+) answers gave while most gave one
    other: a wrong answer file must not block honest workers one by one; a split crowd's stays."""
    kept = {(str(i), str(f)) for i, f, _ in _trusted(_rows(controls, *KEY), _tallied(judgements))}
    keep = np.array([(str(i), str(f)) in kept for i, f in _rows(controls, "item_id", "field")], dtype=bool)
    return controls[keep].reset_index(drop=True)


def _tallied(given: pd.DataFrame) -> Tallies:
    return crowd_tallies((i, f, v, 1) for i, f, v in _rows(given, "item_id", "field", "value"))


def _trusted(controls: list[Control], tallies: Tallies, min_answers: int = 3, below: float = 1 / 3) -> list[Control]:
    """:func:`trusted_controls` over rows and the crowd's counts; a repeated control's answers count once a row."""
    suspect = set()
    for control, answers in _key(controls, _stripped).items():
        counts = tallies.get(control)
        if not counts:
            continue
        size, agree = counts.total() * len(answers), sum(counts[a] for a in answers)
        top_value, top = counts.most_common(1)[0]  # a tie is never over half
        if (size >= min_answers and agree / size < below and top * len(answers) / size > 0.5
                and top_value != answers[0]):
            suspect.add(control)
    return [c for c in controls if (str(c[0]), str(c[1])) not in suspect]


def accuracy_above(correct: int, seen: int, level: float) -> float:
    """P(accuracy >= ``level``) after ``correct`` right of ``seen``, from the Jeffreys prior Beta(1/2, 1/2): it
    claims nothing about the worker, whatever the parametrisation."""
    from scipy.special import betaincc  # here: `hitflow qc` on pages without controls never loads scipy

    return float(betaincc(correct + 0.5, seen - correct + 0.5, level))


def control_blocks(scores: pd.DataFrame, policy: ControlPolicy) -> pd.DataFrame:
    """Workers with ``min_seen`` controls whose accuracy is below ``block_below`` with posterior
    probability over ``1 - alpha`` (``alpha`` 0: the Wilson rule, :class:`ControlPolicy`)."""
    if policy.alpha <= 0:
        return wrong_share_blocks(scores, "controls", "correct", policy.min_seen, policy.block_below,
                                  policy.confidence, RULE)
    rows = [{"worker_id": str(worker), "rules": f"{RULE} {int(right) / int(seen):.0%} ({int(right)}/{int(seen)})",
             "flags": int(seen) - int(right), "captions": int(seen)}
            for worker, seen, right in _rows(scores, "worker_id", "controls", "correct")
            if _below(int(seen), int(right), policy)]
    return pd.DataFrame(rows, columns=BLOCK_COLUMNS)


def _below(seen: int, right: int, policy: ControlPolicy) -> bool:
    return (policy.block_below > 0 and seen >= policy.min_seen
            and accuracy_above(right, seen, policy.block_below) < policy.alpha)


def _accuracy_stops(seen: dict[str, list[int]], policy: ControlPolicy) -> dict[str, str]:
    """:func:`control_blocks` on :func:`_seen`'s counts, worker -> the rule's words."""
    if policy.alpha <= 0:  # a campaign planned before control_alpha: the Wilson rule, over a frame
        due = control_blocks(_scores_frame(seen), policy)
        return dict(zip(due["worker_id"].astype(str), due["rules"].astype(str), strict=True))
    return {str(w): f"{RULE} {right / n:.0%} ({right}/{n})" for w, (n, right) in sorted(seen.items())
            if _below(n, right, policy)}


QUIZ_HONEST = 0.8  # an honest worker answers easy known items right at least this often...
QUIZ_RISK = 0.001  # ...and fails the quiz with a chance under this


def fails_quiz(size: int, mark: int, accuracy: float) -> float:
    """The binomial tail: a worker right with ``accuracy`` gets fewer than ``mark`` of ``size`` right."""
    return sum(math.comb(size, k) * accuracy ** k * (1 - accuracy) ** (size - k) for k in range(min(mark, size + 1)))


def quiz_mark(size: int) -> int:
    """The most right answers of ``size`` a quiz can ask while an honest worker (:data:`QUIZ_HONEST`) fails it
    with a chance under :data:`QUIZ_RISK` (0 for a quiz too small to ask any)."""
    return max(m for m in range(size + 1) if fails_quiz(size, m, QUIZ_HONEST) < QUIZ_RISK)


def quiz_to_tell(options: int, share: float = 0.9) -> int:
    """The smallest quiz whose pass mark fails ``share`` of the workers clicking at random among ``options`` (two:
    46, three: 20, four: 15, five: 12): on fewer items no mark that spares honest workers can (0: none to 100)."""
    return next((n for n in range(10, 101) if fails_quiz(n, quiz_mark(n), 1 / max(options, 2)) >= share), 0)


HONEST_ACCURACY = 0.7  # the sequential test's honest worker: right on a control at least this often...
FALSE_ALARM = 1 / 400  # ...stopped by it with a chance under this at any point of their work (Ville's inequality):
# the most a quiz of 10 yes/no controls can ask of one answer to everything
TEST_RULE = "control_test"
# The answers-regardless-of-the-truth side's weight on one answer to everything (the commonest way to answer
# without reading), the rest on the Dirichlet mixture (docs/how-to/control-items.md)
ONE_ANSWER = 0.5


def stopped_by_test(judgements: pd.DataFrame, controls: pd.DataFrame) -> dict[str, str]:
    """Workers whose control answers (quiz and pages, each control once) come likelier, by 1 / :data:`FALSE_ALARM`,
    from answering regardless of the truth than from an honest worker, with the rule's words; a martingale for an
    honest worker (Ville), so read after every page (docs/how-to/control-items.md, "One sequential test")."""
    return _test(_rows(judgements, *JUDGEMENT), _rows(controls, *KEY))


def _test(judgements: list[Answer], controls: list[Control]) -> dict[str, str]:
    from scipy.special import gammaln  # here: `hitflow qc` on pages without controls never loads scipy

    key = _key(controls, as_set)
    answers = {(str(f), as_set(a)) for _, f, a in controls}  # each field's k: known and given
    per: dict[tuple[str, str], Counter[str]] = {}  # (worker, field) -> how often each answer
    right: Counter[tuple[str, str]] = Counter()
    for worker, item, field, value in _first_answers(judgements, key):
        (per.get((worker, field)) or per.setdefault((worker, field), Counter()))[value] += 1
        right[(worker, field)] += value in key[(item, field)]
        answers.add((field, value))
    if not per:
        return {}
    ks = Counter(f for f, _ in answers)
    groups = sorted(per)
    n, ok = np.array([per[g].total() for g in groups]), np.array([right[g] for g in groups])
    k = np.array([max(ks[f], 2) for _, f in groups])
    mixed = np.array([sum(gammaln(c + 0.5) - gammaln(0.5) for c in per[g].values()) for g in groups])
    a, wrong = HONEST_ACCURACY, (1 - HONEST_ACCURACY) * np.maximum(1 / (k - 1), 0.75)
    spread = math.log(1 - ONE_ANSWER) + mixed + gammaln(k / 2) - gammaln(n + k / 2)
    one = np.where(np.array([len(per[g]) for g in groups]) == 1, np.log(ONE_ANSWER / k), -np.inf)
    odds = np.logaddexp(spread, one) - (ok * math.log(a) + (n - ok) * np.log(wrong))
    out: dict[str, list[float]] = {}
    for (worker, _), *sums in zip(groups, n, ok, odds, strict=True):
        out[worker] = [x + y for x, y in zip(out.get(worker, [0, 0, 0.0]), sums, strict=True)]
    return {str(w): f"{TEST_RULE} {int(r)}/{int(m)} right, odds {math.exp(min(o, 700)):.0f}:1 against "
            f"an honest worker (stop at {1 / FALSE_ALARM:.0f}:1)" for w, (m, r, o) in out.items()
            if o >= math.log(1 / FALSE_ALARM)}


def quiz_failures(mine: pd.DataFrame, given: pd.DataFrame, record: dict[str, Any]) -> dict[str, str]:
    """Of the workers whose answers are ``mine``, those below the quiz's pass mark, with the rule's words; a quiz
    item most takers contradict (``given``: the crowd's answers) is a mistake in the file, dropped with a mark."""
    return _quiz_fails(_rows(mine, *JUDGEMENT), _tallied(given), record)


def _quiz_fails(mine: list[Answer], tallies: Tallies, record: dict[str, Any]) -> dict[str, str]:
    key = [(i, f, a) for i, f, a in record.get("key", [])]
    trusted = _trusted(key, tallies)
    mark = int(record.get("mark", 0)) - (len(key) - len(trusted))
    return {str(w): f"{QUIZ_RULE} {right}/{len(key)} (pass {mark})" for w, (_, right) in sorted(
        _seen(mine, trusted).items()) if right < mark}


def quiz_verdicts(mine: pd.DataFrame, given: pd.DataFrame, record: dict[str, Any]) -> dict[str, str]:
    """The quiz judged on its answers alone, where a route sees nothing else before any work (MTurk's
    qualification requests): the pass mark and the sequential test, as the task server judges a first page."""
    tallies, answers = _tallied(given), _rows(mine, *JUDGEMENT)
    key = [(i, f, a) for i, f, a in record.get("key", [])]
    return {**_test(answers, _trusted(key, tallies)), **_quiz_fails(answers, tallies, record)}


def control_verdicts(mine: list[Answer], controls: list[Control], tallies: Tallies, policy: ControlPolicy,
                     quiz: dict[str, Any] | None) -> dict[str, str]:
    """Of the workers whose control answers are ``mine`` (:func:`blank_rows`' already), those they stop, with the
    rule's words: the sequential test, and with ``quiz`` (``{}``: none) the controls-alone rule and the quiz's pass
    mark; ``tallies``: the crowd's answers to ``controls`` (:func:`crowd_tallies`), which drop the contradicted."""
    trusted = _trusted(controls, tallies)
    accuracy = {} if quiz is None else {**_accuracy_stops(_seen(mine, trusted), policy), **_quiz_fails(
        mine, tallies, quiz)}
    return {**accuracy, **_test(mine, trusted)}
