"""``companion bench board``: the board readers and the pose on rendered scenes (``pose``: the pose alone)."""
