"""``python -m companion.workshop.boards.bench``: the same as ``companion bench board``."""

import sys

from companion.workshop.boards.bench import main

sys.exit(main())
