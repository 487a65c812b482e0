"""A front-door case: the files of a fresh folder and one s2sad command line run in it.

A case is data (JSON in a reproducer folder, ``case.json``), so that it can be run again
anywhere: ``entries`` are laid out in order in the case folder (regular files with their bytes,
folders, FIFOs, symbolic links, hard links and character devices: a copy of /dev/null made with
mknod where the user may, a symbolic link to the device otherwise), ``argv`` is what follows
``python -m s2sad``, run in that folder. ``drain`` names the FIFOs that a reader empties while
s2sad runs (``-o pipe``: without a reader, writing to a FIFO waits, as ``> pipe`` in a shell
does); ``watch`` names paths outside the folder (``/dev/null``, ``/dev/full``) whose kind must
not change.
"""

from __future__ import annotations

import base64
import json
import os
import shlex
import shutil
import stat
from dataclasses import asdict, dataclass, field
from pathlib import Path

# Character devices by (major, minor), and the path of the system's own.
DEVICES = {(1, 3): "/dev/null", (1, 5): "/dev/zero", (1, 7): "/dev/full"}


@dataclass
class Entry:
    path: str  # relative to the case folder
    kind: str  # "file", "dir", "fifo", "symlink", "hardlink", "chardev"
    data: bytes = b""  # a file's bytes
    target: str = ""  # where a symbolic link points; the entry a hard link shares its file with
    device: tuple[int, int] = (0, 0)  # a character device's (major, minor)


@dataclass
class Case:
    seed: int
    family: str  # "mutate", "patho" or "cmdline"
    what: str  # how it was drawn, in a few words
    entries: list[Entry]
    argv: list[str]
    drain: list[str] = field(default_factory=list)
    watch: list[str] = field(default_factory=list)

    def command(self) -> str:
        return "s2sad " + shlex.join(self.argv)

    def to_json(self) -> str:
        d = asdict(self)
        for e in d["entries"]:
            e["data"] = base64.b64encode(e["data"]).decode()
            e["device"] = list(e["device"])
        return json.dumps(d, indent=1)

    @staticmethod
    def from_json(text: str) -> "Case":
        d = json.loads(text)
        entries = [Entry(e["path"], e["kind"], base64.b64decode(e["data"]), e["target"], tuple(e["device"]))
                   for e in d.pop("entries")]
        return Case(entries=entries, **d)

    def input_size(self) -> int:
        return sum(len(e.data) for e in self.entries)


def file(path: str, data: bytes | str) -> Entry:
    return Entry(path, "file", data.encode() if isinstance(data, str) else data)


def lay_out(case: Case, folder: Path) -> None:
    """Make ``case``'s entries in ``folder`` (which exists and is empty)."""
    for e in case.entries:
        p = folder / e.path
        p.parent.mkdir(parents=True, exist_ok=True)
        if p.is_symlink() or p.exists():  # two faults made one name (seed 16800483): the last is there
            shutil.rmtree(p) if p.is_dir() and not p.is_symlink() else p.unlink()
        if e.kind == "file":
            p.write_bytes(e.data)
        elif e.kind == "dir":
            p.mkdir(exist_ok=True)
        elif e.kind == "fifo":
            os.mkfifo(p)
        elif e.kind == "symlink":
            os.symlink(e.target, p)
        elif e.kind == "hardlink":
            os.link(folder / e.target, p)
        elif e.kind == "chardev":
            try:
                os.mknod(p, 0o666 | stat.S_IFCHR, os.makedev(*e.device))
            except OSError:  # not allowed here: a link to the system's own device
                os.symlink(DEVICES[tuple(e.device)], p)
        else:
            raise ValueError(f"unknown entry kind {e.kind!r}")


def setup_script(case: Case, stored: dict[int, str]) -> str:
    """Shell commands that lay the case out in the current folder (for repro.sh); the bytes of
    entry k, a regular file, are in ``$here/files/<stored[k]>``."""
    lines = []
    for k, e in enumerate(case.entries):
        q = shlex.quote(e.path)
        parent = os.path.dirname(e.path)
        if parent:
            lines.append(f"mkdir -p {shlex.quote(parent)}")
        if e.kind == "file":
            lines.append(f"cp \"$here\"/files/{shlex.quote(stored[k])} {q}")
        elif e.kind == "dir":
            lines.append(f"mkdir -p {q}")
        elif e.kind == "fifo":
            lines.append(f"mkfifo {q}")
        elif e.kind == "symlink":
            lines.append(f"ln -s {shlex.quote(e.target)} {q}")
        elif e.kind == "hardlink":
            lines.append(f"ln {shlex.quote(e.target)} {q}")
        elif e.kind == "chardev":
            major, minor = e.device
            lines.append(f"mknod {q} c {major} {minor} 2>/dev/null || ln -s {DEVICES[(major, minor)]} {q}")
    return "\n".join(lines)
