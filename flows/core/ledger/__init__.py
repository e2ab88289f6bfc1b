"""The ledger: every platform call, answer, flag and decision of a campaign."""

from flows.core.ledger.sqlite_utils_import import import_without_pandas

import_without_pandas()
