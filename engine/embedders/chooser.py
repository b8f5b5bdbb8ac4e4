"""Which embedder to use: the ``embedder`` setting (``auto|e5|use|gemini|hash``) made concrete.

``auto`` takes ``e5`` where it loads (its wheel exists for Linux x86-64 only), else ``use``, else ``hash``,
and says why. An explicit choice that cannot load falls back the same way, with the reason. The choice is
logged and returned as a :class:`Choice` so the settings window can show it. Loading a model takes a
moment: call this off the GUI thread (the semantic tier calls it on its worker thread).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine.embedders import Embedder
from engine.embedders.hashing import HashEmbedder
from engine.errors import EngineError

log = logging.getLogger("memtray.embedders")

SETTINGS = ("auto", "e5", "use", "gemini", "hash")


@dataclass(frozen=True)
class Choice:
    """The embedder in use and why.

    Attributes:
        setting: what the user asked for (``auto``, ``e5``, ...).
        name: what is used (``e5``, ``use``, ``gemini``, ``hash``, or ``custom`` for an injected one).
        embedder_id: the id stored with every vector.
        reason: one sentence for the log and the settings window.
    """

    setting: str
    name: str
    embedder_id: str
    reason: str


def _load(name: str, threads: int) -> Embedder:
    if name == "e5":
        from engine.embedders.e5 import E5Embedder

        e5 = E5Embedder(threads=threads)
        e5.load()
        return e5
    from engine.embedders.use import UseEmbedder

    use = UseEmbedder(threads=threads)
    use.load()
    return use


def select(
    setting: str,
    *,
    gemini_key: Callable[[], str | None] | None = None,
    gemini_base_url: str = "",
    gemini_client: Any = None,
    threads: int = 2,
) -> tuple[Embedder, Choice]:
    """Load the embedder the setting asks for, falling back when it cannot load.

    Args:
        setting: ``auto``, ``e5``, ``use``, ``gemini`` or ``hash`` (anything else counts as ``auto``).
        gemini_key: returns the Gemini API key (or None) for ``gemini``.
        gemini_base_url: the ``gemini_base_url`` setting.
        gemini_client: a ready google-genai client (tests); overrides ``gemini_key``.
        threads: threads for the local models.

    Returns:
        The loaded embedder and the choice made.
    """
    if setting not in SETTINGS:
        setting = "auto"
    notes: list[str] = []
    if setting == "hash":
        hashing = HashEmbedder()
        return _chosen(hashing, Choice(setting, "hash", hashing.id, "hash was chosen in the settings"))
    if setting == "gemini":
        client = gemini_client
        if client is None:
            key = gemini_key() if gemini_key is not None else None
            if key:
                from engine.llm.gemini import make_client

                client = make_client(key, base_url=gemini_base_url)
            else:
                notes.append("gemini needs an API key and none is set")
        if client is not None:
            from engine.embedders.gemini import GeminiEmbedder

            remote = GeminiEmbedder(client)
            return _chosen(remote, Choice(setting, "gemini", remote.id, "gemini was chosen in the settings"))
    order = ["use", "e5"] if setting == "use" else ["e5", "use"]
    for name in order:
        try:
            model = _load(name, threads)
        except EngineError as exc:
            notes.append(str(exc))
            continue
        if setting in (name, "auto") and not notes:
            why = (
                f"{name} was chosen in the settings"
                if setting == name
                else "e5 (multilingual-e5-small) loads here and retrieves best"
            )
        else:
            why = f"{name} is used because " + "; ".join(notes)
        return _chosen(model, Choice(setting, name, model.id, why))
    hashing = HashEmbedder()
    reason = "no embedding model loads here (" + "; ".join(notes) + "): keyword-like hash vectors only"
    return _chosen(hashing, Choice(setting, "hash", hashing.id, reason))


def _chosen(embedder: Embedder, choice: Choice) -> tuple[Embedder, Choice]:
    log.info("embedder %s (%s): %s", choice.name, choice.embedder_id, choice.reason)
    return embedder, choice


def choose(setting: str, **kwargs: Any) -> Embedder:
    """The embedder for ``setting`` (see :func:`select`, which also says why)."""
    return select(setting, **kwargs)[0]


def injected(embedder: Embedder) -> Choice:
    """The choice record of an embedder handed in by the caller (tests, benchmarks)."""
    return Choice("custom", "custom", embedder.id, f"embedder {embedder.id} was given by the caller")
