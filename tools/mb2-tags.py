#!/usr/bin/env python3
"""Lists the multiboot2 header tags of an ELF image, one "type flags size"
line each, after checking the header's magic, length and checksum.

usage: tools/mb2-tags.py build/mmlab.elf
Exit status 0 when the header is valid, 1 otherwise (the problem on stderr).
The multiboot2 header must sit 8-byte aligned in the first 32 KiB of the file
(Multiboot2 specification 3.1.1)."""
import struct
import sys

MAGIC = 0xE85250D6
SEARCH = 32768


def find_header(data):
    for off in range(0, min(len(data), SEARCH) - 16 + 1, 8):
        magic, arch, length, csum = struct.unpack_from("<IIII", data, off)
        if magic == MAGIC and (magic + arch + length + csum) & 0xFFFFFFFF == 0:
            return off, length
    return None, None


def tags(data, off, length):
    pos, end = off + 16, off + length
    while pos + 8 <= end:
        ttype, flags, size = struct.unpack_from("<HHI", data, pos)
        if size < 8:
            raise ValueError(f"tag at {pos:#x}: size {size} < 8")
        yield ttype, flags, size
        if ttype == 0:
            return
        pos += (size + 7) & ~7
    raise ValueError("no end tag inside the header")


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    data = open(argv[1], "rb").read()
    off, length = find_header(data)
    if off is None:
        print(f"{argv[1]}: no valid multiboot2 header in the first 32 KiB", file=sys.stderr)
        return 1
    try:
        for ttype, flags, size in tags(data, off, length):
            print(ttype, flags, size)
    except ValueError as e:
        print(f"{argv[1]}: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
