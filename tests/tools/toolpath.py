"""Puts tools/ on the import path for the tests and names their fixtures.

Every test module imports this first; it is not a test itself.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = os.path.normpath(os.path.join(HERE, "..", "..", "tools"))
DATA = os.path.join(HERE, "data")

if TOOLS not in sys.path:
    sys.path.insert(0, TOOLS)


def data(name):
    """The path of fixture name under tests/tools/data/."""
    return os.path.join(DATA, name)


def tool(name):
    """The path of the tool script name under tools/."""
    return os.path.join(TOOLS, name)
