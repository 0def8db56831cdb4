#!/usr/bin/env python3
"""Fills the ${NAME} placeholders of an mmlab LAVA job template.

usage: render.py TEMPLATE NAME=VALUE... > job.yaml

Every placeholder in the template must get a value and every value must
be used, so a typo fails here rather than on the LAVA server. Standard
library only.
"""
import re
import sys

PLACEHOLDER = re.compile(r"\$\{([A-Z_]+)\}")


def main(argv):
    if len(argv) < 2 or any("=" not in a for a in argv[2:]):
        sys.exit(__doc__.strip())
    with open(argv[1]) as f:
        text = f.read()
    values = dict(a.split("=", 1) for a in argv[2:])
    wanted = set(PLACEHOLDER.findall(text))
    missing = sorted(wanted - values.keys())
    unused = sorted(values.keys() - wanted)
    if missing or unused:
        sys.exit(f"render.py: {argv[1]}: missing {missing or 'nothing'}, unused {unused or 'nothing'}")
    sys.stdout.write(PLACEHOLDER.sub(lambda m: values[m.group(1)], text))


if __name__ == "__main__":
    main(sys.argv)
