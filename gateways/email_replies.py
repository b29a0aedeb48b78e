"""Email replies (issue 30): `flapjack gateway email-replies` (also run by `flapjack server` when
`gateways.email.replies` is set) reads the replies mailbox over IMAP with imap-tools and acknowledges.

Every `poll_interval` seconds the unseen messages of `mailbox` are read. Each is claimed in Redis by its
UIDVALIDITY:UID before anything is done (store/ack_codes.py claim_message), so it is handled once, across
restarts and by any number of pollers, then flagged \\Seen. What a message does is decided in
flapjack_py.replies.email_reply: the sender must be a contact's email address; `ACK CODE` in the subject
or the first lines above the quote, or a first line starting `ack` in a reply to an alert email, acknowledges
as `email:ADDRESS`; anything else is logged and left. When the IMAP server goes away the poller says so once,
backs off (up to MAX_BACKOFF s) and goes on when it is back.
"""

from __future__ import annotations

import imaplib
import logging
import signal
import ssl
import threading
from collections.abc import Mapping
from types import FrameType
from typing import Any
from urllib.parse import unquote, urlsplit

from imap_tools import AND, BaseMailBox, MailBox, MailBoxUnencrypted, MailMessage, MailMessageFlags
from imap_tools.errors import ImapToolsError

from flapjack_py import replies
from flapjack_py.config.settings import Config
from flapjack_py.errors import ConfigError
from flapjack_py.model.ack_codes import alert_ids_answered
from flapjack_py.runtime.connection import open_clients
from flapjack_py.store import ack_codes as code_store
from flapjack_py.store.plumbing.client import StrRedis

log = logging.getLogger(__name__)

MAX_BACKOFF = 300.0
"""Longest wait between tries while the IMAP server is unreachable."""
KEEP_CLAIMS = 90 * 86400
"""Seconds the handled messages' UIDs are remembered after the last one."""
BATCH = 50
"""Messages read per poll at most."""
IMAP_ERRORS = (OSError, imaplib.IMAP4.error, ImapToolsError)


def settings_of(config: Config) -> Mapping[str, Any]:
    """`gateways.email.replies`, or ConfigError when it is not set."""
    found = config.gateway("email").get("replies")
    if not found:
        raise ConfigError("gateways.email.replies: not set (imap_url, mailbox, poll_interval); see config.example.yml")
    return dict(found)


class Poller:
    """Reads the replies mailbox and hands each new message to flapjack_py.replies."""

    def __init__(self, client: StrRedis, config: Config) -> None:
        self.client = client
        self.config = config
        self.settings = settings_of(config)
        self.mailbox_name = str(self.settings.get("mailbox") or "INBOX")
        self.interval = float(self.settings.get("poll_interval") or 15)
        self.stop = threading.Event()
        self.down_since: float | None = None

    def run(self, once: bool = False) -> int:
        """Poll until stopped (or once); return the number of messages that acknowledged."""
        acted, wait = 0, self.interval
        while not self.stop.is_set():
            try:
                acted += self.poll()
                if self.down_since is not None:
                    log.info("email replies: IMAP server reachable again")
                self.down_since, wait = None, self.interval
            except IMAP_ERRORS as exc:
                if self.down_since is None:  # said once per outage
                    log.error("email replies: IMAP server unreachable (%s); retrying with back-off",
                              type(exc).__name__)
                    self.down_since = 0.0
                wait = min(max(wait * 2, 1.0), MAX_BACKOFF)
                if once:
                    raise
            if once:
                break
            self.stop.wait(wait)
        return acted

    def poll(self) -> int:
        """One look at the mailbox: every unseen message handled once; the number that acknowledged."""
        acted = 0
        with self._connect() as box:
            validity = str(box.folder.status(self.mailbox_name, ["UIDVALIDITY"]).get("UIDVALIDITY", "0"))
            for message in box.fetch(AND(seen=False), mark_seen=False, limit=BATCH, bulk=True):
                if not message.uid:
                    continue
                if code_store.claim_message(self.client, self.mailbox_name, validity, message.uid, KEEP_CLAIMS):
                    acted += self.handle(message)
                box.flag([message.uid], MailMessageFlags.SEEN, True)
        return acted

    def handle(self, message: MailMessage) -> int:
        """Act on one message; 1 when it acknowledged."""
        headers: dict[str, tuple[str, ...]] = dict(message.headers)
        answered = alert_ids_answered(" ".join(headers.get("in-reply-to", ())), " ".join(headers.get("references", ())))
        try:
            outcome = replies.email_reply(self.client, self.config, address=message.from_.strip().lower(),
                                          subject=message.subject, text=message.text, answered=answered)
        except Exception:  # one odd message must not stop the poller
            log.exception("email replies: message %s could not be handled", message.uid)
            return 0
        log.info("email replies: message %s from %s: %s", message.uid, message.from_,
                 outcome.check_id or outcome.answer)
        return int(outcome.acted)

    def _connect(self) -> BaseMailBox:
        url = urlsplit(str(self.settings["imap_url"]))
        host, user, password = url.hostname or "", unquote(url.username or ""), unquote(url.password or "")
        if url.scheme == "imaps":
            context = ssl.create_default_context(cafile=self.settings.get("ca_file"))
            if not self.settings.get("verify", True):
                context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
            box: BaseMailBox = MailBox(host, url.port or 993, timeout=30, ssl_context=context)
        else:
            box = MailBoxUnencrypted(host, url.port or 143, timeout=30)
        return box.login(user, password, initial_folder=self.mailbox_name)


def run_poller(config: Config, once: bool = False) -> int:
    """`flapjack gateway email-replies`: poll until SIGTERM/SIGINT (or once); exit code."""
    clients, embedded = open_clients(config)
    poller = Poller(clients.text, config)

    def on_signal(signum: int, frame: FrameType | None) -> None:
        poller.stop.set()

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, on_signal)
        signal.signal(signal.SIGINT, on_signal)
    log.info("email replies: polling %s every %.0f s", poller.mailbox_name, poller.interval)
    try:
        poller.run(once=once)
    except IMAP_ERRORS:
        return 1
    finally:
        if embedded:
            embedded.stop()
    return 0
