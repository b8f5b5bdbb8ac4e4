"""One memtray per home folder: a QLockFile decides who runs, a QLocalServer lets a second launch knock.

The first process holds ``<home>/.store/app.lock`` and listens on a local socket named after the user and
the home. A second launch finds the lock held, connects, says ``activate`` and exits; the running app
shows its window (``memtray --search``: its quick search window). ``memtray --quit`` knocks the same way with ``quit``: the running app shuts down cleanly
(this is how an installer, a script or the frozen-build smoke test stops it on every platform, Windows
included, where there is no SIGTERM). A stale lock (the holder crashed) is taken over by QLockFile's stale-lock detection.
"""

from __future__ import annotations

import getpass
import hashlib
import logging
from pathlib import Path

from PySide6.QtCore import QLockFile, QObject, Signal
from PySide6.QtNetwork import QLocalServer, QLocalSocket

log = logging.getLogger("memtray.desktop.single")

ACTIVATE = b"activate\n"
SEARCH = b"search\n"
QUIT = b"quit\n"


def server_name(home: Path) -> str:
    """A local-socket name unique to this user and home folder."""
    digest = hashlib.sha256(f"{getpass.getuser()}\0{home}".encode()).hexdigest()[:16]
    return f"memtray-{digest}"


class SingleInstance(QObject):
    """Holds the app lock and serves activation requests from later launches.

    Signals:
        activation_requested(): a second launch asked the running app to show itself.
        search_requested(): ``memtray --search`` asked for the quick search window.
        quit_requested(): ``memtray --quit`` asked the running app to quit.
    """

    activation_requested = Signal()
    search_requested = Signal()
    quit_requested = Signal()

    def __init__(self, home: Path, lock_path: Path, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.name = server_name(home)
        self._lock = QLockFile(str(lock_path))
        self._lock.setStaleLockTime(0)  # a lock whose process is gone is stale, whatever its age
        self._server: QLocalServer | None = None

    def acquire(self) -> bool:
        """True if this process is the one instance (it then listens for later launches)."""
        if not self._lock.tryLock(200):
            log.info("another memtray holds the lock (error %s)", self._lock.error())
            return False
        QLocalServer.removeServer(self.name)  # a crashed holder's socket file; we own the lock now
        server = QLocalServer(self)
        server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        if not server.listen(self.name):
            log.warning("cannot listen for later launches on %s: %s", self.name, server.errorString())
        else:
            server.newConnection.connect(self._on_new_connection)
            log.info("single instance: lock held, listening on %s", self.name)
        self._server = server
        return True

    def notify_running(self, timeout_ms: int = 2000, message: bytes = ACTIVATE) -> bool:
        """From a second launch: send ``message`` (show yourself, or quit) to the running app; True if it heard."""
        socket = QLocalSocket()
        socket.connectToServer(self.name)
        if not socket.waitForConnected(timeout_ms):
            log.warning("the running memtray did not answer: %s", socket.errorString())
            return False
        socket.write(message)
        ok = socket.waitForBytesWritten(timeout_ms)
        socket.disconnectFromServer()
        return ok

    def release(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None
        if self._lock.isLocked():
            self._lock.unlock()

    def _on_new_connection(self) -> None:
        assert self._server is not None
        while (socket := self._server.nextPendingConnection()) is not None:
            socket.readyRead.connect(self._on_ready_read)
            if socket.bytesAvailable():
                self._read(socket)

    def _on_ready_read(self) -> None:
        socket = self.sender()
        if isinstance(socket, QLocalSocket):
            self._read(socket)

    def _read(self, socket: QLocalSocket) -> None:
        lines = bytes(socket.readAll().data()).split()
        if QUIT.strip() in lines:
            log.info("memtray --quit asked the app to quit")
            self.quit_requested.emit()
        elif SEARCH.strip() in lines:
            log.info("memtray --search asked for the quick search")
            self.search_requested.emit()
        elif ACTIVATE.strip() in lines:
            log.info("a second launch asked to show the window")
            self.activation_requested.emit()
