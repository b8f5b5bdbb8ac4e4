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


def warning(palette: QPalette) -> QColor:
    """A red for error text, readable on the palette's window colour."""
    window = palette.color(Role.Window)
    dark_theme = luminance(window) < 0.5
    return readable_on(window, QColor("#ff8080") if dark_theme else QColor("#a40000"))
