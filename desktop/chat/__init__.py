"""The chat window: a conversation with Gemini that the memory takes part in (:mod:`engine.chat`)."""
