/* Shared by the sequenced task pages: one item at a time, each checked against the page's
   submit rules (validation.js) before Next, timed per item, submit only after accept.
   The page passes `extraCheck(i)` returning an extra message ("" when fine). */
window.hitflowSequence = function (options) {
  "use strict";
  var spec = JSON.parse(document.getElementById("submit-rules").textContent);
  var params = new URLSearchParams(window.location.search);
  // A page served by hitflow's task server carries its session in the form already.
  var assignmentId = document.getElementById("assignmentId").value || params.get("assignmentId") ||
    "ASSIGNMENT_ID_NOT_AVAILABLE";
  var preview = assignmentId === "ASSIGNMENT_ID_NOT_AVAILABLE";
  var form = document.getElementById("hit-form");
  var count = options.count;
  var extraCheck = options.extraCheck || function () { return ""; };
  document.getElementById("assignmentId").value = assignmentId;
  window.hitflowSubmitTarget(form);
  if (preview) { document.getElementById("preview-banner").hidden = false; }
  function stamp(id) { document.getElementById(id).value = String(Date.now()); }
  function check(i) {
    var text = document.getElementById("caption_" + i).value;
    var found = window.hitflowRules.violations(text, spec);
    var extra = extraCheck(i, form);
    var msg = (window.hitflowRules.explain(found) + " " + extra).trim();
    document.getElementById("error_" + i).textContent = msg;
    return found.length === 0 && !extra;
  }
  function show(i) {
    for (var k = 0; k < count; k++) { document.getElementById("item-" + k).hidden = k !== i; }
    if (!document.getElementById("start_ms_" + i).value) { stamp("start_ms_" + i); }
  }
  Array.prototype.forEach.call(document.querySelectorAll("button.canned"), function (b) {
    b.addEventListener("click", function () { document.getElementById(b.dataset.target).value = spec.canned_text; });
  });
  Array.prototype.forEach.call(document.querySelectorAll("button.next"), function (b) {
    b.addEventListener("click", function () {
      var i = Number(b.dataset.index);
      if (!check(i)) { return; }
      stamp("end_ms_" + i);
      show(i + 1);
    });
  });
  form.addEventListener("submit", function (ev) {
    var last = count - 1;
    if (preview) { ev.preventDefault(); document.getElementById("error_" + last).textContent = "Accept the HIT before submitting."; return; }
    for (var i = 0; i < count; i++) { if (!check(i)) { ev.preventDefault(); show(i); return; } }
    stamp("end_ms_" + last);
  });
  if (preview) { document.getElementById("submit-btn").disabled = true; }
  show(0);
};
