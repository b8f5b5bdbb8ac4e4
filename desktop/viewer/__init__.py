"""The session viewer: sessions list, conversation, search, summary and error memory, in one window."""
