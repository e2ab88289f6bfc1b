/* hitflow's text telemetry, format v1 (docs/telemetry.md): HOW text arrived in each free-text field
   of the form holding input[name=hitflow_telemetry] - counts, lengths and times only. It never keeps
   the text of a paste or a copy and never which key was pressed: copied text is hashed in memory,
   and only to tell a paste of text copied on this page ("p") from one from elsewhere ("x"). The
   record survives a reload (sessionStorage, per page and assignment) and is written to the hidden
   field after a pause in the work and just before submit; a keystroke only bumps counters. */
(function () {
  "use strict";
  var out = document.querySelector("input[name=hitflow_telemetry]");
  var box = out && (out.form || out.closest("crowd-form"));
  if (!box) { return; }
  var CAP = {vis: 40, focus: 40, paste: 20}, ACTIVE_GAP_MS = 2000, WRITE_AFTER_MS = 400;
  var params = new URLSearchParams(window.location.search), idField = document.getElementById("assignmentId");
  var key = "hitflow_telemetry:" + window.location.pathname + ":" +
    (params.get("assignmentId") || (idField && idField.value) || "");
  var store = null;
  try { store = window.sessionStorage; } catch (e) { store = null; }  /* storage off: one load's record */
  var read = function (k) { try { return store && store.getItem(k); } catch (e) { return null; } };
  var t0 = Number(read(key + ":t0")) || Date.now();
  var rec = null;
  try { rec = JSON.parse(read(key) || "null"); } catch (e) { rec = null; }
  if (!rec || rec.v !== 1 || typeof rec.f !== "object" || !rec.f) { rec = {v: 1, loads: 0, vis: [], f: {}}; }
  rec.loads = (Number(rec.loads) || 0) + 1;
  var copied = {}, lastKey = {}, before = {}, pasting = {}, timer = null;
  var now = function () { return Date.now() - t0; };
  var push = function (list, item, cap) { if (list.length < cap) { list.push(item); } };

  var TEXT_TYPES = {text: 1, search: 1, "": 1}, names = new WeakMap();
  function lookUp(el) {
    var tag = el.tagName.toLowerCase();
    if (tag !== "textarea" && !(tag === "input" && TEXT_TYPES[(el.getAttribute("type") || "").toLowerCase()])) { return ""; }
    if (!box.contains(el)) { return ""; }
    var crowd = el.closest("crowd-input, crowd-text-area");  /* crowd_elements.js draws an unnamed box */
    return el.name || (crowd && crowd.getAttribute("name")) || "";
  }
  function nameOf(el) {  /* the form name of a free-text field in this form, else "" (looked up once per element) */
    if (!el || !el.tagName || el.readOnly || el.disabled) { return ""; }
    var name = names.get(el);
    if (name === undefined) { name = lookUp(el); names.set(el, name); }
    return name;
  }
  function field(name) {
    return rec.f[name] || (rec.f[name] = {typed: 0, del: 0, keys: 0, first_ms: null, active_ms: 0, paste: [],
      paste_n: 0, paste_x: 0, paste_p: 0, drop: 0, copy: 0, cut: 0, focus: [], len: 0});
  }
  function digest(text) {  /* FNV-1a over the text with its spaces collapsed; the text itself is dropped */
    var s = String(text || "").replace(/\s+/g, " ").trim(), h = 0x811c9dc5;
    for (var i = 0; i < s.length; i++) { h ^= s.charCodeAt(i); h = Math.imul(h, 0x01000193) >>> 0; }
    return s.length + ":" + h;
  }
  function write() {
    clearTimeout(timer);
    timer = null;
    Array.prototype.forEach.call(box.querySelectorAll("textarea, input"), function (el) {
      var name = nameOf(el);
      if (name) { field(name).len = el.value.length; }
    });
    var text = JSON.stringify(rec);
    out.value = text;
    try { if (store) { store.setItem(key, text); store.setItem(key + ":t0", String(t0)); } } catch (e) { /* full */ }
  }
  function later() { if (timer === null) { timer = setTimeout(write, WRITE_AFTER_MS); } }

  document.addEventListener("keydown", function (ev) {
    var name = nameOf(ev.target);
    if (!name) { return; }
    var f = field(name), t = now(), last = lastKey[name];
    f.keys += 1;  /* how many, never which */
    pasting[name] = false;  /* a paste the page itself cancelled leaves no input event to claim it */
    if (f.first_ms === null) { f.first_ms = t; }
    if (last !== undefined && t - last < ACTIVE_GAP_MS) { f.active_ms += t - last; }
    lastKey[name] = t;
    later();
  }, true);
  document.addEventListener("beforeinput", function (ev) {
    var el = ev.target, name = nameOf(el);
    if (!name) { return; }
    var sel = 0;
    try { sel = Math.max(0, (el.selectionEnd || 0) - (el.selectionStart || 0)); } catch (e) { sel = 0; }
    before[name] = {len: el.value.length, sel: sel};
  }, true);
  document.addEventListener("input", function (ev) {
    var el = ev.target, name = nameOf(el);
    if (!name) { return; }
    var f = field(name), kind = ev.inputType || "", b = before[name] || {len: f.len, sel: 0}, len = el.value.length;
    before[name] = null;
    if (/^delete/.test(kind)) { f.del += Math.max(0, b.len - len); later(); return; }
    var removed = kind === "insertCompositionText" ? 0 : b.sel, added = Math.max(0, len - b.len + removed);
    f.del += removed;
    if (/^insertFromPaste/.test(kind) || pasting[name]) {
      pasting[name] = false;  /* counted by the paste event, with its origin */
    } else if (/^(insertText|insertLineBreak|insertParagraph|insertCompositionText|insertTranspose)$/.test(kind)) {
      f.typed += added;
    } else {
      f.drop += added;  /* drag and drop, autocorrect, undo, a script setting text with an input event */
    }
    f.len = len;
    later();
  }, true);
  document.addEventListener("paste", function (ev) {
    var name = nameOf(ev.target);
    if (!name) { return; }
    var text = ev.clipboardData ? ev.clipboardData.getData("text/plain") : "";
    var f = field(name), n = text.length, origin = copied[digest(text)] === "p" ? "p" : "x";
    text = null;
    f.paste_n += 1;
    f[origin === "p" ? "paste_p" : "paste_x"] += n;
    push(f.paste, [now(), n, origin], CAP.paste);
    pasting[name] = true;
    later();
  }, true);
  /* Text copied out of a field that took text from outside (a paste "x", a drop) is still from outside
     when it is pasted: otherwise one field could pass outside text on to every other field as "p". */
  function fromOutside(name) { var f = rec.f[name]; return !!f && (f.paste_x > 0 || f.drop > 0); }
  function copying(ev) {  /* anywhere on the page: remember a hash of what was copied, never the text */
    var el = ev.target, name = nameOf(el), text = "";
    try { text = name ? el.value.slice(el.selectionStart, el.selectionEnd) : String(window.getSelection()); } catch (e) { text = ""; }
    if (text) { copied[digest(text)] = name && fromOutside(name) ? "x" : "p"; }
    text = null;
    if (name) { field(name)[ev.type] += 1; later(); }
  }
  document.addEventListener("copy", copying, true);
  document.addEventListener("cut", copying, true);
  document.addEventListener("focusin", function (ev) {
    var name = nameOf(ev.target);
    if (name) { push(field(name).focus, [now(), "f"], CAP.focus); later(); }
  }, true);
  document.addEventListener("focusout", function (ev) {
    var name = nameOf(ev.target);
    if (name) { push(field(name).focus, [now(), "b"], CAP.focus); later(); }
  }, true);
  var leaving = false;  /* a reload or a link hides the page as it goes: that "h" is not a tab switch */
  document.addEventListener("visibilitychange", function () {
    if (!leaving) { push(rec.vis, [now(), document.hidden ? "h" : "v"], CAP.vis); }
    if (document.hidden) { write(); } else { later(); }
  });
  window.addEventListener("pagehide", function () {  /* fired before the page is hidden (HTML's unload steps) */
    var last = rec.vis[rec.vis.length - 1];
    if (last && last[1] === "h" && now() - last[0] < 1000) { rec.vis.pop(); }  /* a browser hiding it first */
    leaving = true;
    write();
  });
  window.addEventListener("pageshow", function () { leaving = false; });  /* back from the back-forward cache */
  document.addEventListener("submit", write, true);  /* before the page's own submit handler */
  document.addEventListener("click", function (ev) {  /* a crowd-form submits from its button's click */
    if (ev.target && ev.target.closest && ev.target.closest("button, input[type=submit]")) { write(); }
  }, true);
  window.hitflowTelemetry = {write: write};  /* for the keystroke bench (bench/telemetry_handler.py) */
  write();
})();
