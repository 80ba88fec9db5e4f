"""Each game's scene painter: its pieces laid on a rendered table (:mod:`..synth_table`), with the truth
a perfect reader would report, in the readers' vocabulary (:mod:`companion.vision.readers`)."""
