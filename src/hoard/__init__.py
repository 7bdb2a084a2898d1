"""hoard: a governed, searchable long-term memory over a folder of Markdown notes."""

__version__ = "0.1.0"
