"""The weekly on-call digest (issue 32): `flapjack report --email` sends the period's figures (the numbers of
GET /api/analytics/*) to each of analytics.digest_contacts' email addresses, as HTML and text, through the email
gateway (its SMTP settings, TLS and authentication; found through the gateway registry, config/media.py, as the
engine reaches every gateway). Run it weekly from cron: `flapjack report --since 7d --email`.
"""

from __future__ import annotations

import socket
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText
from email.utils import formatdate
from pathlib import Path
from typing import Any

import click
import jinja2

from flapjack_py.analysis import analytics
from flapjack_py.analysis.wording import describe
from flapjack_py.config import media
from flapjack_py.config.settings import Config
from flapjack_py.store import media as media_store
from flapjack_py.store.plumbing.client import Clients, StrRedis

TEMPLATES = Path(__file__).resolve().parent.parent / "templates" / "digest"
TOP = 10


def addresses(client: StrRedis, contact_ids: tuple[str, ...]) -> list[str]:
    """The email address of each digest contact that has one."""
    found = []
    for contact_id in contact_ids:
        medium = media_store.load_medium(client, contact_id, "email")
        if medium is not None and medium.address:
            found.append(medium.address)
    return found


def render(figures: dict[str, Any]) -> tuple[str, str, str]:
    """(subject, text, html) of the digest."""
    s = figures["summary"]
    period = f"{analytics.day_label(s['since'])} .. {analytics.day_label(s['until'])}"
    subject = f"On-call digest {period}: {s['pages']['total']} pages, {s['off_hours_pages']} off hours"
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True)
    html = env.get_template("digest.html").render(
        period=period, s=s, checks=figures["checks"][:TOP], people=figures["people"][:TOP],
        suggestions=figures.get("suggestions", []), spread=_spread)
    return subject, "\n".join(describe(figures, TOP)) + "\n", html


def _spread(spread: dict[str, Any]) -> str:
    if not spread["count"]:
        return "no incidents"
    return f"median {spread['median']} s, p90 {spread['p90']} s ({spread['count']})"


def send_digest(clients: Clients, config: Config, figures: dict[str, Any]) -> int:
    """Send the digest to every digest contact's email address; return how many it went to."""
    if not config.gateway_enabled("email"):
        raise click.ClickException("the digest goes through the email gateway: gateways.email.enabled is false")
    to = addresses(clients.text, config.analytics.digest_contacts)
    if not to:
        raise click.ClickException("no email address to send the digest to (analytics.digest_contacts)")
    declared: Any = media.declaration("email")  # gateways/email.py's declaration, with its sender class
    gateway = declared.sender(config.gateway("email"))
    subject, text, html = render(figures)
    try:
        for address in to:
            gateway.send_message(_message(gateway.sender, gateway.reply_to, address, subject, text, html))
    finally:
        gateway.close()
    return len(to)


def _message(sender: str, reply_to: str, address: str, subject: str, text: str, html: str) -> MIMEMultipart:
    message = MIMEMultipart("alternative")
    message["From"], message["Reply-To"], message["To"] = sender, reply_to, address
    message["Subject"] = subject
    message["Date"] = formatdate(localtime=True)
    message["Message-ID"] = f"<digest-{abs(hash((address, subject)))}@{socket.getfqdn()}>"
    message.attach(MIMEText(text, "plain", "utf-8"))
    message.attach(MIMEText(html, "html", "utf-8"))
    return message
