"""The adapter's listings page by page without boto3's paginator object (flows/platforms/mturk/adapter.py
paginate): the same requests, the same items and the same refusal of a token sent twice as the paginator,
kept here as the old way and compared with on the simulator and on an endpoint that never stops paging."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from flows.core.errors import PlatformError
from flows.platforms.mturk import adapter as mturk
from tests.local_http import QuietHandler, local_http_server
from tests.test_adapter_contract import _params, _type


def _old_paginate(client: Any, operation: str, key: str, **params: Any) -> Iterator[dict[str, Any]]:
    """adapter.paginate before it paged by itself (cdcbdc4)."""
    with mturk._platform_errors(operation):
        for page in client.get_paginator(operation).paginate(PaginationConfig={"PageSize": mturk.PAGE_SIZE}, **params):
            yield from page.get(key, [])


def _sent(client: Any, operation: str) -> list[dict[str, Any]]:
    """The parameters of every ``operation`` call the client sends (botocore's own event)."""
    sent: list[dict[str, Any]] = []
    client.meta.events.register(f"provide-client-params.mturk.{operation}",
                                lambda params, **_: sent.append(dict(params)))
    return sent


@pytest.mark.parametrize("n", [0, 1, 100, 101, 230])
def test_a_listing_sends_and_gets_what_the_paginator_did(sim, n: int) -> None:
    target = mturk.Target("sim", sim.url)
    client = mturk.make_client(target)
    type_id = _type(client)
    for i in range(n):
        mturk.create_hit(client, type_id, {**_params(str(i)), "MaxAssignments": 1}, f"t{i}")
    sent = _sent(client, "ListHITs")
    new = list(mturk.paginate(client, "list_hits", "HITs"))
    by_new, sent[:] = [*sent], []
    old = list(_old_paginate(client, "list_hits", "HITs"))
    assert new == old and len(new) == n
    assert by_new == sent and len(sent) == max(1, -(-n // 100))
    assert [h["HITId"] for h in mturk.list_hits(client)] == [h["HITId"] for h in old]


class SameToken(QuietHandler):
    """An endpoint that answers every listing with the same NextToken."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        self.reply(json.dumps({"NumResults": 1, "HITs": [{"HITId": "H1"}], "NextToken": "p:1"}).encode(),
                   "application/x-amz-json-1.1")


def test_a_token_sent_twice_is_refused_in_the_paginators_words() -> None:
    with local_http_server(SameToken) as url:
        client = mturk.make_client(mturk.Target("sim", url))
        refusals = []
        for listing in (mturk.paginate, _old_paginate):
            with pytest.raises(PlatformError) as refused:
                list(listing(client, "list_hits", "HITs"))
            refusals.append(str(refused.value))
        assert refusals[0] == refusals[1] and "same next token was received twice" in refusals[0]
