#!/usr/bin/env python3
"""Turn a kernel's fwdump=1 output into fuzzing seeds (tests/fuzz/corpus/).

usage: fwdump.py SERIAL_LOG NAME CORPUS_DIR

Reads the FWDUMP lines of SERIAL_LOG (arch/x86_64/fwdump.c) and writes one
seed named NAME for each fuzz target the boot fed: acpi/, console/ (when
there is an SPCR table), mb1/ or mb2/, and cmdline/. The formats are those
of tests/fuzz/fuzz_mem.h: a memory image is a list of chunks, each a
little-endian u32 physical address and u32 length then the bytes, the
first chunk being where the parser starts. Exits 1 naming the problem when
the dump is missing, cut short or malformed.
"""
import os
import re
import struct
import sys

REGION = re.compile(r"^FWDUMP region (\S+) (0x[0-9a-f]+|0) (\d+)$")
DATA = re.compile(r"^FWDUMP data ([0-9a-f]*)$")
BEGIN = re.compile(r"^FWDUMP begin (multiboot[12]) (bios|uefi)$")
END = re.compile(r"^FWDUMP end (\d+)$")


class DumpError(Exception):
    pass


def parse(lines):
    """Returns (protocol, firmware, [(name, pa, bytes)]) from FWDUMP lines."""
    head, regions, cur = None, [], None
    for raw in lines:
        line = raw.rstrip("\r\n")
        if not line.startswith("FWDUMP "):
            continue
        if m := BEGIN.match(line):
            head, regions, cur = (m.group(1), m.group(2)), [], None
        elif head is None:
            raise DumpError(f"'{line[:40]}' before 'FWDUMP begin'")
        elif m := REGION.match(line):
            cur = [m.group(1), int(m.group(2), 16), int(m.group(3)), bytearray()]
            regions.append(cur)
        elif m := DATA.match(line):
            if cur is None:
                raise DumpError("data line before any region")
            cur[3] += bytes.fromhex(m.group(1))
        elif m := END.match(line):
            if int(m.group(1)) != len(regions):
                raise DumpError(f"end says {m.group(1)} regions, found {len(regions)}")
            for name, pa, length, data in regions:
                if len(data) != length:
                    raise DumpError(f"region {name} at {pa:#x}: {len(data)} of {length} bytes")
            return head[0], head[1], [(r[0], r[1], bytes(r[3])) for r in regions]
        else:
            raise DumpError(f"malformed line '{line[:60]}'")
    raise DumpError("no complete FWDUMP block (begin ... end)")


def chunks(regions):
    return b"".join(struct.pack("<II", pa, len(data)) + data for _, pa, data in regions)


def pick(regions, *names):
    return [r for r in regions if r[0] in names]


def seeds(protocol, regions):
    """The seed file contents, keyed by target directory."""
    out = {}
    acpi = pick(regions, "acpi-rsdp") + pick(regions, "acpi-root", "acpi-table")
    if acpi:
        out["acpi"] = b"\0" + chunks(acpi)  # flags 0: fix every checksum
    spcr = [d for n, _, d in pick(regions, "acpi-table") if d[:4] == b"SPCR"]
    if spcr:
        out["console"] = b"\0" + spcr[0]  # console= not given
    if protocol == "multiboot1":
        # The RSDP goes with the BIOS words: the multiboot1 parser scans for it.
        mb1 = pick(regions, "mb1-info")
        mb1 += pick(regions, "mb1-cmdline", "mb1-loader", "mb1-mmap", "mb1-mods")
        mb1 += pick(regions, "bios-ebda-ptr", "acpi-rsdp")
        out["mb1"] = chunks(mb1)
    else:
        out["mb2"] = chunks(pick(regions, "mb2-info"))
    cmdline = pick(regions, "cmdline")
    if cmdline:
        out["cmdline"] = b"\xff" + cmdline[0][2]  # a 255-byte error buffer, then the line
    return out


def main(argv):
    if len(argv) != 4:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    log, name, corpus = argv[1:]
    try:
        with open(log, errors="replace") as f:
            protocol, _, regions = parse(f)
    except (OSError, DumpError, ValueError) as e:
        print(f"fwdump.py: {log}: {e}", file=sys.stderr)
        return 1
    for target, data in sorted(seeds(protocol, regions).items()):
        os.makedirs(os.path.join(corpus, target), exist_ok=True)
        path = os.path.join(corpus, target, name)
        with open(path, "wb") as f:
            f.write(data)
        print(f"{path}: {len(data)} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
