"""`python -m rillflow ...`: the `rillflow` command (cli.py)."""
import sys

from rillflow.cli import main

sys.exit(main())
