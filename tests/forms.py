"""A Flask test client that fills in the CSRF token of UI forms, as a browser showing the form would.

`post(..., data=...)` adds the `csrf_token` field (read from the login form's
hidden input of this session, fresh each time: logging in starts a new session)
unless the test passes one itself.
"""

from __future__ import annotations

import re
from typing import Any

from flask.testing import FlaskClient

_TOKEN = re.compile(r'name="csrf_token" value="([^"]+)"')


class FormClient(FlaskClient):
    """FlaskClient whose form POSTs carry this session's CSRF token."""

    def csrf_token(self) -> str:
        """A CSRF token of this client's session (the session cookie is set by the first call)."""
        page = self.get("/login").get_data(as_text=True)
        match = _TOKEN.search(page)
        assert match, "the login form carries a csrf_token field"
        return match.group(1)

    def post(self, *args: Any, **kwargs: Any) -> Any:
        data = kwargs.get("data")
        path = str(args[0]) if args else ""
        if not path.startswith("/api") and (data is None or isinstance(data, dict)):
            kwargs["data"] = {"csrf_token": self.csrf_token(), **(data or {})}
        return super().post(*args, **kwargs)
