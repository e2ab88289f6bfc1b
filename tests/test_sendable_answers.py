"""Every simulated answer is one the page's control could send, honest and bad profiles alike: a slider a number
within its bounds on its step, a select one of its options and never its blank placeholder, a box with a pattern
(or a format its words state, "(5 digits)") a value of that form; a figure read off the item is copied at the
page's step. The pages are ours, written for this test, imported as a user would (``hitflow new --from``).
"""

from __future__ import annotations

import random
import re
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flows.campaigns.task_kinds import load_campaign
from flows.core.pages.form_spec import field_rule
from flows.core.pages.mturk_forms import form_fields
from flows.custom.custom_task import custom_page, read_custom_items
from flows.custom.scaffold_import import scaffold_from
from flows.sim.pages.any_form import fill_unhinted
from flows.sim.people.crowd_model import HONEST_PROFILES, PROFILE_DEFAULTS, BankEntry, new_worker
from flows.sim.people.known_answers import add_known
from flows.sim.people.stated_limits import stated_format
from qc.answer_values import number
from qc.form_constraints import check_field, describe_rules

PROFILES = tuple(PROFILE_DEFAULTS)
PATTERNS = (r"\d{5}", r"[A-Z]{3}-\d{2}", r"\d+", r"[0-9]{2,4}", r"[a-z]{3,8}", r"(yes|no)")
QUESTIONS = ("How confident are you?", "What is your age?", "If wrong, type the reading you see (5 digits)",
             "Why did you choose it?", "Your answer", "Total paid", "Pick one")
SLIDER = """<div class="container"><div class="row"><div class="col"><img src="${left_url}" class="img-fluid"></div>
<div class="col"><img src="${right_url}" class="img-fluid"></div></div>
<div class="mb-3"><label class="form-label">Which photo is sharper?</label>
<div class="form-check"><input class="form-check-input" type="radio" name="sharper" value="left" required> Left</div>
<div class="form-check"><input class="form-check-input" type="radio" name="sharper" value="right"> Right</div></div>
<div class="mb-3"><label for="confidence" class="form-label">How confident are you?</label>
<input type="range" class="form-range" name="confidence" id="confidence" min="0" max="100" step="10" value="50">
</div></div>"""
METER = """<p>The meter photo: <img src="${photo}"></p><p>Our reading: <b>${reading}</b></p>
<p>Is our reading right?</p>
<label><input type="radio" name="right" value="yes" required> Yes</label>
<label><input type="radio" name="right" value="no"> No</label>
<p><label>If wrong, type the reading you see (5 digits) <input type="text" class="fix" name="fix"{pattern}></label></p>
<p><label>Meter type <select name="meter" required><option value="">Choose...</option><option value="gas">Gas</option>
<option value="electric">Electric</option><option value="water">Water</option></select></label></p>"""
RECEIPT = """<p>Receipt from ${shop}: <img src="${receipt}"></p>
<p><label>Total paid (GBP) <input type="number" name="total" step="0.01" min="0" required></label></p>"""


def sendable(rule: dict, kind: str, value: str) -> bool:
    """What the control itself lets through (a blank aside, which only ``required`` refuses; a slider has none)."""
    return check_field({**rule, "required": False}, value) == "" and not (kind == "range" and value == "")


@st.composite
def controls(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(("range", "number", "text", "select")))
    attrs = " required" if draw(st.booleans()) else ""
    if kind in ("range", "number"):
        low = draw(st.integers(-50, 50))
        step = draw(st.sampled_from(("1", "2", "5", "10", "0.5", "0.25", "0.01", "any")))
        bounds = draw(st.sampled_from(("both", "min", "max", "none")))
        attrs += f' min="{low}"' if bounds in ("both", "min") else ""
        attrs += f' max="{low + draw(st.integers(1, 300))}"' if bounds in ("both", "max") else ""
        attrs += f' step="{step}"' + (f' value="{low + draw(st.integers(0, 20))}"' if draw(st.booleans()) else "")
        return f'<input type="{kind}" name="x_0"{attrs}>'
    if kind == "text":
        attrs += f' pattern="{draw(st.sampled_from(PATTERNS))}"' if draw(st.booleans()) else ""
        attrs += f' maxlength="{draw(st.integers(8, 40))}"' if draw(st.booleans()) else ""
        return f'<input type="text" name="x_0"{attrs}>'
    options = draw(st.lists(st.sampled_from(("gas", "water", "5", "Left", "none", "Other")), min_size=1, max_size=5,
                            unique=True))
    return f'<select name="x_0"{attrs}><option value="">Choose...</option>' + "".join(
        f'<option value="{o}">{o}</option>' for o in options) + "</select>"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(control=controls(), question=st.sampled_from(QUESTIONS), seed=st.integers(0, 10**6),
       text=st.sampled_from(("", "Our reading: 48213", "A receipt from the corner shop, paid by card.")))
def test_every_profile_answers_within_what_the_control_can_send(control: str, question: str, seed: int,
                                                                text: str) -> None:
    page = (f'<form><input type="hidden" name="item_id_0" value="it-{seed}"><p>{text}</p><p>Is it right?</p>'
            f'<label><input type="radio" name="ok_0" value="yes"> Yes</label><label><input type="radio" name="ok_0" '
            f'value="no"> No</label><label>{question} {control}</label></form>')
    fields = form_fields(page)
    (box,) = [f for f in fields if f.name == "x_0"]
    rule = field_rule(box)
    assert rule is not None and "" not in rule.get("options", [])  # a blank placeholder is no option
    for k, profile in enumerate(PROFILES):
        worker = new_worker(profile, {}, random.Random(seed + k))
        value = fill_unhinted(worker, fields, page, {}, random.Random(seed * 31 + k)).get("x_0", box.value)
        assert sendable(rule, box.kind, value), (profile, control, question, value)


def imported(tmp: Path, name: str, html: str, rows: list[dict[str, str]]) -> tuple[list[dict[str, str]], list[str]]:
    """The page imported as ``hitflow new --from`` does, and its pages of three items each as a worker gets them."""
    tmp.mkdir(parents=True, exist_ok=True)
    (tmp / f"{name}.html").write_text(html, encoding="utf-8")
    columns = list(rows[0])
    (tmp / f"{name}.csv").write_text("\n".join(",".join(r[c] for c in columns) for r in [dict(zip(columns, columns,
                                     strict=True)), *rows]) + "\n", encoding="utf-8")
    scaffold_from(name, tmp / f"{name}.html", tmp, items=tmp / f"{name}.csv")
    cfg = load_campaign(tmp / "config" / f"{name}.toml")
    items = [{**row, "image_id": row["item_id"]} for row in read_custom_items(cfg)]
    return items, [custom_page(cfg, items[k:k + 3]) for k in range(0, len(items), 3)]


def fill(pages: list[str], profiles: tuple[str, ...], bank: dict[str, BankEntry] | None = None,
         seeds: int = 3) -> list[tuple[str, str, dict[str, str]]]:
    """(profile, page, values) for ``seeds`` workers of each profile on every page."""
    out = []
    for p, profile in enumerate(profiles):
        for s in range(seeds):
            worker = new_worker(profile, {}, random.Random(1000 * p + s))
            for k, html in enumerate(pages):
                out.append((profile, html, fill_unhinted(worker, form_fields(html), html, bank or {},
                                                          random.Random(100 * k + 10 * p + s))))
    return out


def test_a_slider_gets_a_number_on_its_step_from_everyone_never_words(tmp_path: Path) -> None:
    rows = [{"item_id": f"p{i}", "left_url": f"https://e.org/{i}a.jpg", "right_url": f"https://e.org/{i}b.jpg"}
            for i in range(6)]
    _, pages = imported(tmp_path, "slider", SLIDER, rows)
    given = [v for _, _, values in fill(pages, PROFILES) for n, v in values.items() if n.startswith("confidence_")]
    assert len(given) == len(PROFILES) * 3 * 6
    assert all(number(v) is not None and 0 <= float(v) <= 100 and float(v) % 10 == 0 for v in given), given
    assert len(set(given)) > 3  # a score, not one default


def test_a_conditional_five_digit_box_gets_five_digits_when_it_applies_and_nothing_else(tmp_path: Path) -> None:
    rows = [{"item_id": f"m{i}", "photo": f"https://e.org/m{i}.jpg", "reading": f"{48213 + 7 * i}"} for i in range(6)]
    for pattern in ("", ' pattern="\\d{5}"'):
        _, pages = imported(tmp_path / str(len(pattern)), "meter", METER.replace("{pattern}", pattern), rows)
        answered = [(values[f"right_{i}"], values.get(f"fix_{i}", "")) for _, _, values in fill(pages, HONEST_PROFILES)
                    for i in range(3) if f"right_{i}" in values]
        fixes = [fix for right, fix in answered if right == "no"]
        assert fixes and all(re.fullmatch(r"\d{5}", fix) for fix in fixes), fixes
        said_right = [fix for right, fix in answered if right == "yes"]
        assert sum(fix == "" for fix in said_right) >= 0.8 * len(said_right), said_right


def test_a_selects_blank_placeholder_is_no_option_and_never_an_answer(tmp_path: Path) -> None:
    rows = [{"item_id": f"m{i}", "photo": f"https://e.org/m{i}.jpg", "reading": "12345"} for i in range(3)]
    _, pages = imported(tmp_path, "meter", METER.replace("{pattern}", ""), rows)
    (meter,) = [f for f in form_fields(pages[0]) if f.name == "meter_0"]
    rule = field_rule(meter)
    assert rule is not None and rule["options"] == ["gas", "electric", "water"]
    assert "one of 3 options" in describe_rules({"fields": [rule]})[0]
    picked = {values.get("meter_0") for profile, _, values in fill(pages, PROFILES) if profile != "rule_breaker"}
    assert picked <= {"gas", "electric", "water"} and len(picked) > 1


def test_a_total_read_off_a_receipt_is_mostly_copied_exactly_in_pence(tmp_path: Path) -> None:
    totals = ["16.00", "60.15", "51.48", "35.76", "6.85", "26.94"]
    rows = [{"item_id": f"r{i}", "shop": "Tesco", "receipt": f"https://e.org/r{i}.jpg", "total": t}
            for i, t in enumerate(totals)]
    items, pages = imported(tmp_path, "receipt", RECEIPT, rows)
    bank: dict[str, BankEntry] = {}
    add_known(bank, [{"item_id": r["item_id"], "field": "total", "answer": r["total"]} for r in items])
    typed = [(values[f"total_{i}"], totals[k * 3 + i]) for _, html, values in fill(pages, HONEST_PROFILES, bank, 4)
             for k in [pages.index(html)] for i in range(3)]
    assert all(re.fullmatch(r"\d+\.\d\d", v) for v, _ in typed), typed  # at the page's step: pence
    exact = sum(float(v) == float(truth) for v, truth in typed) / len(typed)
    assert exact >= 0.8, exact


def test_a_format_a_boxs_words_state_is_read_as_its_pattern() -> None:
    assert stated_format("If wrong, type the reading you see (5 digits)") == r"\d{5}"
    assert stated_format("Enter the five-digit code") == r"\d{5}"
    assert stated_format("Type the 6-character code") == "[A-Z0-9]{6}"
    assert stated_format("Postcode (digits only)") == r"\d+"
    assert re.fullmatch(stated_format("Total (a number)"), "12.50")
    assert stated_format("at least 5 digits") == stated_format("Describe it in 10 words") == ""
