"""Problems found while reading an mmlab serial log.

A problem names the line it was found on (None for the log as a whole),
a short machine-readable kind, a message for people, and which part of the
output it concerns, so callers can count, for example, broken BENCH lines
apart from KTAP trouble. Parsers collect problems; they never raise them.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Optional

# Which part of the output a problem concerns.
PART_HEADER = "header"
PART_TRAILER = "trailer"
PART_BENCH = "bench"
PART_KTAP = "ktap"
PART_LAVA = "lava"
PART_LOG = "log"


@dataclass
class Problem:
    """One thing wrong with a log: where, what kind, and a readable message."""

    line: Optional[int]
    kind: str
    message: str
    part: str = PART_LOG

    def __str__(self):
        where = f"line {self.line}" if self.line is not None else "log"
        return f"{where}: {self.message}"

    def to_dict(self):
        """The problem as a JSON-ready dict."""
        return asdict(self)


def excerpt(text, width=60):
    """text shortened to width characters for quoting in a message."""
    text = text.strip()
    return text if len(text) <= width else text[: width - 3] + "..."
