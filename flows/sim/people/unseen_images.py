"""Text about an image the simulator cannot see."""

from __future__ import annotations

import zlib

from flows.core.config.item_generator import URL_BASE
from flows.sim.people.crowd_model import BankEntry
from flows.sim.people.page_context import ItemContext, page_contexts

TEXT_SOURCE = "text:"  # "text:<item>|<field>" -> BLIND_TEXT: what the worker wrote there is content-blind
BLIND_TEXT = "blind text"
GENERATED_STEM = "VizWizSynth"  # item_generator.synthetic_item's ids

_OBJECTS = ("cup", "bag", "chair", "lamp", "book", "plant", "bicycle", "bench", "door", "window", "dog", "table",
            "sign", "bottle", "basket", "car", "fence", "box", "tree", "umbrella", "boat", "wall", "hat", "ball")
_COLOURS = ("red", "blue", "green", "white", "black", "grey", "brown", "yellow", "orange", "pale")
_PLACES = ("next to", "in front of", "behind", "beside", "near", "under")
_VIEWS = ("seen from the side", "seen up close", "in daylight", "indoors", "outdoors", "from a low angle",
          "against a plain background", "in the evening light")


def generated(key: str) -> bool:
    """An item of ``items = "generate:N"``: made-up ids and URLs, no image behind them."""
    return key.startswith(GENERATED_STEM) or key.startswith(URL_BASE)


def uncaptioned(item_id: str, bank: dict[str, BankEntry]) -> bool:
    """An image id with no caption in the bank and not made up by a load test: its text is content-blind."""
    known = bank.get(item_id.split("~")[0])
    return not (known and known.captions) and not generated(item_id)


def unseen(ctx: ItemContext, bank: dict[str, BankEntry]) -> bool:
    """An image item with no text of its own whose captions the bank does not hold (and no generated one)."""
    return ctx.shows_image and not ctx.texts and uncaptioned(ctx.key, bank)


def unreadable(ctx: ItemContext, bank: dict[str, BankEntry]) -> bool:
    """An item that shows nothing the simulator can read (no text, an unknown image, a sound): content-blind."""
    return not ctx.texts and uncaptioned(ctx.key, bank)


def unseen_on_page(html: str, bank: dict[str, BankEntry]) -> list[str]:
    """The keys of a rendered page's items whose text its workers write unread (the dry run's count)."""
    contexts = page_contexts(html)
    items = {idx: ctx for idx, ctx in contexts.items() if idx} or contexts
    return [ctx.key for ctx in items.values() if unreadable(ctx, bank)]


def blind_descriptions(key: str) -> list[str]:
    """Three wordings of one made-up scene for the item ``key`` (the same for every worker)."""
    n = zlib.crc32(key.encode())
    first = _OBJECTS[n % len(_OBJECTS)]
    second = _OBJECTS[(n // len(_OBJECTS) + 1 + n % len(_OBJECTS)) % len(_OBJECTS)]
    n //= len(_OBJECTS) ** 2
    c1, c2 = _COLOURS[n % 10], _COLOURS[(n // 10 + 3) % 10]
    place, view = _PLACES[n // 100 % len(_PLACES)], _VIEWS[n // 600 % len(_VIEWS)]
    a1, a2 = (f"{'an' if c[0] in 'aeiou' else 'a'} {c}" for c in (c1, c2))
    return [f"{a1.capitalize()} {first} {place} {a2} {second}, {view}.",
            f"A photo of {a1} {first} with {a2} {second} {place} it, {view}.",
            f"There is {a1} {first} {view}, and {a2} {second} {place} it."]
