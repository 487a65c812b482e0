"""Every link of the README leads somewhere: a file or folder of the repository, or a heading
of the README itself (GitHub's anchors: lower case, punctuation dropped, spaces as hyphens)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEXT = (ROOT / "README.md").read_text(encoding="utf-8")


def _anchor(heading: str) -> str:
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _links() -> list[str]:
    prose = re.sub(r"```.*?```", "", TEXT, flags=re.S)  # code blocks hold no links
    return re.findall(r"\]\(([^)\s]+)\)", prose)


def test_the_readme_has_links_to_check():
    assert len(_links()) > 10


def test_every_anchor_names_a_heading():
    anchors = {_anchor(h) for h in re.findall(r"^#+ (.+)$", TEXT, flags=re.M)}
    missing = [link for link in _links() if link.startswith("#") and link[1:] not in anchors]
    assert not missing, missing


def test_every_relative_link_names_a_file_of_the_repository():
    missing = [link for link in _links() if not re.match(r"[a-z]+:|#", link)
               and not (ROOT / link.split("#")[0]).exists()]
    assert not missing, missing
