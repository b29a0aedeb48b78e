"""Dependencies in the UI (issue 33.1): every dependency with whether its parent fails now, and (admin) a form to
add one and a button to delete each. Validation and the cycle check are the API's
(flapjack_py.model.dependencies.parse_item, flapjack_py.store.dependencies.add).
"""

from __future__ import annotations

import uuid

from flask import redirect, render_template, request, url_for
from werkzeug.wrappers import Response

from flapjack_py.model.dependencies import CHILD_KINDS, MAX_NAME, InvalidDependency, parse_item
from flapjack_py.store import dependencies as store

from . import bp
from .context import db, now
from .form_state import FormState, posted

NOTICES = {"dependency-added": "Dependency added.", "dependency-deleted": "Dependency deleted."}


@bp.get("/dependencies")
def dependencies() -> str:
    """Every dependency, by parent; the add form for admins."""
    return _render(FormState("dependency"))


@bp.post("/dependencies")
def create_dependency() -> Response | tuple[str, int]:
    """Add a dependency (API POST /dependencies): a cycle or a bad name is shown next to the form."""
    form = posted("dependency", request.form)
    parent, kind, value = form.text("parent", MAX_NAME), form.text("kind", 10), form.text("value", MAX_NAME)
    if kind not in CHILD_KINDS:
        form.errors.setdefault("kind", "A check, an entity or a tag")
    if not form.errors:
        try:
            store.add(db(), [parse_item({"parent": parent, "child": {kind: value}}, str(uuid.uuid4()), now())])
        except (InvalidDependency, store.DependencyExists) as exc:
            form.errors["form"] = str(exc)
    if form.errors:
        return _render(form), 422
    return redirect(url_for("ui.dependencies", notice="dependency-added"), code=303)


@bp.post("/dependencies/<dependency_id>/delete")
def delete_dependency(dependency_id: str) -> Response:
    """Delete one dependency (API DELETE /dependencies/ID); a missing one is already gone."""
    store.delete(db(), [dependency_id[:200]])
    return redirect(url_for("ui.dependencies", notice="dependency-deleted"), code=303)


def _render(form: FormState) -> str:
    client = db()
    found = store.load_all(client)
    failing = store.parent_states(client, sorted({d.parent for d in found}))
    return render_template("ui/dependencies.html", deps=found, failing=failing, f=form, kinds=CHILD_KINDS,
                           max_name=MAX_NAME, notice=NOTICES.get(request.args.get("notice", "")))
