"""``python -m companion.app [options]``: the same as ``companion app [options]``."""

import argparse
import sys

from companion.app.cli import register


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m companion.app")
    sub = parser.add_subparsers(dest="command")
    register(sub)
    args = parser.parse_args(["app", *(sys.argv[1:] if argv is None else argv)])
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
