"""A test double of a sync engine (Syncthing, Dropbox …): each device has its own copy of the shared
folder, and the double copies files between the copies when told, the way real engines misbehave:

- late: nothing moves until :meth:`FakeEngine.deliver` is called, and then only the files picked;
- out of order: a later segment can arrive before an earlier one;
- duplicated: a file can be delivered again;
- partial: a file can first arrive truncated or empty under its final name (an engine that writes in
  place, a USB copy pulled out), and whole later;
- with litter: conflict copies and partial-download names beside the real files.

Every file is copied byte for byte (the double never opens or decrypts anything).
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path

LITTER = (
    "{stem}.sync-conflict-20261204-101010-ABCDEFG.mts",
    "{stem} (conflicted copy).mts",
    "{stem}-1.mts",
    ".syncthing.{stem}.mts.tmp",
    "~${stem}.mts",
)


class FakeEngine:
    """Folders ``<base>/<name>`` that it keeps (eventually) in step."""

    def __init__(self, base: Path, names: list[str], seed: int = 0) -> None:
        self.folders = {name: base / name for name in names}
        for folder in self.folders.values():
            folder.mkdir(parents=True, exist_ok=True)
        self.random = random.Random(seed)
        self.owners: dict[str, str] = {}

    def folder(self, name: str) -> Path:
        return self.folders[name]

    def owns(self, name: str, device: str) -> None:
        """``name``'s copy is where ``device`` writes (its folder's files flow out of that copy only)."""
        self.owners[device] = name

    def _missing(self) -> list[tuple[str, str, Path]]:
        """(source, target, relative path) of every file that differs between two copies."""
        found = []
        for src, base in self.folders.items():
            for path in sorted(base.rglob("*")):
                if not path.is_file() or path.name.startswith((".memtray-tmp-", ".syncthing.", "~$")):
                    continue
                rel = path.relative_to(base)
                if len(rel.parts) >= 3 and self.owners.get(rel.parts[1]) != src:
                    continue  # a copy of another device's file: it flows from its owner only
                for dst, other in self.folders.items():
                    target = other / rel
                    if dst != src and (not target.exists() or target.read_bytes() != path.read_bytes()):
                        found.append((src, dst, rel))
        return found

    def deliver(self, share: float = 1.0, *, partial: float = 0.0, litter: float = 0.0) -> int:
        """Copy a random ``share`` of the differing files, in random order; each has a ``partial`` chance
        of arriving truncated (or empty) instead, and a ``litter`` chance of leaving a conflict copy or a
        partial-download file beside it. Returns how many files were copied whole."""
        todo = self._missing()
        self.random.shuffle(todo)
        whole = 0
        for src, dst, rel in todo[: max(1, int(len(todo) * share)) if todo else 0]:
            source, target = self.folders[src] / rel, self.folders[dst] / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            data = source.read_bytes()
            if self.random.random() < litter:
                name = self.random.choice(LITTER).format(stem=source.stem)
                (target.parent / name).write_bytes(data[: self.random.randint(0, len(data))])
            if self.random.random() < partial:
                target.write_bytes(data[: self.random.randint(0, max(0, len(data) - 1))])
                continue
            shutil.copyfile(source, target)
            whole += 1
            if self.random.random() < 0.2:  # delivered twice
                shutil.copyfile(source, target)
        return whole

    def deliver_only(self, device: str, to: str) -> int:
        """Copy, whole, the files of ``device`` that the copy ``to`` lacks (one device's files arriving
        before another's). Returns how many."""
        todo = [(s, d, r) for s, d, r in self._missing() if d == to and r.parts[1:2] == (device,)]
        for src, dst, rel in todo:
            target = self.folders[dst] / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(self.folders[src] / rel, target)
        return len(todo)

    def settle(self) -> None:
        """Deliver everything, whole."""
        while self.deliver(1.0):
            pass
