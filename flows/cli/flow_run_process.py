"""A flow run of a ``hitflow deploy`` deployment, as the process a Prefect process worker starts for it
(the deployment's ``command`` job variable: flows/driver/campaign_flow.py's ``FLOW_RUN_COMMAND``).

It is ``python -m prefect.engine``, the worker's default, with what a ``hitflow`` command does around
it (flows/cli/process_life.py): imports with the cyclic collector off and then frozen, and no interpreter
teardown once the engine has reported the run's final state and every exit handler ran. A deployment
with a command of its own is started by the worker directly, without Prefect 3.8's workspace supervisor:
the engine runs the deployment's pull steps itself.

    python -m flows.cli.flow_run_process [FLOW_RUN_ID]     # else $PREFECT__FLOW_RUN_ID, as the engine
"""

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
