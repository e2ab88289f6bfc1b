"""the fifth security round's notes: a ``#fragment`` in an ``--out`` URL was kept in staging names and the ledger (a
token may sit there): refused in one line, the fragment not shown; a fake simulator answering ``{}``
to its clock call ended a run with ``unexpected KeyError: 'now'``: one line naming what to check."""

from __future__ import annotations

from pathlib import Path

import pytest

from flows.cli.main import main
from flows.core.errors import ConfigError, PlatformError
from flows.core.outputs.output_location import credentials_to_fsspec, staging_root, stored_output
from flows.core.run.run_context import Target
from flows.platforms.targets import advance_sim_clock, sim_ground_truth, sim_item_truth
from tests.local_http import QuietHandler, local_http_server

TOKEN = "S3ntinel-frag-55"
ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("url", [f"s3://bucket/runs#{TOKEN}", f"memory://runs#token={TOKEN}",
                                 f"simplecache::s3://bucket/runs#{TOKEN}"])
def test_a_fragment_in_an_out_url_is_refused_without_showing_it(url: str, capsys) -> None:
    for use in (staging_root, stored_output, credentials_to_fsspec):
        with pytest.raises(ConfigError, match="holds a '#'") as refused:
            use(url)
        assert TOKEN not in str(refused.value)
    assert main(["run", str(ROOT / "config" / "vizwiz_captions.toml"), "--dry-run", "--out", url]) != 0
    err = capsys.readouterr().err.strip()
    assert "holds a '#'" in err and TOKEN not in err and len(err.splitlines()) == 1


class FakeSim(QuietHandler):
    body = b"{}"  # what every route answers

    def do_POST(self) -> None:
        self.reply(FakeSim.body, "application/json")

    do_GET = do_POST


@pytest.mark.parametrize("body", [b"{}", b"[]", b'{"now": "soon"}', b"not json", b"", b"[" * 5000,
                                  b'{"now": null}', b"\x1b]0;owned\x07"])
def test_a_fake_simulator_reply_is_one_line(body: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(FakeSim, "body", body)
    with local_http_server(FakeSim) as url:
        target = Target("sim", url)
        with pytest.raises(PlatformError, match="clock call without a time") as refused:
            advance_sim_clock(target, 60)
        assert "\x1b" not in str(refused.value) and "\n" not in str(refused.value)
        if body != b"[]":  # an empty list of workers or items is a reply the simulator could give
            for call in (sim_ground_truth, sim_item_truth):
                with pytest.raises(PlatformError, match="not a JSON list"):
                    call(target)
