"""``python -m chainrules``: see ``chainrules.cli``."""

import sys

from chainrules.cli import main

if __name__ == "__main__":
    sys.exit(main())
