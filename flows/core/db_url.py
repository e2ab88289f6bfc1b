"""Where the ledger lives: an SQLite file path (the embedded default) or a ``postgresql://`` URL.

A URL may carry a password; it is shown only as ``***`` (errors, logs, status). libpq's own
``PGPASSWORD`` and ``~/.pgpass`` keep it out of the URL altogether, which docs/postgres.md advises.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import unquote, urlsplit, urlunsplit

POSTGRES_SCHEMES = ("postgresql://", "postgres://")  # the two URI schemes libpq accepts


def is_postgres_url(location: str | Path) -> bool:
    return isinstance(location, str) and location.lower().startswith(POSTGRES_SCHEMES)


def url_password(url: str) -> str:
    """The password written in ``url`` ("" when none), to keep it out of anything shown."""
    try:
        return urlsplit(url).password or ""
    except ValueError:
        return ""


def shown_location(location: str | Path) -> str:
    """``location`` as it may be printed: a URL's password (and query, which may hold one) as ***."""
    text = str(location)
    if not is_postgres_url(text):
        return text
    try:
        parts = urlsplit(text)
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        return f"{text.split('://', 1)[0]}://***"  # unparseable: show nothing that could be a secret
    user = f"{parts.username}:***@" if parts.password is not None else (f"{parts.username}@" if parts.username else "")
    return urlunsplit((parts.scheme, f"{user}{host}{port}", parts.path, "***" if parts.query else "", ""))


def password_to_environment(location: str) -> str:
    """``location`` without the password its URL carries, which goes to libpq's ``PGPASSWORD`` (unless
    set) instead: nothing hitflow then prints, logs or hands to Prefect as a parameter holds it."""
    password = url_password(location) if is_postgres_url(location) else ""
    if not password:
        return location
    os.environ.setdefault("PGPASSWORD", unquote(password))
    parts = urlsplit(location)
    user = f"{parts.username}@" if parts.username else ""
    host = parts.netloc.rsplit("@", 1)[1]
    return urlunsplit((parts.scheme, user + host, parts.path, parts.query, parts.fragment))


def deployable_ledger(location: str | Path) -> str:
    """``--db`` as a deployment keeps it for every worker: a URL as given, a file as an absolute path.
    A password in the URL is refused: Prefect stores and shows a deployment's parameters."""
    from flows.core.errors import ConfigError

    if not is_postgres_url(location):
        return str(Path(location).resolve())
    if url_password(str(location)):
        raise ConfigError("a deployment's --db must not carry a password (Prefect stores and shows its parameters): "
                          "give each worker PGPASSWORD or ~/.pgpass instead (docs/postgres.md)")
    return str(location)


def scrubbed(text: str, location: str | Path) -> str:
    """``text`` (e.g. a driver's error) with the URL's password replaced by ***, wherever it occurs."""
    password = url_password(str(location)) if is_postgres_url(location) else ""
    return text.replace(password, "***") if password else text
