"""The web UI served at `/`: failing checks first, entities, checks, contacts, alerts, status.

One blueprint; a module per resource registers its views on it (style.md
section 6). Templates live in web/templates/ui/, the stylesheet in web/static/.
"""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint

from . import format

_WEB = Path(__file__).resolve().parent.parent

bp = Blueprint("ui", __name__, template_folder=str(_WEB / "templates"), static_folder=str(_WEB / "static"),
               static_url_path="/ui-static")
format.register(bp)

from . import alerts, analytics, audit, bulk, check_forms, checks, contacts, dependencies, entities, entity_forms, escalation_forms, incidents, layout, login, oncall, people, rule_forms, series_forms, sso_login, status  # noqa: E402,F401,I001  (views register on bp)
