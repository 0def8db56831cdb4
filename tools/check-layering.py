#!/usr/bin/env python3
"""Checks the layering rules of docs/design.md on a source tree's #include lines.

usage: check-layering.py [--root DIR] [--rule NAME]... [--all] [--ktap]

Rules (default: all but kernel-no-bench; --all: every rule):
  arch-floor       arch/ and boot/ are the floor: a file there includes only
                   arch/, boot/, lib/ and include/ headers ("types.h", ...),
                   <arch/...>, and these kernel/ services: %(kernel)s.
                   Never mm/, bench/ or tests/ (mm reaches arch through hooks
                   such as arch_set_fault_hook(), not the other way).
  mm-no-cycle      no include circle among mm/ files: in the graph "mm/X.c
                   includes mm/Y.h (directly or through other mm headers) and
                   mm/Y.c exists", no two files reach each other (strongly
                   connected components of one file only).
  mm-no-call-cycle no call circle among mm/ files: in the graph "a function
                   of mm/X.c calls a non-static function defined in mm/Y.c",
                   no two files reach each other. A hook (a function pointer
                   registered by one side) is not a call, so it is how one
                   file is told of another's events without a circle.
  mm-arch-iface    mm/ reaches the architecture through <arch/arch.h> and
                   <arch/mmu.h> alone (no <arch/layout.h>, <arch/pte.h>, ...),
                   and includes nothing from arch/ or boot/ by path.
  kernel-no-bench  nothing under kernel/, mm/, arch/, boot/, lib/ or include/
                   includes bench/ or tests/ ("kernel/ knows no benchmark").
  no-circle        no circle of files inside mm/ or inside bench/: X.c reaches
                   Y.c when it includes Y.h (directly or through other headers
                   of its folder) or calls a non-static function Y.c defines,
                   and no two files reach each other. Types and constants that
                   both sides need go in a header with no .c of its name
                   (mm/mm_types.h, bench/bench_types.h).

Each violation is printed as 'FILE:LINE: rule NAME: what is wrong'. With
--ktap the result is KTAP v1, one case per rule, violations as '# ' lines.
Exit status: 0 when every chosen rule holds, 1 when one does not, 2 for
bad usage (an unknown rule, a root that is not a directory).
"""
import argparse
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]')
SOURCE_EXTS = (".c", ".h", ".S")

# What arch/ and boot/ may take from kernel/: printing, panics, symbols,
# per-CPU data, cross-CPU calls, locks, masks, the JSON header, the
# command line and the trace's event records (the call vector's steps are
# recorded where they happen, in arch/). Everything else of kernel/ sits
# above arch.
ARCH_KERNEL_ALLOWED = frozenset(
    "kernel/" + h for h in ("cmdline.h", "cpumask.h", "json.h", "ksyms.h", "panic.h",
                            "percpu.h", "printk.h", "smp.h", "spinlock.h", "trace.h"))
ARCH_DIRS = ("arch", "boot")
NO_BENCH_DIRS = ("kernel", "mm", "arch", "boot", "lib", "include")
MM_ARCH_ALLOWED = frozenset(("arch/arch.h", "arch/mmu.h"))
RULES = ("arch-floor", "mm-no-cycle", "mm-no-call-cycle", "mm-arch-iface", "kernel-no-bench",
         "no-circle")
DEFAULT_RULES = ("arch-floor", "mm-no-cycle", "mm-no-call-cycle", "mm-arch-iface", "no-circle")
# Folders whose files may not reach each other in a loop (arch/ and kernel/
# keep the interrupt upcall: a trap calls up into kernel/ that calls arch/).
CIRCLE_DIRS = ("mm", "bench")
# A C comment or a string or character literal: blanked before calls are read.
C_NOISE = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
# A function definition at file scope: its head starts in column 0 and a body follows.
C_DEFINITION = re.compile(r'^([A-Za-z_][^;{}()=]*?)\b([A-Za-z_]\w*)\s*\([^;{}]*\)\s*\{', re.M)
C_CALL = re.compile(r'\b([A-Za-z_]\w*)\s*\(')


def includes(root, rel):
    """(line number, '<' or '"', name) of every #include in file rel under root."""
    out = []
    with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
        for n, line in enumerate(f, 1):
            m = INCLUDE.match(line)
            if m:
                out.append((n, m.group(1), m.group(2)))
    return out


def sources(root, top):
    """Every source file under root/top, as sorted paths relative to root."""
    out = []
    for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
        dirnames.sort()
        for name in filenames:
            if name.endswith(SOURCE_EXTS):
                out.append(os.path.relpath(os.path.join(dirpath, name), root))
    return sorted(p.replace(os.sep, "/") for p in out)


def arch_include_problem(quote, name):
    """Why arch/ or boot/ may not include name (None when it may)."""
    if quote == "<":
        return None if name.startswith("arch/") else "a system header <%s>" % name
    if "/" not in name or name.split("/")[0] in ("arch", "boot", "lib"):
        return None
    if name in ARCH_KERNEL_ALLOWED:
        return None
    if name.startswith("kernel/"):
        return "kernel header %s is not one of the services arch may use" % name
    return "%s is above the floor" % name


def check_arch_floor(root):
    """Violations of arch-floor, as (file, line, message)."""
    out = []
    for top in ARCH_DIRS:
        for rel in sources(root, top):
            for n, quote, name in includes(root, rel):
                why = arch_include_problem(quote, name)
                if why:
                    out.append((rel, n, "includes %s: %s" % (name, why)))
    return out


def mm_header_includes(root, rel, top="mm"):
    """(line, header) of every quoted top/*.h that file rel includes directly."""
    return [(n, name) for n, quote, name in includes(root, rel)
            if quote == '"' and name.startswith(top + "/") and name.endswith(".h")
            and os.path.isfile(os.path.join(root, name))]


def mm_reach(root, rel, top="mm"):
    """{top header: (line in rel, [headers on the way])} of every top/ header
    rel includes, directly or through other top/ headers."""
    reach = {}
    todo = [(name, n, []) for n, name in mm_header_includes(root, rel, top)]
    while todo:
        name, n, via = todo.pop(0)
        if name in reach:
            continue
        reach[name] = (n, via)
        todo += [(inner, n, via + [name]) for _, inner in mm_header_includes(root, name, top)]
    return reach


def mm_graph(root, top="mm"):
    """{top/X.c: {top/Y.c: (line, via)}} for every top/X.c that includes top/Y.h,
    directly or through other top/ headers, with top/Y.c present."""
    graph = {}
    for rel in sources(root, top):
        if not rel.endswith(".c"):
            continue
        edges = graph.setdefault(rel, {})
        for name, (n, via) in sorted(mm_reach(root, rel, top).items()):
            target = name[:-2] + ".c"
            if target != rel and os.path.isfile(os.path.join(root, target)):
                edges.setdefault(target, (n, via))
    return graph


def strongly_connected(graph):
    """The strongly connected components of graph (Tarjan), each a sorted list."""
    index, low, stack, on_stack, comps = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            comps.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return comps


def check_mm_no_cycle(root):
    """Violations of mm-no-cycle: one per include that lies on a circle."""
    graph = mm_graph(root)
    out = []
    for comp in strongly_connected(graph):
        if len(comp) < 2:
            continue
        members = set(comp)
        circle = ", ".join(comp)
        for src in comp:
            for dst, (n, via) in sorted(graph[src].items()):
                if dst in members:
                    how = " (through %s)" % " -> ".join(via) if via else ""
                    out.append((src, n, "includes %s.h%s, and %s reaches %s back (circle: %s)"
                                % (dst[:-2], how, dst, src, circle)))
    return out


def code_of(root, rel):
    """File rel's text with comments and literals blanked, newlines kept."""
    with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
        text = f.read()
    return C_NOISE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def mm_functions(root, top="mm"):
    """{function name: top/X.c} of every non-static function a top/*.c defines."""
    owner = {}
    for rel in sources(root, top):
        if rel.endswith(".c"):
            for m in C_DEFINITION.finditer(code_of(root, rel)):
                if "static" not in m.group(1).split():
                    owner.setdefault(m.group(2), rel)
    return owner


def mm_call_graph(root, top="mm"):
    """{top/X.c: {top/Y.c: (line, function)}}: X calls a non-static function of Y."""
    owner = mm_functions(root, top)
    graph = {}
    for rel in sources(root, top):
        if not rel.endswith(".c"):
            continue
        edges = graph.setdefault(rel, {})
        code = code_of(root, rel)
        for m in C_CALL.finditer(code):
            target = owner.get(m.group(1))
            if target and target != rel and target not in edges:
                edges[target] = (code.count("\n", 0, m.start()) + 1, m.group(1))
    return graph


def check_mm_no_call_cycle(root):
    """Violations of mm-no-call-cycle: one per call edge that lies on a circle."""
    graph = mm_call_graph(root)
    out = []
    for comp in strongly_connected(graph):
        if len(comp) < 2:
            continue
        members = set(comp)
        for src in comp:
            for dst, (n, fn) in sorted(graph[src].items()):
                if dst in members:
                    out.append((src, n, "calls %s() of %s, and %s reaches %s back (circle: %s)"
                                % (fn, dst, dst, src, ", ".join(comp))))
    return out


def file_graph(root, top):
    """{top/X.c: {top/Y.c: why}}: X includes Y's header (directly or through
    other top/ headers) or calls a non-static function Y defines."""
    graph = {}
    for rel, edges in mm_call_graph(root, top).items():
        graph[rel] = {dst: (n, "calls %s() of %s" % (fn, dst)) for dst, (n, fn) in edges.items()}
    for rel, edges in mm_graph(root, top).items():
        for dst, (n, via) in edges.items():
            how = " (through %s)" % " -> ".join(via) if via else ""
            graph.setdefault(rel, {}).setdefault(dst, (n, "includes %s.h%s" % (dst[:-2], how)))
    return graph


def check_no_circle(root):
    """Violations of no-circle: one per arrow that lies on a circle of files."""
    out = []
    for top in CIRCLE_DIRS:
        graph = file_graph(root, top)
        for comp in strongly_connected(graph):
            if len(comp) < 2:
                continue
            members = set(comp)
            for src in comp:
                for dst, (n, why) in sorted(graph[src].items()):
                    if dst in members:
                        out.append((src, n, "%s, and %s reaches %s back (circle: %s)"
                                    % (why, dst, src, ", ".join(comp))))
    return out


def check_mm_arch_iface(root):
    """Violations of mm-arch-iface, as (file, line, message)."""
    out = []
    for rel in sources(root, "mm"):
        for n, quote, name in includes(root, rel):
            if quote == "<" and name not in MM_ARCH_ALLOWED:
                out.append((rel, n, "includes <%s>: mm/'s arch interface is <arch/arch.h> and "
                            "<arch/mmu.h>" % name))
            elif quote == '"' and name.split("/")[0] in ("arch", "boot"):
                out.append((rel, n, "includes %s: mm/ uses arch/ through its interface "
                            "headers only" % name))
    return out


def check_kernel_no_bench(root):
    """Violations of kernel-no-bench, as (file, line, message)."""
    out = []
    for top in NO_BENCH_DIRS:
        for rel in sources(root, top):
            for n, quote, name in includes(root, rel):
                if quote == '"' and name.split("/")[0] in ("bench", "tests"):
                    out.append((rel, n, "includes %s: %s/ knows no benchmark or test"
                                % (name, top)))
    return out


CHECKS = {
    "arch-floor": check_arch_floor,
    "mm-no-cycle": check_mm_no_cycle,
    "mm-no-call-cycle": check_mm_no_call_cycle,
    "mm-arch-iface": check_mm_arch_iface,
    "no-circle": check_no_circle,
    "kernel-no-bench": check_kernel_no_bench,
}


def run(root, rules):
    """[(rule, [violation line, ...])] for each rule in order."""
    return [(rule, ["%s:%d: rule %s: %s" % (f, n, rule, msg) for f, n, msg in CHECKS[rule](root)])
            for rule in rules]


def print_ktap(results):
    print("KTAP version 1")
    print("1..%d" % len(results))
    for i, (rule, problems) in enumerate(results, 1):
        for p in problems:
            print("# " + p)
        print("%s %d layering_%s" % ("not ok" if problems else "ok", i, rule.replace("-", "_")))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.normpath(
        os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")),
        help="the source tree (default: this checkout)")
    ap.add_argument("--rule", action="append", metavar="NAME",
                    help="a rule to check (repeatable): " + ", ".join(RULES))
    ap.add_argument("--all", action="store_true", help="check every rule")
    ap.add_argument("--ktap", action="store_true", help="print KTAP v1")
    args = ap.parse_args(argv)
    rules = list(RULES) if args.all else (args.rule or list(DEFAULT_RULES))
    unknown = [r for r in rules if r not in CHECKS]
    if unknown:
        print("check-layering: unknown rule %s (rules: %s)" % (", ".join(unknown), ", ".join(RULES)),
              file=sys.stderr)
        return 2
    if not os.path.isdir(args.root):
        print("check-layering: %s is not a directory" % args.root, file=sys.stderr)
        return 2
    results = run(args.root, rules)
    if args.ktap:
        print_ktap(results)
    else:
        for rule, problems in results:
            for p in problems:
                print(p)
            print("check-layering: rule %s: %s" % (rule, "%d violation(s)" % len(problems)
                                                    if problems else "holds"))
    return 1 if any(p for _, p in results) else 0


__doc__ = __doc__ % {"kernel": ", ".join(sorted(ARCH_KERNEL_ALLOWED))}

if __name__ == "__main__":
    sys.exit(main())
