"""A page whose own submit script refuses the honest simulated worker's full answer is still asked at import
(flows/sim/pages/probe_refused.py): the answer retyped as a list the refusal asks ("three ..., separated by
commas"), else each field left blank alone against it, a new refusal the page shows making that field required.
An optional box stays optional either way."""

from __future__ import annotations

import re

import pytest

from flows.sim.people.refusal_asks import as_list, listed

# as bench/gate_heldout23/campsite_listings.html: one alert for everything, each reason a red line in the block; the
# list is said only in the script's refusal
LISTED = """<form id="f"><div class="block">
<p>Which facilities does it mention? Tick all that apply.</p>
<label><input type="checkbox" name="facilities" value="showers"> Showers</label>
<label><input type="checkbox" name="facilities" value="wifi"> Wifi</label>
<label><input type="checkbox" name="facilities" value="none"> None of these</label>
<p>What would you hear at night here?</p><input type="text" name="sounds">
<p>Anything else? (optional)</p><input type="text" name="remark">
<div class="err"></div></div><input type="submit"></form>
<script>
document.getElementById('f').addEventListener('submit', function (e) {
  var msg = [], block = document.querySelector('.block');
  if (!block.querySelectorAll('input[type=checkbox]:checked').length) msg.push('Please tick at least one box.');
  var parts = document.querySelector('input[name^=sounds]').value.split(',')
    .map(function (s) { return s.trim(); }).filter(function (s) { return s.length > 0; });
  if (parts.length !== 3) msg.push('Please name exactly three sounds, separated by commas.');
  block.querySelector('.err').textContent = msg.join(' ');
  if (msg.length) { e.preventDefault(); alert('Some answers are missing - see the red messages.'); }
});
</script>"""

# a check no retyping meets (a code only a person watching the video knows): the rest is still read
UNMET = LISTED.replace("parts.length !== 3", "document.querySelector('input[name^=sounds]').value !== 'XK-42'") \
    .replace("Please name exactly three sounds, separated by commas.", "Type the code shown at the end of the video.")


def attrs(body: str, name: str) -> str:
    """Every tag of the control ``name`` (x_{{ i }}), joined."""
    return " ".join(re.findall(rf"<[^>]*name=\"{name}_{{{{ i }}}}\"[^>]*>", body))


def test_a_list_the_refusal_asks_is_read_and_typed_as_a_person_lists() -> None:
    assert listed("Please name exactly three sounds, separated by commas.") == (3, ",")
    assert listed("Give 4 comma-separated tags") == (4, ",")
    assert listed("Use at least 3 words, please.") is None and listed("Separate them by commas") is None
    typed = as_list("Owls hooting in the trees and waves on the shore", 3, ",")
    assert len([p for p in typed.split(",") if p.strip()]) == 3 and all(len(p.split()) <= 3 for p in typed.split(","))
    for text in ("Optional mainly and Anything.", "Owls", "one two three four five six seven eight nine ten"):
        parts = [p.strip() for p in as_list(text, 3, ",").split(",")]
        assert len(parts) == 3 and all(1 <= len(p.split()) <= 3 for p in parts), parts


@pytest.mark.browser
def test_a_page_refusing_the_honest_answer_for_its_list_is_asked_with_the_list(probing) -> None:
    body, notes, _page = probing(LISTED)
    assert 'data-min-selections="1"' in attrs(body, "facilities")
    assert "required" in attrs(body, "sounds") and "required" not in attrs(body, "remark")
    assert not any("refused an honest" in n for n in notes)
    assert any("typed as the list it asks" in n and "sounds" in n for n in notes)
    assert any("stays in its script only" in n for n in notes)  # the list itself is no page rule


@pytest.mark.browser
def test_a_page_refusing_every_honest_answer_still_tells_which_blank_it_refuses_anew(probing) -> None:
    body, notes, _page = probing(UNMET)
    assert 'data-min-selections="1"' in attrs(body, "facilities")
    # refused alike blank or not: whether the page requires it is not known, so no rule; nor on the optional box
    assert "required" not in attrs(body, "sounds") and "required" not in attrs(body, "remark")
    assert any("refused an honest" in n for n in notes)
    assert any("facilities blank" in n and "data-min-selections" in n for n in notes)


def test_a_limit_on_each_part_of_a_list_is_not_the_whole_answer_s() -> None:
    from qc.asked_limits import stated_max_words

    listed_page = ("Name three sounds you would hear, separated by commas, for example: owls, waves, rustling leaves. "
                   "Keep each sound short (up to 3 words).")
    assert stated_max_words(listed_page) == 0
    assert stated_max_words("Three tags, separated by commas, 10 words at most. Each tag up to 2 words.") == 10
    assert stated_max_words("Write each answer in at most 20 words.") == 20  # no list asked: each box's own
