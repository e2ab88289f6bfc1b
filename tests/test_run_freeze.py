"""flows/core/run/free_memory.own_objects_collected: during a run what existed before it is left out of
the collector's passes, the run's own cyclic garbage is still freed, and the caller's heap is as before
afterwards (thawed, or a freeze of the caller's own left alone). The session's freeze (tests/conftest.py)
is put back after each test, so no later full collection walks the whole heap again."""

from __future__ import annotations

import gc
import weakref

from flows.core.run.free_memory import own_objects_collected
from flows.core.run.heap_owner import caller_freezes_heap


class Node:
    def __init__(self) -> None:
        self.me = self  # a cycle: only the collector frees it


def test_a_run_collects_its_own_garbage_and_leaves_the_callers_heap_thawed() -> None:
    gc.unfreeze()  # a caller with a thawed heap (a CLI run); the session's freeze comes back below
    caller_freezes_heap(False)  # nor does it say it freezes (tests/conftest.py does, for the session)
    try:
        before = weakref.ref(Node())  # garbage of the caller's, there before the run
        with own_objects_collected():
            assert gc.get_freeze_count() > 0  # what existed is frozen
            with own_objects_collected():  # a nested run leaves the outer one's freeze
                inside = weakref.ref(Node())
                gc.collect()  # walks the run's objects only
                assert inside() is None  # the run's own cycle is freed
                assert before() is not None  # the caller's is left alone while the run lasts
            assert gc.get_freeze_count() > 0
        assert gc.get_freeze_count() == 0  # thawed after: the caller's garbage is the collector's again
    finally:
        caller_freezes_heap()
        gc.freeze()


def test_a_caller_that_froze_keeps_its_freeze() -> None:
    gc.freeze()
    frozen = gc.get_freeze_count()
    caller_freezes_heap(False)  # found by asking the collector
    try:
        with own_objects_collected():
            Node()
    finally:
        caller_freezes_heap()
    # not thawed by the run (a thaw empties the permanent generation); reference counting may free a few
    # of its objects meanwhile, as it did in a fresh-clone run (601,369 -> 601,367)
    assert gc.get_freeze_count() > 0.9 * frozen


def test_a_caller_that_says_it_freezes_keeps_its_heap_as_it_is() -> None:
    gc.unfreeze()  # said, not seen: nothing is frozen now, and the run must not freeze or thaw it
    try:
        with own_objects_collected():
            assert gc.get_freeze_count() == 0
            inside = weakref.ref(Node())
            gc.collect()
            assert inside() is None
        assert gc.get_freeze_count() == 0
    finally:
        gc.freeze()
