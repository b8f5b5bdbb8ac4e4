"""User settings: one typed, validated object, stored in the database's ``settings`` table.

Defaults are the original's (16 messages in the window, 4 MiB before compaction). A stored value that
no longer validates (an older version, a hand edit) falls back to the default with a log line, as the
original does for limits that are missing or not positive. :class:`StoredSettings` holds the copy one
memory uses.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
from dataclasses import dataclass, fields
from typing import Any, Protocol

from engine.errors import InvalidSetting

log = logging.getLogger("memtray.settings")

EMBEDDERS = ("auto", "e5", "use", "gemini", "hash")
"""The embedder choices: ``auto`` picks the best local one that loads."""
UI_LANGUAGES = ("auto", "en", "zh_TW")
"""The desktop app's languages: ``auto`` follows the system."""
SHARED = frozenset(
    {
        "max_history_messages",
        "summary_model",
        "chat_model",
        "decision_model",
        "reply_lang",
        "summaries_enabled",
        "redact_secrets",
    }
)
"""The settings every device of a sync folder shares (:mod:`engine.sync.sharedsettings`): how much of a
session the LLM sees, how summaries are written and in which language, what is redacted before text
goes to Gemini. The others belong to a device: its files and folders, its keyboard, its language, its
embedder and CPU, its network (``gemini_base_url``, timeouts)."""
FLASH, FLASH_LITE, PRO = "gemini-2.5-flash", "gemini-2.5-flash-lite", "gemini-2.5-pro"
GEMINI_MODELS = (FLASH, FLASH_LITE, PRO)
"""The Gemini models offered for the model settings (any other model name may be set)."""


@dataclass(frozen=True)
class Settings:
    """Every user setting, with its default.

    Attributes:
        max_history_messages: messages of history.json sent to the LLM each turn (the window).
        max_history_bytes: history.json is compacted to 80 % when it grows past this many bytes.
        agent_send_timeout_seconds: timeout of one LLM call (and of one session's summary run).
        summary_model: the Gemini model that writes summaries.
        chat_model: the Gemini model of the chat window.
        decision_model: the small Gemini model for noise pruning and relevance; empty turns both off.
        reply_lang: ``auto`` (the conversation's language, Chinese as Traditional Chinese) or a tag (``en``).
        gemini_base_url: empty for Google's endpoint; tests point it at a fake server on loopback.
        embedder: ``auto`` (e5 where it loads, else use), ``e5``, ``use``, ``gemini`` or ``hash``.
        summaries_enabled: whether the scheduled summarizer runs.
        embedding_paused: whether the background embedder is paused (messages stay queued; searches rank
            what is embedded).
        redact_secrets: replace keys, tokens and passwords in text sent to Gemini.
        autostart: no longer read by the app (its login entry is the state, kept per user, not per data
            folder); kept so that stored values still load.
        ui_language: the desktop app's language, ``auto`` (the system's), ``en`` or ``zh_TW``; read when the
            app starts.
        search_shortcut: the desktop app's global shortcut to its quick search, in Qt's notation
            (``Ctrl+Alt+M``); empty for none. A change applies at once.
        watch_agent_folders: the desktop app imports what coding agents append to their transcripts in
            ``agent_folders`` (Claude Code, Codex), as they write it.
        agent_folders: the folders of transcripts to watch; empty means the agents' own folders that
            exist (``~/.claude/projects``, ``~/.codex/sessions``). On the command line, one text with the
            folders separated by the system's path separator (``:``, or ``;`` on Windows).
    """

    max_history_messages: int = 16
    max_history_bytes: int = 4 * 1024 * 1024
    agent_send_timeout_seconds: int = 600
    summary_model: str = FLASH
    chat_model: str = FLASH
    decision_model: str = FLASH_LITE
    reply_lang: str = "auto"
    gemini_base_url: str = ""
    embedder: str = "auto"
    summaries_enabled: bool = True
    embedding_paused: bool = False
    redact_secrets: bool = True
    autostart: bool = False
    ui_language: str = "auto"
    search_shortcut: str = "Ctrl+Alt+M"

    # Agents' transcripts, imported while they grow.
    watch_agent_folders: bool = False
    agent_folders: tuple[str, ...] = ()

    def replace(self, **changes: Any) -> Settings:
        """A copy with ``changes`` applied, each validated."""
        checked = {name: coerce(name, value) for name, value in changes.items()}
        return dataclasses.replace(self, **checked)

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


DEFAULTS = Settings()
_TYPES: dict[str, type] = {f.name: type(getattr(DEFAULTS, f.name)) for f in fields(Settings)}


def names() -> list[str]:
    """Every setting name, in declaration order."""
    return [f.name for f in fields(Settings)]


def coerce(name: str, value: Any) -> Any:
    """Validate ``value`` for setting ``name``; text from the command line is converted.

    Raises:
        InvalidSetting: for an unknown name or a value that does not fit.
    """
    if name not in _TYPES:
        raise InvalidSetting(f"unknown setting {name!r}; known: {', '.join(names())}")
    kind = _TYPES[name]
    if kind is bool:
        if isinstance(value, bool):
            result: Any = value
        elif isinstance(value, str) and value.strip().lower() in ("1", "true", "yes", "on"):
            result = True
        elif isinstance(value, str) and value.strip().lower() in ("0", "false", "no", "off"):
            result = False
        else:
            raise InvalidSetting(f"{name} must be true or false, not {value!r}")
    elif kind is tuple:
        result = _folders(name, value)
    elif kind is int:
        try:
            result = int(value) if not isinstance(value, bool) else None
        except (TypeError, ValueError):
            result = None
        if result is None or result <= 0:
            raise InvalidSetting(f"{name} must be a positive whole number, not {value!r}")
    else:
        if not isinstance(value, str):
            raise InvalidSetting(f"{name} must be text, not {value!r}")
        result = value.strip()
    if name == "embedder" and result not in EMBEDDERS:
        raise InvalidSetting(f"embedder must be one of {', '.join(EMBEDDERS)}, not {result!r}")
    if name == "ui_language" and result not in UI_LANGUAGES:
        raise InvalidSetting(f"ui_language must be one of {', '.join(UI_LANGUAGES)}, not {result!r}")
    if name == "search_shortcut" and len(result) > 64:
        raise InvalidSetting("search_shortcut must be one key combination, like Ctrl+Alt+M")
    if name == "max_history_messages" and result > 10_000:
        raise InvalidSetting("max_history_messages must be at most 10000")
    if name == "max_history_bytes" and result < 4096:
        raise InvalidSetting("max_history_bytes must be at least 4096")
    if name == "gemini_base_url" and result and not result.startswith(("http://", "https://")):
        raise InvalidSetting("gemini_base_url must start with http:// or https://")
    return result


def _folders(name: str, value: Any) -> tuple[str, ...]:
    """A list of folders: a list of texts, or one text with the system's path separator between them."""
    if isinstance(value, str):
        value = value.split(os.pathsep)
    if not isinstance(value, list | tuple) or not all(isinstance(item, str) for item in value):
        raise InvalidSetting(f"{name} must be a list of folders, not {value!r}")
    return tuple(item.strip() for item in value if item.strip())


def from_stored(rows: dict[str, str]) -> Settings:
    """Settings from the ``settings`` table's ``{name: json}`` rows; bad values fall back to defaults."""
    values: dict[str, Any] = {}
    for name, raw in rows.items():
        if name not in _TYPES:
            continue
        try:
            values[name] = coerce(name, json.loads(raw))
        except (ValueError, InvalidSetting) as exc:
            log.warning("setting %s has an unusable stored value, using the default: %s", name, exc)
    return dataclasses.replace(DEFAULTS, **values)


def to_stored(settings: Settings) -> dict[str, str]:
    """The ``{name: json}`` rows for a settings object."""
    return {name: json.dumps(value, ensure_ascii=False) for name, value in settings.as_dict().items()}


def render(value: Any) -> str:
    """A setting value as the CLI prints it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple):
        return os.pathsep.join(value)
    return str(value)


class SettingRows(Protocol):
    """Where settings are kept as ``{name: json}`` rows (the database's ``settings`` table)."""

    def setting_rows(self) -> dict[str, str]: ...

    def save_setting_rows(self, rows: dict[str, str]) -> None: ...


class StoredSettings:
    """The settings of one database: the copy in use, changed or re-read from the ``settings`` table."""

    def __init__(self, store: SettingRows) -> None:
        self._store = store
        self._current = from_stored(store.setting_rows())

    def get(self) -> Settings:
        """The settings in use (as last read or changed by this process)."""
        return self._current

    def reload(self) -> Settings:
        """Re-read the settings (another process may have changed them) and use them from now on."""
        self._current = from_stored(self._store.setting_rows())
        return self._current

    def update(self, **changes: Any) -> Settings:
        """Validate and store setting changes; return the new settings.

        Raises:
            InvalidSetting: an unknown name or a bad value (nothing is stored).
        """
        updated = self._current.replace(**changes)
        self._store.save_setting_rows({k: v for k, v in to_stored(updated).items() if k in changes})
        self._current = updated
        return updated
