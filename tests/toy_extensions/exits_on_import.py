"""A plugin module that calls sys.exit while it is imported (a script turned into a module)."""

import sys

sys.exit(3)
