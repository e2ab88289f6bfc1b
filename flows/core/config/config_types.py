"""Value types the config schema shares; money is a quoted string, never a float."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

CURRENCIES = ("USD", "GBP", "EUR")
_AMOUNT = re.compile(r"\d{1,9}(?:\.\d{1,2})?")
_BUDGET = re.compile(r"(\d{1,9}(?:\.\d{1,2})?) ?([A-Z]{3})")


def _amount(value: Any) -> Decimal:
    if isinstance(value, Decimal):
        return value
    if not isinstance(value, str):
        raise ValueError(f'must be a quoted amount such as "0.55" (got {value!r})')
    if not _AMOUNT.fullmatch(value.strip()):
        raise ValueError(f'must be an amount such as "0.55": digits, at most two decimals, not negative, '
                         f"NaN or Infinity (got {value!r})")
    return Decimal(value.strip())


def _rate(value: Any) -> Decimal:
    if not isinstance(value, str) or not re.fullmatch(r"\d{1,6}(?:\.\d{1,8})?", value.strip()):
        raise ValueError(f'must be a quoted exchange rate such as "1.27" (got {value!r})')
    rate = Decimal(value.strip())
    if rate <= 0:
        raise ValueError(f"must be above zero (got {value!r})")
    return rate


def parse_budget(text: str) -> tuple[Decimal, str]:
    """``"400.00 USD"`` -> (Decimal("400.00"), "USD"); ValueError names the expected shape."""
    m = _BUDGET.fullmatch(text.strip()) if isinstance(text, str) else None
    if m is None or m[2] not in CURRENCIES:
        raise ValueError(f'must be an amount and a currency such as "400.00 USD" ({", ".join(CURRENCIES)}; '
                         f"at most two decimals, not negative) (got {text!r})")
    return Decimal(m[1]), m[2]


def _budget(value: Any) -> str:
    parse_budget(value)
    return str(value).strip()


Money = Annotated[Decimal, BeforeValidator(_amount)]
Rate = Annotated[Decimal, BeforeValidator(_rate)]
BudgetText = Annotated[str, BeforeValidator(_budget)]
Share = Annotated[float, Field(ge=0, le=1, allow_inf_nan=False)]
Percent = Annotated[int, Field(ge=0, le=100)]
PositiveInt = Annotated[int, Field(ge=1)]
Count = Annotated[int, Field(ge=0)]
NonEmptyText = Annotated[str, Field(min_length=1, max_length=1000)]
RuleName = Annotated[str, Field(min_length=1, max_length=100)]


class Section(BaseModel):
    """A TOML table: strict types (no "5" for 5, no true for 1), unknown keys refused, frozen."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
