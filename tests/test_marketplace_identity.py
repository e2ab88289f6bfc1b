"""A campaign lives on the marketplace it first posted to, and a resume on another is refused.

Before, `hitflow run X --sim-state a.db --detach always` posted batch 1, and `hitflow run X --sim-state
b.db` (or `--endpoint-url` another `hitflow sim serve`) went on there: it reconciled against the empty
marketplace, then stopped on its first call about batch 1 with a platform error, exit 4
(`HITDoesNotExist ... Operation on unknown HITId`); stopped between batches it wrote the next batch's
CreateHITType as intended and failed on `QualificationTypeDoesNotExist` (found by hand through the CLI).
Now the ledger records which marketplace a campaign posted to (a simulator's id, kept in its state file
and named by ``GET /_sim/health``), and a run on another is refused in one line, exit 2, before any call.
"""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

import pytest

from flows.cli.main import main
from flows.core.ledger.store import Store
from flows.driver.campaign_run import run_campaign
from flows.platforms.marketplace_identity import public_url
from flows.sim.service.server import SimServer
from tests.small_configs import small_vizwiz
from tests.test_resume_marketplace import stop_before_batch_3

OPEN = 9  # hitflow run's exit code for a batch left open (--detach always)


def health(url: str) -> dict[str, object]:
    with urllib.request.urlopen(f"{url}/_sim/health") as answer:
        return json.loads(answer.read())  # type: ignore[no-any-return]


def run(config: Path, ledger: str | Path, *route: str) -> int:
    return main(["run", str(config), "--no-prefect", "--db", str(ledger), "--out", str(config.parent / "out"),
                 *route])


def ledger_calls(ledger: str | Path) -> list[tuple[str, str]]:
    """The platform calls the ledger holds (not a schedule's notes of its runs)."""
    return [(r["operation"], r["status"]) for r in Store(ledger).rows(
        "SELECT operation, status FROM ledger WHERE operation != 'scheduled_run'")]


def test_a_simulator_names_the_marketplace_its_state_file_keeps(tmp_path: Path) -> None:
    with SimServer(state=tmp_path / "a.db") as a, SimServer(state=tmp_path / "b.db") as b:
        first, other = health(a.url)["marketplace"], health(b.url)["marketplace"]
    with SimServer(state=tmp_path / "a.db") as again:  # a restart, on another port
        assert health(again.url)["marketplace"] == first
    assert isinstance(first, str) and first.startswith("sim-") and first != other


def test_a_campaign_resumed_on_another_served_simulator_is_refused_before_any_call(
        ledger_location: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """On either ledger (the PostgreSQL one gets the column through the same migration)."""
    monkeypatch.chdir(tmp_path)
    # two batches: the resume on its own marketplace collects batch 1 and posts one more
    config, ledger = small_vizwiz(tmp_path, edits={"batches = 5 ": "batches = 2 "}, items=10), ledger_location
    with SimServer(state=tmp_path / "a.db") as a:
        assert run(config, ledger, "--endpoint-url", a.url, "--detach", "always") == OPEN
    before = ledger_calls(ledger)
    with SimServer(state=tmp_path / "b.db") as b:
        capsys.readouterr()
        code = run(config, ledger, "--endpoint-url", b.url)
        said, calls_on_b = capsys.readouterr().err, health(b.url)["calls"]
    assert code == 2 and said.count("\n") == 1, said
    assert f"lives on the simulator served at {a.url}" in said and f"--endpoint-url {a.url}" in said, said
    assert calls_on_b == 0 and ledger_calls(ledger) == before  # nothing asked of b, nothing intended
    with SimServer(state=tmp_path / "a.db") as again:  # its own marketplace, served on another port
        assert run(config, ledger, "--endpoint-url", again.url) == 0
        # the ledger follows it there: a later command without --endpoint-url reaches it
        kept = json.loads(Store(ledger).rows("SELECT config_json FROM campaigns")[0]["config_json"])
        assert kept["endpoint_url"] == again.url
        calls = health(again.url)["calls"]
        assert main(["reconcile", "vizwiz_captions", "--db", str(ledger)]) == 0
        assert health(again.url)["calls"] > calls
    assert Store(ledger).rows("SELECT status FROM campaigns")[0]["status"] == "done"


@pytest.mark.parametrize("platform", ["mturk", "prolific"])
def test_a_campaign_resumed_on_another_state_file_is_refused_and_resumes_on_its_own(
        platform: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    """Stopped by a Ctrl-C between batches 2 and 3 (on main the resume failed on batch 3's first call)."""
    # three batches: stopped before batch 3, which the resume on its own marketplace posts
    config = small_vizwiz(tmp_path, edits={"batches = 5 ": "batches = 3 "}, items=10)
    ledger, route = tmp_path / "h.db", ("--platform", platform)
    with pytest.raises(KeyboardInterrupt):
        run_campaign(config, db_path=ledger, out_root=tmp_path / "out", progress=lambda _: None,
                     call=stop_before_batch_3, platform=platform, sim_state=tmp_path / "a.db")
    before = ledger_calls(ledger)
    capsys.readouterr()
    assert run(config, ledger, *route, "--sim-state", str(tmp_path / "b.db")) == 2
    said = capsys.readouterr().err
    assert said.count("\n") == 1 and f"--sim-state {tmp_path / 'a.db'}" in said, said
    assert platform == "mturk" or "pass --platform prolific --sim-state" in said, said
    assert ledger_calls(ledger) == before
    assert not list(tmp_path.glob("b.db*"))  # the file the refused run opened is not left to read as a marketplace
    assert run(config, ledger, *route, "--sim-state", str(tmp_path / "a.db")) == 0


def test_a_campaign_from_before_the_identity_is_adopted_by_its_next_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    config, ledger, state = small_vizwiz(tmp_path, items=10), tmp_path / "h.db", str(tmp_path / "a.db")
    assert run(config, ledger, "--sim-state", state, "--detach", "always") == OPEN
    Store(ledger).execute("UPDATE campaigns SET marketplace = ''")  # as a ledger from before recorded it
    assert run(config, ledger, "--sim-state", state, "--detach", "always") in (0, OPEN)
    with SimServer(state=tmp_path / "a.db") as a:
        kept = f"simulator {health(a.url)['marketplace']} key:{health(a.url)['key']}"
    assert Store(ledger).rows("SELECT marketplace FROM campaigns")[0]["marketplace"] == kept


def test_a_url_is_kept_without_what_carries_credentials() -> None:
    """`hitflow run` refuses an --endpoint-url with credentials; a URL recorded or shown drops them anyway
    (Prolific's API base, a config's endpoint_url)."""
    assert public_url("https://user:pw@mturk.example.org:8443/api/?key=k#x") == "https://mturk.example.org:8443/api"
    assert public_url("HTTPS://api.prolific.com/") == "https://api.prolific.com"


def test_cancel_pointed_at_another_marketplace_is_refused_and_cancels_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """`hitflow cancel` and `reconcile` take --endpoint-url too: on another marketplace nothing is sent."""
    monkeypatch.chdir(tmp_path)
    config, ledger = small_vizwiz(tmp_path, items=10), tmp_path / "h.db"
    with SimServer(state=tmp_path / "a.db") as a:
        assert run(config, ledger, "--endpoint-url", a.url, "--detach", "always") == OPEN
        with SimServer(state=tmp_path / "b.db") as b:
            for command in ("reconcile", "cancel"):
                capsys.readouterr()
                code = main([command, "vizwiz_captions", "--db", str(ledger), "--endpoint-url", b.url])
                said = capsys.readouterr().err
                assert code == 2 and said.count("\n") == 1 and f"--endpoint-url {a.url}" in said, said
        assert Store(ledger).rows("SELECT status FROM campaigns")[0]["status"] != "cancelled"
        assert main(["cancel", "vizwiz_captions", "--db", str(ledger), "--endpoint-url", a.url]) == 0
    assert Store(ledger).rows("SELECT status FROM campaigns")[0]["status"] == "cancelled"


def test_a_scheduled_run_pointed_at_another_marketplace_advances_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The schedule's next-batch flow, called as its runner calls it with its steps run directly."""
    from flows.core.errors import ConfigError
    from flows.driver import campaign_flow
    from flows.driver.campaign import call_directly

    monkeypatch.setattr(campaign_flow, "progress_line", lambda _: None)
    monkeypatch.setattr(campaign_flow, "prefect_call", lambda name, fn, run, batch: call_directly(name, fn, run, batch))
    config, db = small_vizwiz(tmp_path, "sched_moved", {"batches = 5": "batches = 2"}, items=10), tmp_path / "h.db"
    with SimServer(state=tmp_path / "a.db") as a:
        first = campaign_flow.next_batch_fn(str(config), endpoint_url=a.url, db_path=str(db), out_root=str(tmp_path))
    assert first == {"advanced_batch": 1, "done": False}
    before = ledger_calls(db)
    with SimServer(state=tmp_path / "b.db") as b, pytest.raises(ConfigError, match=f"--endpoint-url {a.url}"):
        campaign_flow.next_batch_fn(str(config), endpoint_url=b.url, db_path=str(db), out_root=str(tmp_path))
    assert ledger_calls(db) == before


@pytest.mark.parametrize("fake", ["copies the id and the key", "copies the id alone"])
def test_a_server_copying_a_campaigns_marketplace_id_gets_none_of_its_calls(
        fake: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Anyone can read a simulator's `/_sim/health`: an id (and a public key) copied from it is not that
    marketplace. Before, a fake answering with the campaign's id was taken for its marketplace and got the
    resumed run's calls; now the run asks it to sign a fresh nonce with the key the ledger recorded."""
    from tests.local_http import QuietHandler, local_http_server

    monkeypatch.chdir(tmp_path)
    config, ledger = small_vizwiz(tmp_path, items=10), tmp_path / "h.db"
    with SimServer(state=tmp_path / "a.db") as a:
        assert run(config, ledger, "--endpoint-url", a.url, "--detach", "always") == OPEN
        copied = {**health(a.url), "calls": 0}
    if fake == "copies the id alone":
        copied.pop("key", None)
    asked: list[str] = []

    class Impostor(QuietHandler):
        def do_GET(self) -> None:
            asked.append(f"GET {self.path}")
            self.reply(json.dumps(copied).encode(), "application/json")

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            asked.append(f"POST {self.path} {self.headers.get('X-Amz-Target', '')}")
            self.reply(json.dumps({"signature": "AAAA", "now": 0, "HITTypeId": "X"}).encode(), "application/json")

    before = ledger_calls(ledger)
    capsys.readouterr()
    with local_http_server(Impostor) as url:
        code = run(config, ledger, "--endpoint-url", url)
    said = capsys.readouterr().err
    assert code == 2 and said.count("\n") == 1, said
    assert not [call for call in asked if "MTurk" in call or "/_sim/clock" in call], asked
    assert ledger_calls(ledger) == before
    assert ("does not prove it holds that marketplace's key" if "key" in copied else "lives on the simulator") in said
