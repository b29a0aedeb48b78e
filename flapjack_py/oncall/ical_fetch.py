"""Fetch a document from a URL a user gave without reaching internal addresses (a schedule layer's `ical_url`).

The host is resolved once and every address it resolves to is checked (`address_refusal`): loopback,
private, link-local, multicast, reserved, unspecified and other non-global addresses are refused unless
`allow_private` (IPv4-mapped, 6to4 and NAT64 IPv6 addresses are judged by the IPv4 address inside). The
connection goes to an address that was checked while the Host header and the TLS name (SNI, certificate)
stay the URL's host, so a DNS answer that changes after the check (rebinding) cannot move it. Redirects
are followed by hand, each target checked the same way; one deadline covers the connects, TLS handshakes
and reads of every hop, and the body is capped. No proxy is used. Failures raise FetchError whose message
is fit for a log: the origin and the reason, never the path, query, credentials or body.
"""

from __future__ import annotations

import base64
import contextlib
import http.client
import ipaddress
import logging
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from urllib.parse import quote, unquote, urljoin, urlsplit

from requests.utils import DEFAULT_CA_BUNDLE_PATH

from flapjack_py.errors import FetchError

log = logging.getLogger(__name__)

MAX_REDIRECTS = 3
"""Redirects followed (by hand, each target checked); one more is a failure."""
REDIRECTS = frozenset({301, 302, 303, 307, 308})
DEFAULT_PORTS = {"http": 80, "https": 443}
USER_AGENT = "flapjack-py"
_CHUNK = 65536
_KEPT_IN_PATH = "!#$%&'()*+,/:;=?@[]~"
"""Characters a request target keeps as they are (requests' requote_uri keeps the same); others are %-escaped."""
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_KINDS = (("loopback", "is_loopback"), ("unspecified", "is_unspecified"), ("link-local", "is_link_local"),
          ("multicast", "is_multicast"), ("private", "is_private"), ("reserved", "is_reserved"))
"""Address kinds refused, in the order a refusal names them."""

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str, int], Sequence[str]]
"""(host, port) -> the addresses (as text) the host resolves to."""
Opener = Callable[[tuple[str, int], float], socket.socket]
"""((address, port), timeout in seconds) -> a connected TCP socket, like socket.create_connection."""


@dataclass(frozen=True)
class Target:
    """One request's destination, checked: the URL, its endpoint, and the addresses to connect to (in turn)."""

    url: str
    scheme: str
    host: str
    port: int
    addresses: tuple[str, ...]


@dataclass(frozen=True)
class _Deadline:
    """The monotonic moment by which the whole fetch of `url` must be done."""

    end: float
    url: str

    def left(self) -> float:
        """Seconds left; raises FetchError when none are."""
        remaining = self.end - time.monotonic()
        if remaining <= 0:
            raise FetchError(f"{origin(self.url)}: not done within the deadline")
        return remaining


def address_refusal(address: IPAddress) -> str | None:
    """Why `address` may not be fetched from ("loopback", "private", ...), or None when it is public."""
    inner = _embedded_ipv4(address)
    if inner is not None:
        return address_refusal(inner)
    for kind, attribute in _KINDS:
        if getattr(address, attribute):
            return kind
    return None if address.is_global else "non-global"


def origin(url: str) -> str:
    """`scheme://host[:port]` of `url`: all of it a log may show (a feed's token may be in the path or query)."""
    try:
        parts = urlsplit(url)
        host, port = parts.hostname, parts.port
    except ValueError:
        return "(an unparsable URL)"
    if not host:
        return "(a URL without a host)"
    shown = f"[{host}]" if ":" in host else host
    return f"{parts.scheme}://{shown}" + (f":{port}" if port else "")


def resolve_host(host: str, port: int) -> list[str]:
    """The addresses `host` resolves to, in the resolver's order (an address literal resolves to itself)."""
    found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in found))


def checked_target(url: str, allow_private: bool, resolve: Resolver = resolve_host) -> Target:
    """`url`'s endpoint and addresses, resolved once; raises FetchError when the URL is not http(s), the host
    does not resolve, or (unless `allow_private`) any of its addresses is refused."""
    scheme, host, port = _endpoint(url)
    try:
        found = [ipaddress.ip_address(a) for a in resolve(host, port)]
    except (OSError, UnicodeError) as exc:
        raise FetchError(f"{origin(url)}: the host does not resolve ({_describe(exc)})") from None
    if not found:
        raise FetchError(f"{origin(url)}: the host has no address")
    refused = [] if allow_private else [(a, why) for a in found if (why := address_refusal(a))]
    if refused:
        address, why = refused[0]
        raise FetchError(f"{origin(url)}: refused, {address} is a {why} address")
    return Target(url, scheme, host, port, tuple(str(a) for a in found))


def fetch(url: str, *, allow_private: bool, max_bytes: int, timeout: float, resolve: Resolver = resolve_host,
          open_socket: Opener = socket.create_connection, tls: ssl.SSLContext | None = None) -> bytes:
    """The body `url` answers (HTTP 2xx), following at most MAX_REDIRECTS redirects; raises FetchError.

    `timeout` (seconds) bounds the whole fetch, not one read (host lookups excepted: the system resolver has
    its own limits). A URL's userinfo is sent as HTTP Basic authentication, only to the URL's own endpoint.
    `resolve`, `open_socket` and `tls` (default: requests' CA bundle) are there for tests.
    """
    deadline = _Deadline(time.monotonic() + timeout, url)
    first, auth = _endpoint(url), _basic_auth(url)
    current = url
    for _hop in range(MAX_REDIRECTS + 1):
        target = checked_target(current, allow_private, resolve)
        credentials = auth if (target.scheme, target.host, target.port) == first else None
        with _response(target, credentials, deadline, open_socket, tls) as response:
            if response.status in REDIRECTS:
                current = _redirected(current, response.getheader("Location"))
                continue
            if not 200 <= response.status < 300:
                raise FetchError(f"{origin(current)}: answered HTTP {response.status}")
            return _body(response, max_bytes, deadline, current)
    raise FetchError(f"{origin(url)}: more than {MAX_REDIRECTS} redirects")


# --- helpers ------------------------------------------------------------------


def _embedded_ipv4(address: IPAddress) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address stands for (IPv4-mapped, 6to4, NAT64), else None."""
    if isinstance(address, ipaddress.IPv4Address):
        return None
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address in _NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def _endpoint(url: str) -> tuple[str, str, int]:
    try:
        parts = urlsplit(url)
        host, port = parts.hostname, parts.port
    except ValueError:
        raise FetchError("not a valid URL") from None
    if parts.scheme not in DEFAULT_PORTS or not host:
        raise FetchError(f"{origin(url)}: not an http(s) URL with a host")
    return parts.scheme, host, port or DEFAULT_PORTS[parts.scheme]


def _basic_auth(url: str) -> str | None:
    parts = urlsplit(url)
    if parts.username is None:
        return None
    pair = f"{unquote(parts.username)}:{unquote(parts.password or '')}"
    return "Basic " + base64.b64encode(pair.encode()).decode("ascii")


def _request_target(url: str) -> str:
    parts = urlsplit(url)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return quote(target, safe=_KEPT_IN_PATH)


def _redirected(current: str, location: str | None) -> str:
    if not location:
        raise FetchError(f"{origin(current)}: a redirect without a Location")
    return urljoin(current, location.strip())


@contextlib.contextmanager
def _response(target: Target, credentials: str | None, deadline: _Deadline, open_socket: Opener,
              tls: ssl.SSLContext | None) -> Iterator[http.client.HTTPResponse]:
    """One GET to `target`; network and protocol failures inside the block become FetchError."""
    headers = {"User-Agent": USER_AGENT, "Accept": "*/*", "Accept-Encoding": "identity", "Connection": "close"}
    if credentials:
        headers["Authorization"] = credentials
    connection: _PinnedHTTP | None = None
    try:
        connection = (_PinnedHTTPS(target, deadline, open_socket, tls) if target.scheme == "https"
                      else _PinnedHTTP(target, deadline, open_socket))
        connection.request("GET", _request_target(target.url), headers=headers)
        with connection.getresponse() as response:
            yield response
    except (OSError, ValueError, http.client.HTTPException) as exc:
        raise FetchError(f"{origin(target.url)}: {_describe(exc)}") from None
    finally:
        if connection is not None:
            connection.close()
            connection.release()


def _body(response: http.client.HTTPResponse, max_bytes: int, deadline: _Deadline, url: str) -> bytes:
    declared = response.getheader("Content-Length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        raise FetchError(f"{origin(url)}: larger than {max_bytes} bytes")
    chunks, size = [], 0
    while chunk := response.read(_CHUNK):
        size += len(chunk)
        if size > max_bytes:
            raise FetchError(f"{origin(url)}: larger than {max_bytes} bytes")
        chunks.append(chunk)
    deadline.left()  # a read the deadline cut short looks like the end of the body: it is not
    return b"".join(chunks)


def _describe(exc: BaseException) -> str:
    """A failure's kind for the log: the class and the system's words for it (never what the server sent)."""
    reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else ""
    return f"{type(exc).__name__}: {reason}" if reason else type(exc).__name__


def _shut_down(sock: socket.socket) -> None:
    """Wake up whatever waits on `sock`'s connection: the deadline has passed."""
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)


class _PinnedHTTP(http.client.HTTPConnection):
    """HTTP to the checked addresses of a Target (never a fresh lookup), shut down when the deadline passes.

    The Host header is built from the Target's host as usual. A timer shuts the connection down at the
    deadline: a server dribbling a byte at a time would otherwise hold the request for one read timeout per byte.
    """

    def __init__(self, target: Target, deadline: _Deadline, open_socket: Opener) -> None:
        super().__init__(target.host, target.port, timeout=deadline.left())
        self._target, self._deadline, self._open = target, deadline, open_socket
        self._guard: threading.Timer | None = None
        self._watch: socket.socket | None = None

    def connect(self) -> None:
        self.sock = self._tcp()

    def release(self) -> None:
        """Stop the deadline's timer (not in close(): http.client closes the connection of a response that
        will close, while that response still reads from the socket)."""
        if self._guard is not None:
            self._guard.cancel()
        if self._watch is not None:
            self._watch.close()

    def _tcp(self) -> socket.socket:
        sock = self._connected()
        try:
            self._watch = sock.dup()  # a TLS socket cannot be dup()ed: keep the TCP one for the timer
            self._guard = threading.Timer(self._deadline.left(), _shut_down, (self._watch,))
        except (OSError, FetchError):
            sock.close()
            raise
        self._guard.daemon = True
        self._guard.start()
        return sock

    def _connected(self) -> socket.socket:
        failure: OSError = OSError("no address to connect to")
        for address in self._target.addresses:
            try:
                return self._open((address, self._target.port), self._deadline.left())
            except OSError as exc:
                failure = exc
        raise failure


class _PinnedHTTPS(_PinnedHTTP):
    """HTTPS the same way: TLS over the pinned connection, SNI and certificate checked for the URL's host."""

    default_port = http.client.HTTPS_PORT

    def __init__(self, target: Target, deadline: _Deadline, open_socket: Opener, tls: ssl.SSLContext | None) -> None:
        super().__init__(target, deadline, open_socket)
        self._tls = tls

    def connect(self) -> None:
        context = self._tls or ssl.create_default_context(cafile=DEFAULT_CA_BUNDLE_PATH)
        self.sock = context.wrap_socket(self._tcp(), server_hostname=self.host)
