/* hitflow evaluation pages, browser side. The Python twin is qc/judgement_spec.py (the server
   checks every response against the same spec); the parity test runs both over one table. */
(function (global) {
  "use strict";
  // One reading of a raw answer, as qc/answer_values.py's (not Number(), which reads "0x12" as 18
  // and "" as 0, nor Python's float, which reads "1_8" as 18): a number is HTML's "valid
  // floating-point number", what a number or range input submits; ticks are "|"-joined and an
  // empty tick ("a||b") counts, so it is not an option unless the page has an empty value.
  var NUMBER = /^-?(?:[0-9]+(?:\.[0-9]+)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/;
  function ticksOf(value) { return value === "" ? [] : value.split("|"); }
  function numberOf(value) {
    var n = NUMBER.test(value) ? Number(value) : NaN;
    return isFinite(n) ? n : NaN;
  }

  function broken(q, values) {
    var value = values[q.name] || "";
    if (q.type === "one") { return value === "" ? "unanswered" : (q.options.indexOf(value) >= 0 ? "" : "not_an_option"); }
    if (q.type === "many") {
      var ticks = ticksOf(value);
      if (ticks.some(function (t) { return q.options.indexOf(t) < 0; })) { return "not_an_option"; }
      if (q.exclusive && ticks.indexOf(q.exclusive) >= 0 && ticks.length > 1) { return "none_with_others"; }
      if (q.needs && (values[q.needs.name] || "") === q.needs.value && ticks.length < q.needs.min) { return "categories_missing"; }
      if (q.forbids && (values[q.forbids.name] || "") === q.forbids.value && ticks.length) { return "categories_with_congruent"; }
      return ticks.length < (q.min || 0) ? "unanswered" : "";
    }
    if (q.type === "slider" || q.type === "number") {
      if (value === "") { return "unanswered"; }
      var n = numberOf(String(value));
      if (isNaN(n) || n < q.min || n > q.max || (q.type === "number" && n !== Math.floor(n))) { return "out_of_range"; }
      if (q.type === "slider" && values[q.moved] !== "1") { return "slider_not_moved"; }
      return "";
    }
    return "unanswered";
  }

  var MESSAGES = {
    unanswered: "Please answer this question.",
    not_an_option: "This answer is not one of the choices.",
    none_with_others: "\u201cNo caption is correct\u201d cannot be ticked together with a sentence.",
    categories_missing: "An incongruent description needs at least one error category.",
    categories_with_congruent: "A congruent description has no error categories; untick them or choose incongruent.",
    slider_not_moved: "Please move the slider to give your rating.",
    out_of_range: "This number is outside the allowed range."
  };

  function formValues(form) {
    var values = {};
    Array.prototype.forEach.call(form.elements, function (el) {
      if (!el.name) { return; }
      if (el.type === "checkbox") {
        var list = values[el.name] ? values[el.name].split("|") : [];
        if (el.checked) { list.push(el.value); }
        values[el.name] = list.join("|");
      } else if (el.type === "radio") {
        if (!(el.name in values)) { values[el.name] = ""; }
        if (el.checked) { values[el.name] = el.value; }
      } else { values[el.name] = el.value; }
    });
    return values;
  }

  function shuffleTrials(form) {
    // Stimuli in a fresh random order per participant; each trial records where it was shown.
    var box = form.querySelector("[data-shuffle]");
    if (!box) { return; }
    var trials = Array.prototype.slice.call(box.children);
    for (var i = trials.length - 1; i > 0; i--) {
      var j = Math.floor(Math.random() * (i + 1));
      var t = trials[i]; trials[i] = trials[j]; trials[j] = t;
    }
    trials.forEach(function (trial, pos) {
      box.appendChild(trial);
      var field = document.getElementById("position_" + trial.dataset.index);
      if (field) { field.value = String(pos); }
    });
  }

  function start() {
    var spec = JSON.parse(document.getElementById("submit-rules").textContent);
    var form = document.getElementById("hit-form");
    var preview = window.hitflowOpenPage(form);
    shuffleTrials(form);
    Array.prototype.forEach.call(form.querySelectorAll("input[type=range]"), function (r) {
      r.addEventListener("input", function () {
        document.getElementById("moved_" + r.name).value = "1";
        document.getElementById("shown_" + r.name).textContent = r.value;
      });
    });
    Array.prototype.forEach.call(form.querySelectorAll("input[data-exclusive]"), function (none) {
      none.addEventListener("change", function () {
        Array.prototype.forEach.call(form.querySelectorAll("input[name='" + none.name + "']"), function (other) {
          if (other !== none) { other.disabled = none.checked; if (none.checked) { other.checked = false; } }
        });
      });
    });
    form.addEventListener("submit", function (ev) {
      if (preview) { ev.preventDefault(); document.getElementById("form-error").textContent = "Accept the HIT before submitting."; return; }
      var values = formValues(form), first = null;
      spec.questions.forEach(function (q) {
        var rule = broken(q, values), box = document.getElementById("error_" + q.name);
        if (box) { box.textContent = rule ? MESSAGES[rule] : ""; }
        if (rule && !first) { first = box; }
      });
      if (first) {
        ev.preventDefault();
        document.getElementById("form-error").textContent = "Some answers are missing or inconsistent; see the messages in red.";
        first.scrollIntoView();
        return;
      }
      document.getElementById("page_end_ms").value = String(Date.now());
    });
  }

  global.hitflowJudgement = { broken: broken, formValues: formValues, start: start };
})(window);
