/* hitflow submit rules, browser side. The Python twin is qc/submit_rules.py; the parity
   test runs both over one table of strings and needs every verdict to match. */
(function (global) {
  "use strict";
  var HAS_ALNUM = /[A-Za-z0-9]/;
  var SECOND_SENTENCE = /[.!?]\s+\S/;

  function countWords(text) {
    var trimmed = text.trim();
    if (!trimmed) { return 0; }
    return trimmed.split(/\s+/).filter(function (t) { return HAS_ALNUM.test(t); }).length;
  }

  function straighten(s) { return s.replace(/[\u2018\u2019]/g, "'"); }

  function bannedPrefixOf(text, prefixes) {
    var norm = straighten(text.trim()).toLowerCase();
    for (var i = 0; i < prefixes.length; i++) {
      var p = straighten(prefixes[i]).toLowerCase();
      if (norm.indexOf(p) === 0) {
        var next = norm.charAt(p.length);
        if (next === "" || !/\p{L}/u.test(next)) { return prefixes[i]; }
      }
    }
    return null;
  }

  function violations(text, spec) {
    var caption = typeof text === "string" ? text : "";
    var found = [];
    if (spec.required && !caption.trim()) { found.push(["required", 0, 1]); }
    var words = countWords(caption);
    if (words < spec.min_words) { found.push(["min_words", words, spec.min_words]); }
    if (spec.one_sentence && SECOND_SENTENCE.test(caption.trim())) {
      found.push(["one_sentence", "2+ sentences", "1 sentence"]);
    }
    var prefix = bannedPrefixOf(caption, spec.banned_prefixes || []);
    if (prefix !== null) { found.push(["banned_prefix", prefix, "not allowed"]); }
    if (spec.max_chars && caption.trim().length > spec.max_chars) {
      found.push(["max_chars", caption.trim().length, spec.max_chars]);
    }
    return found;
  }

  var MESSAGES = {
    required: function () { return "Please write a description."; },
    min_words: function (v) { return "Use at least " + v[2] + " words (you have " + v[1] + ")."; },
    one_sentence: function () { return "Write one sentence only."; },
    banned_prefix: function (v) { return "Do not start with \u201c" + v[1] + "\u201d."; },
    max_chars: function (v) { return "Keep it under " + v[2] + " characters (you have " + v[1] + ")."; }
  };

  function explain(found) {
    return found.map(function (v) { return MESSAGES[v[0]](v); }).join(" ");
  }

  global.hitflowRules = { violations: violations, countWords: countWords, explain: explain };
})(window);
