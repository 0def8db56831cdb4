/*
 * Basic types shared by every part of mmlab, kernel and host builds alike.
 * Only the compiler's freestanding headers are used, so this works with
 * -ffreestanding (kernel) and with a hosted libc (host unit tests).
 */
#ifndef MMLAB_TYPES_H
#define MMLAB_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;

typedef u64 paddr_t; /* physical address */
typedef u64 vaddr_t; /* virtual address */

#endif
