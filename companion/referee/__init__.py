"""The referee's camera side: board maps from the games' data, observation -> move matching, benchmarks.

May import both :mod:`companion.games` and :mod:`companion.vision` (vision never imports games).
"""
