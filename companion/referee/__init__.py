"""The referee's camera side: board maps from the games' data, observation -> move matching, scans.

May import both :mod:`companion.games` and :mod:`companion.vision` (vision never imports games), never
:mod:`companion.workshop` (the board benchmark on rendered scenes is there: ``companion.workshop.boards.bench``).
"""
