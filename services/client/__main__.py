"""`python -m services.client play|watch ...`: the client's subcommands on their own (the same
ones `verrater` offers)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from .cli import add_commands


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m services.client", description="Verräter in the terminal."
    )
    add_commands(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    code: int = args.handler(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
