/*
 * The torture's pins (tests/torture/torture_internal.h): a pinner writes
 * every word of a tracked page through its pin, under the page's model
 * lock; swap-outs race it, its own swap-out and unmap meet it, and a pin
 * kept across a CPU's operations meets forks, COW and unmaps of others.
 */
#include "errno.h"
#include "kernel/rwlock.h"
#include "mm/page.h"
#include "mm/pin/pin.h"
#include "mm/pt.h"
#include "mm/swap/swap.h"
#include "tests/torture/torture_internal.h"

/*
 * Checks pinned frame @pg holds @val (T_TORN: skipped) in every word;
 * nothing but its pinner, which holds the page's lock, writes it.
 */
static void pin_frame_check(const struct tslot *s, vaddr_t va, struct page *pg, u64 val,
			    const char *when)
{
	for (unsigned k = 0; k < T_WORDS && val != T_TORN; k++) {
		u64 v = torture_user_load((u64 *)((char *)page_address(pg) + t_word_off[k]));

		if (v != t_word(val, k) && !torture_failed())
			torture_fail("pinned frame 0x%lx of mm %lu 0x%lx %s: word at +0x%x holds "
				     "0x%lx, expected 0x%lx",
				     (unsigned long)page_to_phys(pg), (unsigned long)s->id,
				     (unsigned long)va, when, t_word_off[k], (unsigned long)v,
				     (unsigned long)t_word(val, k));
	}
	__atomic_add_fetch(&t_checks, 1, __ATOMIC_RELAXED);
}

/* A device's write through pin @pg: every word, each store one access. */
static void pin_store(struct page *pg, u64 tag)
{
	for (unsigned k = 0; k < T_WORDS; k++)
		torture_user_store((u64 *)((char *)page_address(pg) + t_word_off[k]),
				   t_word(tag, k));
}

/* The pinned page must still be mapped at @va, to @pg, and read what the pin wrote. */
static void pin_mapped_check(struct tcpu *c, struct tslot *s, vaddr_t va, struct page *pg,
			     u64 tag)
{
	paddr_t pa = 0;
	int err;

	/*
	 * Under the read side, as a fault would look: a swap-out that
	 * cleared the entry before it saw this pin puts it back under
	 * its write side (-EBUSY), and a lockless look in that window
	 * sees the swap entry of a swap-out that is about to fail.
	 */
	read_lock(&s->mm->lock);
	if (pt_lookup(s->mm->root, va, &pa, NULL, NULL) || phys_to_page(pa) != pg)
		torture_fail("pinned page of mm %lu at 0x%lx left its mapping",
			     (unsigned long)s->id, (unsigned long)va);
	read_unlock(&s->mm->lock);
	pin_frame_check(s, va, pg, tag, "after a racing swap-out");
	err = t_word_check(s, va, (unsigned)(t_rand(c) % T_WORDS), tag,
			   "read of a write through a pin");
	t_touch_err(c, s, va, err);
}

/*
 * Unmaps pinned page @va under its pinner, which goes on using the frame
 * as a device would: the frame stays out of the allocator holding what the
 * pin wrote, a later write through the pin lands in it, and the address
 * space sees none of it (a read there maps the zero page).
 */
static void pin_unmap(struct tcpu *c, struct tslot *s, struct tpage *p, vaddr_t va,
		      struct page *pg)
{
	int err = tlb_unmap_pages(s->mm, va, 1, t_unmap_ops);
	int serr = t_unmap_ops->d.completes_later ? tlb_settle(t_unmap_ops, s->mm) : 0;
	u64 tag = p->val ^ 0x100;

	if (err && err != -ENOMEM && !t_dead_err_mm(c, err, s->mm))
		torture_fail("unmap of pinned 0x%lx through %s: %d", (unsigned long)va,
			     t_unmap_ops->d.name, err);
	if (serr && serr != -ENOMEM && !t_dead_err(serr))
		torture_fail("settle after unmap of pinned 0x%lx: %d", (unsigned long)va, serr);
	if (page_test_flags(pg, PG_FREED) || page_ref_count(pg) < PIN_BIAS)
		torture_fail("pinned frame 0x%lx of mm %lu 0x%lx freed by its unmap (refcount %d)",
			     (unsigned long)page_to_phys(pg), (unsigned long)s->id,
			     (unsigned long)va, page_ref_count(pg));
	pin_frame_check(s, va, pg, p->val, "after its unmap");
	p->val = 0;
	pin_store(pg, tag);
	pin_frame_check(s, va, pg, tag, "written after its unmap");
	err = t_word_check(s, va, (unsigned)(t_rand(c) % T_WORDS), 0,
			   "read of an unmapped pinned page");
	t_touch_err(c, s, va, err);
}

/*
 * A pin each CPU keeps across its next operations, so a fork meets pinned
 * pages (it copies them for the child) and so do unmaps and swap-outs.
 */
static struct page *t_held_pin[TORTURE_MAX_CPUS];

u32 t_held_pins(const struct page *pg)
{
	u32 n = 0;

	for (unsigned k = 0; k < TORTURE_MAX_CPUS; k++)
		n += __atomic_load_n(&t_held_pin[k], __ATOMIC_RELAXED) == pg;
	return n;
}

void t_pin_release(unsigned cpu)
{
	struct page *pg = t_held_pin[cpu];

	if (!pg)
		return;
	if (page_test_flags(pg, PG_FREED) || page_ref_count(pg) < PIN_BIAS)
		torture_fail("frame 0x%lx freed while CPU %u held a pin on it (refcount %d)",
			     (unsigned long)page_to_phys(pg), cpu, page_ref_count(pg));
	__atomic_store_n(&t_held_pin[cpu], NULL, __ATOMIC_RELAXED);
	if (unpin_pages(&pg, 1))
		torture_fail("unpin of a held pin failed");
}

/* Keeps pin @pg past this operation (one a CPU), or drops it. */
static void pin_keep_or_drop(struct tcpu *c, struct page *pg)
{
	unsigned cpu = (unsigned)(c - t_cpus);

	if (!t_held_pin[cpu] && t_rand(c) % 4 == 0) {
		__atomic_store_n(&t_held_pin[cpu], pg, __ATOMIC_RELAXED);
		return;
	}
	if (unpin_pages(&pg, 1))
		torture_fail("unpin of a pinned page failed");
}

/*
 * Pins one tracked page and writes through the pin (after checking the
 * content a pin for writing broke COW for); lets swap-outs race it, then
 * checks it stayed mapped with that content; sometimes unmaps it under
 * the pin (pin_unmap()), sometimes keeps the pin (pin_keep_or_drop()).
 */
void t_op_pin(struct tcpu *c, struct tslot *s, bool fast)
{
	static const struct design *const *flags = pin_flag_designs;
	unsigned r = (unsigned)(t_rand(c) % T_REGIONS), i = (unsigned)(t_rand(c) % T_PAGES);
	struct tpage *p = &s->model[r]->p[i];
	struct pin_policy pol = pin_policy_default;
	vaddr_t va = t_base[r] + (vaddr_t)i * T_KB4;
	struct page *pg = NULL;
	int n;

	pol.flag = pin_flag_ops_of(flags[t_rand(c) % 3]);
	t_pin_release((unsigned)(c - t_cpus));
	t_lock(&p->lock);
	mm_switch(fast ? s->mm : NULL);
	n = pin_pages_fast(s->mm, va, 1, PIN_WRITE, &pg, &pol);
	if (n == 1) {
		pin_frame_check(s, va, pg, p->val, "as pinned");
		p->val = t_tag(s, r, i, t_rand(c));
		pin_store(pg, p->val);
		t_service();
		/* Its own swap-out besides the racing ones: it must refuse a pinned page. */
		if (r == R_PRIV && !swap_out_folio(s->mm, va, 1, t_swap_type))
			torture_fail("swap-out of pinned 0x%lx of mm %lu succeeded",
				     (unsigned long)va, (unsigned long)s->id);
		pin_mapped_check(c, s, va, pg, p->val);
		if (r != R_SHARED && t_rand(c) % 4 == 0)
			pin_unmap(c, s, p, va, pg);
		pin_keep_or_drop(c, pg);
	} else if (n != -ENOMEM) {
		torture_fail("pin of mm %lu at 0x%lx: %d", (unsigned long)s->id, (unsigned long)va,
			     n);
	}
	t_unlock(&p->lock);
	t_rec(c, fast ? OP_PIN_FAST : OP_PIN_LOCKED, (unsigned)(s - t_slots), va, 0, n);
}
