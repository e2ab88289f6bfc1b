"""``python -m flows.cli``: the same as the ``hitflow`` command."""

import sys

from flows.cli.main import main

sys.exit(main())
