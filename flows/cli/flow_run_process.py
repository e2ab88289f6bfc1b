"""A ``hitflow deploy`` flow run's process: ``python -m prefect.engine`` with hitflow's process care."""

from __future__ import annotations

import runpy
import warnings

from flows.cli.process_life import finish_without_teardown, loaded_then_frozen


def main() -> None:
    with loaded_then_frozen(thaw=False) as loaded:
        import prefect.flow_engine  # noqa: F401  (the engine's own imports; it imports prefect.engine)

        import flows.driver.campaign_flow  # noqa: F401  (the deployment's entrypoint, loaded by the engine)

        loaded()
    code: object = 0
    try:
        with warnings.catch_warnings():  # runpy's note that prefect.engine is imported already: it is, above
            warnings.filterwarnings("ignore", category=RuntimeWarning, module="runpy")
            runpy.run_module("prefect.engine", run_name="__main__", alter_sys=True)
    except SystemExit as exc:  # the engine's exit(0) after an abort or pause, exit(1) after an error
        code = exc.code
    finish_without_teardown(code if isinstance(code, int) else 0 if code is None else 1)


if __name__ == "__main__":
    main()
