"""Chinese text renders with a font that has the glyphs (not tofu boxes)."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtGui import QFont, QFontDatabase, QFontMetrics, QRawFont

TEXT = "記憶體不足繁體中文會議紀錄"


def test_a_traditional_chinese_font_is_installed(qapp: Any) -> None:
    families = QFontDatabase.families(QFontDatabase.WritingSystem.TraditionalChinese)
    if not families:  # a machine without the CI's packages; with CI=true the skip is a failure
        pytest.skip("no font for Traditional Chinese here: apt-get install fonts-wqy-microhei (see .ci/run)")
    metrics = QFontMetrics(QFont(families[0]))
    assert all(metrics.inFontUcs4(ord(ch)) for ch in TEXT), families[0]


def test_the_default_font_falls_back_to_one_with_the_glyphs(qapp: Any) -> None:
    raw = QRawFont.fromFont(QFont(), QFontDatabase.WritingSystem.TraditionalChinese)
    assert raw.isValid()
    assert all(raw.supportsCharacter(ord(ch)) for ch in TEXT), raw.familyName()
    indexes = raw.glyphIndexesForString(TEXT)
    assert indexes and 0 not in indexes  # glyph 0 is .notdef: the tofu box
