/*
 * Tests for kernel/spinlock.c and kernel/rwlock.c: lock state, trylock,
 * interrupt-flag handling, writer preference, and the debug checks
 * (recursive acquire, unlock by a non-owner), which panic. On the host,
 * threads acting as fake CPUs also hammer both locks and the totals must be
 * exact; cases that need caught panics or threads are skipped in the kernel
 * (its multi-CPU torture runs through the cross-call layer).
 */
#include "kernel/rwlock.h"
#include "kernel/spinlock.h"
#include "tests/ktest.h"
#include <arch/arch.h>

#ifdef HOST_BUILD
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "tests/host/fake_arch.h"

#define TORTURE_THREADS 6
#define TORTURE_ROUNDS 20000
#endif

static void test_spinlock_init_state(struct ktest *t)
{
	spinlock_t a = SPINLOCK_INIT("a");
	spinlock_t b;

	spin_lock_init(&b, "b");
	KEXPECT(t, !spin_is_locked(&a));
	KEXPECT(t, !spin_is_locked(&b));
	KEXPECT_EQ(t, a.owner_cpu, SPIN_NO_OWNER);
	KEXPECT_EQ(t, b.owner_cpu, SPIN_NO_OWNER);
	KEXPECT_STREQ(t, b.name, "b");
}

static void test_spinlock_lock_unlock(struct ktest *t)
{
	spinlock_t l = SPINLOCK_INIT("l");
	int i;

	for (i = 0; i < 3; i++) {
		spin_lock(&l);
		KEXPECT(t, spin_is_locked(&l));
		KEXPECT_EQ(t, l.owner_cpu, arch_cpu_id());
		spin_assert_held(&l);
		spin_unlock(&l);
		KEXPECT(t, !spin_is_locked(&l));
		KEXPECT_EQ(t, l.owner_cpu, SPIN_NO_OWNER);
	}
	KEXPECT_EQ(t, l.next, 3);
	KEXPECT_EQ(t, l.owner, 3);
}

static void test_spinlock_trylock(struct ktest *t)
{
	spinlock_t l = SPINLOCK_INIT("l");

	KASSERT(t, spin_trylock(&l));
	KEXPECT(t, spin_is_locked(&l));
	spin_unlock(&l);
	/* Pose as another CPU holding the lock (a taken ticket, a foreign owner). */
	l.next = l.owner + 1;
	l.owner_cpu = 1000;
	KEXPECT(t, !spin_trylock(&l));
	KEXPECT_EQ(t, l.next, l.owner + 1);
	l.owner++;
	l.owner_cpu = SPIN_NO_OWNER;
	KEXPECT(t, spin_trylock(&l));
	spin_unlock(&l);
}

/* Ticket arithmetic must survive the 32-bit counters wrapping. */
static void test_spinlock_ticket_wrap(struct ktest *t)
{
	spinlock_t l = SPINLOCK_INIT("l");

	l.next = l.owner = 0xffffffffu;
	spin_lock(&l);
	KEXPECT(t, spin_is_locked(&l));
	spin_unlock(&l);
	KEXPECT_EQ(t, l.owner, 0);
	KEXPECT(t, spin_trylock(&l));
	spin_unlock(&l);
	KEXPECT(t, !spin_is_locked(&l));
}

static void test_spinlock_irqsave(struct ktest *t)
{
	spinlock_t l = SPINLOCK_INIT("l");
	bool before = arch_irqs_enabled();
	unsigned long flags = spin_lock_irqsave(&l);

	KEXPECT(t, !arch_irqs_enabled());
	KEXPECT(t, spin_is_locked(&l));
	spin_unlock_irqrestore(&l, flags);
	KEXPECT_EQ(t, arch_irqs_enabled(), before);
	KEXPECT(t, !spin_is_locked(&l));
}

static void test_rwlock_readers_share(struct ktest *t)
{
	rwlock_t l = RWLOCK_INIT("rw");

	read_lock(&l);
	read_lock(&l);
	KEXPECT_EQ(t, rwlock_readers(&l), 2);
	KEXPECT(t, !rwlock_write_locked(&l));
	read_unlock(&l);
	read_unlock(&l);
	KEXPECT_EQ(t, rwlock_readers(&l), 0);
}

static void test_rwlock_writer(struct ktest *t)
{
	rwlock_t l;
	bool before = arch_irqs_enabled();
	unsigned long flags;

	rwlock_init(&l, "rw");
	write_lock(&l);
	KEXPECT(t, rwlock_write_locked(&l));
	KEXPECT(t, spin_is_locked(&l.writers));
	write_unlock(&l);
	KEXPECT(t, !rwlock_write_locked(&l));
	flags = write_lock_irqsave(&l);
	KEXPECT(t, !arch_irqs_enabled());
	write_unlock_irqrestore(&l, flags);
	flags = read_lock_irqsave(&l);
	KEXPECT_EQ(t, rwlock_readers(&l), 1);
	read_unlock_irqrestore(&l, flags);
	KEXPECT_EQ(t, arch_irqs_enabled(), before);
	KEXPECT_EQ(t, l.state, 0);
}

#ifdef HOST_BUILD

static void lock_twice(void *arg)
{
	spin_lock(arg);
	spin_lock(arg);
}

static void unlock_as_cpu1(void *arg)
{
	fake_arch_set_cpu(1);
	spin_unlock(arg);
}

static void read_while_writing(void *arg)
{
	read_lock(arg);
}

static void unlock_reader(void *arg)
{
	read_unlock(arg);
}

static void test_spinlock_debug_checks(struct ktest *t)
{
	spinlock_t l = SPINLOCK_INIT("dbg");
	rwlock_t rw = RWLOCK_INIT("rwdbg");

	KEXPECT(t, fake_expect_panic(lock_twice, &l));
	KEXPECT(t, strstr(fake_panic_message(), "recursive") != NULL);
	KEXPECT(t, fake_expect_panic(unlock_as_cpu1, &l));
	KEXPECT(t, strstr(fake_panic_message(), "cpu 0 holds it") != NULL);
	fake_arch_set_cpu(0);
	spin_unlock(&l);
	KEXPECT(t, fake_expect_panic(unlock_as_cpu1, &l));
	KEXPECT(t, strstr(fake_panic_message(), "nobody holds it") != NULL);
	fake_arch_set_cpu(0);
	write_lock(&rw);
	KEXPECT(t, fake_expect_panic(read_while_writing, &rw));
	write_unlock(&rw);
	KEXPECT(t, fake_expect_panic(unlock_reader, &rw));
	KEXPECT_EQ(t, rw.state, 0);
}

struct torture {
	spinlock_t lock;
	rwlock_t rw;
	u64 counter; /* plain: only the lock protects it */
	u64 a, b;    /* equal whenever no writer is inside */
	u64 bad_reads;
};

struct torture_arg {
	struct torture *s;
	unsigned cpu;
};

static void *torture_thread(void *p)
{
	struct torture_arg *arg = p;
	struct torture *s = arg->s;
	unsigned i;

	fake_arch_set_cpu(arg->cpu);
	for (i = 0; i < TORTURE_ROUNDS; i++) {
		if (i % 3 != 0 || !spin_trylock(&s->lock))
			spin_lock(&s->lock);
		s->counter++;
		spin_unlock(&s->lock);
		if (i % 4 == arg->cpu % 4) {
			write_lock(&s->rw);
			s->a++;
			s->b++;
			write_unlock(&s->rw);
		} else {
			read_lock(&s->rw);
			if (s->a != s->b)
				atomic_inc(&s->bad_reads);
			read_unlock(&s->rw);
		}
	}
	return NULL;
}

static void torture_run(struct ktest *t)
{
	static struct torture s;
	struct torture_arg args[TORTURE_THREADS];
	pthread_t th[TORTURE_THREADS];
	u64 writes = 0;
	unsigned i;

	spin_lock_init(&s.lock, "torture");
	rwlock_init(&s.rw, "torture_rw");
	s.counter = s.a = s.b = s.bad_reads = 0;
	for (i = 0; i < TORTURE_THREADS; i++) {
		args[i] = (struct torture_arg){ &s, i };
		KASSERT_EQ(t, pthread_create(&th[i], NULL, torture_thread, &args[i]), 0);
	}
	for (i = 0; i < TORTURE_THREADS; i++) {
		pthread_join(th[i], NULL);
		writes += (TORTURE_ROUNDS + 3 - i % 4) / 4;
	}
	KEXPECT_EQ(t, s.counter, (u64)TORTURE_THREADS * TORTURE_ROUNDS);
	KEXPECT_EQ(t, s.a, writes);
	KEXPECT_EQ(t, s.b, writes);
	KEXPECT_EQ(t, s.bad_reads, 0);
	KEXPECT(t, !spin_is_locked(&s.lock));
	KEXPECT_EQ(t, s.lock.next, (u32)(TORTURE_THREADS * TORTURE_ROUNDS)); /* one ticket each */
	KEXPECT_EQ(t, s.rw.state, 0);
}

/* Fair ticket hand-over, then the test-and-set waiting arch_spin_unfair() asks for (TCG). */
static void test_spinlock_torture(struct ktest *t)
{
	torture_run(t);
	fake_arch_set_spin_unfair(true);
	torture_run(t);
	fake_arch_set_spin_unfair(false);
}

struct pref {
	rwlock_t rw;
	int writer_in, late_reader_in;
};

static void *pref_writer(void *p)
{
	struct pref *s = p;

	fake_arch_set_cpu(1);
	write_lock(&s->rw);
	atomic_store_release(&s->writer_in, 1);
	write_unlock(&s->rw);
	return NULL;
}

static void *pref_reader(void *p)
{
	struct pref *s = p;

	fake_arch_set_cpu(2);
	read_lock(&s->rw);
	/* Writer preference: the waiting writer must have gone first. */
	atomic_store_release(&s->late_reader_in, atomic_load_acquire(&s->writer_in) ? 1 : -1);
	read_unlock(&s->rw);
	return NULL;
}

static void test_rwlock_writer_preference(struct ktest *t)
{
	static struct pref s;
	struct timespec ms = { 0, 20 * 1000 * 1000 };
	pthread_t w, r;

	rwlock_init(&s.rw, "pref");
	s.writer_in = s.late_reader_in = 0;
	read_lock(&s.rw);
	KASSERT_EQ(t, pthread_create(&w, NULL, pref_writer, &s), 0);
	while (!rwlock_write_locked(&s.rw))
		arch_cpu_relax();
	KASSERT_EQ(t, pthread_create(&r, NULL, pref_reader, &s), 0);
	nanosleep(&ms, NULL);
	KEXPECT_EQ(t, atomic_load_acquire(&s.writer_in), 0);
	KEXPECT_EQ(t, atomic_load_acquire(&s.late_reader_in), 0);
	read_unlock(&s.rw);
	pthread_join(w, NULL);
	pthread_join(r, NULL);
	KEXPECT_EQ(t, s.writer_in, 1);
	KEXPECT_EQ(t, s.late_reader_in, 1);
}

#else /* kernel */

static void test_spinlock_debug_checks(struct ktest *t)
{
	ktest_skip(t, "needs a caught panic (host only)");
}

static void test_spinlock_torture(struct ktest *t)
{
	ktest_skip(t, "host threads only; the kernel's runs in the smp suite");
}

static void test_rwlock_writer_preference(struct ktest *t)
{
	ktest_skip(t, "host threads only");
}

#endif

static const struct ktest_case spinlock_cases[] = {
	KTEST_CASE(test_spinlock_init_state),
	KTEST_CASE(test_spinlock_lock_unlock),
	KTEST_CASE(test_spinlock_trylock),
	KTEST_CASE(test_spinlock_ticket_wrap),
	KTEST_CASE(test_spinlock_irqsave),
	KTEST_CASE(test_rwlock_readers_share),
	KTEST_CASE(test_rwlock_writer),
	KTEST_CASE(test_spinlock_debug_checks),
	KTEST_CASE(test_spinlock_torture),
	KTEST_CASE(test_rwlock_writer_preference),
};
KTEST_SUITE(spinlock, spinlock_cases);
