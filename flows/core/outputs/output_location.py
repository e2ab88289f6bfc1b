"""Where a run's folder goes (``--out``): a local folder or any fsspec URL."""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

from flows.core.db_url import deployable_ledger
from flows.core.errors import ConfigError

OUT_ENV = "HITFLOW_OUT"  # the output root when --out is not given (as HITFLOW_DB for --db)
STAGING_ENV = "HITFLOW_STAGING"  # where a URL's local staging folders go (default runs/staging)
DEFAULT_OUT = "runs"
# fsspec's names for a user and a secret: s3fs calls them key and secret, the others username and password
CREDENTIAL_NAMES = {"s3": ("key", "secret"), "s3a": ("key", "secret")}


# a URL's query names whose value is a credential, moved to fsspec's settings as the user part is
QUERY_SECRETS = {"token", "sig", "signature", "sas_token", "password", "secret", "key", "access_key", "secret_key",
                 "account_key", "api_key", "apikey", "auth", "credential", "credentials", "client_secret",
                 "x-amz-signature", "x-amz-credential", "x-amz-security-token", "x-goog-signature", "session_token"}
_PROTOCOL = r"[A-Za-z][A-Za-z0-9+.-]*"
# fsspec's URLs, chained ones too: simplecache::s3://bucket/runs, zip://x::file:///a.zip
_OUTPUT_URL = re.compile(rf"^(?:{_PROTOCOL}(?:://[^:]*)?::)*{_PROTOCOL}://")


def is_output_url(out: str | Path) -> bool:
    """An fsspec URL (``protocol://...``, or a chain ``simplecache::s3://...``); anything else is a folder."""
    return isinstance(out, str) and _OUTPUT_URL.match(out.strip()) is not None


def protocol(url: str) -> str:
    """The outer protocol of a URL or chain (``simplecache`` for ``simplecache::s3://...``)."""
    return re.split(r"://|::", url.strip(), maxsplit=1)[0].lower()


def protocols(url: str) -> list[str]:
    """Every protocol of a chain, outer first."""
    return [segment.split("://", 1)[0].lower() for segment in url.strip().split("::")]


def unescaped_user_part(url: str) -> bool:
    """A user part with ``/``, ``?`` or ``#`` left raw is refused, shown as its protocol only."""
    for segment in url.strip().split("::"):
        head, at, _ = segment.split("://", 1)[-1].rpartition("@")
        if at and ((":" in head and any(c in head for c in "/?#")) or "://" not in segment):
            return True  # ... or a '::' in the password, which splits the chain there
    return False


def _shown_segment(segment: str) -> str:
    if "://" not in segment:
        return segment
    parts = urlsplit(segment)
    host = parts.netloc.rsplit("@", 1)[-1]
    user = "***@" if "@" in parts.netloc else ""
    return _joined(parts.scheme, user + host, parts.path, "***" if parts.query else "", "")


def _joined(scheme: str, netloc: str, path: str, query: str, fragment: str) -> str:
    """A URL from its parts, keeping ``//`` when the host is empty (``file:///a``: urlunsplit drops it)."""
    return f"{scheme}://{netloc}{path}" + (f"?{query}" if query else "") + (f"#{fragment}" if fragment else "")


def shown_output(out: str | Path) -> str:
    """``out`` as it may be printed: a URL's user part (credentials) and query as ``***``."""
    text = str(out)
    if not is_output_url(text):
        return text
    if unescaped_user_part(text):
        return f"{protocol(text)}://***"
    try:
        return "::".join(_shown_segment(segment) for segment in text.strip().split("::"))
    except ValueError:
        return f"{protocol(text)}://***"  # unparseable: show nothing that could be a secret


def _segment_credentials(segment: str) -> tuple[str, list[tuple[str, str, str]]]:
    """One URL of a chain without its credentials, and the (protocol, fsspec option, value) settings they become."""
    if "://" not in segment:
        return segment, []
    parts = urlsplit(segment)
    name = parts.scheme.lower()
    found: list[tuple[str, str, str]] = []
    host = parts.netloc
    if "@" in parts.netloc:
        userinfo, host = parts.netloc.rsplit("@", 1)
        user, _, password = userinfo.partition(":")
        found += [(name, option, unquote(value)) for option, value in zip(credential_names(name), (user, password),
                                                                          strict=True) if value]
    kept = []
    for pair in parts.query.split("&") if parts.query else []:
        key, _, value = pair.partition("=")
        if unquote(key).strip().lower() in QUERY_SECRETS:
            found.append((name, unquote(key).strip().lower().replace("-", "_"), unquote(value)))
        else:
            kept.append(pair)
    if not found:
        return segment, []
    return _joined(parts.scheme, host, parts.path, "&".join(kept), parts.fragment), found


def _split_credentials(url: str) -> tuple[str, list[tuple[str, str, str]]]:
    """``url`` (a chain's every URL) without credentials, and the fsspec settings they become."""
    if unescaped_user_part(url):
        raise ConfigError(f"--out {shown_output(url)}: the URL's user part holds a '/', '?', '#' or '::' as it is; "
                          "write them as %2F, %3F, %23, %3A, or leave the credentials out of the URL and set them "
                          f"as FSSPEC_{protocol(url).upper()}_* (docs/security.md)")
    if "#" in url:  # it was kept in the staging folder's name and the ledger, and may hold a token
        raise ConfigError(f"--out {shown_output(url.split('#')[0])}: the URL holds a '#'; a fragment is read by no "
                          "storage (and would be kept in the staging folder's name and the ledger): leave it out")
    segments, found = [], []
    try:
        for segment in url.strip().split("::"):
            bare, settings = _segment_credentials(segment)
            segments.append(bare)
            found += settings
    except ValueError as exc:
        raise ConfigError(f"--out {shown_output(url)} is not a URL fsspec can read; give a folder or a URL "
                          "such as s3://bucket/runs") from exc
    return "::".join(segments), found


def without_credentials(out: str | Path) -> str | Path:
    """``out`` as it is used, stored and passed on: a URL without its user part and credential query."""
    return _split_credentials(str(out))[0] if is_output_url(out) else out


def has_credentials(out: str | Path) -> bool:
    return is_output_url(out) and bool(_split_credentials(str(out))[1])


def credentials_to_fsspec(out: str) -> str:
    """``out`` without its URL's credentials, which go to fsspec's settings; a setting made before wins."""
    if not is_output_url(out):
        return out
    bare, found = _split_credentials(out)
    for name, option, value in found:
        os.environ.setdefault(f"FSSPEC_{name.upper()}_{option.upper()}", value)
        credentials_as_text(name, (option,))
    return bare


def credential_names(name: str) -> tuple[str, str]:
    return CREDENTIAL_NAMES.get(name, ("username", "password"))


def credentials_as_text(name: str, options: tuple[str, ...] = ()) -> None:
    """fsspec's user and secret settings for protocol ``name`` as text; a text setting made before is kept."""
    import fsspec.config

    settings = fsspec.config.conf.setdefault(name, {})
    for option in options or credential_names(name):
        value = os.environ.get(f"FSSPEC_{name.upper()}_{option.upper()}")
        if value is not None and not isinstance(settings.get(option), str):
            settings[option] = value


def chosen_output(given: str | None, configured: str = "") -> str:
    """The output root: ``--out``, else ``$HITFLOW_OUT``, else the config's ``[target] out``, else runs/."""
    chosen = given or os.environ.get(OUT_ENV) or configured or DEFAULT_OUT
    return chosen.strip() if is_output_url(chosen) else chosen  # " s3://..." is a URL, not a folder


def staging_root(out: str | Path) -> Path:
    """The local folder a run writes into: ``out`` itself, else one of its own per URL."""
    if not is_output_url(out):
        return Path(out)
    bare = str(without_credentials(out))
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", bare).strip("-")[:60]
    digest = hashlib.sha256(bare.encode()).hexdigest()[:10]
    return Path(os.environ.get(STAGING_ENV) or Path(DEFAULT_OUT, "staging")) / f"{name}-{digest}"


def stored_output(out: str | Path) -> str:
    """``out`` as the ledger keeps it: a folder as an absolute path, a URL without credentials."""
    return str(without_credentials(out)) if is_output_url(out) else str(Path(out).resolve())


def deployable_locations(db_path: str | Path, out_root: str | Path) -> dict[str, str]:
    """A deployment's ledger and output root, absolute or URLs; credentials in either are refused."""
    if has_credentials(out_root):
        raise ConfigError("a deployment's --out must not carry credentials (Prefect stores and shows its "
                          "parameters): give each worker FSSPEC_S3_KEY and FSSPEC_S3_SECRET (or the protocol's "
                          "own settings) instead (docs/how-to/work-pools-several-hosts.md)")
    return {"db_path": deployable_ledger(db_path), "out_root": stored_output(out_root)}
