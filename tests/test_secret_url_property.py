"""No spelling of a PostgreSQL location shows its password, generated: any password, percent-encoded or not, in
the user part, the query (a pair libpq refuses too: ``?password%3DPW``, whose decoded text libpq's own error
quotes), an encoded user part (``hf%3APW@``, which libpq decodes whole) or libpq's keyword form. What hitflow
shows of the location, and libpq's error text about it once scrubbed, hold none of its forms."""

from __future__ import annotations

from urllib.parse import quote

import psycopg
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flows.core.db_url import deployable_ledger, parsed_ledger, scrubbed, shown_location
from flows.core.errors import ConfigError

SPELLINGS = (
    "postgresql://hf:{enc}@127.0.0.1:1/db", "postgresql://hf@127.0.0.1:1/db?password={enc}",
    "postgresql://hf@127.0.0.1:1/db?password%3D{enc}", "postgresql://hf%3A{enc}@127.0.0.1:1/db",
    "postgresql://hf@127.0.0.1:1/db?sslmode=disable&password%3D{enc}", "postgres://hf@127.0.0.1:1/db?pass%77ord={enc}",
    "postgresql://hf@127.0.0.1:1/db?sslpassword={enc}", "postgresql://hf@127.0.0.1:1/db?{enc}",
    "host=127.0.0.1 port=1 dbname=db password={raw}",
)
PASSWORDS = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc", "Zs", "Zl", "Zp")),
                    min_size=6, max_size=24).filter(lambda p: p.strip() == p and "'" not in p and "\\" not in p)


def _forms(pw: str) -> set[str]:
    return {pw, quote(pw, safe=""), quote(pw)}


@settings(max_examples=100, deadline=None)
@given(PASSWORDS, st.sampled_from(SPELLINGS))
def test_no_spelling_shows_any_password(pw: str, spelling: str) -> None:
    url = spelling.format(enc=quote(pw, safe=""), raw=pw)
    shown = shown_location(url)
    # what libpq may quote: the pair or the value, raw or decoded
    said = f'invalid URI query parameter: "{url.split("?")[-1]}" "password={pw}" user "hf:{pw}" "{pw}"'
    cleaned = scrubbed(said, url)
    for form in _forms(pw):
        assert form not in shown and form not in cleaned, (url, shown, cleaned)
    with pytest.raises(ConfigError):  # a deployment never stores a location that carries one
        deployable_ledger(url)


@pytest.mark.parametrize("url", ["postgresql://hf@127.0.0.1:1/db?password%3DS3ntinel75pw",
                                 "postgresql://hf%3AS3ntinel75pw@127.0.0.1:1/db"])
def test_libpq_s_own_error_text_is_scrubbed(url: str) -> None:
    """The two spellings that printed the password: libpq's message (its parse error, or a refused connection on
    port 1) through the scrubbing the ledger applies."""
    with pytest.raises(psycopg.Error) as got:
        psycopg.connect(parsed_ledger(url).conninfo, connect_timeout=2)
    assert "S3ntinel75pw" not in scrubbed(str(got.value), url) and "S3ntinel75pw" not in shown_location(url)
