"""flapjack_py.oncall.ical_fetch: which addresses are refused, the connection pinned to the address checked, redirects
re-checked, one deadline for the whole fetch, the size cap, and failures that name no path, query or body.

Every server here is on 127.0.0.1; public places are faked by a resolver that answers a public address and an
opener that, asked for that address, connects to the local server instead (and records what it was asked).
"""

from __future__ import annotations

import base64
import datetime
import ipaddress
import socket
import ssl
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from flapjack_py.errors import FetchError
from flapjack_py.oncall.ical_fetch import MAX_REDIRECTS, address_refusal, checked_target, fetch, origin, resolve_host
from tests.calendar_server import CalendarServer, drip, redirect, reply, serving, silent

PUBLIC = "93.184.216.34"
CALENDAR = b"BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n"
SECRET = b"SECRET_INTERNAL_TOKEN=hunter2"


@pytest.fixture
def server() -> Iterator[CalendarServer]:
    with serving() as found:
        yield found


class Network:
    """A fake DNS (name -> addresses, each lookup recorded; other names the system's) and an opener that reaches the local server
    whatever public address it is asked for (recording it)."""

    def __init__(self, port: int, names: dict[str, list[str]]) -> None:
        self.port, self.names = port, names
        self.looked_up: list[str] = []
        self.opened: list[tuple[str, int]] = []

    def resolve(self, host: str, port: int) -> list[str]:
        self.looked_up.append(host)
        return self.names[host] if host in self.names else resolve_host(host, port)

    def open(self, address: tuple[str, int], timeout: float) -> socket.socket:
        self.opened.append(address)
        return socket.create_connection(("127.0.0.1", self.port), timeout)


def fetched(url: str, network: Network | None = None, **over: object) -> bytes:
    options: dict = {"allow_private": False, "max_bytes": 1000, "timeout": 5.0, **over}
    if network is not None:
        options.update(resolve=network.resolve, open_socket=network.open)
    return fetch(url, **options)


# --- address classification -------------------------------------------------------


@pytest.mark.parametrize(("address", "kind"), [
    ("10.1.2.3", "private"), ("172.16.0.1", "private"), ("172.31.255.254", "private"), ("192.168.1.1", "private"),
    ("169.254.169.254", "link-local"), ("127.0.0.1", "loopback"), ("127.9.9.9", "loopback"), ("::1", "loopback"),
    ("fe80::1", "link-local"), ("::ffff:127.0.0.1", "loopback"), ("::ffff:10.0.0.1", "private"),
    ("::ffff:169.254.169.254", "link-local"), ("224.0.0.1", "multicast"), ("239.1.2.3", "multicast"),
    ("ff02::1", "multicast"), ("0.0.0.0", "unspecified"), ("::", "unspecified"), ("fc00::1", "private"),
    ("fd12:3456::1", "private"), ("100.64.0.1", "non-global"), ("255.255.255.255", "private"),
    ("2002:7f00:1::1", "loopback"),  # 6to4 of 127.0.0.1
    ("64:ff9b::a00:1", "private"),  # NAT64 of 10.0.0.1
])
def test_internal_addresses_are_refused(address: str, kind: str) -> None:
    assert address_refusal(ipaddress.ip_address(address)) == kind


@pytest.mark.parametrize("address", [PUBLIC, "8.8.8.8", "1.1.1.1", "2606:4700::1111", "::ffff:8.8.8.8"])
def test_public_addresses_are_allowed(address: str) -> None:
    assert address_refusal(ipaddress.ip_address(address)) is None


def test_a_name_with_any_internal_address_is_refused_unless_private_urls_are_allowed() -> None:
    names = {"calendar.example": [PUBLIC], "mixed.example": [PUBLIC, "10.0.0.7"]}
    assert checked_target("https://calendar.example/x.ics", False, lambda h, p: names[h]).addresses == (PUBLIC,)
    with pytest.raises(FetchError, match=r"10\.0\.0\.7 is a private address"):
        checked_target("https://mixed.example/x.ics", False, lambda h, p: names[h])
    assert checked_target("https://mixed.example/x.ics", True, lambda h, p: names[h]).addresses == (PUBLIC, "10.0.0.7")
    with pytest.raises(FetchError, match="loopback"):
        checked_target("http://localhost:1/x.ics", False)  # the system's resolver
    with pytest.raises(FetchError, match="not an http"):
        checked_target("file:///etc/passwd", True)


# --- fetching ---------------------------------------------------------------------


def test_a_loopback_url_is_refused_before_any_connection(server: CalendarServer) -> None:
    server.route("/cal.ics", reply(SECRET))
    with pytest.raises(FetchError, match="loopback") as refused:
        fetched(server.url("/cal.ics?token=abc"))
    assert server.seen == []
    assert "cal.ics" not in str(refused.value) and "token" not in str(refused.value)
    assert fetched(server.url("/cal.ics"), allow_private=True) == SECRET and len(server.seen) == 1


def test_the_connection_goes_to_the_address_checked_with_the_urls_host(server: CalendarServer) -> None:
    server.route("/cal.ics", reply(CALENDAR))
    network = Network(server.port, {"calendar.example": [PUBLIC]})
    assert fetched(f"http://calendar.example:{server.port}/cal.ics?token=abc", network) == CALENDAR
    assert network.opened == [(PUBLIC, server.port)] and network.looked_up == ["calendar.example"]
    assert server.seen[0].path == "/cal.ics?token=abc"
    assert server.seen[0].headers["Host"] == f"calendar.example:{server.port}"


def test_the_host_is_looked_up_once_so_a_second_answer_cannot_move_the_connection(server: CalendarServer) -> None:
    server.route("/cal.ics", reply(CALENDAR))
    network = Network(server.port, {})
    answers = iter([[PUBLIC], ["127.0.0.1"]])
    network.resolve = lambda host, port: next(answers)  # type: ignore[method-assign]
    assert fetched(f"http://rebind.example:{server.port}/cal.ics", network) == CALENDAR
    assert network.opened == [(PUBLIC, server.port)]


def test_a_redirect_to_an_internal_address_is_refused(server: CalendarServer) -> None:
    server.route("/cal.ics", redirect("http://intranet.example/secret?token=abc"))
    server.route("/to-loopback", redirect("http://127.0.0.1:6379/"))
    network = Network(server.port, {"calendar.example": [PUBLIC], "intranet.example": ["10.0.0.5"]})
    with pytest.raises(FetchError, match=r"intranet\.example: refused, 10\.0\.0\.5 is a private address") as refused:
        fetched(f"http://calendar.example:{server.port}/cal.ics", network)
    assert "secret" not in str(refused.value) and "token" not in str(refused.value)
    assert network.opened == [(PUBLIC, server.port)] and len(server.seen) == 1
    with pytest.raises(FetchError, match="loopback"):
        fetched(f"http://calendar.example:{server.port}/to-loopback", network)
    assert len(network.opened) == 2  # the loopback target was never connected to


def test_redirects_are_followed_up_to_the_limit(server: CalendarServer) -> None:
    for hop in range(MAX_REDIRECTS + 1):
        server.route(f"/r{hop}", redirect(f"/r{hop + 1}", 301 if hop % 2 else 307))
    server.route(f"/r{MAX_REDIRECTS}", reply(CALENDAR))
    network = Network(server.port, {"calendar.example": [PUBLIC]})
    assert fetched(f"http://calendar.example:{server.port}/r0", network) == CALENDAR
    server.route(f"/r{MAX_REDIRECTS}", redirect("/r0"))
    with pytest.raises(FetchError, match="more than 3 redirects"):
        fetched(f"http://calendar.example:{server.port}/r0", network)


def test_one_deadline_bounds_the_whole_fetch_not_each_read(server: CalendarServer) -> None:
    server.route("/drip.ics", drip(every=0.05))  # each read is quick: a per-read timeout never fires
    server.route("/silent.ics", silent)
    for path in ("/drip.ics", "/silent.ics"):
        began = time.monotonic()
        with pytest.raises(FetchError):
            fetched(server.url(path), allow_private=True, max_bytes=10_000_000, timeout=0.5)
        assert time.monotonic() - began < 2.5, path


def test_the_body_is_capped(server: CalendarServer) -> None:
    server.route("/declared.ics", reply(b"x" * 1001))
    server.route("/undeclared.ics", reply(b"x" * 1001, Content_Length="", Connection="close"))
    server.route("/fits.ics", reply(b"x" * 1000))
    for path in ("/declared.ics", "/undeclared.ics"):
        with pytest.raises(FetchError, match="larger than 1000 bytes"):
            fetched(server.url(path), allow_private=True, max_bytes=1000)
    assert fetched(server.url("/fits.ics"), allow_private=True, max_bytes=1000) == b"x" * 1000


def test_failures_name_the_origin_and_reason_only(server: CalendarServer) -> None:
    server.route("/gone.ics", reply(SECRET, 404))
    with pytest.raises(FetchError) as failed:
        fetched(server.url("/gone.ics?token=abc"), allow_private=True)
    assert str(failed.value) == f"http://127.0.0.1:{server.port}: answered HTTP 404"
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        closed = unused.getsockname()[1]
    with pytest.raises(FetchError) as refused:
        fetched(f"http://user:pw@127.0.0.1:{closed}/private-abc/basic.ics?token=abc", allow_private=True)
    assert str(refused.value).startswith(f"http://127.0.0.1:{closed}: ConnectionRefusedError")
    assert not any(part in str(refused.value) for part in ("user", "pw", "private-abc", "token"))


def test_url_credentials_go_to_the_urls_own_endpoint_only(server: CalendarServer) -> None:
    server.route("/cal.ics", redirect(f"http://elsewhere.example:{server.port}/other.ics"))
    server.route("/own.ics", reply(CALENDAR))
    network = Network(server.port, {"calendar.example": [PUBLIC], "elsewhere.example": ["8.8.8.8"]})
    fetched(f"http://ann:s%20cret@calendar.example:{server.port}/own.ics", network)
    assert server.seen[-1].headers["Authorization"] == "Basic " + base64.b64encode(b"ann:s cret").decode()
    with pytest.raises(FetchError, match="HTTP 404"):  # elsewhere.example is faked by the same server
        fetched(f"http://ann:secret@calendar.example:{server.port}/cal.ics", network)
    assert "Authorization" in server.seen[-2].headers and "Authorization" not in server.seen[-1].headers


def test_origin_keeps_scheme_host_and_port_only() -> None:
    assert origin("https://ann:pw@cal.example:8443/private-x/basic.ics?token=t#f") == "https://cal.example:8443"
    assert origin("http://[::1]/x") == "http://[::1]"
    assert origin("http://[::1/x") == "(an unparsable URL)"


# --- https: the certificate is checked for the URL's host, over the pinned connection --------------------------


def certificate(tmp_path: Path, name: str) -> tuple[Path, Path]:
    """A self-signed certificate for `name` and its key, as PEM files."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName(name)]), critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    cert_file, key_file = tmp_path / f"{name}.pem", tmp_path / f"{name}.key"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_file, key_file


def test_https_checks_the_certificate_of_the_urls_host_over_the_pinned_address(tmp_path: Path) -> None:
    cert_file, key_file = certificate(tmp_path, "calendar.example")
    served = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    served.load_cert_chain(cert_file, key_file)
    trusting = ssl.create_default_context(cafile=str(cert_file))
    with serving(tls=served) as server:
        server.route("/cal.ics", reply(CALENDAR))
        network = Network(server.port, {"calendar.example": [PUBLIC], "other.example": [PUBLIC]})
        assert fetched(f"https://calendar.example:{server.port}/cal.ics", network, tls=trusting) == CALENDAR
        assert network.opened == [(PUBLIC, server.port)]
        with pytest.raises(FetchError, match="SSLCertVerificationError"):
            fetched(f"https://other.example:{server.port}/cal.ics", network, tls=trusting)
        with pytest.raises(FetchError, match="SSLCertVerificationError"):  # the default store does not know it
            fetched(f"https://calendar.example:{server.port}/cal.ics", network)
