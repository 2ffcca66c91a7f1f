"""``python -m verbatim``: the command line (see ``verbatim._cli``)."""

from ._cli import main

raise SystemExit(main())
