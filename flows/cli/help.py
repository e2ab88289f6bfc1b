"""What ``hitflow <command> --help`` shows below the options (examples, exit codes)."""

from __future__ import annotations

import argparse

# Every exit code hitflow uses (flows/core/errors.py and flows/cli/main.py), in words a person acts on.
EXIT_CODES: dict[int, str] = {
    0: "done (a batch waiting for a person's review also ends 0 and says how to go on)",
    1: "failed: the line says why (a traceback goes to the log it names); --dry-run: a PROBLEM found",
    2: "bad command line, config file or value; nothing was changed",
    3: "an input file could not be read; the line names the file and line",
    4: "the platform refused or failed a call; run the same command again",
    5: "the endpoint is closed (MTurk's production and sandbox, since 2026-09-30)",
    6: "over budget: the estimate and the shortfall are named; nothing was posted",
    7: "another run holds this campaign; wait for it to end",
    8: "incomplete: less work came in than planned ([campaign] accept_partial = true keeps it)",
    9: "a live batch is still open: not a failure; run the same command again later",
    10: "a batch is held for a person: one rule would reject or block most of its workers",
    130: "interrupted (Ctrl-C); the line gives the command that resumes",
    141: "the reader of the output went away (`| head`); a run still finishes its work",
    143: "stopped by SIGTERM (kill, systemd, Docker); the same command resumes",
}
# Any command: success, an unexpected failure, a bad command line or path, and a reader that left (141).
ALWAYS = (0, 1, 2, 141)
RUNS = (3, 4, 5, 6, 7, 8, 9, 10, 130, 143)
LEDGER_OPS = (4, 5, 7, 130)

# command path ("sim serve") -> (examples, exit codes beyond ALWAYS)
COMMANDS: dict[str, tuple[tuple[str, ...], tuple[int, ...]]] = {
    "": (("hitflow run config/vizwiz_captions.toml --no-prefect --limit 10",
          "hitflow status vizwiz_captions", "hitflow run --help"), RUNS),
    "run": (("hitflow run config/vizwiz_captions.toml --no-prefect --limit 10",
             "hitflow run config/vizwiz_captions.toml --platform prolific --dry-run",
             "hitflow run config/vizwiz_captions.toml --platform prolific --target prolific --live "
             "--task-url https://tasks.example.org"), RUNS),
    "new": (("hitflow new my_task", "hitflow new my_task --from old_hit.html"), ()),
    "preview": (("hitflow preview config/my_task.toml",
                 "hitflow preview config/my_task.toml --page 2 --out page2.html"), ()),
    "sim": (("hitflow sim serve --port 8765 --state runs/sim/served.db",), (130,)),
    "sim serve": (("hitflow sim serve --port 8765 --state runs/sim/served.db",
                   "hitflow sim serve --port 8765 --speed 600 --arrival-mean-s 45 --latency-ms 150 --rate-limit 50"),
                  (130,)),
    "serve": (("hitflow serve --campaign config/vizwiz_captions.toml --port 8080",
               "hitflow serve --campaign config/expert_rating.toml --invite ann --public-url https://tasks.example.org"),
              (130, 143)),
    "status": (("hitflow status", "hitflow status vizwiz_captions --json", "hitflow status vizwiz_captions --refresh"),
               (4,)),
    "reconcile": (("hitflow reconcile vizwiz_captions --dry-run", "hitflow reconcile vizwiz_captions"), LEDGER_OPS),
    "cancel": (("hitflow cancel vizwiz_captions --dry-run", "hitflow cancel vizwiz_captions --out runs/stopped"),
               LEDGER_OPS),
    "review": (("hitflow review vizwiz_captions --reviewer ana",
                "hitflow review vizwiz_captions --endpoint-url http://127.0.0.1:8765"), LEDGER_OPS),
    "ui": (("hitflow ui", "hitflow ui --db runs/hitflow.db --out runs --port 8770"), (130,)),
    "serve-schedules": (("hitflow serve-schedules config/vizwiz_captions.toml --endpoint-url http://127.0.0.1:8765",
                         "hitflow serve-schedules config/vizwiz_captions.toml --platform prolific --target prolific "
                         "--live --task-url https://tasks.example.org"), (4, 6, 130, 143)),
    "deploy": (("hitflow deploy config/vizwiz_captions.toml --endpoint-url http://127.0.0.1:8765",
                "hitflow deploy config/vizwiz_captions.toml --whole --endpoint-url http://127.0.0.1:8765 "
                "--pool hitflow-many"), (4,)),
    "qc": (("hitflow qc Batch_123_batch_results.csv --out flags.csv",
            "hitflow qc submissions.csv --out flags.csv --config config/vizwiz_captions.toml"), (3,)),
    "qualify": (("hitflow qualify score answers.csv --out scores.csv",), (3,)),
    "qualify score": (("hitflow qualify score answers.csv --out scores.csv",
                       "hitflow qualify score answers.csv --out scores.csv --key my_key.csv --threshold 75"), (3,)),
    "spellcheck": (("hitflow spellcheck captions.csv --out corrected.csv",), (3,)),
    "aggregate": (("hitflow aggregate labels.csv --out answers.csv",
                   "hitflow aggregate wsd.tsv --out answers.csv --method ds --columns unit,worker,sense --gold gold"),
                  (3,)),
    "verify": (("hitflow verify runs/vizwiz_captions",
                "hitflow verify runs/my_task --db runs/hitflow.db --json"), (1, 2)),
    "analyze": (("hitflow analyze agreement labels.csv --level ordinal",
                 "hitflow analyze screening data.csv --reader kreiss-2022"), (3,)),
}


def command_path(parser: argparse.ArgumentParser) -> str:
    """"hitflow sim serve" -> "sim serve" (argparse builds a subcommand's prog from its parents)."""
    return " ".join(parser.prog.split()[1:])


def epilog(path: str) -> str:
    """The examples and exit codes shown below a command's options."""
    examples, codes = COMMANDS[path]
    lines = ["examples:", *(f"  {line}" for line in examples), "", "exit codes:"]
    lines += [f"  {code:>3}  {EXIT_CODES[code]}" for code in sorted({*ALWAYS, *codes})]
    return "\n".join(lines)


def add_examples_and_exit_codes(parser: argparse.ArgumentParser) -> None:
    """Give ``parser`` and every subcommand under it their epilog (kept after an epilog of their own)."""
    own = parser.epilog
    parser.epilog = f"{own}\n\n{epilog(command_path(parser))}" if own else epilog(command_path(parser))
    parser.formatter_class = argparse.RawDescriptionHelpFormatter  # keep the lines as written
    for sub in subcommands(parser):
        add_examples_and_exit_codes(sub)


def subcommands(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    """The parsers of ``parser``'s subcommands, in the order they were added (no aliases)."""
    found: list[argparse.ArgumentParser] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            found += [p for p in dict.fromkeys(action.choices.values())]
    return found
