"""Run many `aws` command lines in one process of the AWS CLI's own Python (it starts in ~1 s).

Run by the interpreter that owns the `aws` command, not hitflow's: it imports that CLI's
awscli and botocore. Reads a JSON list of argument lists on stdin, runs each as `aws ARGS`
does (awscli.clidriver's driver, as the `aws` script calls it) and writes, per command, its
exit code, stdout, stderr and the TurkErrorCode of any error reply (the CLI prints only the
error's type and message; the code is read from the CLI's parsed reply).
"""

import contextlib
import io
import json
import sys

from awscli.clidriver import create_clidriver

driver = create_clidriver()
codes = []
driver.session.register("after-call.mturk", lambda parsed, **_: codes.append(parsed.get("TurkErrorCode")))
results = []
for argv in json.load(sys.stdin):
    out, err = io.StringIO(), io.StringIO()
    codes.clear()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = driver.main(argv)
    results.append({"rc": rc, "stdout": out.getvalue(), "stderr": err.getvalue(), "codes": list(codes)})
json.dump(results, sys.__stdout__)
