"""TwiML, the XML Twilio reads to answer an SMS or run a call (issue 30). Pure.

`gather` is what a page by phone says: the alert, then "press 1 to acknowledge, 2 to escalate", with the
key pressed posted to `action`; `say` and `message` answer a callback.
"""

from __future__ import annotations

from xml.sax.saxutils import escape, quoteattr

HEAD = '<?xml version="1.0" encoding="UTF-8"?>'
CONTENT_TYPE = "text/xml; charset=utf-8"
MAX_SAY = 1000
"""Characters of alert text spoken (a call is no place for a whole email)."""
PROMPT = "Press 1 to acknowledge. Press 2 to escalate."


def gather(text: str, action: str, repeats: int = 2) -> str:
    """Say `text` and the prompt, take one key, post it to `action`; say the prompt again, `repeats` times."""
    spoken = escape(_speakable(text))
    prompt = f"<Say>{escape(PROMPT)}</Say>"
    return (f'{HEAD}<Response><Gather numDigits="1" method="POST" action={quoteattr(action)}>'
            f"<Say>{spoken}</Say>{prompt * repeats}</Gather><Say>Goodbye.</Say></Response>")


def say(text: str, hang_up: bool = True) -> str:
    """Say `text` (then hang up)."""
    return f"{HEAD}<Response><Say>{escape(_speakable(text))}</Say>{'<Hangup/>' if hang_up else ''}</Response>"


def message(text: str) -> str:
    """Answer an inbound SMS with `text`."""
    return f"{HEAD}<Response><Message>{escape(text[:MAX_SAY])}</Message></Response>"


def _speakable(text: str) -> str:
    """`text` cut to MAX_SAY characters, without control characters."""
    return "".join(c if c.isprintable() else " " for c in text[:MAX_SAY]).strip()
