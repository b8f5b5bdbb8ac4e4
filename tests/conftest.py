"""Suite-wide test set-up.

- Every test gets its own memtray home (``MEMTRAY_HOME``) and a throw-away ``HOME``/XDG folders, so no
  test can touch the real user's data.
- With ``CI=true`` a skipped test is a failure: every test must really run in CI. The one exception is a
  test marked ``wine_gap`` in the Windows suite under Wine (``make windows-test``): it names the Windows
  function Wine lacks, and runs on Linux and on real Windows.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.secretservice import missing_binaries, private_secret_service

CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


@pytest.fixture(autouse=True)
def _isolated_home(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Path]:
    home = tmp_path / "memtray-home"
    monkeypatch.setenv("MEMTRAY_HOME", str(home))
    # Path.home() (~/.claude/projects, ~/.codex/sessions, login entries): a folder of its own, beside
    # tmp_path so that a test sees only what it puts in tmp_path.
    user = tmp_path_factory.mktemp("user-home")
    monkeypatch.setenv("HOME", str(user))
    monkeypatch.setenv("USERPROFILE", str(user))
    for var in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
        monkeypatch.setenv(var, str(tmp_path / "xdg" / var.lower()))
    if os.name == "nt":
        # %LOCALAPPDATA% and %APPDATA%: platformdirs asks Windows (SHGetKnownFolderPath) unless its
        # WIN_PD_OVERRIDE_* variable names a folder, so both are set.
        for folder, platformdirs_name in (("LOCALAPPDATA", "LOCAL_APPDATA"), ("APPDATA", "APPDATA")):
            path = str(user / "AppData" / ("Local" if folder == "LOCALAPPDATA" else "Roaming"))
            monkeypatch.setenv(folder, path)
            monkeypatch.setenv(f"WIN_PD_OVERRIDE_{platformdirs_name}", path)
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    # Fast, deterministic vectors unless a test asks for a model (the embedder tests build their own).
    monkeypatch.setenv("MEMTRAY_EMBEDDER", "hash")
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    yield home


@pytest.fixture
def secret_service(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    """A real SecretService keyring (gnome-keyring on a private D-Bus) for this test; its env is set."""
    missing = missing_binaries()
    if missing:
        pytest.skip(f"needs {', '.join(missing)} (apt-get install gnome-keyring dbus)")
    with private_secret_service(tmp_path) as env:
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        yield env


def _under_wine() -> bool:
    """Whether this is a Windows Python running under Wine (ntdll exports wine_get_version there)."""
    if os.name != "nt":
        return False
    import ctypes

    return hasattr(ctypes.WinDLL("ntdll"), "wine_get_version")


UNDER_WINE = _under_wine()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under Wine, a test marked ``wine_gap("dll.Function: what fails")`` is skipped with that reason
    (a Windows function Wine 8.0 lacks); everywhere else, and on real Windows, it runs."""
    if not UNDER_WINE:
        return
    for item in items:
        gap = item.get_closest_marker("wine_gap")
        if gap is not None:
            item.add_marker(pytest.mark.skip(reason=f"Wine 8.0 lacks {gap.args[0]}"))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()
    wine_gap = UNDER_WINE and item.get_closest_marker("wine_gap") is not None
    if CI and report.skipped and not hasattr(report, "wasxfail") and not wine_gap:
        report.outcome = "failed"
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.longrepr = f"skipped in CI, which must run every test: {reason}"
