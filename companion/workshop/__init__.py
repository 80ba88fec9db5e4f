"""The workshop: what makes and measures the camera's models (and the referee's robustness), never what
runs at the table.

- :mod:`companion.workshop.dice` -- the dice: synthetic renders (``synth``), nets and training
  (``train``, ``train_d8``; torch, the ``train`` extra), evaluation and model cards (``evaluate``,
  ``cards``), the shared real photos (``realdata``) and their label review, ``companion bench dice``;
- :mod:`companion.workshop.boards` -- the boards: the table renderer (``synth_table``) and each game's
  scene painter (``scenes``), the stand classifier's training (``train_stands``), printable marker
  sheets (``sheets``) and ``companion bench board`` (``bench``);
- :mod:`companion.workshop.robustness` -- ``companion bench robustness``: fuzzed typed lines, killed and
  resumed processes, tampered journals and hostile image files, against the targets of issue 24.

The workshop may import the games, the referee and the vision runtime. Nothing at run time imports the
workshop (``tests/test_runtime_imports.py``), except the app's demo recording, which paints its frames
with the scene painters.
"""
