"""A stopped simulator lets its marketplace go although a client still holds its kept-alive
connection (the embedded simulator, stopped before a run's outputs, stayed in memory
through them, held by the thread serving the run's boto3 client)."""

from __future__ import annotations

import gc
import threading
import weakref

from flows.platforms.mturk import adapter as mturk
from flows.sim.service.server import SimServer


def test_a_stopped_simulator_frees_its_marketplace_while_a_client_lives_on() -> None:
    threads_before = set(threading.enumerate())
    with SimServer(seed=3) as sim:
        client = mturk.make_client(mturk.Target("sim", sim.url))
        assert client.get_account_balance()["AvailableBalance"]  # the connection is now kept alive
        assert len(set(threading.enumerate()) - threads_before) >= 2  # the server's and the connection's
        market = weakref.ref(sim.market)
    del sim
    gc.collect()
    assert market() is None, [type(r).__name__ for r in gc.get_referrers(market())]
    assert not set(threading.enumerate()) - threads_before  # the connection's thread ended with the server
    assert client.meta.endpoint_url  # the client itself is still here (its pool keeps the socket)
