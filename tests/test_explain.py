"""``s2sad explain``: one self-contained HTML page (the function, its gradient with each
``line N`` comment linked to its source line, the tapes, each pass's effect), checked for its
structure here and rendered by a real headless Chromium where one is installed (CI's
bootstrap installs it): the browser's own DOM, and a screenshot with both columns drawn."""

from __future__ import annotations

import re
import shutil
import struct
import subprocess
import zlib
from html.parser import HTMLParser
from pathlib import Path

import pytest

from s2sad.cli import main

CHROMIUM = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome") if shutil.which(n)), None)
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="needs Chromium (apt-get install chromium)")


class _Page(HTMLParser):
    """The ids, the in-page links and the external resources of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[str] = []
        self.external: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "a" and a.get("href", "").startswith("#"):
            self.links.append(a["href"][1:])
        for key in ("src", "href"):
            if a.get(key) and not a[key].startswith("#"):
                self.external.append(a[key])


def _explain(tmp_path: Path, *argv: str) -> Path:
    out = tmp_path / "page.html"
    assert main(["explain", *argv, "-o", str(out)]) == 0
    return out


def _parsed(text: str) -> _Page:
    page = _Page()
    page.feed(text)
    return page


def test_the_page_links_every_adjoint_block_to_its_source_line(tmp_path):
    text = _explain(tmp_path, "examples/norm.py", "--wrt", "in").read_text()
    page = _parsed(text)
    assert page.links and all(link in page.ids for link in page.links)
    assert {"L9", "L10", "L15"} <= set(page.links)  # mag's loop, its return, norm's division
    assert not page.external  # self-contained: nothing fetched
    assert "memory of grad_norm (reverse sweep of norm)" in text
    # Every pass of both pipelines is in the table, licm with what it hoisted.
    passes = "inline|inline-loops|fold|arrays|counted|cse|licm|dce|merge-accums|merge-clears|gather|forward" \
        "|local-sums|factor-sums"
    assert len(re.findall(rf"<td><code>(?:{passes})</code>", text)) == 14 + 12
    assert re.search(r"<code>licm</code></td><td>\d+ → \d+ ops \(\+\d+\)", text)


def test_c_input_and_output(tmp_path):
    text = _explain(tmp_path, "examples/custom_derivatives/spring.c", "--wrt", "x,k0",
                    "--derivatives", "examples/custom_derivatives/stiffness.c").read_text()
    page = _parsed(text)
    assert "// line 15:" in text and all(link in page.ids for link in page.links)


def _pixels(png: bytes) -> tuple[int, int, list[bytes]]:
    """Width, height and rows (RGB or RGBA, 8 bits) of a non-interlaced PNG."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    pos, data, header = 8, b"", None
    while pos < len(png):
        length, kind = struct.unpack(">I4s", png[pos:pos + 8])
        body = png[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            data += body
        pos += 12 + length
    width, height, depth, color, _, _, interlace = header
    assert depth == 8 and color in (2, 6) and interlace == 0
    bpp = 3 if color == 2 else 4
    raw = zlib.decompress(data)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            p = {0: 0, 1: a, 2: b, 3: (a + b) // 2}.get(f)
            if p is None:  # Paeth
                est = a + b - c
                pa, pb, pc = abs(est - a), abs(est - b), abs(est - c)
                p = a if pa <= pb and pa <= pc else b if pb <= pc else c
            line[i] = (line[i] + p) & 0xFF
        rows.append(bytes(line))
        prev = line
    return width, height, rows


@needs_chromium
def test_chromium_renders_both_columns(tmp_path):
    page = _explain(tmp_path, "examples/norm.py", "--wrt", "in")
    shot = tmp_path / "page.png"
    run = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=1200,900"]
    r = subprocess.run([*run, f"--screenshot={shot}", page.as_uri()], capture_output=True, text=True, timeout=120)
    assert shot.is_file(), r.stderr
    width, height, rows = _pixels(shot.read_bytes())
    assert (width, height) == (1200, 900)
    bpp = len(rows[0]) // width

    def ink(x0: int, x1: int) -> int:
        """Dark pixels (text) in the columns x0..x1, below the title and the introduction."""
        return sum(1 for row in rows[height // 6:] for x in range(x0, x1, 2) if sum(row[x * bpp:x * bpp + 3]) < 300)

    left, right = ink(0, width // 2), ink(width // 2, width)
    assert left > 500 and right > 2 * left, (left, right)  # the function, and its longer gradient
    # The browser's own DOM: the script ran without breaking it, every link has its target.
    dom = subprocess.run([*run, "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120).stdout
    parsed = _parsed(dom)
    assert "The gradient of norm with respect to in" in dom and parsed.links
    assert all(link in parsed.ids for link in parsed.links)
