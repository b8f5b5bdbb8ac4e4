"""Colours taken from the palette, checked for contrast, so rich text stays readable in light and dark themes.

The contrast ratio is WCAG 2's: ``(L1 + 0.05) / (L2 + 0.05)`` of the two colours' relative luminances;
4.5 is the minimum for body text (:data:`READABLE`).
"""

from __future__ import annotations

from PySide6.QtGui import QColor, QPalette

READABLE = 4.5

Role = QPalette.ColorRole


def luminance(color: QColor) -> float:
    """WCAG relative luminance of ``color`` (0 black … 1 white)."""

    def channel(value: float) -> float:
        return value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(color.redF()) + 0.7152 * channel(color.greenF()) + 0.0722 * channel(color.blueF())


def contrast_ratio(a: QColor, b: QColor) -> float:
    """WCAG contrast ratio of two colours, from 1 (the same) to 21 (black on white)."""
    la, lb = luminance(a), luminance(b)
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)


def readable_on(background: QColor, preferred: QColor) -> QColor:
    """``preferred`` if it is readable on ``background``, else black or white, whichever contrasts more."""
    if contrast_ratio(preferred, background) >= READABLE:
        return preferred
    black, white = QColor(0, 0, 0), QColor(255, 255, 255)
    return black if contrast_ratio(black, background) >= contrast_ratio(white, background) else white


def mix(a: QColor, b: QColor, amount: float) -> QColor:
    """``a`` moved ``amount`` (0…1) of the way towards ``b``."""
    return QColor.fromRgbF(
        a.redF() + (b.redF() - a.redF()) * amount,
        a.greenF() + (b.greenF() - a.greenF()) * amount,
        a.blueF() + (b.blueF() - a.blueF()) * amount,
    )


def muted(palette: QPalette) -> QColor:
    """A text colour between the palette's text and base that is still readable on the base."""
    text, base = palette.color(Role.Text), palette.color(Role.Base)
    for amount in (0.45, 0.35, 0.25, 0.15, 0.0):
        candidate = mix(text, base, amount)
        if contrast_ratio(candidate, base) >= READABLE:
            return candidate
    return readable_on(base, text)


def highlight(palette: QPalette) -> tuple[QColor, QColor]:
    """The background and text colours that mark a match: the palette's Highlight and HighlightedText,
    the text replaced by black or white when the theme's pair is not readable."""
    background = palette.color(Role.Highlight)
    return background, readable_on(background, palette.color(Role.HighlightedText))


def mark_style(palette: QPalette) -> str:
    """The CSS of a marked match in rich text: :func:`highlight`'s background and text colours."""
    background, foreground = highlight(palette)
    return f"background-color:{background.name()};color:{foreground.name()};"


def dark(palette: QPalette) -> bool:
    """Whether the palette is a dark theme (its base, where text is written, is dark)."""
    return luminance(palette.color(Role.Base)) < 0.5


ROLE_ACCENTS = {
    "user": (QColor("#1f5f9e"), QColor("#7fb5ee")),
    "assistant": (QColor("#24794a"), QColor("#6fd39a")),
}
"""A role's colour (light theme, dark theme): the stripe and header of its messages."""
OTHER_ACCENT = (QColor("#666666"), QColor("#a8a8a8"))
CUT_ACCENT = (QColor("#9a5410"), QColor("#f0a860"))
"""The compaction cut line and its label."""


def accent(palette: QPalette, pair: tuple[QColor, QColor]) -> QColor:
    """The colour of ``pair`` for the palette's theme, made readable on its base if it is not."""
    return readable_on(palette.color(Role.Base), pair[1] if dark(palette) else pair[0])


def role_color(palette: QPalette, role: str) -> QColor:
    """The colour of a ``role``'s messages (user, assistant, any other), readable on the palette's base."""
    return accent(palette, ROLE_ACCENTS.get(role, OTHER_ACCENT))


def banner_style(palette: QPalette) -> str:
    """The CSS of a notice banner: amber, light or dark with the theme, its text readable on it."""
    background = QColor("#4a3a10") if dark(palette) else QColor("#fff4ce")
    text = readable_on(background, QColor("#ffe9a8") if dark(palette) else QColor("#5c4400"))
    return f"background:{background.name()}; color:{text.name()}; padding:6px; border:1px solid #c0a040;"


def warning(palette: QPalette) -> QColor:
    """A red for error text, readable on the palette's window colour."""
    window = palette.color(Role.Window)
    dark_theme = luminance(window) < 0.5
    return readable_on(window, QColor("#ff8080") if dark_theme else QColor("#a40000"))
