/*
 * Offsets into struct trap_frame (arch/x86_64/traps.h) used from isr.S;
 * traps.c checks each against offsetof() at compile time.
 */
#ifndef ARCH_TRAP_FRAME_OFFSETS_H
#define ARCH_TRAP_FRAME_OFFSETS_H

#define TF_VECTOR 120
#define TF_ERROR 128
#define TF_RIP 136
#define TF_RSP 160
#define TF_SIZE 176

#endif
