#!/bin/sh
# Remove memtray installed by install.sh: the program folder, the memtray command, the menu entry, the
# icons and the login item that points at this install. Your data folder is kept.
#
#   ~/.local/opt/memtray/uninstall.sh
#   PREFIX=/some/where ./uninstall.sh      # run from an unpacked tarball
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
if [ -f "$HERE/install-manifest.txt" ]; then
  OPT="$HERE"
else
  OPT="${PREFIX:-$HOME/.local}/opt/memtray"
fi
[ -f "$OPT/install-manifest.txt" ] || { echo "uninstall.sh: no memtray install found at $OPT" >&2; exit 1; }

# Ask a running memtray (default data folder) to quit; nothing happens if none runs.
"$OPT/memtray" --quit >/dev/null 2>&1 || true

while read -r path; do
  case "$path" in
    */bin/memtray)
      # only our symlink: a memtray installed some other way since then stays
      if [ "$(readlink "$path" 2>/dev/null)" = "$OPT/memtray" ]; then rm -f "$path"; fi ;;
    ?*) rm -f "$path" ;;
  esac
done <"$OPT/install-manifest.txt"

autostart="${XDG_CONFIG_HOME:-$HOME/.config}/autostart/memtray.desktop"
if [ -f "$autostart" ] && grep -q "$OPT/memtray" "$autostart"; then
  rm -f "$autostart"
fi
rm -rf "$OPT"
echo "memtray removed from $OPT. Your data is kept: ${MEMTRAY_HOME:-${XDG_DATA_HOME:-$HOME/.local/share}/memtray}"
