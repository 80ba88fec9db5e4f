"""companion: a table-side referee for four family board games."""

__version__ = "0.1.0"
