"""flows/core/http_clients.py: one TLS context per process, and it still verifies. A real TLS server
on loopback with a self-signed certificate must be refused by hitflow's clients (and served to a
client that trusts that certificate, so the refusal is the verification, not a broken server)."""

from __future__ import annotations

import datetime
import ipaddress
import socket
import ssl
import threading
import urllib.error
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from flows.core.http_clients import http_client, http_get, tls_context
from flows.platforms.clock_line import call


def self_signed(folder: Path) -> tuple[Path, Path]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                           critical=False)
            .sign(key, hashes.SHA256()))
    cert_pem, key_pem = folder / "cert.pem", folder / "key.pem"
    cert_pem.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_pem.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                          serialization.NoEncryption()))
    return cert_pem, key_pem


@pytest.fixture
def tls_server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """``https://127.0.0.1:PORT`` answering 200 "ok" to whoever completes the handshake; its certificate."""
    cert_pem, key_pem = self_signed(tmp_path)
    served = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    served.load_cert_chain(cert_pem, key_pem)
    listener = socket.create_server(("127.0.0.1", 0))

    def answer() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:  # closed: the test is over
                return
            try:
                with served.wrap_socket(conn, server_side=True) as tls:
                    tls.recv(65536)
                    tls.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
            except (ssl.SSLError, OSError):  # the client refused our certificate
                conn.close()

    thread = threading.Thread(target=answer, daemon=True)
    thread.start()
    try:
        yield f"https://127.0.0.1:{listener.getsockname()[1]}/", cert_pem
    finally:
        listener.close()
        thread.join(5)


def test_the_shared_context_verifies_certificates_and_host_names() -> None:
    ctx = tls_context()
    assert ctx.verify_mode == ssl.CERT_REQUIRED and ctx.check_hostname
    assert ctx.cert_store_stats()["x509_ca"] > 0  # a CA bundle is loaded (certifi's, as httpx's default)
    assert tls_context() is ctx  # built once per process, not per client


def test_hitflow_clients_refuse_an_untrusted_certificate(tls_server: tuple[str, Path]) -> None:
    url, cert_pem = tls_server
    with pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
        http_get(url, timeout=10)
    with http_client(timeout=10) as client, pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
        client.get(url)
    with http_client(timeout=10, trust_env=False) as client, pytest.raises(httpx.ConnectError):
        client.get(url)
    with pytest.raises(urllib.error.URLError, match="CERTIFICATE_VERIFY_FAILED"):  # the simulator's line too
        call("GET", f"{url}_sim/health", None, 10)
    # the same server, to a client that trusts its certificate: it answers, so the refusals above are the check
    with httpx.Client(verify=ssl.create_default_context(cafile=str(cert_pem)), timeout=10) as trusting:
        assert trusting.get(url).text == "ok"


def test_a_client_cannot_turn_verification_off_or_change_the_shared_context() -> None:
    for option in ({"verify": False}, {"cert": "client.pem"}, {"http2": True}):
        with pytest.raises(TypeError, match="shared context"):
            http_client(**option)
