# memtray developer entry points. `make run` and `make test` work on a fresh machine with Python 3.11+.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

# The frozen build has its own venv: the `dist` extra (PyInstaller) and a portable annoy (no -march=native).
DVENV  := .venv-dist
DBIN   := $(DVENV)/bin
DSTAMP := $(DVENV)/.installed
VERSION := $(shell sed -n 's/^version = "\(.*\)"/\1/p' pyproject.toml)
ARCH   := $(shell uname -m)
ANNOY_LEVEL ?= baseline
BUNDLE  := dist/memtray/memtray
TARBALL := dist/memtray-$(VERSION)-linux-$(ARCH).tar.gz
BUNDLE_SOURCES := pyproject.toml installer/memtray.spec installer/entry.py \
	$(shell find engine desktop resources/icons -type f -not -path '*/__pycache__/*' -not -name '*.qm' 2>/dev/null)

# The UI's translations (desktop/i18n.py): .ts sources committed, .qm compiled beside them (not committed).
TS := $(wildcard desktop/translations/*.ts)
QM := $(TS:.ts=.qm)
# The import reasons are the engine's (engine/importers/reasons.py marks each with reason(...)).
I18N_SOURCES = $(shell find desktop -name '*.py' -not -path '*/__pycache__/*' | LC_ALL=C sort) \
	engine/importers/reasons.py
LUPDATE = $(BIN)/pyside6-lupdate -silent -tr-function-alias QT_TR_NOOP+=reason

.PHONY: run test lint typecheck pytest bench dist clean translations i18n-update screenshots windows-test windows-dist

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit("memtray needs Python 3.11 or newer") if sys.version_info < (3, 11) else None'
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

translations: $(QM)

desktop/translations/%.qm: desktop/translations/%.ts $(STAMP)
	$(BIN)/pyside6-lrelease -silent $< -qm $@

# After changing UI strings: bring the .ts files up to date with the code (new strings arrive unfinished
# in memtray_zh_TW.ts; translate them there, then `make translations`). The test suite fails while any
# string lacks a translation.
i18n-update: $(STAMP)
	$(LUPDATE) $(I18N_SOURCES) -ts desktop/translations/memtray_zh_TW.ts \
		-target-language zh_TW -no-obsolete -locations none
	$(LUPDATE) $(I18N_SOURCES) -ts desktop/translations/memtray_en.ts \
		-target-language en -pluralonly -no-obsolete -locations none

run: $(STAMP) translations
	$(BIN)/memtray

lint: $(STAMP)
	$(BIN)/ruff check engine desktop tests bench installer scripts
	$(BIN)/ruff format --check engine desktop tests bench installer scripts

typecheck: $(STAMP)
	$(BIN)/mypy

pytest: $(STAMP) translations
	$(BIN)/python -m pytest -q -p no:cacheprovider $(PYTEST_ARGS)

test: lint typecheck pytest

# The Windows installer, built on Linux: PyInstaller run by a Windows CPython under Wine, then NSIS
# (installer/windows/build.py; apt-get install wine64 binutils-mingw-w64-x86-64 nsis).
# NSIS_COMPRESSOR=zlib packs in under a minute (CI); lzma, the default, makes the smallest installer.
WINDOWS_INSTALLER := dist/memtray-$(VERSION)-windows-x64-setup.exe
NSIS_COMPRESSOR ?= lzma
$(WINDOWS_INSTALLER): $(STAMP) $(BUNDLE_SOURCES) $(wildcard installer/windows/*.py installer/windows/*.nsi scripts/wine/*.py scripts/wine/*.s scripts/wine/*.txt)
	$(BIN)/python installer/windows/build.py --compressor $(NSIS_COMPRESSOR)

windows-dist: $(WINDOWS_INSTALLER)

# The engine's tests run by a Windows CPython under Wine (scripts/wine/: apt-get install wine64
# binutils-mingw-w64-x86-64). The prefix and wheels live in ~/.cache/memtray-wine, made once.
# tests/windows-suite.txt says which tests, and why some are left out.
WINDOWS_TESTS ?= $(shell sed 's/\#.*//' tests/windows-suite.txt)
windows-test: $(STAMP)
	$(BIN)/python -m scripts.wine.provision
	CI= $(BIN)/python -m scripts.wine.run -m pytest -q -rs -p no:cacheprovider \
		-W ignore::pytest.PytestConfigWarning $(WINDOWS_TESTS) $(PYTEST_ARGS)

# The README's screenshots (docs/screenshots/*.png), from a seeded home of synthetic conversations.
screenshots: $(STAMP)
	$(BIN)/python -m scripts.screenshots

bench: $(STAMP)
	@echo "see bench/README.md; e.g. $(BIN)/python -m bench.append"

$(DSTAMP): pyproject.toml installer/build-annoy.sh
	@$(PYTHON) -c 'import sys; sys.exit("memtray needs Python 3.11 or newer") if sys.version_info < (3, 11) else None'
	test -x $(DBIN)/python || $(PYTHON) -m venv $(DVENV)
	$(DBIN)/python -m pip install --quiet --upgrade pip
	installer/build-annoy.sh $(DBIN)/python $(ANNOY_LEVEL)  # first, so pip keeps this build of annoy
	$(DBIN)/python -m pip install --quiet -e '.[dist]'
	touch $(DSTAMP)

# The Linux bundle (dist/memtray/) and its tarball with install.sh; see installer/README.md.
$(BUNDLE): $(DSTAMP) $(BUNDLE_SOURCES)
	rm -rf dist/memtray
	$(DBIN)/pyinstaller --noconfirm --log-level WARN --distpath dist --workpath build/pyinstaller \
		installer/memtray.spec
	touch $(BUNDLE)

$(TARBALL): $(BUNDLE) $(wildcard installer/linux/*) resources/memtray.desktop
	$(DBIN)/python installer/linux/package.py --bundle dist/memtray --out $(TARBALL)

dist: $(TARBALL)

clean:
	rm -rf $(VENV) $(DVENV) build dist *.egg-info .mypy_cache .ruff_cache .pytest_cache
