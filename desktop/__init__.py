"""memtray's desktop app: the Qt tray icon, the session viewer and the settings window.

Importing this package does not import Qt; :mod:`desktop.app` does.
"""
