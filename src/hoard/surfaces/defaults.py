"""Defaults shared by the surfaces, in a module that imports nothing heavy (the CLI reads
them without loading the MCP SDK)."""

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
