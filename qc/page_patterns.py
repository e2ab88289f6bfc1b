"""A page's ``pattern`` attribute read as a browser reads it (JavaScript, ``v`` flag, anchored), written in the
syntax RE2 and ``re`` read alike and matched by RE2 in time linear in the answer (``re`` backtracks). What cannot
be written so is refused (:class:`PatternRefused`; docs/security.md)."""

from __future__ import annotations

from functools import lru_cache

import re2  # type: ignore[import-untyped]

from qc.pattern_sets import DIGIT, LINE_ENDS, SPACE, SURROGATES, TOP, WORD, CharSet, class_text, code_point, complement

SYNTAX = frozenset("^$\\.*+?()[]{}|")
CLASS_SYNTAX = frozenset("()[]{}/-\\|")
CLASS_PUNCTUATORS = frozenset("&-!#%,:;<=>@`~")  # may be escaped inside a v-mode class
CLASS_DOUBLES = frozenset(c * 2 for c in "&!#$%*+,.:;<=>?@^`~")  # reserved pairs inside a v-mode class
CONTROLS = {"f": 12, "n": 10, "r": 13, "t": 9, "v": 11}
CATEGORIES = frozenset(("L", "Lu", "Ll", "Lt", "Lm", "Lo", "M", "Mn", "Mc", "Me", "N", "Nd", "Nl", "No", "P",
                        "Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po", "S", "Sm", "Sc", "Sk", "So", "Z", "Zs", "Zl", "Zp",
                        "C", "Cc", "Cf", "Co", "Cs"))
LONG_CATEGORIES = {"Letter": "L", "Uppercase_Letter": "Lu", "Lowercase_Letter": "Ll", "Mark": "M", "Number": "N",
                   "Decimal_Number": "Nd", "Punctuation": "P", "Symbol": "S", "Separator": "Z",
                   "Space_Separator": "Zs", "Other": "C", "Control": "Cc"}
MAX_REPEAT = 1000  # RE2's largest counted repetition
MAX_CHECKED = 20_000  # longest value matched (a pattern's <input> is one line: past this is tampering, not typing)


class PatternRefused(ValueError):
    """The pattern is not checked: why, in a phrase ("a back-reference (\\1) cannot be matched in bounded time")."""


class _Reader:
    """ECMA-262's Pattern grammar under the ``v`` flag (UnicodeSetsMode), read once, left to right."""

    def __init__(self, text: str):
        self.text, self.at = text, 0

    def peek(self, n: int = 1) -> str:
        return self.text[self.at:self.at + n]

    def take(self, n: int = 1) -> str:
        got = self.peek(n)
        self.at += len(got)
        return got

    def refuse(self, what: str) -> PatternRefused:
        return PatternRefused(f"{what} at character {self.at + 1}")

    def disjunction(self) -> str:
        alternatives = [self.alternative()]
        while self.peek() == "|":
            self.take()
            alternatives.append(self.alternative())
        return "|".join(alternatives)

    def alternative(self) -> str:
        out = []
        while self.peek() not in ("", "|", ")"):
            out.append(self.term())
        return "".join(out)

    def term(self) -> str:
        c = self.peek()
        if c in ("^", "$"):
            self.take()
            return self._no_quantifier(c)
        if self.peek(2) in ("\\b", "\\B"):
            return self._no_quantifier(self.take(2))
        return self.atom() + self.quantifier()

    def _no_quantifier(self, assertion: str) -> str:
        if self.peek() and self.peek() in "*+?{":
            raise self.refuse("a quantifier on an assertion (JavaScript refuses it)")
        return assertion

    def quantifier(self) -> str:
        c = self.peek()
        if c in ("*", "+", "?"):
            self.take()
        elif c == "{":
            c = self._counted()
        else:
            return ""
        if self.peek() == "?":  # lazy: the same whole-value matches
            self.take()
        if self.peek() and self.peek() in "*+?{":
            raise self.refuse("a quantifier with nothing to repeat (JavaScript refuses it)")
        return c

    def _counted(self) -> str:
        close = self.text.find("}", self.at)
        body = self.text[self.at + 1:close] if close > 0 else ""
        low, comma, high = body.partition(",")
        if not low.isdigit() or not (high == "" or high.isdigit()) or not low.isascii() or not high.isascii():
            raise self.refuse("a lone '{' (JavaScript refuses it under the v flag: write \\{)")
        if int(low) > MAX_REPEAT or (high and int(high) > MAX_REPEAT):
            raise self.refuse(f"a repetition count over {MAX_REPEAT:,}")
        if high and int(high) < int(low):
            raise self.refuse("a repetition {n,m} with m below n (JavaScript refuses it)")
        self.at = close + 1
        return "{" + str(int(low)) + comma + (str(int(high)) if high else "") + "}"

    def atom(self) -> str:
        if self.peek() in SYNTAX - set(".([\\"):
            raise self.refuse(f"a lone {self.peek()!r} (JavaScript refuses it under the v flag: write \\{self.peek()})")
        c = self.take()
        if c == ".":
            return class_text(LINE_ENDS, negated=True)
        if c == "(":
            return self.group()
        if c == "[":
            return self.char_class()
        if c == "\\":
            return self.escape()
        return self._literal(ord(c))

    def _literal(self, cp: int) -> str:
        if SURROGATES[0] <= cp <= SURROGATES[1]:
            raise self.refuse("a lone surrogate (half of a UTF-16 pair)")
        return code_point(cp)

    def group(self) -> str:
        if self.peek() == "?":
            kind = self.peek(3)
            if kind[:2] in ("?=", "?!") or kind in ("?<=", "?<!"):
                raise self.refuse("a look-around ((?=, (?!, (?<=, (?<!) cannot be matched in bounded time")
            if kind[:2] == "?<":
                close = self.text.find(">", self.at)
                name = self.text[self.at + 2:close] if close > 0 else ""
                if not name.isidentifier():
                    raise self.refuse("a group name that is not a name")
                self.at = close + 1
            elif kind[:2] == "?:":
                self.take(2)
            else:
                raise self.refuse("a group modifier or Python-only group ((?i:, (?P<...>, (?#...)")
        inner = self.disjunction()
        if self.take() != ")":
            raise self.refuse("a '(' without its ')'")
        return f"(?:{inner})"

    def escape(self) -> str:
        c = self.peek()
        if c in ("d", "D", "w", "W", "s", "S", "p", "P"):
            found = self.class_escape()
            return class_text(found.ranges, found.properties)
        if c == "k" or (c.isdigit() and c != "0"):
            raise self.refuse("a back-reference (\\1, \\k<name>) cannot be matched in bounded time")
        return self._literal(self.character_escape(in_class=False))

    def character_escape(self, in_class: bool) -> int:
        c = self.take()
        if c in CONTROLS:
            return CONTROLS[c]
        if c == "c" and self.peek().isascii() and self.peek().isalpha():
            return ord(self.take()) % 32
        if c == "0" and not self.peek().isdigit():
            return 0
        if c == "x":
            return self._hex(2)
        if c == "u":
            return self._unicode_escape()
        if c in SYNTAX or c == "/" or (in_class and (c in CLASS_PUNCTUATORS or c == "b")):
            return 8 if c == "b" else ord(c)
        raise self.refuse(f"an escape \\{c} JavaScript refuses under the v flag")

    def _hex(self, n: int) -> int:
        digits = self.take(n)
        if len(digits) != n or any(d not in "0123456789abcdefABCDEF" for d in digits):
            raise self.refuse("a malformed \\x or \\u escape")
        return int(digits, 16)

    def _unicode_escape(self) -> int:
        if self.peek() == "{":
            close = self.text.find("}", self.at)
            digits = self.text[self.at + 1:close] if close > 0 else ""
            if not digits or len(digits) > 6 or any(d not in "0123456789abcdefABCDEF" for d in digits) \
                    or int(digits, 16) > TOP:
                raise self.refuse("a malformed \\u{...} escape")
            self.at = close + 1
            return int(digits, 16)
        high = self._hex(4)
        if 0xD800 <= high <= 0xDBFF and self.peek(2) == "\\u":  # a surrogate pair is one code point under v
            mark = self.at
            self.take(2)
            low = self._hex(4)
            if 0xDC00 <= low <= 0xDFFF:
                return 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
            self.at = mark
        return high

    def class_escape(self) -> CharSet:
        c = self.take()
        named = {"d": DIGIT, "w": WORD, "s": SPACE}
        if c.lower() in named:
            base = named[c.lower()]
            return CharSet(base if c.islower() else complement(base))
        return CharSet([], (self._property(negated=c == "P"),))

    def _property(self, negated: bool) -> str:
        close = self.text.find("}", self.at)
        if self.peek() != "{" or close < 0:
            raise self.refuse("a \\p without {...}")
        name, _, value = self.text[self.at + 1:close].rpartition("=")
        self.at = close + 1
        value = LONG_CATEGORIES.get(value, value)
        script = name in ("Script", "sc") and value.replace("_", "").isalpha()
        if not (script or (name in ("", "gc", "General_Category") and value in CATEGORIES)):
            raise self.refuse("a Unicode property other than a general category or a script (spell the characters "
                              "out)")
        return f"\\{'P' if negated else 'p'}{{{value}}}"

    def char_class(self) -> str:
        negated = self.peek() == "^"
        if negated:
            self.take()
        found = CharSet([])
        while self.peek() != "]":
            lo = self.class_item()
            if self.peek() == "-" and self.peek(2) != "--":
                self.take()
                hi = self.class_item()
                if lo.properties or hi.properties or len(lo.ranges) != 1 or len(hi.ranges) != 1 \
                        or lo.ranges[0][0] != lo.ranges[0][1] or hi.ranges[0][0] != hi.ranges[0][1]:
                    raise self.refuse("a class range whose end is not one character")
                if hi.ranges[0][0] < lo.ranges[0][0]:
                    raise self.refuse("a class range out of order")
                lo = CharSet([(lo.ranges[0][0], hi.ranges[0][0])])
            found = CharSet(found.ranges + lo.ranges, found.properties + lo.properties)
        self.take()
        return class_text(found.ranges, found.properties, negated)

    def class_item(self) -> CharSet:
        pair, c = self.peek(2), self.peek()
        if c == "":
            raise self.refuse("a '[' without its ']'")
        if pair in CLASS_DOUBLES or pair == "--" or pair == "\\q" or c == "[":
            raise self.refuse("a set operation, nested class or \\q{} in a class (not read here: list the "
                              "characters)")
        if c in CLASS_SYNTAX and c != "\\":
            raise self.refuse(f"a {c!r} in a class that JavaScript refuses under the v flag (write \\{c})")
        self.take()
        if c != "\\":
            return CharSet([(ord(c), ord(c))])
        if self.peek() in ("d", "D", "w", "W", "s", "S", "p", "P"):
            return self.class_escape()
        if self.peek() == "k" or (self.peek().isdigit() and self.peek() != "0"):
            raise self.refuse("a back-reference in a class (JavaScript refuses it)")
        cp = self.character_escape(in_class=True)
        if SURROGATES[0] <= cp <= SURROGATES[1]:
            raise self.refuse("a lone surrogate (half of a UTF-16 pair)")
        return CharSet([(cp, cp)])


@lru_cache(maxsize=512)
def translated(pattern: str) -> str:
    """``pattern`` in the syntax RE2 and ``re`` share, matched whole; raises :class:`PatternRefused`."""
    reader = _Reader(pattern)
    out = reader.disjunction()
    if reader.at < len(pattern):
        raise reader.refuse("a ')' without its '('")
    return out


class PagePattern:
    """A compiled ``pattern``: :meth:`matches` tells whether a whole value matches, in time linear in it."""

    def __init__(self, pattern: str):
        options = re2.Options()
        options.log_errors = False  # RE2 would print its own complaint on stderr
        try:
            self.regex = re2.compile(translated(pattern), options)
        except re2.error as exc:
            raise PatternRefused(f"too large to match in bounded time ({exc})") from exc

    def matches(self, value: str) -> bool:
        if len(value) > MAX_CHECKED:  # linear is not free: a large pattern read 256,000 characters in 17.8 s
            return False
        # a lone surrogate cannot be UTF-8 (RE2's text): it reads as U+FFFD, one character as a browser sees it
        text = value.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
        return self.regex.fullmatch(text) is not None


@lru_cache(maxsize=256)
def page_pattern(pattern: str) -> PagePattern | PatternRefused:
    """The compiled check for ``pattern``, or why it is refused (the caller decides what a refusal does)."""
    try:
        return PagePattern(pattern)
    except (PatternRefused, RecursionError) as exc:
        return exc if isinstance(exc, PatternRefused) else PatternRefused("nested too deeply to read")
