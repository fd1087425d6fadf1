#!/usr/bin/env python3
"""Writes the spkit bench report from a results.json: report.md (plots as files in plots/),
report.html (self-contained: plots embedded as base64 data URIs, no network) and plots/*.png.

    python3 scripts/report.py bench-results/results.json [--out DIR]

`spkit bench` runs this at the end; `spkit report results.json` runs it again. Without matplotlib
the tables are still written and the plots are skipped with a warning.
"""
import os
import sys

# The spkit_report package sits next to this script: scripts/ in the source tree, <prefix>/share/spkit
# when installed. Put there first on the path, also when Python runs without the script's folder on it
# (python3 -P, PYTHONSAFEPATH).
sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))

from spkit_report import main  # noqa: E402  (after the path is set)

if __name__ == "__main__":
    main(__doc__)
