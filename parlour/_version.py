"""The package version, kept apart so that any layer can read it without importing the root."""

__version__ = "0.1.0"
