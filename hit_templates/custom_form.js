/* A campaign's own page (task = "custom"): the browser's constraint validation refuses the
   submit while a control's rule fails (required, minlength, pattern, min/max/step); this script
   adds what MTurk needs (the assignment id, the submit target, no submit from the preview), the
   page's clock, and one message naming what is still wrong. The server checks the same rules
   (qc/form_constraints.py), derived from the same controls. */
(function () {
  "use strict";
  var form = document.getElementById("hit-form");
  var preview = window.hitflowOpenPage(form);
  form.addEventListener("invalid", function () {
    document.getElementById("form-error").textContent = "Some answers are missing or not in the requested form; see the highlighted fields.";
  }, true);
  form.addEventListener("submit", function (ev) {
    if (preview) { ev.preventDefault(); document.getElementById("form-error").textContent = "Accept the HIT before submitting."; return; }
    document.getElementById("page_end_ms").value = String(Date.now());
  });
})();
/* A checkbox group's size limits (data-min-selections / data-max-selections on its first box):
   HTML has no attribute for them, so the first box carries the group's custom validity. */
(function () {
  "use strict";
  var form = document.getElementById("hit-form");
  Array.prototype.forEach.call(form.querySelectorAll("input[type=checkbox][data-min-selections], input[type=checkbox][data-max-selections]"), function (first) {
    var boxes = form.querySelectorAll("input[type=checkbox][name='" + first.name + "']");
    var low = Number(first.dataset.minSelections || 0), high = first.dataset.maxSelections ? Number(first.dataset.maxSelections) : Infinity;
    function check() {
      var n = Array.prototype.filter.call(boxes, function (b) { return b.checked; }).length;
      first.setCustomValidity(n < low ? "Tick at least " + low + " of these." : (n > high ? "Tick at most " + high + " of these." : ""));
    }
    Array.prototype.forEach.call(boxes, function (b) { b.addEventListener("change", check); });
    check();
  });
})();
/* A required slider: a browser never finds one blank (it always has a value), so one still where the
   page put it was not answered; the server reads it so too (qc/form_constraints.py, not_moved). */
(function () {
  "use strict";
  var form = document.getElementById("hit-form");
  Array.prototype.forEach.call(form.querySelectorAll("input[type=range][required]"), function (slider) {
    var start = slider.value;
    function check() { slider.setCustomValidity(slider.value === start ? "Move the slider to your answer." : ""); }
    slider.addEventListener("input", check);
    slider.addEventListener("change", check);
    check();
  });
})();
/* A field required only while another has one of some values (data-required-when="match=no", "support=1|2"); on a
   page of several items, the other field of its own item (match_2 beside why_2), as the server reads it (form_spec.py). */
(function () {
  "use strict";
  var form = document.getElementById("hit-form");
  Array.prototype.forEach.call(form.querySelectorAll("[data-required-when]"), function (box) {
    var rule = box.dataset.requiredWhen, at = rule.indexOf("="), name = rule.slice(0, at).trim();
    var values = rule.slice(at + 1).split("|").map(function (v) { return v.trim(); });
    var item = /_\d+$/.exec(box.name);
    if (!form.elements[name] && item && form.elements[name + item[0]]) { name += item[0]; }
    function check() { var other = form.elements[name]; box.required = !!other && values.indexOf(other.value) >= 0; }
    form.addEventListener("change", check);
    check();
  });
})();
