/*
 * Atomics and barriers as thin wrappers over the compiler's __atomic
 * builtins, on plain integers and pointers (no atomic_t). Ordering follows
 * Linux: value-returning operations are fully ordered, atomic_inc/dec are
 * relaxed, loads and stores name their ordering. Arithmetic is for integers
 * only (on a pointer the builtins add bytes). Do not include <stdatomic.h>
 * beside this header: some names overlap.
 */
#ifndef MMLAB_LIB_ATOMIC_H
#define MMLAB_LIB_ATOMIC_H

#include "torture_hook.h"
#include "types.h"

/* Loads and stores: no tearing; acquire/release order the accesses around them. */
#define atomic_load_relaxed(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define atomic_load_acquire(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define atomic_store_relaxed(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
#define atomic_store_release(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)

/*
 * Torture builds (include/torture_hook.h) may delay a little before each
 * fully ordered read-modify-write, to widen race windows; others never.
 */
#ifdef MMLAB_TORTURE
#define ATOMIC_TORTURE_DELAY() torture_hook_delay()
#else
#define ATOMIC_TORTURE_DELAY() ((void)0)
#endif

/* Read-modify-write, fully ordered: return the new (_return) or old (fetch_) value. */
#define atomic_add_return(p, v) \
	(ATOMIC_TORTURE_DELAY(), __atomic_add_fetch((p), (v), __ATOMIC_SEQ_CST))
#define atomic_sub_return(p, v) \
	(ATOMIC_TORTURE_DELAY(), __atomic_sub_fetch((p), (v), __ATOMIC_SEQ_CST))
#define atomic_fetch_add(p, v) \
	(ATOMIC_TORTURE_DELAY(), __atomic_fetch_add((p), (v), __ATOMIC_SEQ_CST))
#define atomic_fetch_sub(p, v) \
	(ATOMIC_TORTURE_DELAY(), __atomic_fetch_sub((p), (v), __ATOMIC_SEQ_CST))
#define atomic_fetch_or(p, v) __atomic_fetch_or((p), (v), __ATOMIC_SEQ_CST)
#define atomic_fetch_and(p, v) __atomic_fetch_and((p), (v), __ATOMIC_SEQ_CST)

/* Counters whose value nobody reads in the same step: relaxed, as in Linux. */
#define atomic_inc(p) ((void)__atomic_add_fetch((p), 1, __ATOMIC_RELAXED))
#define atomic_dec(p) ((void)__atomic_sub_fetch((p), 1, __ATOMIC_RELAXED))

/* Fully ordered decrement; true when the new value is zero (last reference). */
#define atomic_dec_and_test(p) \
	(ATOMIC_TORTURE_DELAY(), __atomic_sub_fetch((p), 1, __ATOMIC_SEQ_CST) == 0)

/* Stores @v and returns the previous value, fully ordered. */
#define atomic_xchg(p, v) __atomic_exchange_n((p), (v), __ATOMIC_SEQ_CST)

/*
 * If *p equals @old, stores @new. Either way returns the value *p held, so
 * the exchange happened exactly when the result equals @old (Linux cmpxchg).
 * Fully ordered on success, acquire on failure.
 */
#define atomic_cmpxchg(p, old, new)                                                                \
	({                                                                                         \
		__typeof__(*(p)) __cmpxchg_old = (old);                                            \
		ATOMIC_TORTURE_DELAY();                                                            \
		__atomic_compare_exchange_n((p), &__cmpxchg_old, (new), false, __ATOMIC_SEQ_CST,   \
					    __ATOMIC_ACQUIRE);                                     \
		__cmpxchg_old;                                                                     \
	})

/*
 * Barriers between CPUs. On x86 only store->load reordering needs a fence
 * instruction (SDM vol. 3A, "Memory Ordering in P6 and More Recent
 * Processor Families"), so smp_rmb and smp_wmb cost nothing at run time but
 * still stop the compiler from reordering across them.
 */
#define smp_mb() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define smp_rmb() __atomic_thread_fence(__ATOMIC_ACQUIRE)
#define smp_wmb() __atomic_thread_fence(__ATOMIC_RELEASE)

#endif
