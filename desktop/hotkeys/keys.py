"""A global shortcut's keys, read from Qt's notation ("Ctrl+Alt+M"), and the errors of registering one.

Only what every platform's hot-key call can take: one letter, digit, function key (F1–F24) or Space,
with any of Ctrl, Alt, Shift and Meta (Qt's names: on macOS, Ctrl is the Command key and Meta the Control
key, as everywhere in Qt).
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence


class ShortcutTaken(Exception):
    """Another app already holds these keys."""


class ShortcutUnavailable(Exception):
    """The platform gives this app no global shortcut (or its library is missing)."""


@dataclass(frozen=True)
class Keys:
    """A key with modifiers.

    Attributes:
        key: ``a``–``z``, ``0``–``9``, ``f1``–``f24`` or ``space``.
        ctrl, alt, shift, meta: the modifiers, in Qt's sense.
        text: the keys as the user reads them on this platform (``Ctrl+Alt+M``, ``⌘⌥M``).
    """

    key: str
    ctrl: bool = False
    alt: bool = False
    shift: bool = False
    meta: bool = False
    text: str = ""

    @classmethod
    def parse(cls, notation: str) -> Keys:
        """The keys of ``notation`` (Qt's ``QKeySequence`` text, one combination).

        Raises:
            ValueError: not one combination, no modifier, or a key the platforms' calls cannot take.
        """
        sequence = QKeySequence(notation)
        if sequence.count() != 1:
            raise ValueError(f"{notation!r} is not one key combination")
        combination = sequence[0]  # type: ignore[index]
        key = _key_name(combination.key())
        if key is None:
            raise ValueError(f"{notation!r}: a global shortcut's key is a letter, a digit, F1-F24 or Space")
        mods = combination.keyboardModifiers()
        Mod = Qt.KeyboardModifier
        keys = cls(
            key,
            ctrl=bool(mods & Mod.ControlModifier),
            alt=bool(mods & Mod.AltModifier),
            shift=bool(mods & Mod.ShiftModifier),
            meta=bool(mods & Mod.MetaModifier),
            text=sequence.toString(QKeySequence.SequenceFormat.NativeText),
        )
        if not (keys.ctrl or keys.alt or keys.meta):
            raise ValueError(f"{notation!r}: a global shortcut needs Ctrl, Alt or Meta")
        return keys


def _key_name(key: Qt.Key) -> str | None:
    value = key.value
    if Qt.Key.Key_A.value <= value <= Qt.Key.Key_Z.value or Qt.Key.Key_0.value <= value <= Qt.Key.Key_9.value:
        return chr(value).lower()
    if Qt.Key.Key_F1.value <= value <= Qt.Key.Key_F24.value:
        return f"f{value - Qt.Key.Key_F1.value + 1}"
    if key == Qt.Key.Key_Space:
        return "space"
    return None
