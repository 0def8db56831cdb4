/*
 * Ticket spinlock (see kernel/spinlock.h). The lock owns no other state;
 * owner_cpu is written only by the CPU that holds the lock, so the debug
 * checks may read it without ordering: a CPU can only ever see its own id
 * there while it really holds the lock.
 */
#include "kernel/spinlock.h"
#include "kernel/panic.h"
#include "kernel/percpu.h"
#include "lib/atomic.h"
#include "torture_hook.h"
#include <arch/arch.h>

static const char *spin_name(const spinlock_t *l)
{
	return l->name ? l->name : "(unnamed)";
}

static void spin_check_recursion(const spinlock_t *l)
{
#ifdef MMLAB_DEBUG_LOCKS
	unsigned cpu = arch_cpu_id();

	if (atomic_load_relaxed(&l->owner_cpu) == cpu)
		panic("spinlock %s: recursive acquire on cpu %u", spin_name(l), cpu);
#else
	(void)l;
#endif
}

/* Lockdep-lite: how many spinlocks this CPU holds, for spin_assert_none_held(). */
static void spin_count_take(const spinlock_t *l)
{
	struct percpu *me = this_cpu();

#ifdef MMLAB_TORTURE
	/* The host torture runs a fake CPU's IPIs on another thread, concurrently. */
	atomic_inc(&me->spin_held);
#else
	me->spin_held++;
#endif
	/* Atomic for the same reason (a plain store on x86 either way). */
	atomic_store_relaxed(&me->spin_last, spin_name(l));
}

static void spin_count_drop(void)
{
#ifdef MMLAB_TORTURE
	atomic_dec(&this_cpu()->spin_held);
#else
	this_cpu()->spin_held--;
#endif
}

void spin_assert_none_held(const char *what)
{
#ifdef MMLAB_DEBUG_LOCKS
	struct percpu *me = this_cpu();

	if (me->spin_held)
		panic("%s on cpu %u with %u spinlock(s) held (last taken: %s): a CPU spinning on it with interrupts off would never answer",
		      what, me->cpu_id, me->spin_held, me->spin_last);
#else
	(void)what;
#endif
}

static void spin_check_owner(const spinlock_t *l, const char *what)
{
#ifdef MMLAB_DEBUG_LOCKS
	unsigned cpu = arch_cpu_id();
	u32 holder = atomic_load_relaxed(&l->owner_cpu);

	if (!spin_is_locked(l))
		panic("spinlock %s: %s on cpu %u but nobody holds it", spin_name(l), what, cpu);
	if (holder != cpu)
		panic("spinlock %s: %s on cpu %u but cpu %u holds it", spin_name(l), what, cpu,
		      holder);
#else
	(void)l;
	(void)what;
#endif
}

void spin_lock_init(spinlock_t *l, const char *name)
{
	l->next = 0;
	l->owner = 0;
	l->owner_cpu = SPIN_NO_OWNER;
	l->name = name;
}

/* Takes @l if no ticket is out. True when taken. */
static bool spin_take_free(spinlock_t *l)
{
	u32 serving = atomic_load_acquire(&l->owner);

	/*
	 * owner never passes next and only grows, so if next still equals the
	 * ticket being served, taking that ticket means the lock is ours.
	 */
	return atomic_cmpxchg(&l->next, serving, serving + 1) == serving;
}

void spin_lock(spinlock_t *l)
{
	u32 ticket;

	spin_check_recursion(l);
	if (arch_spin_unfair()) {
		/*
		 * Test and test-and-set: waiters hold no ticket, so a waiter
		 * the host has descheduled holds up nobody. A queued ticket
		 * would make every later CPU wait for that one's thread.
		 */
		while (!spin_take_free(l))
			while (spin_is_locked(l))
				arch_cpu_relax();
	} else {
		ticket = atomic_fetch_add(&l->next, 1);
		/*
		 * Acquire pairs with the release in spin_unlock(): the critical
		 * section starts here.
		 */
		while (atomic_load_acquire(&l->owner) != ticket)
			arch_cpu_relax();
	}
	atomic_store_relaxed(&l->owner_cpu, arch_cpu_id());
	spin_count_take(l);
	torture_hook_delay(); /* widens the critical section in torture builds */
}

bool spin_trylock(spinlock_t *l)
{
	spin_check_recursion(l);
	if (!spin_take_free(l))
		return false;
	atomic_store_relaxed(&l->owner_cpu, arch_cpu_id());
	spin_count_take(l);
	return true;
}

void spin_unlock(spinlock_t *l)
{
	torture_hook_delay();
	spin_check_owner(l, "unlock");
	spin_count_drop();
	atomic_store_relaxed(&l->owner_cpu, SPIN_NO_OWNER);
	atomic_store_release(&l->owner, atomic_load_relaxed(&l->owner) + 1);
}

void spin_lock_uncounted(spinlock_t *l)
{
	spin_lock(l);
	spin_count_drop();
}

void spin_unlock_uncounted(spinlock_t *l)
{
	spin_count_take(l);
	spin_unlock(l);
}

unsigned long spin_lock_irqsave(spinlock_t *l)
{
	unsigned long flags = arch_irq_save();

	spin_lock(l);
	return flags;
}

void spin_unlock_irqrestore(spinlock_t *l, unsigned long flags)
{
	spin_unlock(l);
	arch_irq_restore(flags);
}

bool spin_is_locked(const spinlock_t *l)
{
	return atomic_load_relaxed(&l->owner) != atomic_load_relaxed(&l->next);
}

void spin_assert_held(const spinlock_t *l)
{
	if (!spin_is_locked(l))
		panic("spinlock %s: expected to be held on cpu %u", spin_name(l), arch_cpu_id());
	spin_check_owner(l, "assert_held");
}
