"""`python3 tools/mmlab COMMAND ...`: the entry of mmlab's host tools (cli.py).

Run as a directory, Python puts tools/mmlab itself first on the import
path, where html.py and trace.py would hide the standard library's html
and trace. The package's parent takes its place, and the commands run as
the package mmlab, as `python3 -m mmlab` from tools/ would run them,
under an interpreter that has numpy (mmlab.interp).
"""
import os
import sys

sys.dont_write_bytecode = True  # keep the tree free of __pycache__
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path = [p for p in sys.path if os.path.abspath(p or ".") != HERE]
sys.path.insert(0, os.path.dirname(HERE))

from mmlab.interp import ensure_numpy  # noqa: E402  (after the path is set)

ensure_numpy(sys.argv)
from mmlab.cli import main  # noqa: E402

sys.exit(main(sys.argv[1:]))
