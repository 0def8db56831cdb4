#!/usr/bin/env python3
"""Checks that a LAVA run of mmlab turned every result into a LAVA test case.

usage: lava_check.py [--label NAME] [--mode bench|selftest] LAVA_RUN_STDOUT

Reads what `lava-run` printed (one JSON object per line): the "target" lines
are mmlab's serial console, and so are the "feedback" ones (console output
LAVA read while another action was waiting: a last line that arrives as the
monitor finishes is logged so), the "results" lines with definition "mmlab" are
the test cases the monitors action made. Checks, each as one KTAP result:
the job and the monitor action passed; the console has the MMLAB header
and trailer; every MMLAB-LAVA line arrived as a case with the same result,
measurement and units; every BENCH result and every KTAP self-test case
has its case (benchmarks by median and unit, self-tests by suite and name);
with --mode, that kind of result must be there at all.
Prints KTAP version 1 and exits 1 when a check fails. Standard library only.
"""
import argparse
import json
import re
import sys

LAVA_LINE = re.compile(r"MMLAB-LAVA test_case_id=(\S+) result=(\S+) measurement=(\S+) units=(\S+)")
KTAP_CASE = re.compile(r"^  (ok|not ok) \d+ (\S+)(\s+#\s*SKIP\b.*)?$")
SUBTEST = re.compile(r"^  # Subtest: (\S+)")
CONSOLE_LEVELS = ("target", "feedback")


def read_run(path):
    """The console lines and the mmlab and lava result records of one lava-run output."""
    console, cases, lava = [], [], {}
    with open(path, errors="replace") as f:
        for raw in f:
            try:
                rec = json.loads(raw)
            except json.JSONDecodeError:
                continue  # lava-run prints a few lines that are not JSON
            msg = rec.get("msg")
            if rec.get("lvl") in CONSOLE_LEVELS and isinstance(msg, str):
                console.append(msg.replace('\\"', '"').rstrip("\r"))
            elif rec.get("lvl") == "results" and isinstance(msg, dict):
                if msg.get("definition") == "mmlab":
                    cases.append(msg)
                elif msg.get("definition") == "lava":
                    lava[msg.get("case")] = msg
    return console, cases, lava


def number(text):
    try:
        return round(float(text), 3)
    except (TypeError, ValueError):
        return None


def case_key(case):
    """(original test case id, result, measurement, units) of a LAVA case."""
    case_id = case.get("extra", {}).get("test_case_id", case.get("case"))
    return case_id, case.get("result"), number(case.get("measurement")), case.get("units")


def console_lava(console):
    return [(m.group(1), m.group(2), number(m.group(3)), m.group(4))
            for m in (LAVA_LINE.search(line) for line in console) if m]


def console_bench(console):
    """(median, unit) of every BENCH line."""
    out = []
    for line in console:
        if line.startswith("BENCH {"):
            try:
                rec = json.loads(line[len("BENCH "):])
                out.append((number(rec["median"]), rec["unit"]))
            except (ValueError, KeyError):
                out.append((None, None))
    return out


def console_ktap(console):
    """(selftest-SUITE-CASE, pass|fail|skip) of every self-test case line."""
    out, suite = [], None
    for line in console:
        m = SUBTEST.match(line)
        if m:
            suite = m.group(1)
            continue
        m = KTAP_CASE.match(line)
        if m and suite:
            result = "fail" if m.group(1) == "not ok" else "skip" if m.group(3) else "pass"
            out.append((f"selftest-{suite}-{m.group(2)}", result))
    return out


def checks(console, cases, lava, mode):
    """Yields (name, ok, diagnostic)."""
    keys = [case_key(c) for c in cases]
    yield "job_passed", lava.get("job", {}).get("result") == "pass", lava.get("job")
    monitor = lava.get("lava-test-monitor", {})
    yield "monitor_found_end", monitor.get("result") == "pass", monitor.get("extra")
    yield "console_has_header", any(l.startswith("MMLAB {") for l in console), None
    yield "console_has_trailer", any(l.startswith("MMLAB-DONE {") for l in console), None
    lines = console_lava(console)
    missing = [l for l in lines if l not in keys]
    yield "every_lava_line_is_a_case", lines and not missing and len(lines) == len(keys), \
        f"{len(lines)} MMLAB-LAVA lines, {len(keys)} cases, missing {missing[:3]}"
    incomplete = [k for k in keys if k[2] is None or not k[3]]
    yield "every_case_has_measurement_and_units", not incomplete, f"incomplete: {incomplete[:3]}"
    bench = sorted(console_bench(console))
    bench_cases = sorted((k[2], k[3]) for k in keys if not k[0].startswith("selftest-"))
    if mode == "bench":
        yield "has_bench_results", bool(bench), None
    yield "every_bench_result_is_a_case", bench == bench_cases, \
        f"{len(bench)} BENCH lines, {len(bench_cases)} benchmark cases"
    ktap = console_ktap(console)
    selftest_cases = [(k[0], k[1]) for k in keys if k[0].startswith("selftest-")]
    lost = [k for k in ktap if k not in selftest_cases]
    if mode == "selftest":
        yield "has_selftest_cases", bool(ktap), None
    yield "every_selftest_case_is_a_case", not lost and len(ktap) == len(selftest_cases), \
        f"{len(ktap)} KTAP cases, {len(selftest_cases)} self-test cases, lost {lost[:3]}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--label", default="lava", help="prefix of the KTAP test names")
    ap.add_argument("--mode", choices=("bench", "selftest"), help="the kind of run")
    ap.add_argument("stdout", help="what lava-run printed")
    args = ap.parse_args()
    console, cases, lava = read_run(args.stdout)
    results = list(checks(console, cases, lava, args.mode))
    print("KTAP version 1")
    print(f"1..{len(results)}")
    print(f"# {len(cases)} LAVA test cases from {len(console)} console lines")
    failed = 0
    for n, (name, ok, diag) in enumerate(results, 1):
        print(f"{'ok' if ok else 'not ok'} {n} {args.label}_{name}")
        if not ok:
            failed += 1
            print(f"# {diag}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
