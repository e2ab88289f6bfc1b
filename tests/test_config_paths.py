"""The third security round: the files a config names stay inside its folder (symlinks followed) unless
the user passes --allow-outside-paths; the error is one line naming the key and the flag."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from flows.cli.main import main
from flows.custom.scaffold import scaffold

SECRET = "aws_secret_access_key = do-not-serve-me"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A scaffolded custom campaign, and a credentials file beside (not inside) its config folder."""
    monkeypatch.delenv("HITFLOW_ALLOW_OUTSIDE_PATHS", raising=False)  # restored after: --allow-outside-paths sets it
    scaffold("demo", tmp_path)
    (tmp_path / "home" / ".aws").mkdir(parents=True)
    (tmp_path / "home" / ".aws" / "credentials").write_text(f"[default]\n{SECRET}\n")
    return tmp_path / "config"


def point(config: Path, key: str, value: str) -> None:
    lines = config.read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith(f"{key} = "))
    lines[at] = f'{key} = "{value}"'
    config.write_text("\n".join(lines) + "\n")


def dry_run(config: Path, tmp_path: Path, *extra: str) -> int:
    return main(["run", str(config), "--dry-run", "--out", str(tmp_path / "out"), "--db", str(tmp_path / "h.db"),
                 *extra])


@pytest.mark.parametrize("via", ["dotdot", "absolute", "symlink"])
def test_a_template_outside_the_config_folder_is_refused(project: Path, tmp_path: Path, via: str,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    outside = tmp_path / "home" / ".aws" / "credentials"
    if via == "symlink":  # a name inside the folder that leads out of it
        (project / "page.html.j2").symlink_to(outside)
    value = {"dotdot": "../home/.aws/credentials", "absolute": str(outside), "symlink": "page.html.j2"}[via]
    point(project / "demo.toml", "template", value)
    assert dry_run(project / "demo.toml", tmp_path) == 2
    out = capsys.readouterr()
    lines = out.err.strip().splitlines()
    assert len(lines) == 1 and "[campaign].template" in lines[0] and "--allow-outside-paths" in lines[0]
    assert "outside the config's folder" in lines[0] and SECRET not in out.out + out.err


def test_serve_refuses_it_too(project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    point(project / "demo.toml", "template", "../home/.aws/credentials")
    with socket.socket() as taken:  # a port in use: were the config accepted, serve would stop there
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        code = main(["serve", "--campaign", str(project / "demo.toml"), "--db", str(tmp_path / "h.db"),
                     "--port", str(taken.getsockname()[1])])
    assert code == 2 and "[campaign].template" in capsys.readouterr().err


def test_items_outside_are_refused_and_the_flag_allows_them(project: Path, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "elsewhere").mkdir()
    (project / "demo_items.csv").rename(tmp_path / "elsewhere" / "items.csv")
    point(project / "demo.toml", "items", "../elsewhere/items.csv")
    assert dry_run(project / "demo.toml", tmp_path) == 2
    assert "[campaign].items" in capsys.readouterr().err
    assert dry_run(project / "demo.toml", tmp_path, "--allow-outside-paths") == 0
    assert "PROBLEM" not in capsys.readouterr().out


def test_files_inside_the_folder_need_no_flag(project: Path, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    (project / "pages").mkdir()
    (project / "demo.html.j2").rename(project / "pages" / "demo.html.j2")
    (project / "here.html.j2").symlink_to(project / "pages" / "demo.html.j2")  # a symlink that stays inside
    point(project / "demo.toml", "template", "here.html.j2")
    assert dry_run(project / "demo.toml", tmp_path) == 0, capsys.readouterr().err
