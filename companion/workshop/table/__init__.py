"""Whole games at the table: seeded games rendered as camera videos (:mod:`.film`) and the benchmark that
follows them with the code of ``companion follow`` (:mod:`.bench`, ``companion bench table``)."""
