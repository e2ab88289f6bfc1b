"""The third security round on the review page: malformed decisions are a 400 with a message (never
a 500), bonuses are dollars and cents sent as "0.50" (never as typed), and generated hostile
forms never reach a traceback, a 500 or the platform."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flows.core.ledger.store import Store
from flows.driver.review_demo import sign_in
from flows.sim.service.server import SimServer
from tests.review_helpers import form_fields, review_config, review_server, run_until_review


@pytest.fixture(scope="module")
def review(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A campaign waiting for review on the simulator, its review page signed in."""
    tmp = tmp_path_factory.mktemp("review")
    db, config = tmp / "h.db", review_config(tmp)
    with SimServer(seed=2) as sim:
        assert run_until_review(config, sim.url, db, tmp)
        with review_server(db, "vizwiz_captions", reviewer="ann") as (server, site):
            web = sign_in(f"{server.url}/?token={site.login_token}")
            yield {"web": web, "page": web.get("/").text, "sim": sim, "db": db}


def post(review: dict[str, Any], **changes: str) -> httpx.Response:
    return review["web"].post("/decide", data={**form_fields(review["page"], "bonus"), **changes})


@pytest.mark.parametrize("amount", ["NaN", "sNaN", "-NaN", "Infinity", "1E+1", "1e-2", "0.005", "-1", "0x10", "1,50",
                                    "", "٣.٥٠"])
def test_a_bonus_that_is_not_dollars_and_cents_is_a_400(review: dict[str, Any], amount: str) -> None:
    before = len(review["sim"].market.bonuses)
    answer = post(review, amount=amount, reason="careful work", idem_key=f"bad-{amount}")
    assert answer.status_code == 400 and "dollars and cents" in answer.text
    assert len(review["sim"].market.bonuses) == before


def test_a_bonus_with_spaces_is_sent_as_two_decimals(review: dict[str, Any]) -> None:
    answer = post(review, amount=" 0.5 ", reason="careful work", idem_key="spaced")
    assert answer.status_code == 303
    assert httpx.URL(answer.headers["location"]).params["msg"].startswith("sent: bonus")
    rows = Store(review["db"]).rows("SELECT amount FROM review_actions WHERE idem_key = 'spaced'")
    assert rows == [{"amount": "0.50"}]
    assert review["sim"].market.bonuses[-1]["BonusAmount"] == "0.50"


@pytest.mark.parametrize(("changes", "message"), [
    ({"batch": str(2 ** 63)}, "not a batch number"), ({"batch": "-1"}, "not a batch number"),
    ({"batch": "1e3"}, "not a batch number"), ({**{f"x{i}": "1" for i in range(41)}}, "more than 40 fields")])
def test_malformed_forms_are_a_400_with_a_message(review: dict[str, Any], changes: dict[str, str],
                                                  message: str) -> None:
    answer = post(review, amount="0.50", **changes)
    assert answer.status_code == 400 and message in answer.text


FIELDS = ("action", "batch", "worker_id", "assignment_id", "image_id", "reason", "category", "amount", "idem_key")
HOSTILE_TEXT = st.one_of(st.text(max_size=60), st.sampled_from(["NaN", "sNaN", "-0", "1E+999", "9" * 30, "\x00",
                                                                 "../../etc", "' OR 1=1 --", "<script>", "%00"]))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.dictionaries(st.sampled_from(FIELDS), HOSTILE_TEXT, max_size=len(FIELDS)))
def test_generated_decisions_never_fail_on_the_server(review: dict[str, Any], form: dict[str, str]) -> None:
    answer = post(review, **form)
    assert answer.status_code in (303, 400, 403), answer.text
    assert "Traceback" not in answer.text


def test_a_caption_with_direction_overrides_is_shown_in_the_order_it_was_typed(review: dict[str, Any]) -> None:
    """A right-to-left override made "photo\u202egnp.exe" read as "photoexe.png" on a card (found by hand):
    the reviewer now sees the control named where it stands, and the text in the order it was typed."""
    import re

    store = Store(review["db"])
    shown = re.search(r'data-item="a:([^"]+)"', review["web"].get("/").text)
    assert shown is not None
    row = store.rows("SELECT assignment_id, item_id FROM answers WHERE field = 'caption' AND assignment_id = ? "
                     "LIMIT 1", [shown[1]])[0]
    with store.transaction():
        store.db.execute("UPDATE answers SET value = ? WHERE assignment_id = ? AND item_id = ? AND field = 'caption'",
                         ["a photo\u202egnp.exe of a \u2067cup\u2069", row["assignment_id"], row["item_id"]])
    html = review["web"].get("/").text
    assert "a photo[U+202E]gnp.exe of a [U+2067]cup[U+2069]" in html
    assert "\u202e" not in html and "\u2067" not in html
