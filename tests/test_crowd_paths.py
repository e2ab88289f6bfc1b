"""The third security round, for the simulator's crowd files: the caption bank and judgement_truth files a
crowd file names stay in its config folder (``config/`` for ``config/crowds/*.toml``; symlinks
followed) unless outside paths are allowed, and every crowd file is read with a size limit; each
problem is a one-line ConfigError."""

from __future__ import annotations

from pathlib import Path

import pytest

from flows.core.errors import ConfigError
from flows.sim.people.crowd import load_crowd

BANK = "image_id,caption,text_detected\nimg1,A red door.,0\n"


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """config/crowds/ and config/items/ (a bank inside), and a bank outside the config folder."""
    monkeypatch.delenv("HITFLOW_ALLOW_OUTSIDE_PATHS", raising=False)
    (tmp_path / "config" / "crowds").mkdir(parents=True)
    (tmp_path / "config" / "items").mkdir()
    (tmp_path / "config" / "items" / "bank.csv").write_text(BANK)
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "bank.csv").write_text(BANK.replace("red", "stolen"))
    return tmp_path / "config"


def crowd(config: Path, line: str) -> Path:
    path = config / "crowds" / "c.toml"
    path.write_text(f'seed = 1\n{line}\n[[profile]]\nname = "diligent"\ncount = 2\n')
    return path


def refusal(path: Path) -> str:
    with pytest.raises(ConfigError) as caught:
        load_crowd(path)
    assert "\n" not in str(caught.value)
    return str(caught.value)


def test_a_bank_in_the_config_folder_is_read(config: Path) -> None:
    _, bank = load_crowd(crowd(config, 'caption_bank = "../items/bank.csv"'))
    assert bank["img1"].captions == ["A red door."]


@pytest.mark.parametrize("line", ['caption_bank = "../../home/bank.csv"', 'caption_bank = "{home}/bank.csv"',
                                  'caption_bank = "../items/link.csv"', 'judgement_truth = ["../../home/bank.csv"]'])
def test_a_file_outside_the_config_folder_is_refused_unless_allowed(config: Path, line: str,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    (config / "items" / "link.csv").symlink_to(config.parent / "home" / "bank.csv")
    path = crowd(config, line.format(home=config.parent / "home"))
    why = refusal(path)
    assert "outside the folder" in why and "--allow-outside-paths" in why and str(config.resolve()) in why
    monkeypatch.setenv("HITFLOW_ALLOW_OUTSIDE_PATHS", "1")
    _, bank = load_crowd(path)
    assert "judgement_truth" in line or bank["img1"].captions == ["A stolen door."]


def test_crowd_files_are_read_with_a_size_limit(config: Path) -> None:
    # (not /dev/zero here: before the fix it was read until the kernel killed the process)
    big = config / "crowds" / "big.toml"
    big.write_text("# " + "x" * (2 << 20) + "\n")
    assert "too large" in refusal(big)


@pytest.mark.parametrize("bank", ["image_id,caption,text_detected\nimg1,A door.,yes\n", "caption\nA door.\n",
                                  "\x00\x01binary"])
def test_a_malformed_bank_is_a_one_line_error(config: Path, bank: str) -> None:
    (config / "items" / "bank.csv").write_text(bank)
    assert "bank" in refusal(crowd(config, 'caption_bank = "../items/bank.csv"'))
