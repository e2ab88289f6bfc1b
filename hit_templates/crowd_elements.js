/* hitflow's stand-in for MTurk's crowd HTML elements (no outside script is loaded): each element
   gets plain controls a person can use, the browser's constraint validation guards the submit, and
   the page posts what MTurk's <crowd-form> posts: one field, taskAnswers, a JSON array holding one
   object with every named element's answer in its documented shape (flows/core/crowd_elements.py
   lists them), beside assignmentId (and the task server's sig). Shapes from the element reference,
   docs.aws.amazon.com/sagemaker/latest/dg/sms-ui-template-reference.html: crowd-keypoint takes its
   labels from labels= and answers {inputImageProperties, keypoints: [{label, x, y}]}
   (sms-ui-template-crowd-keypoint.html); crowd-slider's page documents no output (a number here). */
(function () {
  "use strict";
  var crowdForm = document.getElementById("crowd-form");
  var each = function (selector, fn) { Array.prototype.forEach.call(crowdForm.querySelectorAll(selector), fn); };
  var make = function (tag, attrs, parent) {
    var el = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { if (attrs[k] !== null && attrs[k] !== undefined) { el.setAttribute(k, attrs[k]); } });
    if (parent) { parent.appendChild(el); }
    return el;
  };
  var list = function (text) {  /* "['Cat', 'Dog']" as the reference writes it, or JSON; JSON in a JSON string
    (an item column holding JSON, passed through to_json) read once more; anything else: no options */
    var value;
    try { value = JSON.parse(text || "[]"); } catch (e) {
      try { value = JSON.parse((text || "[]").replace(/'/g, "\"")); } catch (e2) { return []; }
    }
    if (typeof value === "string" && /^\s*\[/.test(value)) { return list(value); }
    return Array.isArray(value) ? value : [];
  };
  var attr = function (el, name) { return el.hasAttribute(name) ? el.getAttribute(name) : null; };
  var flag = function (el, name) { return el.hasAttribute(name) ? "" : null; };
  var header = function (el) { if (el.getAttribute("header")) { make("p", {class: "crowd-header"}, el).textContent = el.getAttribute("header"); } };
  var getters = {};  /* element name -> function giving its answer */
  /* the most marks each annotation field takes, from the page's copy of the submit-rule spec that QC applies
     again (max_marks, qc/form_constraints.py): past it an answer costs QC too much to compare */
  var caps = {}, capped = [], rules = document.getElementById("submit-rules");
  ((rules && JSON.parse(rules.textContent || "{}").fields) || []).forEach(function (f) { if (f.max_marks) { caps[f.name] = f.max_marks; } });
  var room = function (el, count) {  /* fits(true): whether one more mark fits, saying so on the page when not */
    var cap = caps[el.getAttribute("name")];
    if (!cap) { return function () { return true; }; }  /* a spec without one (the page read for its fields) */
    var most = "at most " + cap.toLocaleString("en-US") + " marks", said = make("p", {class: "crowd-marks-full", role: "status"}, el);
    capped.push(function () { return count() > cap ? (el.getAttribute("header") || el.getAttribute("name")) + ": " + most + ", not " + count() + "; remove some to submit." : ""; });
    return function (adding) {
      var fits = !adding || count() < cap;
      said.textContent = fits ? "" : "This page takes " + most + " here; remove one to add another.";
      return fits;
    };
  };
  /* MTurk's elements answer a page's script as their control would (a radio button's .checked, a slider's .value) */
  var mirror = function (el, prop, control) {
    Object.defineProperty(el, prop, {configurable: true, get: function () { return control[prop]; },
      set: function (v) { control[prop] = v; }});
  };
  /* as mirror(), and MTurk's elements reflect checked as their attribute: a page's script may look for
     crowd-checkbox[checked] or crowd-radio-button[checked]; a radio's change unchecks the others of its group */
  var reflectChecked = function (pairs) {
    var reflect = function () {
      pairs.forEach(function (p) { if (p[1].checked) { p[0].setAttribute("checked", ""); } else { p[0].removeAttribute("checked"); } });
    };
    var native = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "checked");
    pairs.forEach(function (p) {
      p[1].addEventListener("change", reflect);
      p[1].addEventListener("click", reflect);
      /* a script (or a test harness) setting the control itself, with no event, is reflected too */
      Object.defineProperty(p[1], "checked", {configurable: true, get: function () { return native.get.call(p[1]); },
        set: function (v) { native.set.call(p[1], v); reflect(); }});
      Object.defineProperty(p[0], "checked", {configurable: true, get: function () { return p[1].checked; },
        set: function (v) { p[1].checked = !!v; }});
    });
  };
  var synced = [];  /* each crowd-input's catch-up with a value its page's script set as an attribute */

  each("crowd-input, crowd-text-area", function (el) {
    var area = el.tagName.toLowerCase() === "crowd-text-area";
    if (el.getAttribute("label")) { make("label", {}, el).textContent = el.getAttribute("label"); }
    var box = make(area ? "textarea" : "input", {type: area ? null : (el.getAttribute("type") || "text"),
      required: flag(el, "required"), maxlength: attr(el, "max-length"), minlength: attr(el, "min-length"),
      placeholder: attr(el, "placeholder"), rows: attr(el, "rows"), disabled: flag(el, "disabled")}, el);
    box.value = el.getAttribute("value") || "";
    /* MTurk's element reads its value when the form is submitted: a page's script may set it as a
       property or an attribute (a hidden required field filled from a widget) after the page loaded */
    var seen = el.getAttribute("value");
    Object.defineProperty(el, "value", {configurable: true, get: function () { return box.value; },
      set: function (v) { box.value = v === null || v === undefined ? "" : String(v); }});
    synced.push(function () {
      var now = el.getAttribute("value");
      if (now !== seen) { seen = now; box.value = now || ""; }
    });
    getters[el.getAttribute("name")] = function () { return box.value; };
  });
  var checkboxes = {};
  each("crowd-checkbox", function (el) {
    var name = el.getAttribute("name"), value = el.getAttribute("value") || "on";
    var box = make("input", {type: "checkbox", value: value, required: flag(el, "required"), checked: flag(el, "checked")});
    el.insertBefore(box, el.firstChild);
    reflectChecked([[el, box]]);
    (checkboxes[name] = checkboxes[name] || {})[value] = box;
    getters[name] = function () { var out = {}; Object.keys(checkboxes[name]).forEach(function (v) { out[v] = checkboxes[name][v].checked; }); return out; };
  });
  each("crowd-radio-group", function (group, g) {
    var buttons = {}, name = "", own = {}, pairs = [];
    Array.prototype.forEach.call(group.querySelectorAll("crowd-radio-button"), function (el) {
      name = name || el.getAttribute("name");
      var value = el.getAttribute("value") || el.getAttribute("name");
      buttons[value] = make("input", {type: "radio", name: "crowd-radio-" + g, value: value, "data-crowd-own": "",
        required: group.hasAttribute("required") || el.hasAttribute("required") ? "" : null, checked: flag(el, "checked")});
      el.insertBefore(buttons[value], el.firstChild);
      pairs.push([el, buttons[value]]);
      own[el.getAttribute("name") || ""] = [value, buttons[value]];
    });
    reflectChecked(pairs);
    var names = Object.keys(own), perButton = names.length > 1 && names.indexOf("") < 0 &&
      names.length === group.querySelectorAll("crowd-radio-button").length;
    if (perButton) {  /* each button its own name, as the reference's example: {"btn1": {"yes": true}, ...} */
      names.forEach(function (n) { getters[n] = function () { var o = {}; o[own[n][0]] = own[n][1].checked; return o; }; });
      return;
    }
    getters[name] = function () { var out = {}; Object.keys(buttons).forEach(function (v) { out[v] = buttons[v].checked; }); return out; };
  });
  each("crowd-classifier, crowd-image-classifier, crowd-classifier-multi-select, crowd-image-classifier-multi-select", function (el, n) {
    var multi = /multi-select$/.test(el.tagName.toLowerCase()), boxes = [];
    header(el);
    if (el.getAttribute("src")) { make("img", {src: el.getAttribute("src"), alt: el.getAttribute("header") || ""}, el); }
    list(el.getAttribute("categories")).forEach(function (c) {
      var label = make("label", {}, el), text = typeof c === "string" ? c : c.label;
      boxes.push(make("input", {type: multi ? "checkbox" : "radio", name: "crowd-class-" + n, value: text,
        required: multi ? null : "", "data-crowd-own": ""}, label));
      label.appendChild(document.createTextNode(" " + text + " "));
    });
    var picked = function () { return boxes.filter(function (b) { return b.checked; }).map(function (b) { return b.value; }); };
    getters[el.getAttribute("name")] = multi ? function () { return {labels: picked()}; } : function () { return {label: picked()[0] || ""}; };
  });
  each("crowd-slider", function (el) {
    var range = make("input", {type: "range", min: attr(el, "min"), max: attr(el, "max"), step: attr(el, "step"),
      disabled: flag(el, "disabled")}, el), shown = make("output", {}, el);
    if (el.getAttribute("value")) { range.value = el.getAttribute("value"); }
    shown.textContent = range.value;
    mirror(el, "value", range);
    range.addEventListener("input", function () { shown.textContent = range.value; });
    /* required: the worker must move it (a slider left where the page put it was not answered; QC reads it so) */
    var start = range.value, moved = function () {
      range.setCustomValidity(el.hasAttribute("required") && range.value === start ? "Move the slider to your answer." : "");
    };
    range.addEventListener("input", moved);
    moved();
    getters[el.getAttribute("name")] = function () { return Number(range.value); };
  });
  each("crowd-bounding-box, crowd-keypoint", function (el) {
    var points = el.tagName.toLowerCase() === "crowd-keypoint", marks = [], start = null;
    header(el);
    var pick = make("select", {}, el);
    list(el.getAttribute("labels")).forEach(function (l) { make("option", {value: l}, pick).textContent = l; });
    var frame = make("div", {class: "crowd-marks"}, el), img = make("img", {src: el.getAttribute("src"), alt: el.getAttribute("header") || "", draggable: "false"}, frame);
    var undo = make("button", {type: "button", "data-crowd-own": ""}, el);
    undo.textContent = "Remove the last mark";
    var fits = room(el, function () { return marks.length; });  /* its message under the button */
    var scale = function () { return (img.naturalWidth || img.clientWidth || 1) / (img.clientWidth || 1); };
    var at = function (ev) { var r = img.getBoundingClientRect(); return [Math.max(0, ev.clientX - r.left), Math.max(0, ev.clientY - r.top)]; };
    var draw = function (m) {
      var s = scale(), d = make("div", {class: "crowd-mark"}, frame);
      d.style.left = (points ? m.x : m.left) / s + "px"; d.style.top = (points ? m.y : m.top) / s + "px";
      d.style.width = (points ? 4 : m.width / s) + "px"; d.style.height = (points ? 4 : m.height / s) + "px";
      m.el = d;
    };
    frame.addEventListener("mousedown", function (ev) { ev.preventDefault(); start = at(ev); });
    frame.addEventListener("mouseup", function (ev) {
      if (!start) { return; }
      var end = at(ev), s = scale(), m;
      m = points ? {label: pick.value, x: end[0] * s, y: end[1] * s} :
        {label: pick.value, left: Math.round(Math.min(start[0], end[0]) * s), top: Math.round(Math.min(start[1], end[1]) * s),
          width: Math.round(Math.abs(end[0] - start[0]) * s), height: Math.round(Math.abs(end[1] - start[1]) * s)};
      start = null;
      if ((points || (m.width > 2 && m.height > 2)) && fits(true)) { marks.push(m); draw(m); }
    });
    undo.addEventListener("click", function () { var m = marks.pop(); if (m) { frame.removeChild(m.el); } fits(false); });
    getters[el.getAttribute("name")] = function () {
      var size = {width: img.naturalWidth, height: img.naturalHeight}, out = {inputImageProperties: size};
      out[points ? "keypoints" : "boundingBoxes"] = marks.map(function (m) { var c = {}; Object.keys(m).forEach(function (k) { if (k !== "el") { c[k] = m[k]; } }); return c; });
      return out;
    };
  });

  each("crowd-entity-annotation", function (el) {
    /* select text, pick a label, press "Label the selection"; offsets count characters of text= (code
       points, as the reference's "unicode offset"), the end one past the span (its Output section) */
    header(el);
    var text = el.getAttribute("text") || "", marks = [], labels = list(el.getAttribute("labels"));
    var pick = make("select", {}, el);
    labels.forEach(function (l) {
      var o = make("option", {value: typeof l === "string" ? l : l.label}, pick);
      o.textContent = typeof l === "string" ? l : (l.fullDisplayName || l.label);
    });
    var shown = make("p", {class: "crowd-entity-text"}, el), add = make("button", {type: "button", "data-crowd-own": ""}, el);
    add.textContent = "Label the selection";
    var fits = room(el, function () { return marks.length; });  /* its message under the button */
    var listed = make("ul", {class: "crowd-entities"}, el);
    var chars = function (n) { return Array.from(text.slice(0, n)).length; };  /* UTF-16 index -> characters */
    var units = function (n) { return Array.from(text).slice(0, n).join("").length; };
    var render = function () {
      shown.textContent = ""; listed.textContent = "";
      var at = 0;
      marks.slice().sort(function (a, b) { return a.startOffset - b.startOffset; }).forEach(function (m) {
        var a = units(m.startOffset), b = units(m.endOffset);
        shown.appendChild(document.createTextNode(text.slice(at, a)));
        make("mark", {title: m.label}, shown).textContent = text.slice(a, b);
        at = b;
        var li = make("li", {}, listed), undo = make("button", {type: "button", "data-crowd-own": ""}, li);
        li.insertBefore(document.createTextNode(m.label + ": " + text.slice(a, b) + " "), undo);
        undo.textContent = "Remove";
        undo.addEventListener("click", function () { marks.splice(marks.indexOf(m), 1); fits(false); render(); });
      });
      shown.appendChild(document.createTextNode(text.slice(at)));
    };
    add.addEventListener("click", function () {
      var sel = window.getSelection();
      if (!sel.rangeCount || !shown.contains(sel.anchorNode) || !shown.contains(sel.focusNode)) { return; }
      var r = sel.getRangeAt(0), before = document.createRange();
      before.selectNodeContents(shown);
      before.setEnd(r.startContainer, r.startOffset);
      var a = before.toString().length, b = a + r.toString().length;
      while (a < b && /\s/.test(text[a])) { a++; }
      while (b > a && /\s/.test(text[b - 1])) { b--; }
      var m = {label: pick.value, startOffset: chars(a), endOffset: chars(b)};
      var overlaps = marks.some(function (o) { return o.startOffset < m.endOffset && m.startOffset < o.endOffset; });
      if (b > a && !overlaps && fits(true)) { marks.push(m); }
      sel.removeAllRanges();
      render();
    });
    try { list(el.getAttribute("initial-value")).forEach(function (m) { marks.push({label: m.label, startOffset: m.startOffset, endOffset: m.endOffset}); }); } catch (e) { marks = []; }
    render();
    getters[el.getAttribute("name")] = function () {
      return {entities: marks.map(function (m) { return {label: m.label, startOffset: m.startOffset, endOffset: m.endOffset}; })};
    };
  });

  var post = make("form", {method: "post", action: crowdForm.getAttribute("action") || "/mturk/externalSubmit", hidden: ""}, document.body);
  var preview = window.hitflowOpenPage(post);
  var error = document.getElementById("form-error");
  document.getElementById("submit-btn").addEventListener("click", function () {
    if (preview) { error.textContent = "Accept the HIT before submitting."; return; }
    synced.forEach(function (sync) { sync(); });
    var invalid = Array.prototype.filter.call(crowdForm.querySelectorAll("input, textarea, select"), function (c) { return !c.checkValidity(); });
    if (invalid.length) {
      error.textContent = "Some answers are missing or not in the requested form; see the highlighted fields.";
      invalid[0].reportValidity();
      return;
    }
    var over = capped.map(function (c) { return c(); }).filter(Boolean);  /* more marks than QC takes (initial-value) */
    if (over.length) { error.textContent = over.join(" "); return; }
    /* the page's own checks, as MTurk's crowd-form runs them: crowd-form.onsubmit or a "submit" listener
       calling preventDefault() (or onsubmit returning false) keeps the page open */
    if (!crowdForm.dispatchEvent(new Event("submit", {cancelable: true}))) { return; }
    document.getElementById("page_end_ms").value = String(Date.now());
    var answers = {}, top = {assignmentId: true, sig: true};
    each("input[name]:not([data-crowd-own]), textarea[name], select[name]", function (c) {  /* the page's plain controls */
      if (top[c.name]) { make("input", {type: "hidden", name: c.name, value: c.value}, post); return; }
      if (c.type === "radio" || c.type === "checkbox") { (answers[c.name] = answers[c.name] || {})[c.value] = c.checked; return; }
      answers[c.name] = c.value;
    });
    Object.keys(getters).forEach(function (name) { if (name) { answers[name] = getters[name](); } });
    make("input", {type: "hidden", name: "taskAnswers", value: JSON.stringify([answers])}, post);
    post.submit();
  });
  /* MTurk's elements say they are ready on document; pages attach their checks then */
  var ready = function () { document.dispatchEvent(new Event("all-crowd-elements-ready")); };
  if (document.readyState === "complete") { setTimeout(ready, 0); } else { window.addEventListener("load", ready); }
})();
