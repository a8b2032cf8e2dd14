"""``python -m schemaseek``: the same command line as ``schemaseek``."""

from schemaseek.cli import main

if __name__ == "__main__":
    main()
