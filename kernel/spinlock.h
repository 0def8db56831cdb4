/*
 * Ticket spinlock, mmlab's one mutual-exclusion primitive: waiters are served
 * in arrival order (but see spinlock=unfair at spin_lock()). Debug builds
 * (MMLAB_DEBUG_LOCKS unless NDEBUG_LOCKS) panic on a recursive acquire or an
 * unlock by another CPU. Rules: a lock taken in interrupt context is taken
 * everywhere with spin_lock_irqsave(); never wait for IPI acks with IRQs off
 * unless the wait loop also serves this CPU's own mailbox.
 */
#ifndef KERNEL_SPINLOCK_H
#define KERNEL_SPINLOCK_H

#include "types.h"

#ifndef NDEBUG_LOCKS
#define MMLAB_DEBUG_LOCKS 1
#endif

/* owner_cpu of a lock that nobody holds. */
#define SPIN_NO_OWNER 0xffffffffu

typedef struct {
	u32 next;      /* next ticket to hand out */
	u32 owner;     /* ticket now being served */
	u32 owner_cpu; /* CPU holding the lock, SPIN_NO_OWNER if free */
	const char *name;
} spinlock_t;

#define SPINLOCK_INIT(lock_name)                                                                   \
	{                                                                                          \
		.next = 0, .owner = 0, .owner_cpu = SPIN_NO_OWNER, .name = (lock_name)             \
	}

/* Initialises @l as free, named @name for panic messages. Any context. */
void spin_lock_init(spinlock_t *l, const char *name);

/*
 * Takes @l, spinning until it is granted. Debug builds panic if this CPU
 * already holds it. Does not touch the interrupt flag.
 * Where arch_spin_unfair() says a waiter may be a host thread that spinning
 * does not yield to (spinlock=unfair), it waits for the lock to be free and
 * takes the ticket being served, as spin_trylock() does: in arrival order,
 * once more vCPUs than host cores queue, every handover would wait for the
 * host to schedule the next waiter's thread.
 */
void spin_lock(spinlock_t *l);

/* Takes @l only if it is free right now. Returns true when taken. */
bool spin_trylock(spinlock_t *l);

/* Releases @l, which this CPU must hold (debug builds panic otherwise). */
void spin_unlock(spinlock_t *l);

/* Disables interrupts, then takes @l. Returns the interrupt state to restore. */
unsigned long spin_lock_irqsave(spinlock_t *l);

/* Releases @l, then restores the interrupt state @flags from spin_lock_irqsave(). */
void spin_unlock_irqrestore(spinlock_t *l, unsigned long flags);

/*
 * Debug builds: panics, naming @what and the last lock taken, if the
 * calling CPU holds any spinlock. Waits for other CPUs (smp_call) call it:
 * a CPU spinning on that lock with interrupts off would never answer.
 */
void spin_assert_none_held(const char *what);

/*
 * spin_lock()/spin_unlock() for a lock spin_assert_none_held() does not
 * count: the write side of an rwlock, which stands in for a sleeping lock
 * and is waited for with interrupts on (kernel/rwlock.h).
 */
void spin_lock_uncounted(spinlock_t *l);
void spin_unlock_uncounted(spinlock_t *l);

/* True while some CPU holds @l; a racy snapshot, for assertions and tests. */
bool spin_is_locked(const spinlock_t *l);

/*
 * Panics unless @l is held (by this CPU, in debug builds). Use it at the top
 * of _locked functions.
 */
void spin_assert_held(const spinlock_t *l);

#endif
