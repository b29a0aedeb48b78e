"""Every spec section the code cites (`engine.md 5.4`, `api-v1.md section 12`, ...) is a heading of the
copy of that document in docs/spec/, so a newcomer can follow every citation inside the repository."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CITATION = re.compile(r"\b(engine|contract|api-v1|bench|style)\.md(?:,? (?:sections?|§) ?| )(\d+(?:\.\d+)*)")
HEADING = re.compile(r"^#+ (\d+(?:\.\d+)*)\.? ", re.MULTILINE)


def cited() -> set[tuple[str, str, str]]:
    found = set()
    for path in ROOT.glob("*/**/*.py"):
        if ".venv" in path.parts or ".pytest-tmp" in path.parts:
            continue
        for match in CITATION.finditer(path.read_text(encoding="utf-8")):
            found.add((match.group(1), match.group(2), str(path.relative_to(ROOT))))
    return found


def sections(doc: str) -> set[str]:
    return set(HEADING.findall((ROOT / "docs" / "spec" / f"{doc}.md").read_text(encoding="utf-8")))


def test_every_cited_section_exists_in_docs():
    citations = cited()
    assert len(citations) > 50  # the code does cite the documents
    missing = sorted((f"{doc}.md {number}", where) for doc, number, where in citations
                     if number not in sections(doc))
    assert not missing, f"citations with no such section in docs/spec/: {missing}"
