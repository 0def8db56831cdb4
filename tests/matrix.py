#!/usr/bin/python3
"""Runs the steps of tests/matrix.cfg, the whole of `make test`, then sums up.

usage: tests/matrix.py [--list] [--only REGEX]...
Every step leaves KTAP in $O/test-logs (a boot: its serial log in $O/test-runs);
`tools/mmlab summary` prints the closing 'N passed, N failed, N skipped' line,
and its exit status is this one's. A step whose needs this machine lacks is
one skipped case naming the reason.
"""
import argparse
import locale
import os
import re
import shlex
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OPTIONS = ("needs", "timeout", "ktap", "check", "build", "stderr", "note")


def note(text):
    print(f"test: {text}", file=sys.stderr, flush=True)


def parse(path, env):
    """The cfg's `set` words and its rows, as dicts, with ${NAME}s expanded."""
    text = re.sub(r"\\\n\s*", " ", open(path).read())
    words, rows = {}, []
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        line = re.sub(r"\$\{(\w+)\}", lambda m: words.get(m[1]) or env[m[1]], line.strip())
        if line.startswith("set "):
            name, _, value = line[4:].partition("=")
            words[name.strip()] = value.strip()
            continue
        tokens = shlex.split(line)
        row = {"name": tokens[0], "kind": tokens[1]}
        rest = tokens[2:]
        while rest and rest[0].partition("=")[0] in OPTIONS:
            key, _, value = rest.pop(0).partition("=")
            row[key] = value
        row["args"] = rest
        rows.append(row)
    for problem in filter(None, map(row_problem, rows)):
        sys.exit(f"{path}: {problem}")
    names = [r["name"] for r in rows]
    if len(set(names)) != len(names):
        sys.exit(f"{path}: a step name is used twice")
    return words, rows


def row_problem(row):
    """What is wrong with a row, checked before any step runs, or None."""
    unknown = [n for n in filter(None, row.get("needs", "").split(",")) if n not in NEEDS]
    if row["kind"] not in KINDS or unknown or row.get("check", "sanitizer_exit") not in CHECKS:
        return f"{row['name']}: unknown kind, need or check"
    if row["kind"] == "checks" and not os.path.isfile(f"{HERE}/tests/steps/{row['args'][0]}"):
        return f"{row['name']}: no tests/steps/{row['args'][0]}"
    return None


def needs_kvm(env):
    usable = os.access("/dev/kvm", os.R_OK | os.W_OK)
    return None if usable else "no usable /dev/kvm"


def needs_bochs(env):
    out = subprocess.run(["bash", "tools/deps.sh", "bochs", "--check"], cwd=HERE, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout
    return f"Bochs is not installed (missing: {' '.join(out.splitlines())})" if out else None


NEEDS = {"kvm": needs_kvm, "bochs": needs_bochs}


def ktap_file(env, name, lines):
    with open(f"{env['logs']}/{name}.ktap", "w") as f:
        f.write("KTAP version 1\n1..1\n" + "".join(f"{line}\n" for line in lines))


def missing_need(row, env):
    """Why this machine cannot run the row, or None."""
    for need in filter(None, row.get("needs", "").split(",")):
        reason = NEEDS[need](env)
        if reason:
            return reason
    return None


def check_sanitizer_exit(row, env, rc):
    """A non-zero exit with no 'not ok' line (a sanitizer's report) fails too."""
    path = f"{env['logs']}/{row['name']}.ktap"
    if rc != 0 and not re.search(r"^not ok", open(path, errors="replace").read(), re.M):
        with open(path, "a") as f:
            f.write(f"not ok 99 {row['name']} # exit {rc} (sanitizer report above?)\n")
    if rc != 0:
        note(f"  {row['name']}: exit {rc} (replay: {' '.join(row['args'])})")


def check_kvm_could_not_run(row, env, rc):
    """A boot the (possibly nested, emulated) KVM cannot run is a skip with QEMU's reason."""
    run = f"{env['runs']}/{row['name']}"
    pattern = re.compile(r"KVM internal error|emulation failure|this CPU has no x2APIC")
    found = [line for log in ("qemu.log", "serial.log") if os.path.exists(f"{run}/{log}")
             for line in open(f"{run}/{log}", errors="replace").read().splitlines()
             if pattern.search(line)]
    if rc != 0 and found:
        ktap_file(env, row["name"], [f"ok 1 {row['name']} # SKIP KVM could not run it: {found[0]}"])
        os.rename(f"{run}/serial.log", f"{run}/serial.log.skipped")


CHECKS = {"sanitizer_exit": check_sanitizer_exit, "kvm_could_not_run": check_kvm_could_not_run}
built = {}


def build_failed(row, env):
    """Builds the row's build= targets once a run; True (reported once) when that fails."""
    targets = row["build"]
    if targets not in built:
        log = f"{env['logs']}/{row['name'].split('-')[0]}-build.log"
        paths = [f"{env['O']}/{t}" for t in targets.split(",")]
        with open(log, "w") as f:
            built[targets] = subprocess.run(["make", "-s", "-C", HERE, f"O={env['O']}"] + paths,
                                            stdout=f, stderr=subprocess.STDOUT, env=env).returncode
        if built[targets]:
            tail = "".join(line + " " for line in open(log).read().splitlines()[-3:])
            ktap_file(env, row["name"], [f"not ok 1 {row['name'].split('-')[0]}_build # {tail}"])
    return built[targets] != 0


def run_cmd(row, env):
    if "note" in row:
        note(row["note"])
    if "build" in row and build_failed(row, env):
        return 0
    logs = env["logs"]
    with open(f"{logs}/{row['name']}.ktap", "w") as out, \
            open(f"{logs}/{row['name']}.stderr" if "stderr" in row else os.devnull, "w") as err:
        return subprocess.run(row["args"], cwd=HERE, env=env, stdout=out,
                              stderr=err if "stderr" in row else out).returncode


def run_boot(row, env):
    if "note" in row:
        note(row["note"])
    name, runs = row["name"], env["runs"]
    args = (["--timeout", row["timeout"]] if "timeout" in row else []) + row["args"]
    note(f"boot {name}: {' '.join(args)}")
    with open(f"{runs}/{name}.stderr", "w") as err:
        rc = subprocess.run([f"{HERE}/run.sh", "--selftest", "--quiet", "--results",
                             f"{runs}/{name}"] + args, cwd=HERE, env=env, stderr=err).returncode
    if rc != 0:
        note(f"  {name}: run.sh exit {rc}")
        sys.stderr.writelines(open(f"{runs}/{name}.stderr").readlines()[-5:])
    return rc


def run_checks(row, env):
    script = f"{HERE}/tests/steps/{row['args'][0]}"
    shell = f'. "{HERE}/tests/steps/lib.sh" && . "{script}"; ktap_write'
    step_env = dict(env, ktap=row.get("ktap", row["name"]))
    return subprocess.run(["bash", "-c", shell], cwd=HERE, env=step_env).returncode


KINDS = {"cmd": run_cmd, "boot": run_boot, "checks": run_checks}


def run_row(row, env):
    reason = missing_need(row, env)
    if reason:
        name = row.get("ktap", row["name"])
        ktap_file(env, name, [f"ok 1 {name} # SKIP {reason}"])
        return
    rc = KINDS[row["kind"]](row, env)
    if "check" in row:
        CHECKS[row["check"]](row, env, rc)


def python_with_numpy():
    """$PYTHON, or Debian's own python3 where only it has numpy and scipy."""
    python = os.environ.get("PYTHON", "python3")
    probe = ["-c", "import numpy, scipy"]
    if subprocess.run([python] + probe, stderr=subprocess.DEVNULL).returncode != 0 and \
            subprocess.run(["/usr/bin/python3"] + probe, stderr=subprocess.DEVNULL).returncode == 0:
        return "/usr/bin/python3"
    return python


def summary(env):
    """`mmlab summary` over every KTAP log and serial log, in the shell's glob order."""
    locale.setlocale(locale.LC_COLLATE, "")
    logs = sorted((f"{env['logs']}/{f}" for f in os.listdir(env["logs"]) if f.endswith(".ktap")),
                  key=locale.strxfrm)
    runs = sorted((f"{env['runs']}/{d}/serial.log" for d in os.listdir(env["runs"])
                   if os.path.isfile(f"{env['runs']}/{d}/serial.log")), key=locale.strxfrm)
    return subprocess.run([env["PYTHON"], f"{HERE}/tools/mmlab", "summary"] + logs + runs,
                          cwd=HERE, env=env).returncode


def main(argv):
    parser = argparse.ArgumentParser(description="Run the steps of tests/matrix.cfg.")
    parser.add_argument("--list", action="store_true", help="print the steps, run none")
    parser.add_argument("--only", action="append", metavar="REGEX",
                        help="run only the steps whose name matches (repeatable)")
    args = parser.parse_args(argv)
    out = os.path.join(HERE, os.environ.get("O", "build"))
    env = dict(os.environ, O=out, here=HERE, logs=f"{out}/test-logs", runs=f"{out}/test-runs",
               contract_runs=f"{out}/test-contract", PYTHON=python_with_numpy())
    words, rows = parse(f"{HERE}/tests/matrix.cfg", env)
    env.update(words)
    rows = [r for r in rows if not args.only or any(re.search(p, r["name"]) for p in args.only)]
    if args.list:
        for r in rows:
            print(f"{r['name']:22} {r['kind']:6} {r.get('needs', '-'):5} {' '.join(r['args'])}")
        return 0
    if not rows:
        parser.error("no step matches --only")
    for d in ("logs", "runs", "contract_runs"):
        shutil.rmtree(env[d], ignore_errors=True)
        os.makedirs(env[d])
    for row in rows:
        run_row(row, env)
    return summary(env)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
