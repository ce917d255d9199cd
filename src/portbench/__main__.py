"""``python -m portbench``: the same command line as the ``portbench`` script."""

from portbench.cli import main

raise SystemExit(main())
