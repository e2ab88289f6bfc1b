"""Honest simulated workers type the value a short box asks for (a clock time the item states, a date in
the format the box shows, a count the item states), so a page whose own script refuses anything else gets its
answers through the simulator; a page that still refuses them is a PROBLEM naming the box and what it said."""

from __future__ import annotations

import csv
import random
import re
import sqlite3
from pathlib import Path

import pytest

from flows.cli.main import main
from flows.core.pages.mturk_forms import form_fields
from flows.sim.pages.any_form import fill_unhinted
from flows.sim.pages.typed_values import clock_text, stated_time
from flows.sim.people.crowd_model import new_worker

# an imported ${column} fragment: three value boxes, none required, and a script that refuses anything but the shape
FRAGMENT = """<h3>Check a booking</h3>
<p><b>Rule:</b> ${rule}</p>
<p><b>Booking:</b> ${booking}</p>
<p>1. What is the latest time the passengers can check in? Work it out from the rule and the departure time.
Write a clock time, for example 4:30 pm or 16:30.</p>
<input type="text" name="check_in" id="check_in" maxlength="12" placeholder="e.g. 4:30 pm">
<p>2. On what date does the trip start? Write it as in this example: 25/12/2024.</p>
<input type="text" name="trip_date" id="trip_date" maxlength="10">
<p>3. How many passengers are on the booking? Digits only.</p>
<input type="text" name="passengers" id="passengers" maxlength="3">
<p id="err" style="color:red"></p>
<script>
document.querySelector("form").addEventListener("submit", function (event) {
  var t = document.getElementById("check_in").value.trim();
  var d = document.getElementById("trip_date").value.trim();
  var n = document.getElementById("passengers").value.trim();
  var msg = "";
  if (!CLOCK.test(t)) msg = "Please write the check-in time as a clock time, like 4:30 pm.";
  else if (!/^\\d{2}\\/\\d{2}\\/\\d{4}$/.test(d)) msg = "Please write the date as DD/MM/YYYY.";
  else if (!/^\\d+$/.test(n)) msg = "Please write the number of passengers in digits.";
  if (msg) { event.preventDefault(); REFUSE(msg); }
});
</script>"""
CLOCK = r"/^\d{1,2}([:.]\d{2})?\s*(am|pm)?$/i"
INLINE = 'document.getElementById("err").textContent = msg'
ITEMS = [("b1", "Check-in closes 45 minutes before departure.", "4 passengers depart at 3:15 pm on 12 March 2026.",
          14 * 60 + 30, "12/03/2026", "4"),
         ("b2", "Check-in closes 30 minutes before departure.", "6 passengers depart at 9:00 am on 2 April 2026.",
          8 * 60 + 30, "02/04/2026", "6"),
         ("b3", "Check-in closes one hour before departure.", "2 passengers depart at 18:40 on 30 May 2026.",
          17 * 60 + 40, "30/05/2026", "2")]
HONEST = ("diligent", "slow", "fast_typist", "slow_typist")


def imported(tmp_path: Path, clock: str = CLOCK, refuse: str = INLINE) -> None:
    (tmp_path / "trips.html").write_text(FRAGMENT.replace("CLOCK", clock).replace("REFUSE(msg)", refuse), "utf-8")
    with (tmp_path / "trips_items.csv").open("w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows([("item_id", "rule", "booking"), *(row[:3] for row in ITEMS)])
    assert main(["new", "trips", "--from", str(tmp_path / "trips.html"), "--items",
                 str(tmp_path / "trips_items.csv"), "--dir", str(tmp_path)]) == 0
    config = tmp_path / "config" / "trips.toml"  # its script writes no field: browser workers asked for, as docs say
    # one worker an item (the scaffold's three): each assignment is a page typed in Chromium (~0.4 s of CPU)
    text = config.read_text(encoding="utf-8").replace("assignments_per_image = 3", "assignments_per_image = 1")
    config.write_text(text + '\n[target]\nsim_workers = "browser"\n', encoding="utf-8")
    crowd = "seed = 3\n" + "".join(f'[[profile]]\nname = "{p}"\ncount = 2\n' for p in HONEST)
    (tmp_path / "crowd.toml").write_text(crowd, encoding="utf-8")


def minutes(text: str) -> int | None:
    m = re.fullmatch(r"(\d{1,2})[:.](\d{2})\s*(am|pm)?", text.strip(), re.I)
    if not m:
        return None
    hour = int(m[1]) % 12 + (12 if (m[3] or "").lower() == "pm" else 0) if m[3] else int(m[1])
    return hour * 60 + int(m[2])


def test_a_time_box_holds_the_time_the_item_states() -> None:
    sign = ["2 hour parking 8am-6pm Mon-Sat", "A driver parks at 3:15 pm on a Tuesday."]
    assert stated_time(sign) == 15 * 60 + 15  # the time said "at"
    assert stated_time(["Departs 9:00 am."]) == 9 * 60 and stated_time(["No times here."]) is None
    assert clock_text(17 * 60 + 15, True) == "5:15 pm" and clock_text(17 * 60 + 15, False) == "17:15"
    assert clock_text(0, True) == "12:00 am" and clock_text(12 * 60, True) == "12:00 pm"


@pytest.mark.browser
def test_honest_workers_get_a_value_checking_page_through_with_the_items_values(tmp_path: Path, monkeypatch) -> None:
    imported(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["run", "config/trips.toml", "--no-prefect", "--db", "h.db", "--crowd", "crowd.toml"]) == 0
    con = sqlite3.connect(tmp_path / "h.db")
    rows = con.execute("SELECT assignment_id, item_id, field, value FROM answers WHERE item_id != ''").fetchall()
    given: dict[str, dict[str, str]] = {}
    for assignment, item, field, value in rows:
        given.setdefault(assignment, {"item": item})[field] = value
    assert len(given) == len(ITEMS)  # every assignment posted: the page's script took each one
    truth = {row[0]: row[3:] for row in ITEMS}
    assert all(minutes(g["check_in"]) is not None for g in given.values())  # a clock time the script takes
    right = [[g["trip_date"] == truth[g["item"]][1], g["passengers"] == truth[g["item"]][2]] for g in given.values()]
    for k in range(2):  # each value read from the item by most honest workers (a few slip)
        assert sum(r[k] for r in right) >= 0.6 * len(right), (k, list(given.values()))


@pytest.mark.browser
@pytest.mark.parametrize("refuse", [INLINE, "alert(msg)"])
def test_a_page_that_still_refuses_names_the_box_and_what_it_said(tmp_path: Path, monkeypatch, capsys,
                                                                  refuse: str) -> None:
    """A time written as 14h30 only: not a shape the simulated worker writes (its limit, said so), so the dry run's
    PROBLEM names the box, the page's words and what was typed, and the run posts nothing."""
    imported(tmp_path, r"/^\d{1,2}h\d{2}$/", refuse)
    monkeypatch.chdir(tmp_path)
    assert main(["run", "config/trips.toml", "--dry-run"]) == 1
    problem = [line for line in capsys.readouterr().out.splitlines() if line.startswith("PROBLEM")]
    assert len(problem) == 1 and "refused every time" in problem[0]
    assert 'saying "Please write the check-in time as a clock time, like 4:30 pm."' in problem[0]
    typed = re.search(r'about the box (\w+) \(typed as "([^"]*)"\)', problem[0])
    assert typed and typed[1].startswith("check_in") and minutes(typed[2]) is not None
    assert "the simulator's limit" in problem[0]


CONDITIONAL = """<form><p class="item">1 hour parking 9am-5pm. A driver parks at 10:20 am on a Wednesday.</p>
<p>Is the driver allowed to park here at that time?</p>
<label><input type="radio" name="allowed" value="yes" required> Yes</label>
<label><input type="radio" name="allowed" value="no"> No</label>
<p>If yes: what is the latest time the driver can leave the car there? Write a clock time, for example 4:30 pm or
16:30. Leave this empty if you answered No.</p>
<input type="text" name="leave_by" maxlength="12"></form>"""


def test_a_box_asked_after_yes_is_left_empty_after_no_and_holds_a_time_after_yes() -> None:
    answers = []
    for n in range(40):
        worker = new_worker("diligent", {}, random.Random(n))
        answers.append(fill_unhinted(worker, form_fields(CONDITIONAL), CONDITIONAL, {}, random.Random(n)))
    assert {a["allowed"] for a in answers} == {"yes", "no"}  # both answers given, so both branches are seen
    assert all(a["leave_by"] == "" for a in answers if a["allowed"] == "no")
    times = [minutes(a["leave_by"]) for a in answers if a["allowed"] == "yes"]
    assert all(t is not None for t in times)  # a clock time each
