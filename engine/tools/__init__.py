"""The LLM tools of the memory: function declarations (JSON schema) and executors that return text."""
