"""The words an honest simulated worker writes with (people/plain_text.py)."""

from __future__ import annotations

import re
from collections import Counter

COMMON = frozenset((
    "the", "and", "for", "are", "was", "were", "with", "that", "this", "these", "those", "from", "have", "has", "had",
    "not", "but", "you", "your", "they", "them", "their", "its", "our", "out", "his", "her", "she", "him", "who",
    "what", "which", "when", "where", "why", "how", "will", "would", "can", "could", "should", "may", "might", "must",
    "been", "being", "into", "onto", "than", "then", "there", "here", "very", "just", "also", "only", "about", "after",
    "before", "over", "under", "some", "any", "all", "each", "every", "more", "most", "much", "many", "such", "own",
    "did", "does", "doing", "done", "get", "got", "one", "two", "too", "yes", "because", "while", "until", "upon",
    "off", "per", "via"))
DETERMINERS = frozenset((
    "the", "a", "an", "my", "your", "our", "their", "his", "her", "its", "this", "that", "these", "those", "some", "no",
    "any", "each", "every", "one", "two", "three", "new", "old"))
OPENERS = ("", "", "", "", "I think", "To me", "Honestly,", "Mostly", "Overall,", "It seems", "In my view,",
           "For me", "Basically,", "I'd say", "Looking at it,", "On the whole,", "Really,", "At first glance,",
           "Simply put,", "As far as I can tell,", "Clearly", "In short,", "Frankly,", "I guess", "I feel", "Well,",
           "So,", "Personally,", "Then", "Besides,", "Also,", "Still,", "Plus", "Actually,", "For sure")
STATEMENTS = ("the {a} stands out", "it comes down to the {a}", "the {a} is the main thing", "there is the {a}",
              "the {a} and {b} matter here", "{a} is what I noticed first", "I noticed the {a}",
              "the point is the {a}", "my eye went to the {a}", "the {a} seems important",
              "it mentions {a} and {b}", "the {a} looks like the key part", "{a} matters more than {b}",
              "the {a} caught my attention", "the part about {a} is clear", "what matters is the {a}",
              "most of it is about {a}", "{a} with {b}", "the {a} says a lot", "it is mainly {a}",
              "{a} comes first, then {b}", "I would point to the {a}", "{a} mainly", "{a}")
QUESTION_OPENERS = ("", "", "", "So,", "Also,", "Just wondering,", "Quick one:", "Out of interest,", "Honestly,",
                    "And", "Then", "Please,")
QUESTIONS = ("does the {a} come with the {b}", "is the {a} included", "what about the {a}",
             "how long does the {a} last", "can I get the {a}", "why is the {a} like that", "where is the {a}",
             "when will the {a} be ready", "is there more about the {a}", "how does the {a} compare with the {b}",
             "who handles the {a}", "could the {a} be changed", "what is the {a} for", "is the {a} new",
             "how much is the {a}", "does {a} affect the {b}", "would the {a} work", "{a} included", "why {a}", "{a}")
# what lengthens a sentence by 1, 2, 3 or 4 words (index: its length)
TAILS = ((), ("too", "{a}", "mainly", "again", "overall"),
         ("and {a}", "with {a}", "plus {a}", "or {a}", "like {a}", "even {a}", "then {a}", "not {a}"),
         ("and the {a}", "about the {a}", "near the {a}", "because of {a}", "beside the {a}", "not just {a}",
          "and some {a}", "next to {a}", "rather than {a}", "and no {a}"),
         ("as well as {a}", "and also the {a}", "along with the {a}", "and then the {a}", "more than the {a}",
          "and of course {a}", "not to mention {a}", "and after that {a}", "together with the {a}"))


def content_words(texts: list[str]) -> list[str]:
    """The item's things, commonest first: words its determiners and capitals mark as nouns ("a buzzing noise":
    noise), else all its words of content; lower case where the item ever writes them so."""
    found, things = [], set()
    for t in texts:
        said = re.findall(r"[A-Za-z]+|[^A-Za-z\s]", t)
        for k, w in enumerate(said):
            if len(w) >= 3 and w.isalpha() and w.lower() not in COMMON and \
                    not (len(w) > 4 and w.lower().endswith(("ly", "ed"))):
                found.append(w)
                if _thing(said, k):
                    things.add(w.lower())
    forms: dict[str, str] = {}
    for w in found:
        if w.lower() not in forms or w.islower():
            forms[w.lower()] = w
    counts = Counter(w.lower() for w in found)
    named = [w for k, w in forms.items() if k in things]
    named = named if len(named) >= 3 else list(forms.values())
    longer = [w for w in named if len(w) >= 4]  # the specific words ("bicycle", not "sun") where there are some
    return sorted(longer if len(longer) >= 3 else named, key=lambda w: (-counts[w.lower()], -len(w)))


def _thing(said: list[str], k: int) -> bool:
    """Whether ``said[k]`` is in a noun phrase: up to three words of content after a determiner ("a busy street
    market"), or capitalised mid-sentence; never a verb's -ing form ("a man pushing")."""
    if said[k].lower().endswith("ing"):
        return False
    if said[k][0].isupper() and k and said[k - 1] not in ".!?:\"'":
        return True
    for j in range(k - 1, max(-1, k - 4), -1):
        if said[j].lower() in DETERMINERS:
            return True
        if not said[j].isalpha() or said[j].lower() in COMMON:
            return False
    return False
