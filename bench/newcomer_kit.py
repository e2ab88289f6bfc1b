"""What the newcomer's script (bench/newcomer.py) needs besides the story: the checks' record, the
shell a newcomer types into (``hitflow`` from the clone's ``.venv`` on the PATH), a run stopped by Ctrl-C,
background servers that are always stopped, and the files a newcomer writes for a sentiment page.

Nothing here imports hitflow: the script drives the product as a person does, through its commands, its
files and its HTTP pages, so it judges the clone it made and not the checkout it runs from."""

from __future__ import annotations

import contextlib
import csv
import os
import re
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Checks:
    """PASS/FAIL lines as they happen; ``failed`` says whether the script must end non-zero."""
    results: list[tuple[str, bool, str]] = field(default_factory=list)

    def check(self, name: str, ok: bool, detail: str = "") -> bool:
        self.results.append((name, bool(ok), detail))
        print(f"{'PASS' if ok else 'FAIL'}  {name}" + (f": {detail}" if detail else ""), flush=True)
        return bool(ok)

    @property
    def failed(self) -> list[str]:
        return [name for name, ok, _ in self.results if not ok]


@dataclass
class Done:
    code: int
    out: str
    err: str
    wall_s: float
    cpu_s: float


@dataclass
class Shell:
    """A terminal in ``cwd`` with the clone's ``.venv`` activated (its ``bin`` first on the PATH)."""
    cwd: Path
    env: dict[str, str]
    log: Path

    def run(self, *args: str, timeout: float = 900, cwd: Path | None = None) -> Done:
        start, before = time.perf_counter(), _children_cpu()
        proc = subprocess.run(list(args), cwd=cwd or self.cwd, env=self.env, capture_output=True, text=True,
                              timeout=timeout, check=False)
        done = Done(proc.returncode, proc.stdout, proc.stderr, time.perf_counter() - start, _children_cpu() - before)
        self._write(args, done)
        return done

    def interrupted(self, args: list[str], when: Callable[[str], bool], timeout: float = 900) -> tuple[Done, str]:
        """``args`` run as a terminal's foreground job; Ctrl-C (SIGINT to its process group) once a line of
        its output makes ``when`` true. Returns what it printed and the line it was stopped after."""
        start = time.perf_counter()
        proc = subprocess.Popen(args, cwd=self.cwd, env=self.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, start_new_session=True)
        err: list[str] = []
        reader = threading.Thread(target=lambda: err.extend(proc.stderr or []), daemon=True)
        reader.start()
        out, stopped_at = [], ""
        try:
            for line in proc.stdout or []:
                out.append(line)
                if not stopped_at and when(line):
                    stopped_at = line.strip()
                    os.killpg(proc.pid, signal.SIGINT)
            proc.wait(timeout=timeout)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        reader.join(timeout=10)
        done = Done(proc.returncode, "".join(out), "".join(err), time.perf_counter() - start, float("nan"))
        self._write(args, done)
        return done, stopped_at

    @contextlib.contextmanager
    def background(self, args: list[str], ready: str, timeout: float = 180) -> Iterator[list[str]]:
        """A server started in its own process group; yields its output lines once one contains ``ready``;
        stopped (SIGINT, as Ctrl-C would, then SIGKILL) however the block ends."""
        proc = subprocess.Popen(args, cwd=self.cwd, env=self.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True, start_new_session=True)
        lines: list[str] = []
        seen = threading.Event()

        def read() -> None:
            for line in proc.stdout or []:
                lines.append(line)
                if ready in line:
                    seen.set()
            seen.set()  # it ended: the caller finds no ready line

        threading.Thread(target=read, daemon=True).start()
        try:
            seen.wait(timeout)
            yield lines
        finally:
            for sig, wait in ((signal.SIGINT, 20), (signal.SIGKILL, 10)):
                if proc.poll() is None:
                    with contextlib.suppress(ProcessLookupError):
                        os.killpg(proc.pid, sig)
                    with contextlib.suppress(subprocess.TimeoutExpired):
                        proc.wait(timeout=wait)
            self._write(args, Done(proc.returncode if proc.returncode is not None else -9, "".join(lines), "", 0, 0))

    def _write(self, args: tuple[str, ...] | list[str], done: Done) -> None:
        with self.log.open("a", encoding="utf-8") as f:
            f.write(f"\n$ {' '.join(args)}   (in {self.cwd}; exit {done.code}, {done.wall_s:.1f} s)\n{done.out}"
                    + (f"--- stderr\n{done.err}" if done.err else ""))


def _children_cpu() -> float:
    import resource

    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


# A sentiment page as a newcomer writes it on the starter's pattern (docs/tutorials/own-page.md): one
# choice and a comment box per item.
PAGE = """{% extends "_custom_page.html.j2" %}
{% block instructions %}
<p>Read each product review and say how its writer feels about the product.</p>
{% endblock %}
{% block item %}
<h2>Review {{ i + 1 }}</h2>
<blockquote>{{ item.text }}</blockquote>
<fieldset><legend>How does the writer feel?</legend>
  <label><input type="radio" name="sentiment_{{ i }}" value="positive" required> positive</label>
  <label><input type="radio" name="sentiment_{{ i }}" value="neutral"> neutral</label>
  <label><input type="radio" name="sentiment_{{ i }}" value="negative"> negative</label>
</fieldset>
<label for="comment_{{ i }}">Anything unclear about this review? (optional)</label><br>
<textarea id="comment_{{ i }}" name="comment_{{ i }}" maxlength="300"></textarea>
{% endblock %}
"""
SAYINGS = {"positive": ["Works perfectly, I use it every day.", "Arrived early and the quality is excellent.",
                        "Best purchase I made this year.", "My kids love it and it survived a fall.",
                        "Great value for the price, would buy it again."],
           "negative": ["Broke after two days of normal use.", "The seller never answered my emails.",
                        "Smells of chemicals and the paint peels.", "Much smaller than the photos suggest.",
                        "Stopped working after a week, a waste of money."],
           "neutral": ["It does what the box says, nothing more.", "Delivery took the usual five days.",
                       "Average sound, average battery.", "The colour is a bit different from the picture.",
                       "Fine for occasional use."]}
PRODUCTS = ["kettle", "lamp", "backpack", "headphones", "blender", "umbrella", "desk chair", "phone case",
            "toaster", "water bottle", "tent", "keyboard", "rice cooker", "scarf"]


def write_sentiment(config_dir: Path, name: str, items: int = 69, controls: int = 24) -> None:
    """The page, ``items`` reviews and ``controls`` more with known answers (docs/how-to/control-items.md:
    ids and text like the items', so a page's source does not tell them apart)."""
    (config_dir / f"{name}.html.j2").write_text(PAGE, encoding="utf-8")
    said = [(feel, text) for feel, texts in SAYINGS.items() for text in texts]
    rows = [(f"rev-{n + 1:03d}", *said[n % len(said)], f"The {PRODUCTS[n % len(PRODUCTS)]}: ")
            for n in range(items + controls)]
    with (config_dir / f"{name}_items.csv").open("w", newline="", encoding="utf-8") as f:
        out = csv.writer(f)
        out.writerows([("item_id", "text")] + [(i, lead + text) for i, _, text, lead in rows[:items]])
    with (config_dir / f"{name}_controls.csv").open("w", newline="", encoding="utf-8") as f:
        out = csv.writer(f)
        out.writerows([("item_id", "field", "answer", "text")]
                      + [(i, "sentiment", feel, lead + text) for i, feel, text, lead in rows[items:]])


def edit_config(path: Path, changes: dict[str, str]) -> list[str]:
    """Set ``key = value`` lines of the scaffold (a commented ``# key = ...`` line is uncommented), as a
    newcomer does with an editor or the docs' ``sed``; the keys it did not find."""
    text, missing = path.read_text(encoding="utf-8"), []
    for key, value in changes.items():
        text, n = re.subn(rf"(?m)^#? ?{re.escape(key)} = [^#\n]*?(\s*#.*)?$",
                          lambda m, k=key, v=value: f"{k} = {v}" + (m.group(1) or ""), text, count=1)
        missing += [] if n else [key]
    path.write_text(text, encoding="utf-8")
    return missing
