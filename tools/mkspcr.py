#!/usr/bin/env python3
"""Writes an ACPI SPCR table naming a 16550 console, for QEMU's -acpitable.

usage: mkspcr.py ttyS0|ttyS1|io:PORT|mmio32:ADDR|mmio8:ADDR OUT.bin [--baud N]

QEMU's firmware tables have no SPCR; run.sh --spcr passes this one with
`-acpitable file=OUT.bin` so that mmlab's console discovery can be tested
as on a server whose firmware redirects its console to COM2 (or to an MMIO
UART). The layout is revision 2 of Microsoft's SPCR specification (80
bytes), checksum included. Standard library only.
"""
import struct
import sys

BAUD_CODES = {9600: 3, 19200: 4, 57600: 6, 115200: 7}
PORTS = {"ttyS0": 0x3F8, "ttyS1": 0x2F8}


def parse_uart(text):
    """(GAS space id, register width in bits, address) of the UART named by text."""
    if text in PORTS:
        return 1, 8, PORTS[text]
    kind, _, addr = text.partition(":")
    spaces = {"io": (1, 8), "mmio8": (0, 8), "mmio32": (0, 32)}
    if kind not in spaces or not addr:
        raise ValueError(f"bad UART '{text}'")
    space, width = spaces[kind]
    return space, width, int(addr, 0)


def spcr(space, width, address, baud):
    """The 80-byte table with a valid checksum."""
    interface = 0x00 if width == 8 else 0x12  # 16550; 16550 with the layout from the GAS
    access = 1 if width == 8 else 3            # GAS access size: byte or dword
    body = struct.pack("<B3xBBBBQBBIBBBBBBHHBBBIBI",
                       interface, space, width, 0, access, address,
                       1 if space == 1 else 0, 4 if address == 0x3F8 else 3, 0,
                       BAUD_CODES[baud], 0, 1, 0, 0, 0,
                       0xFFFF, 0xFFFF, 0, 0, 0, 0, 0, 0)
    length = 36 + len(body)
    header = struct.pack("<4sIBB6s8sI4sI", b"SPCR", length, 2, 0, b"MMLAB ", b"MMLABSPC",
                         1, b"MMLB", 1)
    table = bytearray(header + body)
    table[9] = (-sum(table)) & 0xFF
    return bytes(table)


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--baud")]
    baud = 115200
    for a in argv[1:]:
        if a.startswith("--baud="):
            baud = int(a.split("=", 1)[1])
    if len(args) != 2 or baud not in BAUD_CODES:
        sys.exit(__doc__.strip())
    try:
        table = spcr(*parse_uart(args[0]), baud)
    except ValueError as e:
        sys.exit(f"mkspcr.py: {e}")
    assert len(table) == 80 and sum(table) & 0xFF == 0
    with open(args[1], "wb") as f:
        f.write(table)


if __name__ == "__main__":
    main(sys.argv)
