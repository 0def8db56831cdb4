"""KTAP v1 reader: result lines in, a tree of suites and cases out.

Follows Documentation/dev-tools/ktap.rst: a stream opens with a version
line and a `1..N` plan; a subtest is nested by indentation, with its own
version line, optional `# Subtest: NAME` and plan, and ends with its result
line one level out. `# SKIP reason` marks a skipped case, and `# ` lines are
diagnostics that belong to the next result at the same depth (as KUnit
prints them); those left at the end of a suite belong to the suite. Any
depth of nesting is handled. Lines that are not KTAP are ignored, so the
input may be a whole serial log once escape sequences are gone.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import List, Optional

from .problems import PART_KTAP, Problem, excerpt

VERSION_RE = re.compile(r"^(\s*)K?TAP version (\d+)\s*$")
SUBTEST_RE = re.compile(r"^(\s*)# Subtest: (.*?)\s*$")
PLAN_RE = re.compile(r"^(\s*)1\.\.(\d+)\s*(?:#\s*(.*?))?\s*$")
RESULT_RE = re.compile(r"^(\s*)(ok|not ok) (\d+)(?:\s+(.*?))?\s*$")
DIAG_RE = re.compile(r"^(\s*)#(?:\s(.*?))?\s*$")
BAIL_RE = re.compile(r"^(\s*)Bail out!\s*(.*?)\s*$")
# A second result or version line inside a description: two lines merged.
MERGED_RE = re.compile(r"(?:^|\s)(?:(?:not )?ok \d+\b|K?TAP version \d)")

PASS, FAIL, SKIP, MISSING = "pass", "fail", "skip", "missing"


@dataclass
class Case:
    """One result line, or a subtest that never got its result line."""

    number: Optional[int]
    name: str
    ok: Optional[bool]
    directive: Optional[str] = None
    reason: str = ""
    line: Optional[int] = None
    diagnostics: List[str] = field(default_factory=list)
    subtest: Optional["Suite"] = None

    @property
    def status(self):
        """'pass', 'fail', 'skip', or 'missing' when no result line came."""
        if self.ok is None:
            return MISSING
        if self.directive == "SKIP":
            return SKIP
        if self.directive == "TODO" and not self.ok:
            return SKIP
        return PASS if self.ok else FAIL

    def to_dict(self):
        """The case and its subtest as JSON-ready dicts."""
        return {
            "number": self.number, "name": self.name, "status": self.status,
            "directive": self.directive, "reason": self.reason, "line": self.line,
            "diagnostics": self.diagnostics,
            "subtest": self.subtest.to_dict() if self.subtest else None,
        }


@dataclass
class Suite:
    """A KTAP stream or subtest: its plan, its results and its own diagnostics."""

    indent: int
    line: int
    name: Optional[str] = None
    version: Optional[int] = None
    plan: Optional[int] = None
    plan_line: Optional[int] = None
    skip_reason: str = ""
    cases: List[Case] = field(default_factory=list)
    diagnostics: List[str] = field(default_factory=list)

    def results(self):
        """The cases that have a result line (not missing subtests)."""
        return [c for c in self.cases if c.ok is not None]

    def to_dict(self):
        """The suite as a JSON-ready dict."""
        return {
            "name": self.name, "line": self.line, "version": self.version,
            "plan": self.plan, "skip_reason": self.skip_reason,
            "diagnostics": self.diagnostics,
            "cases": [c.to_dict() for c in self.cases],
        }


def counted_results(suite, prefix=""):
    """Yield (full_name, case) for every result that counts as a test.

    A case counts when it has no subtest cases of its own (a leaf); a suite
    result counts only when it failed although none of its cases did, so
    no failure is lost. Names join suite and case with '.'.
    """
    for case in suite.cases:
        name = prefix + (case.name or str(case.number))
        if case.subtest is None or not case.subtest.cases:
            yield name, case
            continue
        inner = list(counted_results(case.subtest, name + "."))
        yield from inner
        if case.status == FAIL and not any(c.status == FAIL for _, c in inner):
            yield name, case


@dataclass
class _Level:
    """An open suite on the parser's stack, with diagnostics awaiting a result."""

    suite: Suite
    pending: List[str] = field(default_factory=list)

    @property
    def indent(self):
        return self.suite.indent


class KtapParser:
    """Feeds on (line number, text) pairs; finish() returns roots and problems."""

    def __init__(self):
        self.roots: List[Suite] = []
        self.problems: List[Problem] = []
        self._stack: List[_Level] = []
        self._handlers = [
            (VERSION_RE, self._on_version), (SUBTEST_RE, self._on_subtest),
            (PLAN_RE, self._on_plan), (RESULT_RE, self._on_result),
            (BAIL_RE, self._on_bail), (DIAG_RE, self._on_diagnostic),
        ]

    def feed(self, no, text):
        """Take one cleaned line; lines that are not KTAP are ignored."""
        for regex, handler in self._handlers:
            m = regex.match(text)
            if m:
                handler(no, len(m.group(1)), m)
                return

    def finish(self):
        """Close every open suite (end of input) and return (roots, problems)."""
        self._close_deeper(-1)
        return self.roots, self.problems

    # --- line handlers ---------------------------------------------------

    def _on_version(self, no, indent, m):
        self._header_suite(no, indent, "version").version = int(m.group(2))

    def _on_subtest(self, no, indent, m):
        self._header_suite(no, indent, "name").name = m.group(2)

    def _on_plan(self, no, indent, m):
        self._close_deeper(indent)
        top = self._top()
        if top is None or top.indent < indent:
            top = self._open(indent, no)
        if top.suite.plan is not None:
            self._problem(no, "ktap-plan", f"second plan line in suite {self._label(top.suite)}")
            return
        top.suite.plan, top.suite.plan_line = int(m.group(2)), no
        directive = m.group(3) or ""
        if directive[:4].upper() == "SKIP":
            top.suite.skip_reason = directive[4:].strip()

    def _on_result(self, no, indent, m):
        child = self._close_deeper(indent, for_result=True)
        top = self._top()
        if top is None or top.indent != indent:
            self._problem(no, "ktap-orphan",
                          f"result outside any KTAP suite: {excerpt(m.group(0))}")
            if child is not None and top is not None:
                self._attach_missing(top, child)
            return
        if MERGED_RE.search(m.group(4) or ""):
            self._problem(no, "garbled", f"two KTAP lines run together: {excerpt(m.group(0))}")
            if child is not None:
                self._attach_missing(top, child)
            return
        self._add_case(top, no, m, child)

    def _on_bail(self, no, indent, m):
        self._problem(no, "ktap-bail", f"Bail out! {m.group(2)}".strip())

    def _on_diagnostic(self, no, indent, m):
        level = self._level_for(indent)
        if level is not None:
            level.pending.append(m.group(2) or "")

    # --- building the tree -----------------------------------------------

    def _header_suite(self, no, indent, attr):
        """The suite that a version or subtest line at indent describes.

        That is the open suite at indent while it has no results and no
        value for attr yet; otherwise that suite is over and a new one starts.
        """
        self._close_deeper(indent)
        top = self._top()
        if top and top.indent == indent:
            if not top.suite.cases and getattr(top.suite, attr) is None:
                return top.suite
            self._close_top()
        return self._open(indent, no).suite

    def _add_case(self, level, no, m, child):
        """Append the result line in m to level's suite, owning child if any."""
        name, directive, reason = split_description(m.group(4) or "")
        case = Case(number=int(m.group(3)), name=name, ok=m.group(2) == "ok",
                    directive=directive, reason=reason, line=no,
                    diagnostics=level.pending, subtest=child)
        level.pending = []
        expected = len(level.suite.results()) + 1
        if case.number != expected:
            self._problem(no, "ktap-number", f"result numbered {case.number}, expected {expected}")
        if child is not None and child.name and name and child.name != name:
            self._problem(no, "ktap-name", f"subtest '{child.name}' ends with result '{name}'")
        level.suite.cases.append(case)

    def _open(self, indent, no):
        """Push a new suite; a suite with no parent is a new root."""
        level = _Level(Suite(indent=indent, line=no))
        if not self._stack:
            self.roots.append(level.suite)
        self._stack.append(level)
        return level

    def _close_deeper(self, indent, for_result=False):
        """Close suites nested deeper than indent.

        With for_result, the outermost closed suite is returned instead of
        being marked missing, because the result line about to be read is
        its own result line. Every other closed subtest never got one.
        """
        closed = None
        while self._stack and self._stack[-1].indent > indent:
            if closed is not None:
                self._attach_missing(self._stack[-1], closed)
            closed = self._close_top(attach=False)
        if closed is not None and not for_result and self._stack:
            self._attach_missing(self._stack[-1], closed)
            closed = None
        return closed

    def _close_top(self, attach=True):
        """Pop the innermost suite, check its plan and return it.

        With attach, a popped subtest is recorded in its parent as a case
        whose result line is missing.
        """
        level = self._stack.pop()
        level.suite.diagnostics.extend(level.pending)
        self._check_plan(level.suite)
        if attach and self._stack:
            self._attach_missing(self._stack[-1], level.suite)
        return level.suite

    def _attach_missing(self, parent, suite):
        """Record suite in parent as a subtest that has no result line."""
        parent.suite.cases.append(Case(number=None, name=suite.name or "", ok=None,
                                       line=suite.line, subtest=suite))
        self._problem(suite.line, "ktap-missing-result",
                      f"subtest {self._label(suite)} has no result line")

    def _check_plan(self, suite):
        """Report a missing plan or a plan that does not match the results."""
        seen = len(suite.results())
        if suite.plan is None:
            self._problem(suite.line, "ktap-plan", f"suite {self._label(suite)} has no plan line")
        elif suite.plan != seen:
            self._problem(suite.plan_line, "ktap-plan",
                          f"suite {self._label(suite)} planned {suite.plan} results, saw {seen}")

    def _level_for(self, indent):
        """The open suite a line at indent belongs to: same indent, or the innermost."""
        for level in reversed(self._stack):
            if level.indent == indent:
                return level
        return self._top()

    def _top(self):
        return self._stack[-1] if self._stack else None

    def _label(self, suite):
        return f"'{suite.name}'" if suite.name else f"at line {suite.line}"

    def _problem(self, no, kind, message):
        self.problems.append(Problem(no, kind, message, PART_KTAP))


def split_description(text):
    """Split 'name # SKIP reason' into (name, directive, reason).

    directive is 'SKIP', 'TODO' or None; text after '#' that is no
    directive is kept as the reason, since it is all the line explains.
    A TAP-style '- ' before the name is dropped.
    """
    if text.startswith("- "):
        text = text[2:]
    if text.startswith("#"):
        name, rest = "", text[1:]
    elif " #" in text:
        name, rest = text.split(" #", 1)
    else:
        return text.strip(), None, ""
    rest = rest.strip()
    word = rest[:4].upper()
    if word in ("SKIP", "TODO"):
        return name.strip(), word, rest[4:].strip()
    return name.strip(), None, rest


def parse_ktap(lines):
    """Parse (line number, text) pairs; return (list of root suites, problems)."""
    parser = KtapParser()
    for no, text in lines:
        parser.feed(no, text)
    return parser.finish()
