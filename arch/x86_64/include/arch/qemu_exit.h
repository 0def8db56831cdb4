/*
 * Values written to QEMU's isa-debug-exit port (iobase 0xf4). QEMU exits with
 * status (v << 1) | 1, so pass is 33, fail 35, usage 37, panic 39. None of them
 * can be mistaken for QEMU's own 1 (load error) or 0 (triple fault with
 * -no-reboot); run.sh maps them to its exit codes. Shared with boot/entry.S.
 */
#ifndef ARCH_QEMU_EXIT_H
#define ARCH_QEMU_EXIT_H

#define QEMU_EXIT_PORT 0xf4
#define QEMU_EXIT_PASS 0x10
#define QEMU_EXIT_FAIL 0x11
#define QEMU_EXIT_USAGE 0x12
#define QEMU_EXIT_PANIC 0x13

#endif
