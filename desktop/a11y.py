"""What a screen reader says of a control: its accessible name and description, set in one place.

Qt reads a button's or a check box's text, and a form field's label (its buddy), by itself; a search box,
a list, a table or a text view has neither, and is read as "edit", "list", "table" unless it is named.
:func:`accessible` names such a control and says what it is for (its tooltip too, when it has none).
"""

from __future__ import annotations

from PySide6.QtWidgets import QWidget


def accessible(widget: QWidget, name: str, description: str = "") -> None:
    """Set ``widget``'s accessible name and description (the description is also its tooltip when it
    has none)."""
    widget.setAccessibleName(name)
    if description:
        widget.setAccessibleDescription(description)
        if not widget.toolTip():
            widget.setToolTip(description)
