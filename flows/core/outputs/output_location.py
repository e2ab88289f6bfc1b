"""Where a run's folder goes (``--out``): a local folder, the default, or any fsspec URL
(``s3://bucket/runs``, ``file:///mnt/shared/runs``...), so a worker on one host writes where the
operator on another reads.

A run always writes a local folder (its *staging* folder: the folder itself when ``--out`` is one,
else ``runs/staging/<the URL as a name>``, or under ``$HITFLOW_STAGING``), so every writer, the
report's relative links and the atomic renames stay as they are; flows/core/outputs/output_mirror.py
copies it to the URL at each batch's end and at the run's end.

A URL may carry credentials (``s3://KEY:SECRET@bucket/runs``, ``sftp://user:pw@host/runs``). They are
taken out of it at once and handed to fsspec's own configuration for that protocol (``FSSPEC_S3_KEY``
and ``FSSPEC_S3_SECRET`` for S3: not ``AWS_*``, which are MTurk's, see docs/security.md), so the URL
that is used, stored in the ledger, passed to Prefect and shown never holds them; a shown URL masks
its user part and query as ``***`` (as flows/core/db_url.py does for a ledger's password).
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path
from urllib.parse import unquote, urlsplit, urlunsplit

from flows.core.db_url import deployable_ledger
from flows.core.errors import ConfigError

OUT_ENV = "HITFLOW_OUT"  # the output root when --out is not given (as HITFLOW_DB for --db)
STAGING_ENV = "HITFLOW_STAGING"  # where a URL's local staging folders go (default runs/staging)
DEFAULT_OUT = "runs"
# fsspec's names for a user and a secret: s3fs calls them key and secret, the others username and password
CREDENTIAL_NAMES = {"s3": ("key", "secret"), "s3a": ("key", "secret")}


def is_output_url(out: str | Path) -> bool:
    """An fsspec URL (``protocol://...``); anything else is a local folder."""
    return isinstance(out, str) and re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://", out) is not None


def protocol(url: str) -> str:
    return url.split("://", 1)[0].lower()


def unescaped_user_part(url: str) -> bool:
    """A user part with ``/``, ``?`` or ``#`` left as it is (``s3://KEY:SE/CRET@bucket``, an AWS secret
    often holds ``/``): the host then ends there and the secret reads as the path: shown, stored, and
    made a folder name. Such a URL is refused, and shown as its protocol only."""
    head, at, _ = url.split("://", 1)[-1].rpartition("@")
    return bool(at) and ":" in head and any(c in head for c in "/?#")


def shown_output(out: str | Path) -> str:
    """``out`` as it may be printed: a URL's user part (credentials) and query as ``***``."""
    text = str(out)
    if not is_output_url(text):
        return text
    if unescaped_user_part(text):
        return f"{protocol(text)}://***"
    try:
        parts = urlsplit(text)
    except ValueError:
        return f"{protocol(text)}://***"  # unparseable: show nothing that could be a secret
    host = parts.netloc.rsplit("@", 1)[-1]
    user = "***@" if "@" in parts.netloc else ""
    return urlunsplit((parts.scheme, user + host, parts.path, "***" if parts.query else "", ""))


def _split_credentials(url: str) -> tuple[str, str, str]:
    """``url`` without its user part, and the user and password it held ("" when none)."""
    if unescaped_user_part(url):
        raise ConfigError(f"--out {shown_output(url)}: the URL's user part holds a '/', '?' or '#' as it is; "
                          "write them as %2F, %3F, %23, or leave the credentials out of the URL and set them "
                          f"as FSSPEC_{protocol(url).upper()}_* (docs/security.md)")
    try:
        parts = urlsplit(url)
    except ValueError as exc:
        raise ConfigError(f"--out {shown_output(url)} is not a URL fsspec can read; give a folder or a URL "
                          "such as s3://bucket/runs") from exc
    if "@" not in parts.netloc:
        return url, "", ""
    userinfo, host = parts.netloc.rsplit("@", 1)
    user, _, password = userinfo.partition(":")
    return urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment)), unquote(user), unquote(password)


def without_credentials(out: str | Path) -> str | Path:
    """``out`` as it is used, stored and passed on: a URL without its user part."""
    return _split_credentials(str(out))[0] if is_output_url(out) else out


def has_credentials(out: str | Path) -> bool:
    return is_output_url(out) and without_credentials(out) != out


def credentials_to_fsspec(out: str) -> str:
    """``out`` without the credentials its URL carries, which go to fsspec's configuration for the
    protocol instead (this process, and through ``FSSPEC_<PROTOCOL>_<NAME>`` the flow runs and
    workers it starts); a setting made before wins, as ``PGPASSWORD`` does for the ledger."""
    if not is_output_url(out):
        return out
    bare, user, password = _split_credentials(out)
    if not (user or password):
        return bare
    name = protocol(out)
    for option, value in zip(credential_names(name), (user, password), strict=True):
        if value:
            os.environ.setdefault(f"FSSPEC_{name.upper()}_{option.upper()}", value)
    credentials_as_text(name)
    return bare


def credential_names(name: str) -> tuple[str, str]:
    return CREDENTIAL_NAMES.get(name, ("username", "password"))


def credentials_as_text(name: str) -> None:
    """fsspec's settings for protocol ``name``'s user and secret as text: as the environment holds them
    where fsspec has none or has made them something else. fsspec reads every ``FSSPEC_*`` value as
    JSON when it is imported (fsspec/config.py, set_conf_env), so an all-digit secret became a number
    (``true`` a bool), which no signer takes: in a worker or flow run that inherited the variables, and
    for an operator who exported them. A text setting made before (an fsspec config file) is kept."""
    import fsspec.config

    settings = fsspec.config.conf.setdefault(name, {})
    for option in credential_names(name):
        value = os.environ.get(f"FSSPEC_{name.upper()}_{option.upper()}")
        if value is not None and not isinstance(settings.get(option), str):
            settings[option] = value


def chosen_output(given: str | None, configured: str = "") -> str:
    """The output root: ``--out``, else ``$HITFLOW_OUT``, else the config's ``[target] out``, else runs/."""
    return given or os.environ.get(OUT_ENV) or configured or DEFAULT_OUT


def staging_root(out: str | Path) -> Path:
    """The local folder a run writes into: ``out`` itself when it is a folder, else one of its own
    per URL (a name made from the URL, so two URLs never share one)."""
    if not is_output_url(out):
        return Path(out)
    bare = str(without_credentials(out))
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", bare).strip("-")[:60]
    digest = hashlib.sha256(bare.encode()).hexdigest()[:10]
    return Path(os.environ.get(STAGING_ENV) or Path(DEFAULT_OUT, "staging")) / f"{name}-{digest}"


def stored_output(out: str | Path) -> str:
    """``out`` as the ledger keeps it (where ``hitflow cancel`` exports to): a folder as an absolute
    path, a URL without credentials."""
    return str(without_credentials(out)) if is_output_url(out) else str(Path(out).resolve())


def deployable_locations(db_path: str | Path, out_root: str | Path) -> dict[str, str]:
    """A deployment's ledger and output root, as every worker will use them (absolute paths, URLs as
    given). Credentials in either are refused: Prefect stores and shows a deployment's parameters."""
    if has_credentials(out_root):
        raise ConfigError("a deployment's --out must not carry credentials (Prefect stores and shows its "
                          "parameters): give each worker FSSPEC_S3_KEY and FSSPEC_S3_SECRET (or the protocol's "
                          "own settings) instead (docs/how-to/work-pools-several-hosts.md)")
    return {"db_path": deployable_ledger(db_path), "out_root": stored_output(out_root)}
