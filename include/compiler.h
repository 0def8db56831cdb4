/*
 * Compiler helpers used across mmlab; gcc and clang both accept them.
 */
#ifndef MMLAB_COMPILER_H
#define MMLAB_COMPILER_H

#define __used __attribute__((used))
#define __unused __attribute__((unused))
#define __noreturn __attribute__((noreturn))
#define __packed __attribute__((packed))
#define __aligned(n) __attribute__((aligned(n)))
#define __section(s) __attribute__((section(s)))
#define __printf(a, b) __attribute__((format(printf, a, b)))

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

#define BUILD_ASSERT(cond) _Static_assert(cond, #cond)
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define container_of(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))

#define ALIGN_UP(x, a) (((x) + ((a)-1)) & ~((__typeof__(x))(a)-1))
#define ALIGN_DOWN(x, a) ((x) & ~((__typeof__(x))(a)-1))
#define IS_ALIGNED(x, a) (((x) & ((__typeof__(x))(a)-1)) == 0)
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

/* Prevents the compiler from merging, tearing or eliding one access. */
#define READ_ONCE(x) (*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))
/* Compiler-only barrier: no reordering of memory accesses across it. */
#define barrier() __atomic_signal_fence(__ATOMIC_SEQ_CST)

#define CACHE_LINE 64
#define __cacheline_aligned __aligned(CACHE_LINE)

#endif
