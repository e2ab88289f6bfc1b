"""The import and the dry run name as the script's own only the checks that really are not page rules: a check
whose refusals running the page in Chromium turned into page rules (a flag set over several fields, read by no
reading of its code) is not "UNCHECKED", one the run never met stays so, and a page that refused an honest full
answer at import says so in the dry run too. Before, the dry run named every check its code reading could not
convert, so a page whose every check was a page rule ended "1 check(s) ... only a person's browser enforces"."""

from __future__ import annotations

from pathlib import Path

import pytest

from flows.cli.main import main

pytestmark = pytest.mark.browser

FLAG = """<form id="f" method="post">
<p>${dish}</p>
<label><input type="checkbox" name="allergens" value="nuts"> Nuts</label>
<label><input type="checkbox" name="allergens" value="milk"> Milk</label>
<label><input type="checkbox" name="allergens" value="none"> None of these</label>
<p>What else should the kitchen say? <input type="text" name="note"></p>
<input type="submit">
</form>
<script>
document.getElementById('f').addEventListener('submit', function (e) {
  var ok = true;
  if (document.querySelectorAll('input[type=checkbox]:checked').length === 0) { ok = false; }
  if (document.querySelector('input[name=note]').value.trim() === '') { ok = false; }
  if (!ok) { alert('Tick a box and fill in the note.'); e.preventDefault(); return; }
  var none = document.querySelector('input[value=none]');
  if (none.checked && document.querySelectorAll('input[type=checkbox]:checked').length > 1) {
    alert('None of these goes alone.'); e.preventDefault(); }
});
</script>
"""
# Each item's block checked by a loop over the blocks, its radio found by its name's start: the import renamed
# the field (seen_{{ i }}) and the selector with it, so on a page of two items the first item's name was looked
# for in both blocks and every honest submit was refused.
BLOCKS = """<form id="f" method="post">
<div class="dish"><p>${dish}</p>
<label><input type="radio" name="seen" value="yes"> Yes</label>
<label><input type="radio" name="seen" value="no"> No</label>
<div class="msg"></div></div>
<input type="submit">
</form>
<script>
document.forms[0].addEventListener('submit', function (e) {
  var bad = 0;
  document.querySelectorAll('.dish').forEach(function (d) {
    if (!d.querySelector('input[name^="seen"]:checked')) { d.querySelector('.msg').textContent = 'Pick one.'; bad++; }
  });
  if (bad > 0) { e.preventDefault(); }
});
</script>
"""
REFUSES_HONEST = """<form id="f" method="post">
<p>${dish}</p>
<textarea name="why" required></textarea>
<input type="submit">
</form>
<script>
document.getElementById('f').addEventListener('submit', function (e) {
  if (document.getElementsByName('why')[0].value.indexOf('because') < 0) {
    alert('Start with because.'); e.preventDefault(); }
});
</script>
"""


def imported_and_dry_run(tmp_path: Path, page: str, capsys, per_page: int = 0) -> tuple[list[str], list[str]]:
    """(the import's notes on the page's checks, the dry run's lines) of ``page`` imported as a user does; with
    ``per_page``, that many items a page, rehearsed by browser workers."""
    (tmp_path / "p.html").write_text(page, encoding="utf-8")
    (tmp_path / "p_items.csv").write_text("item_id,dish\na,Soup\nb,Bread\n", encoding="utf-8")
    assert main(["new", "p", "--from", str(tmp_path / "p.html"), "--items", str(tmp_path / "p_items.csv"),
                 "--dir", str(tmp_path)]) == 0
    notes = [n for n in capsys.readouterr().err.splitlines() if "submit check `if (" in n]
    config = tmp_path / "config" / "p.toml"
    if per_page:
        text = config.read_text(encoding="utf-8").replace("images_per_hit = 1 ", f"images_per_hit = {per_page} ")
        config.write_text(text + '\n[target]\nsim_workers = "browser"\n', encoding="utf-8")
    assert main(["run", str(config), "--dry-run"]) == 0
    return notes, capsys.readouterr().out.splitlines()


def test_a_check_made_page_rules_in_chromium_is_not_unchecked_and_one_it_never_met_is(tmp_path: Path, capsys) -> None:
    notes, lines = imported_and_dry_run(tmp_path, FLAG, capsys)
    stays = [n for n in notes if "stays in its script only" in n]
    assert len(stays) == 1 and "None of these goes alone." in stays[0], notes  # not `if (!ok)`
    unchecked = [line for line in lines if line.startswith("UNCHECKED")]
    assert len(unchecked) == 1 and "None of these goes alone." in unchecked[0], unchecked
    assert lines[-1].startswith("no problem found, but 1 check(s)"), lines[-1]
    rules = "\n".join(lines)
    assert "rule allergens_0 (many): min=1" in rules and "rule note_0 (text): required" in rules


def test_an_honest_answer_the_page_refused_at_import_is_said_again_by_the_dry_run(tmp_path: Path, capsys) -> None:
    notes, lines = imported_and_dry_run(tmp_path, REFUSES_HONEST, capsys)
    assert len(notes) == 1 and "stays in its script only" in notes[0]  # nothing the page refused disproves it
    unchecked = [line for line in lines if line.startswith("UNCHECKED")]
    assert len(unchecked) == 1 and "Start with because." in unchecked[0]
    assert "refused an honest simulated worker's full answer" in unchecked[0], unchecked


def test_a_loop_over_the_items_blocks_submits_a_page_of_two(tmp_path: Path, capsys) -> None:
    _notes, lines = imported_and_dry_run(tmp_path, BLOCKS, capsys, per_page=2)
    assert not [line for line in lines if line.startswith(("PROBLEM", "UNCHECKED"))], lines
    assert 'input[name^="seen"]:checked' in (tmp_path / "config" / "p.html.j2").read_text(encoding="utf-8")


# the page's own <form onsubmit>, a named function: a word count the run in Chromium finds (QC's max words), and a
# check of what the answer holds, which no page rule or word limit can say
ONSUBMIT = """<form id="f" method="post" onsubmit="return checkClue();">
<p>Answer: <span id="word">${dish}</span></p>
<p>Write a clue, no more than 6 words. <input type="text" name="clue" id="clue" required></p>
<input type="submit">
</form>
<script>
function checkClue() {
  var clue = document.getElementById('clue').value.trim();
  var word = document.getElementById('word').textContent.trim().toLowerCase();
  if (clue.split(/\\s+/).length > 6) { alert('Keep it to 6 words.'); return false; }
  if (word && clue.toLowerCase().indexOf(word) !== -1) { alert('Leave the answer out.'); return false; }
  return true;
}
</script>
"""
# boxes each named on its own, "at least one" checked through a flag: the run in Chromium makes it a group rule
TICKED = """<form id="f" method="post">
<p>${dish}</p><p>How is it served? Tick at least one.</p>
<label><input type="checkbox" name="hot" class="way"> Hot</label>
<label><input type="checkbox" name="cold" class="way"> Cold</label>
<label><input type="checkbox" name="boxed" class="way"> Boxed</label>
<input type="submit">
</form>
<script>
document.getElementById('f').addEventListener('submit', function (e) {
  var ticked = false;
  document.querySelectorAll('.way').forEach(function (b) { if (b.checked) { ticked = true; } });
  if (!ticked) { alert('Please tick at least one way.'); e.preventDefault(); }
});
</script>
"""


def test_an_onsubmit_check_the_import_leaves_to_the_script_is_unchecked_and_its_word_count_is_not(
        tmp_path: Path, capsys) -> None:
    notes, lines = imported_and_dry_run(tmp_path, ONSUBMIT, capsys)
    stays = [n for n in notes if "stays in its script only" in n]
    assert len(stays) == 1 and "Leave the answer out." in stays[0], notes
    unchecked = [line for line in lines if line.startswith("UNCHECKED")]
    assert len(unchecked) == 1 and "Leave the answer out." in unchecked[0], lines
    assert any(line.startswith("  limits on clue:") and "at most 6 words" in line for line in lines), lines


def test_a_flag_check_the_run_made_a_group_rule_is_not_unchecked(tmp_path: Path, capsys) -> None:
    notes, lines = imported_and_dry_run(tmp_path, TICKED, capsys)
    assert not [n for n in notes if "stays in its script only" in n], notes
    assert any(line.startswith("  rule ") and "(group): required, at least one of" in line for line in lines), lines
    assert not [line for line in lines if line.startswith(("PROBLEM", "UNCHECKED"))], lines
