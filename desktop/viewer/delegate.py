"""Paints one message row: a role stripe, ``role · sender · local time``, then the first lines of text.

Every row has the same height (so a list of 100,000 rows lays out at once and scrolls smoothly); the
full text of the current message is shown in the pane below the list. The compaction-cut row is a
labelled line across the list; a row whose page is still being read is a quiet "loading…" row.
"""

from __future__ import annotations

from PySide6.QtCore import (
    QCoreApplication,
    QModelIndex,
    QPersistentModelIndex,
    QRect,
    QSize,
    Qt,
)
from PySide6.QtGui import QFont, QFontMetrics, QPainter, QPalette, QPen
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem

from desktop import contrast
from desktop.i18n import QT_TRANSLATE_NOOP
from desktop.viewer.conversation_model import KindRole, MessageRole
from desktop.viewer.timefmt import local_time

BODY_LINES = 3
PAD = 6
STRIPE = 4
PREVIEW_CHARS = 600
CUT_TEXT = QT_TRANSLATE_NOOP("Message", "compaction cut — older messages live in the archive only")
LOADING_TEXT = QT_TRANSLATE_NOOP("Message", "loading…")
ROLE_NAMES = {
    "user": QT_TRANSLATE_NOOP("Message", "user"),
    "assistant": QT_TRANSLATE_NOOP("Message", "assistant"),
}

translate = QCoreApplication.translate


def role_name(role: str) -> str:
    """The role as the UI shows it (``user``, ``assistant``; another role as it is)."""
    source = ROLE_NAMES.get(role)
    return translate("Message", source) if source else role


def header_text(role: str, sender: str, send_at: int) -> str:
    parts = [role_name(role)]
    if sender:
        parts.append(sender)
    parts.append(local_time(send_at))
    return " · ".join(parts)


def row_height(font: QFont) -> int:
    """The height of every row: the header line and :data:`BODY_LINES` lines of text in ``font``."""
    return QFontMetrics(font).lineSpacing() * (BODY_LINES + 1) + 3 * PAD


class MessageDelegate(QStyledItemDelegate):
    """Fixed-height message rows and the compaction-cut line."""

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QSize:
        return QSize(200, row_height(option.font))

    def paint(
        self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> None:
        painter.save()
        rect: QRect = option.rect
        palette: QPalette = option.palette
        if index.data(KindRole) == "cut":
            self._paint_cut(painter, rect, palette, option.font)
            painter.restore()
            return
        message = index.data(MessageRole)
        if message is None:
            self._paint_placeholder(painter, rect, palette, option.font)
            painter.restore()
            return
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        if selected:
            painter.fillRect(rect, palette.color(QPalette.ColorRole.Highlight))
        text_color = palette.color(
            QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        )
        color = contrast.role_color(palette, message.role)
        painter.fillRect(QRect(rect.left(), rect.top() + 2, STRIPE, rect.height() - 4), color)
        font: QFont = QFont(option.font)
        fm = QFontMetrics(font)
        left = rect.left() + STRIPE + PAD
        width = rect.width() - STRIPE - 2 * PAD
        bold = QFont(font)
        bold.setBold(True)
        painter.setFont(bold)
        painter.setPen(color if not selected else text_color)
        head = QRect(left, rect.top() + PAD, width, fm.lineSpacing())
        painter.drawText(
            head,
            Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
            header_text(message.role, message.sender, message.send_at),
        )
        painter.setFont(font)
        painter.setPen(text_color)
        body = QRect(left, head.bottom() + PAD // 2, width, fm.lineSpacing() * BODY_LINES)
        preview = message.content[:PREVIEW_CHARS]
        painter.setClipRect(body)
        painter.drawText(body, Qt.TextFlag.TextWordWrap | Qt.AlignmentFlag.AlignTop, preview)
        painter.setClipping(False)
        painter.setPen(QPen(palette.color(QPalette.ColorRole.Mid), 1))
        painter.drawLine(rect.left(), rect.bottom(), rect.right(), rect.bottom())
        painter.restore()

    @staticmethod
    def _paint_placeholder(painter: QPainter, rect: QRect, palette: QPalette, font: QFont) -> None:
        color = palette.color(QPalette.ColorRole.PlaceholderText)
        painter.fillRect(QRect(rect.left(), rect.top() + 2, STRIPE, rect.height() - 4), color)
        painter.setPen(color)
        painter.setFont(font)
        left = rect.left() + STRIPE + PAD
        painter.drawText(
            QRect(left, rect.top() + PAD, rect.width() - STRIPE - 2 * PAD, QFontMetrics(font).lineSpacing()),
            Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
            translate("Message", LOADING_TEXT),
        )
        painter.setPen(QPen(palette.color(QPalette.ColorRole.Mid), 1))
        painter.drawLine(rect.left(), rect.bottom(), rect.right(), rect.bottom())

    @staticmethod
    def _paint_cut(painter: QPainter, rect: QRect, palette: QPalette, font: QFont) -> None:
        color = contrast.accent(palette, contrast.CUT_ACCENT)
        fm = QFontMetrics(font)
        label = translate("Message", CUT_TEXT)
        label_width = fm.horizontalAdvance(label) + 2 * PAD
        mid = rect.center().y()
        painter.setPen(QPen(color, 2, Qt.PenStyle.DashLine))
        left_end = rect.center().x() - label_width // 2
        right_start = rect.center().x() + label_width // 2
        painter.drawLine(rect.left() + PAD, mid, left_end, mid)
        painter.drawLine(right_start, mid, rect.right() - PAD, mid)
        painter.setPen(color)
        painter.setFont(font)
        painter.drawText(
            QRect(left_end, rect.top(), label_width, rect.height()), Qt.AlignmentFlag.AlignCenter, label
        )
