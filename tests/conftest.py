import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
# tests/ is importable as a plain folder (toy game, helpers)
sys.path.insert(0, str(Path(__file__).resolve().parent))
