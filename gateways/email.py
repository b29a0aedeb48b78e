"""Email gateway: multipart text + HTML alerts over SMTP (engine.md section 6.2).

Settings `gateways.email.smtp_config`: host [localhost], port [25], starttls
[false], ssl [false], from [flapjack@<fqdn>], reply_to [= from], auth {type
[plain], username, password}, timeout [30] (defaults: EmailSettings below). One SMTP connection is kept open
between alerts and reopened when the server has dropped it.
"""

from __future__ import annotations

import base64
import logging
import re
import smtplib
import socket
import ssl
import uuid
from collections.abc import Callable, Mapping
from email.header import Header
from email.mime.multipart import MIMEMultipart
from email.utils import formatdate, getaddresses, parseaddr
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

import requests
from pydantic import AfterValidator, Field

from flapjack_py.config.gateways import Concurrency, GatewaySettings
from flapjack_py.config.settings import load_config
from flapjack_py.config.types import Bool, Port, Section, Text, Timeout
from flapjack_py.model.alert import Alert
from flapjack_py.notify import render

from .base import Declaration, Gateway, PermanentError, TransientError

log = logging.getLogger(__name__)

SMTP_TIMEOUT = 10.0
HEADER_WIDTH = 76
"""Longest header value written as it is; longer or non-ASCII ones are encoded and folded (RFC 2047, 5322)."""


class SmtpAuth(Section):
    """`gateways.email.smtp_config.auth`."""

    type: Literal["plain", "login", "cram_md5"] = "plain"
    username: Text | None = None
    password: Text | None = None


class SmtpConfig(Section):
    """`gateways.email.smtp_config`."""

    host: Text = "localhost"
    port: Port = 25
    starttls: Bool = False
    ssl: Bool = False
    from_: Text | None = Field(default=None, validation_alias="from", serialization_alias="from")
    reply_to: Text | None = None
    timeout: Timeout = 30.0
    ca_file: Text | None = None
    verify: Bool = True
    auth: SmtpAuth = SmtpAuth()


def _imap_url(value: str) -> str:
    parts = urlsplit(value)
    if parts.scheme not in ("imap", "imaps") or not parts.hostname or not parts.username or parts.password is None:
        raise ValueError("expected imaps://USER:PASSWORD@HOST[:PORT] (or imap://)")
    return value


class EmailReplies(Section):
    """`gateways.email.replies`: the mailbox replies to alerts arrive in (gateways/email_replies.py reads it)."""

    imap_url: Annotated[Text, AfterValidator(_imap_url)]
    mailbox: Text = "INBOX"
    poll_interval: Timeout = 15.0
    verify: Bool = True
    """Verify the IMAP server's TLS certificate (imaps://)."""
    ca_file: Text | None = None


class EmailSettings(GatewaySettings):
    """`gateways.email`."""

    smtp_config: SmtpConfig = Field(default_factory=SmtpConfig)
    concurrency: Concurrency = 4
    """SMTP sessions each worker sends over at once (GatewaySettings.concurrency); still at most one alert
    duplicated by a kill: the end of DATA and the status take turns (Gateway.commit)."""
    reply_to: Text | None = None
    """The alerts' Reply-To (the mailbox of `replies`); default smtp_config.reply_to, else the sender."""
    replies: EmailReplies | None = None


class EmailGateway(Gateway):
    """Sends each alert as one multipart message to the contact's address."""

    medium = "email"
    server = "SMTP"

    def __init__(self, settings: Mapping[str, Any], session: requests.Session | None = None) -> None:
        super().__init__(settings, session)
        smtp = settings.get("smtp_config") or {}
        self.host = str(smtp.get("host", "localhost"))
        self.port = int(smtp.get("port", 25))
        self.starttls = bool(smtp.get("starttls", False))
        self.ssl = bool(smtp.get("ssl", False))
        self.auth = smtp.get("auth") or {}
        self.fqdn = socket.getfqdn()
        self.sender = str(smtp.get("from") or f"flapjack@{self.fqdn}")
        self.reply_to = str(settings.get("reply_to") or smtp.get("reply_to") or self.sender)
        self.smtp_timeout = float(smtp.get("timeout", SMTP_TIMEOUT))
        self._config = load_config({"gateways": {"email": dict(settings)}})
        self._smtp: smtplib.SMTP | None = None

    def send(self, alert: Alert) -> None:
        """Send the alert; a dropped connection is reopened once."""
        recipients = [envelope_recipient(alert["address"])]
        message = self.build_message(alert)
        try:
            self._send_once(message, recipients)
        except smtplib.SMTPServerDisconnected:
            self._drop()
            self._send_once(message, recipients)

    def send_message(self, message: MIMEMultipart) -> None:
        """Send a message built elsewhere (the analytics digest, flapjack_py/tools/digest.py) the same way."""
        data, recipients = message.as_bytes(policy=message.policy.clone(linesep="\r\n")), envelope_recipients(str(message["To"]))
        try:
            self._send_once(data, recipients)
        except smtplib.SMTPServerDisconnected:
            self._drop()
            self._send_once(data, recipients)

    def build_message(self, alert: Alert) -> bytes:
        """The alert as a multipart/alternative message, ready for SMTP: its subject and text body, the HTML
        rendered here, each part UTF-8 in base64.

        Written directly rather than through email.message and its generator: their header folding and
        boundary checks cost more than the SMTP exchange. Every header value passes through _header (no line
        breaks, RFC 2047 when not ASCII or too long); tests parse the result with the email package.
        """
        kind = "rollup" if alert.get("rollup") else "alert"
        subject = str(alert.get("subject") or render.render_alert(alert, self._config)[0])
        html = render.render_template("email", f"{kind}.html", alert, self._config)
        boundary = f"=_flapjack_{uuid.uuid4().hex}"
        headers = (
            ("From", self.sender), ("Reply-To", self.reply_to), ("To", alert["address"]), ("Subject", subject),
            ("Date", formatdate(localtime=True)), ("Message-ID", f"<{alert['id']}@{self.fqdn}>"),
        )
        lines = [f"{name}: {_header(name, value)}" for name, value in headers]
        lines += ["MIME-Version: 1.0", "Content-Type: multipart/alternative;", f' boundary="{boundary}"']
        for subtype, text in (("plain", str(alert.get("body") or "")), ("html", html)):
            lines += ["", f"--{boundary}", f'Content-Type: text/{subtype}; charset="utf-8"',
                      "Content-Transfer-Encoding: base64", "", _base64_lines(text)]
        lines += [f"--{boundary}--", ""]
        return "\r\n".join(lines).encode("ascii")

    def close(self) -> None:
        self._drop()
        super().close()

    def _send_once(self, message: bytes, recipients: list[str]) -> None:
        options = [] if all(address.isascii() for address in recipients) else ["SMTPUTF8"]
        try:
            refused = self._connection().sendmail(parseaddr(self.sender)[1], recipients, message, options)
        except smtplib.SMTPServerDisconnected:
            raise
        except smtplib.SMTPRecipientsRefused as exc:
            self._raise_for(*next(iter(exc.recipients.values())))
        except smtplib.SMTPResponseException as exc:
            self._drop()
            self._raise_for(exc.smtp_code, exc.smtp_error)
        except (OSError, smtplib.SMTPException) as exc:
            self._drop()
            raise TransientError(f"SMTP {self.host}:{self.port}: {type(exc).__name__}: {exc}") from None
        if refused:
            self._raise_for(*next(iter(refused.values())))

    def _raise_for(self, code: int, text: bytes | str) -> None:
        if isinstance(text, bytes):
            text = text.decode("utf-8", "replace")
        reason = f"SMTP {self.host}:{self.port} replied {code} {text}"
        if 500 <= code < 600:
            raise PermanentError(reason)
        raise TransientError(reason)

    def _connection(self) -> smtplib.SMTP:
        if self._smtp is not None:
            return self._smtp
        if self.ssl:
            smtp: smtplib.SMTP = _SmtpSsl(self.host, self.port, timeout=self.smtp_timeout,
                                          context=self._tls_context())
        else:
            smtp = _Smtp(self.host, self.port, timeout=self.smtp_timeout)
        smtp.no_return = self.no_return  # type: ignore[attr-defined]  # _Smtp's hook, set per connection
        try:
            if self.starttls:
                smtp.starttls(context=self._tls_context())
            if self.auth.get("username"):
                smtp.login(str(self.auth["username"]), str(self.auth.get("password", "")))
        except Exception:
            smtp.close()
            raise
        self._smtp = smtp
        return smtp

    def _tls_context(self) -> ssl.SSLContext:
        context = ssl.create_default_context(cafile=self.settings.get("smtp_config", {}).get("ca_file"))
        if self.settings.get("smtp_config", {}).get("verify", True) is False:
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
        return context

    def _drop(self) -> None:
        if self._smtp is not None:
            try:
                self._smtp.quit()
            except (OSError, smtplib.SMTPException):
                self._smtp.close()
            self._smtp = None


class _Smtp(smtplib.SMTP):
    """smtplib's SMTP whose DATA calls `no_return` just before it sends the message and its final "." (the server
    accepts the message on it): see Gateway.no_return. The rest of DATA is smtplib's (RFC 5321 4.5.2 dot-stuffing, CRLF end)."""

    no_return: Callable[[], None] = staticmethod(lambda: None)

    def data(self, msg: Any) -> tuple[int, bytes]:
        self.putcmd("data")
        code, reply = self.getreply()
        if code != 354:
            raise smtplib.SMTPDataError(code, reply)
        body = msg.encode("ascii") if isinstance(msg, str) else msg
        body = re.sub(rb"(?m)^\.", b"..", body)
        if not body.endswith(b"\r\n"):
            body += b"\r\n"
        self.no_return()
        self.send(body + b".\r\n")  # one write: a last small segment of its own would wait on the delayed ACK
        return self.getreply()


class _SmtpSsl(_Smtp, smtplib.SMTP_SSL):
    """_Smtp over TLS from the first byte."""


def envelope_recipient(address: str) -> str:
    """The one envelope recipient of an alert's address (`ada@example.com`, `Ada <ada@example.com>`);
    PermanentError when it is not one address (a control character such as a line break, a list, no @)."""
    found = parseaddr(address)[1]
    if any(ord(ch) < 32 or ch == "\x7f" for ch in address) or "," in address or "@" not in found \
            or any(ch.isspace() for ch in found):
        raise PermanentError(f"not one email address: {address[:100]!r}")
    return found


def envelope_recipients(to: str) -> list[str]:
    """The envelope recipients of a To header's value (as smtplib.send_message takes them)."""
    to = " ".join(to.splitlines())
    return [address for _, address in getaddresses([to]) if address] or [to]


def _header(name: str, value: str) -> str:
    """A header line's value as written: line breaks (header injection) become spaces; a non-ASCII or long value
    is RFC 2047-encoded (non-ASCII) and folded by email.header."""
    value = " ".join(value.splitlines())
    if value.isascii() and len(value) <= HEADER_WIDTH:
        return value
    charset = "us-ascii" if value.isascii() else "utf-8"
    return Header(value, charset, maxlinelen=78, header_name=name).encode(linesep="\r\n")


def _base64_lines(text: str) -> str:
    """UTF-8 `text` in base64, 76 characters a line, CRLF between lines (RFC 2045)."""
    encoded = base64.b64encode(text.encode("utf-8")).decode("ascii")
    return "\r\n".join(encoded[at:at + 76] for at in range(0, len(encoded), 76))


GATEWAY = Declaration.of(EmailGateway, EmailSettings)
"""The email medium (registered in pyproject.toml's `flapjack_py.gateways` entry points)."""
