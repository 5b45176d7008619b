"""``python -m parlour.cli``: the ``parlour`` command."""

import sys

from parlour.cli import main

sys.exit(main())
