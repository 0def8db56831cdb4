#!/usr/bin/env bash
# `make test`'s old entry point: the steps are rows of tests/matrix.cfg now,
# run by tests/matrix.py (--list, --only REGEX).
exec /usr/bin/python3 "$(dirname "$0")/matrix.py" "$@"
