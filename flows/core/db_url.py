"""Where the ledger lives: an SQLite path or a PostgreSQL location, its password kept out of sight."""

from __future__ import annotations

import os
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

# the first 16 bytes of every SQLite 3 file; here so `hitflow run`'s option check needs no pandas
SQLITE_MAGIC = b"SQLite format 3\x00"

# libpq's two URI schemes, and SQLAlchemy's with a driver name (postgresql+psycopg://, +psycopg2, +asyncpg)
_URI = re.compile(r"^(postgres(?:ql)?)(\+[A-Za-z0-9_]+)?://", re.IGNORECASE)
# libpq's connection keywords, every one (PostgreSQL 18): a string starting with one is no file name
_KEYWORDS = ("host", "hostaddr", "port", "dbname", "user", "password", "passfile", "require_auth",
             "channel_binding", "connect_timeout", "client_encoding", "options", "application_name",
             "fallback_application_name", "keepalives", "keepalives_idle", "keepalives_interval",
             "keepalives_count", "tcp_user_timeout", "replication", "gssencmode", "sslmode", "requiressl",
             "sslnegotiation", "sslcompression", "sslcert", "sslkey", "sslpassword", "sslcertmode", "sslrootcert",
             "sslcrl", "sslcrldir", "sslsni", "requirepeer", "ssl_min_protocol_version",
             "ssl_max_protocol_version", "krbsrvname", "gsslib", "gssdelegation", "service",
             "target_session_attrs", "load_balance_hosts", "oauth_issuer", "oauth_client_id",
             "oauth_client_secret", "oauth_scope")
_KEYWORD_FORM = re.compile(r"^(?:{})\s*=".format("|".join(_KEYWORDS)), re.IGNORECASE)
# ... or starting with another word= yet naming one further on: a mistyped connection string
_SOME_KEYWORD = re.compile(r"^\w+\s*=.*?(?:^|\s)(?:{})\s*=".format("|".join(_KEYWORDS)), re.IGNORECASE | re.S)
# a PostgreSQL URI missing its "//" ("postgresql:/u:p@h/db", "postgres:u:p@h"): refused, not a file name
_MISTYPED_URI = re.compile(r"^postgres(?:ql)?(?:\+[A-Za-z0-9_]+)?:(?!//)", re.IGNORECASE)
# Any other text that starts like a URL (any scheme, then ":" and "/"), or "word:...@": a password may be in it.
_SOME_URI = re.compile(r"^[a-z][a-z0-9+.\-\s]*(?::\s*[a-z][a-z0-9+.\-\s]*)*:\s*/", re.IGNORECASE)
_SOME_USERINFO = re.compile(r"^[a-z0-9_.+\-\s]+:[^@]*@", re.IGNORECASE)
# ... or "//user:password@" anywhere (a scheme with a look-alike character, or after a folder's name)
_USERINFO_ANYWHERE = re.compile(r"//[^/\s]*:[^/\s]*@")
# ... or like a connection string with mistyped words: two "word=", or a secret's name in any spelling
_SOME_PAIRS = re.compile(r"^\s*\w+\s*=.*\s\w+\s*=", re.S)
_SECRET_WORD = re.compile(r"\b(?:pa?s{1,2}\w*|pw\w*|\w*secret\w*|\w*token\w*)\s*=", re.IGNORECASE)
# a value: quoted (backslash escapes), an unterminated quote to the end (all of it may be the secret), or a word
_KEYWORD_PAIR = re.compile(r"(\w+)\s*=\s*('(?:[^'\\]|\\.)*'|'.*|[^\s']*)", re.S)
SECRET_KEYWORDS = ("password", "sslpassword", "oauth_client_secret")  # libpq options whose value is a secret


@dataclass(frozen=True)
class LedgerUrl:
    """A PostgreSQL location split into what may be used and shown, and its password."""

    conninfo: str  # what libpq is given, with no secret in it
    password: str  # decoded, "" when none
    shown: str  # what may be printed
    secrets: tuple[str, ...]  # every form the secret took in the text typed (raw and decoded), to scrub


def is_postgres_url(location: str | Path) -> bool:
    """Whether ``location`` is a PostgreSQL location libpq reads (a URI or a keyword connection string)."""
    if not isinstance(location, str):
        return False
    text = location.strip()
    if _URI.match(text):
        return True
    return bool(_KEYWORD_FORM.match(text) or _SOME_KEYWORD.match(text)) and all(  # every keyword one libpq knows
        name.lower() in _KEYWORDS for name, _ in _KEYWORD_PAIR.findall(text))


def mistyped_postgres_url(location: str | Path) -> bool:
    """Whether ``location`` starts like a PostgreSQL location libpq cannot read: refused, never shown or logged."""
    if not isinstance(location, str) or is_postgres_url(location):
        return False
    patterns = (_MISTYPED_URI, _SOME_URI, _SOME_USERINFO, _SOME_PAIRS, _KEYWORD_FORM, _SOME_KEYWORD)
    # as typed, and with compatibility characters read as ASCII (a CJK keyboard's full-width "：" and "／")
    return any(any(p.match(text) for p in patterns) or bool(_SECRET_WORD.search(text) or
                                                              _USERINFO_ANYWHERE.search(text))
               for text in {location.strip(), unicodedata.normalize("NFKC", location).strip()})


def parsed_ledger(location: str) -> LedgerUrl:
    """``location`` (a PostgreSQL URI or keyword string) split; never raises, whatever the text."""
    text = location.strip()
    if _URI.match(text):
        return _parsed_uri(text)
    return _parsed_keywords(text)


def _user_part(rest: str) -> tuple[str, str]:
    """The user part (``user:password``) of a URI after its ``://`` (to the last '@' before the query), the rest."""
    query_at = rest.find("?")
    at = rest.rfind("@", 0, query_at if query_at >= 0 else len(rest))
    if at >= 0:
        return rest[:at], rest[at + 1:]
    head, found, tail = rest.partition("@")
    if found and ":" in re.split(r"[/?]", head, maxsplit=1)[0]:  # user:pass?word@host: a raw '?' in it
        return head, tail
    return "", rest


def _parsed_uri(text: str) -> LedgerUrl:
    rest = text[_URI.match(text).end():]  # type: ignore[union-attr]
    userinfo, after = _user_part(rest)
    user, colon, raw_password = userinfo.partition(":")
    where, question, query = after.partition("?")
    kept: list[tuple[str, str, str]] = []
    query_secrets: list[tuple[str, str, str]] = []
    unread: list[str] = []  # pairs libpq refuses, which its error quotes decoded ("password%3DPW"): all secret
    for pair in query.split("&") if question else []:
        name, eq, value = pair.partition("=")
        key = unquote(name).strip().lower()
        (query_secrets if key in SECRET_KEYWORDS else kept).append((pair, key, value))
        if key not in SECRET_KEYWORDS and (not eq or key not in _KEYWORDS):
            unread += [pair, unquote(pair), value, unquote(value), unquote(pair).partition("=")[2]]
    password = unquote(raw_password) or next((unquote(v) for _, k, v in query_secrets if k == "password"), "")
    secrets = [raw_password, unquote(raw_password)] + [form for _, _, v in query_secrets for form in (v, unquote(v))]
    secrets += unread
    user_at = f"{user}@" if user else ""
    conninfo = f"postgresql://{user_at}{where}" + ("?" + "&".join(p for p, _, _ in kept) if kept else "")
    shown_user = f"{user}:***@" if colon else user_at
    if ":" in unquote(user):  # "hf%3APW": libpq decodes the user part whole, a password inside it
        secrets += [user, unquote(user), unquote(user).partition(":")[2]]
        shown_user = "***@"
    shown = f"postgresql://{shown_user}{where.split('#')[0]}" + ("?***" if question else "")
    return LedgerUrl(conninfo, password, shown, tuple(s for s in secrets if s))


def _parsed_keywords(text: str) -> LedgerUrl:
    kept, shown, secrets, password = [], [], [], ""
    for name, value in _KEYWORD_PAIR.findall(text):
        if name.lower() in SECRET_KEYWORDS:
            plain = re.sub(r"\\(.)", r"\1", value[1:-1] if value.endswith("'") else value[1:]) \
                if value.startswith("'") else value
            password = password or (plain if name.lower() == "password" else "")
            secrets += [value, plain]
            shown.append(f"{name}=***")
        elif name.lower() not in _KEYWORDS:  # "pasword=x" may be a secret misspelt (is_postgres_url refuses it)
            secrets += [value, value.strip("'")]
            shown.append(f"{name}=***")
        else:
            kept.append(f"{name}={value}")
            shown.append(kept[-1])
    if not kept and not secrets:  # nothing libpq could read: show none of it
        return LedgerUrl(text, "", "postgresql (unreadable connection string)", (text,))
    rest = _KEYWORD_PAIR.sub("", text).strip()
    secrets += [rest] if rest else []  # a stray word (a password with a space, unquoted) may be a secret
    return LedgerUrl(" ".join(kept), password, " ".join(shown), tuple(s for s in secrets if s))


MISTYPED_SHOWN = "(a location that starts like a URL or connection string, not shown: it may hold a password)"
MISTYPED_ADVICE = ("starts like a URL or connection string but is none libpq reads (not shown: it may hold a "
                   "password): write postgresql://USER@HOST:PORT/DBNAME (two slashes after the colon) or libpq's "
                   "keywords (host=... dbname=...), or an SQLite file's path")


def shown_location(location: str | Path) -> str:
    """``location`` as it may be printed: a URL's password and query as ***."""
    text = str(location)
    if mistyped_postgres_url(text):
        return MISTYPED_SHOWN
    return parsed_ledger(text).shown if is_postgres_url(text) else text


def password_to_environment(location: str) -> str:
    """``location`` for libpq without its password, which goes to ``PGPASSWORD`` (unless set)."""
    if not is_postgres_url(location):
        return location
    parsed = parsed_ledger(location)
    if parsed.password:
        os.environ.setdefault("PGPASSWORD", parsed.password)
    return parsed.conninfo


def deployable_ledger(location: str | Path) -> str:
    """``--db`` as a deployment keeps it (a file as an absolute path); a password in the URL is refused."""
    from flows.core.errors import ConfigError

    if mistyped_postgres_url(location):
        raise ConfigError(f"a deployment's --db {MISTYPED_ADVICE}")
    if not is_postgres_url(location):
        return str(Path(location).resolve())
    parsed = parsed_ledger(str(location))
    if parsed.secrets:
        raise ConfigError("a deployment's --db must not carry a password (Prefect stores and shows its parameters): "
                          "give each worker PGPASSWORD or ~/.pgpass instead (docs/postgres.md)")
    return parsed.conninfo


def scrubbed(text: str, location: str | Path) -> str:
    """``text`` with every form of the location's password, and the location as typed, made showable."""
    if mistyped_postgres_url(location):
        return text.replace(str(location).strip(), MISTYPED_SHOWN).replace(str(location), MISTYPED_SHOWN)
    if not is_postgres_url(location):
        return text
    parsed = parsed_ledger(str(location))
    text = text.replace(str(location).strip(), parsed.shown)
    for secret in sorted(parsed.secrets, key=len, reverse=True):
        text = text.replace(secret, "***")
    return text
