"""The board readers' workshop: rendered tables, the stand classifier's training, marker sheets, benchmark.

``synth_table`` renders a board map under a random camera (markers, light, noise, blur, a hand);
``scenes`` paints each game's pieces on it with the truth; ``train_stands`` trains the Eagle Kingdoms
stand classifier on painted stands; ``sheets`` draws the printable marker sheets and reference boards;
``bench`` is ``companion bench board``.
"""
