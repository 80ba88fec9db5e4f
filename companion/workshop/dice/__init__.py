"""The dice models' workshop: render, train, evaluate, review labels, write the model cards, benchmark.

Stages, in the order a model is made: ``synth`` renders dice scenes with their truth, ``realdata``
loads the shared real photos (``label_review`` keeps the looks at their disputed labels), ``nets``
and ``train`` / ``train_d8`` train and export the ONNX models (torch: the ``train`` extra),
``evaluate`` measures them and ``cards`` writes ``models/*.md``; ``bench`` is ``companion bench dice``.
"""
