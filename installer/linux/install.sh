#!/bin/sh
# Install memtray for this user only: no root, nothing written outside PREFIX (default ~/.local).
#
#   ./install.sh                  # into ~/.local: opt/memtray, bin/memtray, share/applications, share/icons
#   PREFIX=/some/where ./install.sh
#
# Installing again replaces the program (a running memtray keeps working until it is restarted).
# Your data (~/.local/share/memtray, or MEMTRAY_HOME) is never touched. ~/.local/opt/memtray/uninstall.sh
# removes everything this script wrote.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
PREFIX=${PREFIX:-$HOME/.local}
OPT="$PREFIX/opt/memtray"
BIN="$PREFIX/bin"
SHARE="$PREFIX/share"

if [ "$(uname -s)" != Linux ] || [ "$(uname -m)" != x86_64 ]; then
  echo "install.sh: this build is for Linux x86-64, not $(uname -s) $(uname -m)" >&2
  exit 1
fi
glibc=$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{print $2}')
case "$glibc" in
  2.[0-9]|2.[12][0-9]|2.3[0-3]) echo "install.sh: warning: glibc $glibc found; Qt 6.12 needs 2.34 or newer" >&2 ;;
esac
[ -x "$HERE/memtray/memtray" ] || { echo "install.sh: $HERE/memtray/memtray is missing" >&2; exit 1; }

mkdir -p "$PREFIX/opt" "$BIN" "$SHARE/applications"
rm -rf "$OPT.new" "$OPT.old"
cp -a "$HERE/memtray" "$OPT.new"
cp "$HERE/uninstall.sh" "$OPT.new/uninstall.sh"
chmod 755 "$OPT.new/uninstall.sh"
[ -d "$OPT" ] && mv "$OPT" "$OPT.old"
mv "$OPT.new" "$OPT"
rm -rf "$OPT.old"

manifest="$OPT/install-manifest.txt"
: >"$manifest"
ln -sfn "$OPT/memtray" "$BIN/memtray"
echo "$BIN/memtray" >>"$manifest"

desktop="$SHARE/applications/memtray.desktop"
sed -e "s|^Exec=.*|Exec=\"$OPT/memtray\"|" -e "s|^TryExec=.*|TryExec=$OPT/memtray|" \
  "$HERE/share/applications/memtray.desktop" >"$desktop.tmp"
mv "$desktop.tmp" "$desktop"
echo "$desktop" >>"$manifest"

(cd "$HERE/share" && find icons -type f) | while read -r icon; do
  mkdir -p "$(dirname "$SHARE/$icon")"
  cp "$HERE/share/$icon" "$SHARE/$icon"
  echo "$SHARE/$icon" >>"$manifest"
done

if command -v update-desktop-database >/dev/null 2>&1; then
  update-desktop-database -q "$SHARE/applications" 2>/dev/null || true
fi
if command -v gtk-update-icon-cache >/dev/null 2>&1 && [ -f "$SHARE/icons/hicolor/index.theme" ]; then
  gtk-update-icon-cache -q -t "$SHARE/icons/hicolor" 2>/dev/null || true
fi

echo "memtray installed in $OPT"
echo "  command:  $BIN/memtray   (no command starts the tray app; memtray --help lists the commands)"
echo "  menu:     $desktop"
echo "  remove:   $OPT/uninstall.sh"
case ":$PATH:" in
  *":$BIN:"*) ;;
  *) echo "note: $BIN is not on your PATH; add it, or start memtray from the applications menu" ;;
esac
