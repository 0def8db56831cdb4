#!/usr/bin/env python3
"""Checks that the tracked tree is tidy: no merge leftovers, and C, assembly
and header files in the layout docs/style.md asks for.

usage: check-tree.py [--root DIR] [--rule NAME]... [--ktap]

Rules (default: all):
  leftovers   no tracked *.orig, *.rej, *~ or editor swap files (what a merge
              or a patch leaves behind and `git add -A` picks up).
  whitespace  no trailing blanks in any tracked text file; in .c, .h and .S
              files indentation is tabs (a run of 8 spaces in the leading
              white space is an indent written in spaces).
  columns     .c, .h and .S lines fit in 100 columns, a tab counting to the
              next multiple of 8 (docs/style.md). A line may go past only
              for a user-visible string kept whole to stay grep-able: the
              text past column 100 is inside a string literal that opens on
              that line (or is its closing quote), and after that literal the
              line holds only ',', ')', ';', '\\' and blanks.
  percpu      no mm/*.c array at file scope has MAX_CPUS elements: per-CPU
              state is __pcpu_data (kernel/percpu.h), sized by the CPUs that
              come up. An array that cannot be (it must exist before any copy
              is placed) says so in a comment starting "Not per-CPU data"
              within the three lines above it.
  tracker     no text file outside docs/notes/ and CHANGELOG.md names a
              tracker entry ("issue N"): a reader of the tree cannot look
              it up; name the defect, design or measurement instead.
  prose       no C, assembly, shell or Markdown file outside docs/notes/ and
              CHANGELOG.md restates what the code or a dated note owns:
              "per N pages" (name the constant: PT_GATHER_PAGES); a list of
              three or more design names joined by commas, "and", "or" or
              "/" (say "every design of tlb_designs[]"; the names are each
              `.d = { .name = "..." }` of mm/, bench/ and tests/design_*.c);
              a measured figure: a before -> after pair with a unit
              (ns, us, ms, s, cycles, %), a signed percentage (-33.4%), an
              approximate time (~10 ms) or "N times faster/slower".
  head        a .c, .h or .S file under HEAD_DIRS opens with at most 8
              comment lines before its first line of code (docs/style.md):
              what the file owns, its contract and why; longer stories go
              to the function they explain or to a dated note.

The files are those `git ls-files` lists under DIR (every file when DIR is
not a git work tree). Each problem is printed as 'FILE:LINE: rule NAME:
what is wrong'; with --ktap the result is KTAP v1, one case per rule.
Exit status: 0 when every chosen rule holds, 1 when one does not, 2 for bad
usage.
"""
import argparse
import os
import re
import subprocess
import sys

RULES = ("leftovers", "whitespace", "columns", "percpu", "tracker", "prose", "head")
LEFTOVER = re.compile(r"(\.orig|\.rej|~|\.sw[op])$")
C_EXTS = (".c", ".h", ".S")
TEXT_EXTS = C_EXTS + (".py", ".sh", ".md", ".ld", ".cfg", ".yaml", ".json", ".txt")
COLUMNS = 100
SPACE_INDENT = re.compile(r"^[ \t]* {8}")
STRING_TAIL = re.compile(r"[\s,);\\]*$")
TRACKER = re.compile(r"\b[Ii]ssues? #?[0-9]+")
TRACKER_ALLOWED = ("docs/notes/", "CHANGELOG.md")


def tracked_files(root):
    """Paths relative to root: git's tracked files, or every file of a plain folder."""
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z"], check=True,
                             capture_output=True).stdout
        return sorted(p for p in out.decode().split("\0") if p)
    except (OSError, subprocess.CalledProcessError):
        paths = []
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if d != ".git")
            for name in filenames:
                paths.append(os.path.relpath(os.path.join(dirpath, name), root))
        return sorted(p.replace(os.sep, "/") for p in paths)


def width(line):
    """Columns the line takes, tabs expanded to multiples of 8."""
    return len(line.expandtabs(8))


def lines_of(root, rel):
    """The file's lines without their newlines (empty for a file that is not text)."""
    try:
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            return f.read().split("\n")
    except (UnicodeDecodeError, OSError):
        return []


def check_leftovers(root, files):
    return ["%s:1: rule leftovers: a merge or patch leftover is tracked" % rel
            for rel in files if LEFTOVER.search(rel)]


def check_whitespace(root, files):
    problems = []
    for rel in files:
        if not rel.endswith(TEXT_EXTS):
            continue
        for n, line in enumerate(lines_of(root, rel), 1):
            if line != line.rstrip():
                problems.append("%s:%d: rule whitespace: trailing blanks" % (rel, n))
            elif rel.endswith(C_EXTS) and SPACE_INDENT.match(line):
                problems.append("%s:%d: rule whitespace: indented with spaces" % (rel, n))
    return problems


def literals(line, in_comment):
    """(spans, in_comment): the [open, close] quote indexes of the line's string
    literals, outside comments and character literals; in_comment says whether
    a /* comment is open at the start of the line, and at its end. A literal
    left open at the end of the line has no span."""
    spans = []
    i, n = 0, len(line)
    while i < n:
        if in_comment:
            end = line.find("*/", i)
            if end < 0:
                return spans, True
            in_comment, i = False, end + 2
        elif line.startswith("//", i):
            break
        elif line.startswith("/*", i):
            in_comment, i = True, i + 2
        elif line[i] in "\"'":
            j = i + 1
            while j < n and line[j] != line[i]:
                j += 2 if line[j] == "\\" else 1
            if j >= n:
                break
            if line[i] == '"':
                spans.append((i, j))
            i = j + 1
        else:
            i += 1
    return spans, in_comment


def string_overflow(spans, line):
    """Whether line (tabs expanded) goes past COLUMNS only inside a string
    literal that ends it, followed by nothing but , ) ; \\ and blanks."""
    return any(start < COLUMNS <= end and STRING_TAIL.match(line, end + 1)
               for start, end in spans)


def check_columns(root, files):
    problems = []
    for rel in files:
        if not rel.endswith(C_EXTS):
            continue
        in_comment = False
        for n, line in enumerate(lines_of(root, rel), 1):
            line = line.expandtabs(8)
            spans, in_comment = literals(line, in_comment)
            if width(line) > COLUMNS and not string_overflow(spans, line):
                problems.append("%s:%d: rule columns: %d columns (at most %d)"
                                % (rel, n, width(line), COLUMNS))
    return problems


PERCPU_ARRAY = re.compile(r"^[A-Za-z_][^(=]*\[MAX_CPUS\]")
PERCPU_EXCUSE = "Not per-CPU data"


def check_percpu(root, files):
    problems = []
    for rel in files:
        if not (rel.startswith("mm/") and rel.endswith(".c")):
            continue
        lines = lines_of(root, rel)
        for n, line in enumerate(lines, 1):
            if not PERCPU_ARRAY.match(line):
                continue
            if any(PERCPU_EXCUSE in above for above in lines[max(0, n - 4):n - 1]):
                continue
            problems.append("%s:%d: rule percpu: an array of MAX_CPUS at file scope; "
                            "use __pcpu_data (kernel/percpu.h)" % (rel, n))
    return problems


def check_tracker(root, files):
    return ["%s:%d: rule tracker: names a tracker entry; say what it was" % (rel, n)
            for rel in files if rel.endswith(TEXT_EXTS) and not rel.startswith(TRACKER_ALLOWED)
            for n, line in enumerate(lines_of(root, rel), 1) if TRACKER.search(line)]


PROSE_EXTS = C_EXTS + (".sh", ".md")
PER_PAGES = re.compile(r"\bper [0-9]+ pages\b")
DESIGN_DEF = re.compile(r'\.d\s*=\s*\{[^}]*?\.name\s*=\s*"([\w-]+)"', re.S)
LIST_SEP = r"(?:\s*,\s*(?:and\s+|or\s+)?|\s+and\s+|\s+or\s+|\s*/\s*)"
NUM = r"[0-9][0-9,]*(?:\.[0-9]+)?"
UNIT = r"(?:ns|us|µs|ms|s|cycles|%)"
FIGURE = re.compile(
    NUM + r"\s*" + UNIT + r"?\s*(?:->|→)\s*" + NUM + r"\s*" + UNIT + r"(?!\w)"
    r"|(?<![\w.)\]])[+\-−]" + NUM + r"\s*%"
    r"|~\s*" + NUM + r"\s*(?:ns|us|µs|ms|s|cycles)\b"
    r"|\b" + NUM + r"\s*(?:x|times) (?:faster|slower)\b")


def design_names(root, files):
    """Every design's name: the .name of a `.d = { ... }` design header."""
    names = set()
    for rel in files:
        if rel.endswith(".c") and rel.startswith(("mm/", "bench/", "tests/design_")):
            names.update(DESIGN_DEF.findall("\n".join(lines_of(root, rel))))
    return names


def design_list(names):
    """A pattern for three or more of @names in a row, as a list in prose."""
    if not names:
        return None
    name = "`?(?:%s)`?(?![\\w-])" % "|".join(
        sorted(map(re.escape, names), key=len, reverse=True))
    return re.compile(r"(?<![\w/.-])" + name + "(?:" + LIST_SEP + name + "){2,}")


def check_prose(root, files):
    listing = design_list(design_names(root, files))
    problems = []
    for rel in files:
        if not rel.endswith(PROSE_EXTS) or rel.startswith(TRACKER_ALLOWED):
            continue
        for n, line in enumerate(lines_of(root, rel), 1):
            m = PER_PAGES.search(line)
            if m:
                problems.append("%s:%d: rule prose: '%s' restates a bound; name its constant"
                                % (rel, n, m.group(0)))
            m = listing.search(line) if listing else None
            if m:
                problems.append("%s:%d: rule prose: '%s' lists designs; name the table"
                                % (rel, n, m.group(0)))
            m = FIGURE.search(line)
            if m:
                problems.append("%s:%d: rule prose: '%s' is a measured figure; it belongs in "
                                "a dated note under docs/notes/" % (rel, n, m.group(0)))
    return problems


# The folders whose file heads are held short; widen it as folders are fixed.
HEAD_DIRS = ("arch/", "kernel/", "lib/", "boot/", "include/", "mm/", "bench/", "tools/peer/src/",
             "tests/")
HEAD_LINES = 8


# A test's build marker after its head (the Makefile reads it): a directive, not prose.
BUILD_MARKER = re.compile(r"/\* build: [a-z ]+ \*/$")


def head_lines(lines):
    """Comment lines before the file's first line of code or build marker (blanks not counted)."""
    count, in_comment = 0, False
    for line in lines:
        text = line.strip()
        if not in_comment and BUILD_MARKER.match(text):
            break
        if in_comment:
            count += 1
            in_comment = "*/" not in text
        elif text.startswith("//"):
            count += 1
        elif text.startswith("/*"):
            count += 1
            in_comment = "*/" not in text[2:]
        elif text:
            break
    return count


def check_head(root, files):
    problems = []
    for rel in files:
        if not (rel.startswith(HEAD_DIRS) and rel.endswith(C_EXTS)):
            continue
        n = head_lines(lines_of(root, rel))
        if n > HEAD_LINES:
            problems.append("%s:1: rule head: the head comment is %d lines (at most %d)"
                            % (rel, n, HEAD_LINES))
    return problems


CHECKS = {"leftovers": check_leftovers, "whitespace": check_whitespace,
          "columns": check_columns, "percpu": check_percpu, "tracker": check_tracker,
          "prose": check_prose, "head": check_head}


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.join(os.path.dirname(__file__), ".."))
    ap.add_argument("--rule", action="append", choices=RULES)
    ap.add_argument("--ktap", action="store_true")
    args = ap.parse_args(argv)
    if not os.path.isdir(args.root):
        print("check-tree: %s is not a directory" % args.root, file=sys.stderr)
        return 2
    rules = args.rule or list(RULES)
    files = tracked_files(args.root)
    failed = 0
    if args.ktap:
        print("KTAP version 1\n1..%d" % len(rules))
    for i, rule in enumerate(rules, 1):
        problems = CHECKS[rule](args.root, files)
        failed += bool(problems)
        for p in problems:
            print("# " + p if args.ktap else p)
        if args.ktap:
            print("%s %d %s" % ("not ok" if problems else "ok", i, rule))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
