#!/bin/sh
# Make installer/macos/build/memtray.icns from resources/icons/memtray.svg (macOS only: needs iconutil).
#
# NOT RUN HERE (the project's machines are Linux). The PNG sizes an .iconset needs are rendered from the SVG
# with Qt (desktop.icons.render_pngs, offscreen), then iconutil packs them. memtray.spec uses the .icns
# when it exists, else it lets Pillow convert memtray-256.png (blurry on Retina, but it works).
set -eu
cd "$(dirname "$0")/../.."
PY=${PY:-.venv/bin/python}
SET=installer/macos/build/memtray.iconset
rm -rf "$SET" && mkdir -p "$SET"
QT_QPA_PLATFORM=offscreen "$PY" - "$SET" <<'PYEOF'
import sys
from pathlib import Path

from PySide6.QtGui import QGuiApplication

from desktop.icons import SVG, render_pngs

app = QGuiApplication(sys.argv[:1])
out = Path(sys.argv[1])
for size in (16, 32, 128, 256, 512):
    for scale, suffix in ((1, ""), (2, "@2x")):
        (png,) = render_pngs(SVG, out, (size * scale,))
        png.rename(out / f"icon_{size}x{size}{suffix}.png")
PYEOF
iconutil -c icns "$SET" -o installer/macos/build/memtray.icns
echo "wrote installer/macos/build/memtray.icns"
