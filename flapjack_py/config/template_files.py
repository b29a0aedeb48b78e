"""The alert template files: the packaged ones in flapjack_py/templates/<medium>/, the startup check of a
`gateways.<medium>.templates` override, and the Jinja2 environment that loads them (render.py renders).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import jinja2

TEMPLATE_DIR = Path(__file__).parent.parent / "templates"


def template_names() -> frozenset[str]:
    """Names of the packaged template files (what an override may replace)."""
    return frozenset(path.name for path in TEMPLATE_DIR.glob("*/*") if path.is_file())


def check_templates(templates: str | Mapping[str, str]) -> None:
    """Check a `gateways.<medium>.templates` override at startup; ValueError naming the file when one is
    unknown, unreadable or not valid Jinja2 (a directory: its files named like the packaged ones)."""
    known = template_names()
    if isinstance(templates, Mapping):
        files = dict(templates)
    else:
        folder = Path(os.path.expanduser(templates))
        if not folder.is_dir():
            raise ValueError(f"{templates}: not a directory")
        files = {p.name: str(p) for p in folder.iterdir() if p.suffix in (".text", ".html")}
    for name, path in sorted(files.items()):
        if name not in known:
            raise ValueError(f"{name}: unknown template file (known: {', '.join(sorted(known))})")
        try:
            jinja2.Environment().parse(read(path))
        except OSError as exc:
            raise ValueError(f"{name}: cannot read {path}: {exc.strerror or exc}") from None
        except jinja2.TemplateSyntaxError as exc:
            raise ValueError(f"{name}: template syntax error at line {exc.lineno}: {exc.message}") from None


def override_key(templates: Any) -> tuple[str, ...] | str | None:
    """A hashable form of the `templates` setting (directory, or sorted name=path pairs)."""
    if templates is None:  # the usual case, decided without an isinstance check against an ABC
        return None
    if isinstance(templates, Mapping):
        return tuple(sorted(f"{k}={v}" for k, v in templates.items()))
    return str(templates) if templates else None


@functools.lru_cache(maxsize=64)
def environment(medium: str, override: tuple[str, ...] | str | None) -> jinja2.Environment:
    """The Jinja2 environment of a medium: the override (`override_key` form) first, then the packaged files."""
    loaders: list[jinja2.BaseLoader] = []
    if isinstance(override, tuple):
        files = dict(pair.split("=", 1) for pair in override)
        loaders.append(jinja2.FunctionLoader(lambda name: read(files[name]) if name in files else None))
    elif override:
        loaders.append(jinja2.FileSystemLoader(os.path.expanduser(override)))
    own = TEMPLATE_DIR / medium
    loaders.append(jinja2.FileSystemLoader(str(own if own.is_dir() else TEMPLATE_DIR / "text")))
    return jinja2.Environment(loader=jinja2.ChoiceLoader(loaders), trim_blocks=True, lstrip_blocks=True,
                              auto_reload=False,
                              keep_trailing_newline=True, undefined=jinja2.ChainableUndefined,
                              autoescape=jinja2.select_autoescape(["html"], default_for_string=False))


@functools.lru_cache(maxsize=256)
def template(medium: str, override: tuple[str, ...] | str | None, name: str) -> jinja2.Template:
    """Template `name` of `environment(medium, override)`, its globals flattened into one dict: Jinja keeps
    them as a ChainMap over the environment's, which every render copies key by key (a storm renders
    thousands of texts). The environment's globals are never changed after it is made."""
    loaded = environment(medium, override).get_template(name)
    loaded.globals = dict(loaded.globals)
    return loaded


def read(path: str) -> str:
    """The text of a template file (`~` expanded)."""
    return Path(os.path.expanduser(path)).read_text(encoding="utf-8")
