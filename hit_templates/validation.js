/* hitflow submit rules, browser side. The Python twin is qc/submit_rules.py (the one server-side
   implementation: the server's QC and the simulator both call it); tests/test_submit_parity.py runs
   this file under node against it over generated strings and needs every verdict to match.
   Both sides share these definitions, because JavaScript and Python disagree on each by default:
   - SPACE below is written out, never \s, trim() or split(): JS \s holds U+FEFF (a byte-order
     mark), Python's isspace holds U+001C..U+001F and U+0085; SPACE is their union plus the
     invisible U+180E, U+200B..U+200D and U+2060, so a caption of only those is blank (required);
   - max_chars counts code points of the trimmed text (Python's len), not UTF-16 units (an emoji
     is one character, not two), a CRLF once (the textarea holds LF, the submitted text CRLF);
   - words are SPACE-separated tokens with an ASCII letter or digit ("a||b", "1_8", "0x12": one);
   - a banned prefix may not be followed by a letter: one code point, not half an emoji. */
(function (global) {
  "use strict";
  // The same characters, in the same order, as SPACE in qc/submit_rules.py.
  var SPACE = "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u180e" +
    "\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u200b\u200c\u200d" +
    "\u2028\u2029\u202f\u205f\u2060\u3000\ufeff";
  var WORD = new RegExp("[A-Za-z0-9][^" + SPACE + "]*", "g");
  var SECOND_SENTENCE = new RegExp("[.!?][" + SPACE + "]+[^" + SPACE + "]");
  var LETTER = /\p{L}/u;

  function trim(text) {
    // two index walks, not a /^[..]+|[..]+$/ regex, which backtracks over a long inner run of spaces
    var start = 0, end = text.length;
    while (start < end && SPACE.indexOf(text.charAt(start)) >= 0) { start++; }
    while (end > start && SPACE.indexOf(text.charAt(end - 1)) >= 0) { end--; }
    return text.slice(start, end);
  }

  function countWords(text) { return (text.match(WORD) || []).length; }

  function charCount(text) { return Array.from(trim(text).replace(/\r\n/g, "\n")).length; }

  function straighten(s) { return s.replace(/[\u2018\u2019]/g, "'"); }

  function bannedPrefixOf(text, prefixes) {
    var norm = straighten(trim(text)).toLowerCase();
    for (var i = 0; i < prefixes.length; i++) {
      var p = straighten(prefixes[i]).toLowerCase();
      if (norm.indexOf(p) === 0) {
        var next = norm.codePointAt(p.length);
        if (next === undefined || !LETTER.test(String.fromCodePoint(next))) { return prefixes[i]; }
      }
    }
    return null;
  }

  function violations(text, spec) {
    var caption = typeof text === "string" ? text : "";
    var found = [];
    if (spec.required && !trim(caption)) { found.push(["required", 0, 1]); }
    var words = countWords(caption);
    if (words < spec.min_words) { found.push(["min_words", words, spec.min_words]); }
    if (spec.one_sentence && SECOND_SENTENCE.test(caption)) {
      found.push(["one_sentence", "2+ sentences", "1 sentence"]);
    }
    var prefix = bannedPrefixOf(caption, spec.banned_prefixes || []);
    if (prefix !== null) { found.push(["banned_prefix", prefix, "not allowed"]); }
    if (spec.max_chars) {
      var chars = charCount(caption);
      if (chars > spec.max_chars) { found.push(["max_chars", chars, spec.max_chars]); }
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
