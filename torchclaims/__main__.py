"""``python -m torchclaims``: the command line (torchclaims/commands/)."""
import sys

from .commands import main

sys.exit(main())
