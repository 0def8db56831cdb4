/*
 * The torture's operations (tests/torture/torture_internal.h). Each picks
 * a live address space at random and works on its tracked pages under
 * their model locks, except the ones meant to race them without a lock:
 * swap-out, write-protect, populate and switches (pins: torture_pin.c).
 * Each records itself in the CPU's ring; a result that breaks a rule, or
 * a word of a page that is not what its owner wrote, fails the run.
 */
#include "errno.h"
#include "mm/devmem.h"
#include "mm/pin/pagemap.h"
#include "mm/page.h"
#include "mm/pt.h"
#include "mm/swap/swap.h"
#include "tests/mm_emul.h"
#include "tests/torture/torture_internal.h"

const char *const t_op_names[] = {
	"read", "write", "fork", "destroy", "populate", "zap_one", "zap_all", "attach_detach",
	"unmap", "unmap_region", "switch", "pin_fast", "pin_locked", "swap_out", "cow_protect",
	"pagemap", "call", "die",
};

/* Relative weights: faults and checks most, whole-space operations least. */
static const u8 t_op_weight[OP_COUNT] = { 20, 20, 2, 2, 3, 2, 2, 2, 6, 2, 4, 4, 4, 6, 2, 3, 3 };

struct devmem t_devmem;

static vaddr_t page_va(unsigned r, unsigned i)
{
	return t_base[r] + (vaddr_t)i * T_KB4;
}

/* The first, middle and last word: a copy that misses part of the page shows. */
const u16 t_word_off[T_WORDS] = { 0, T_KB4 / 2, T_KB4 - 8 };

/* Word @k of a page whose first word is @val: rotated, so a word copied astray shows; 0 stays 0. */
u64 t_word(u64 val, unsigned k)
{
	return k ? val >> (8 * k) | val << (64 - 8 * k) : val;
}

/*
 * After a wrong value: where the expected one is now (a frame no address
 * space maps says the write went through a mapping that was then lost).
 */
static void where_is(u64 want, unsigned off, struct mm *mm, vaddr_t va)
{
	paddr_t pa = 0;
	int e = pt_lookup(mm->root, va, &pa, NULL, NULL);

	if (!want)
		return; /* the zero page's value: every free frame holds it (a GiB of lines) */
	for (u64 pfn = mm_memmap_start_pfn; pfn < mm_memmap_end_pfn; pfn++) {
		struct page *p = pfn_to_page(pfn);

		if (page_test_flags(p, PG_FREED | PG_DEVICE) || page_test_flags(p, PG_TAIL))
			continue;
		if (torture_user_load((u64 *)((char *)page_address(p) + off)) == want)
			torture_fail("... 0x%lx is in frame 0x%lx (map count %d, refcount %d, "
				     "flags 0x%x); the tables map 0x%lx there (%d)",
				     (unsigned long)want, (unsigned long)(pfn << 12),
				     page_mapcount(p), page_ref_count(p), p->flags,
				     (unsigned long)pa, e);
	}
}

/* A fault error no rule allows fails the run. */
void t_touch_err(const struct tcpu *c, const struct tslot *s, vaddr_t va, int err)
{
	if (err && err != -ENOMEM && !t_dead_err_mm(c, err, s->mm))
		torture_fail("fault at 0x%lx of mm %lu failed: %d", (unsigned long)va,
			     (unsigned long)s->id, err);
}

/* Loads word @k of the tracked page at @va and checks it holds t_word(@val, k). */
int t_word_check(struct tslot *s, vaddr_t va, unsigned k, u64 val, const char *what)
{
	u64 want = t_word(val, k), v = 0;
	int err = torture_env_touch(s->mm, va + t_word_off[k], false, &v);

	__atomic_add_fetch(&t_checks, 1, __ATOMIC_RELAXED);
	if (err || val == T_TORN || v == want || torture_failed())
		return err;
	torture_fail("%s of mm %lu 0x%lx: word at +0x%x holds 0x%lx, expected 0x%lx (lost write or "
		     "copy, wrong frame or stale translation)",
		     what, (unsigned long)s->id, (unsigned long)va, t_word_off[k],
		     (unsigned long)v, (unsigned long)want);
	where_is(want, t_word_off[k], s->mm, va);
	return err;
}

/*
 * Gives tracked page @p at @va a new tag: its first word first (the store
 * that faults: demand-zero, copy-on-write, swap-in), then each other word
 * once it was seen still holding the old tag, so a fault that lost the
 * page's content fails at the fault that lost it. Then one word is read
 * back. The caller holds @p's lock.
 */
int t_page_write(struct tcpu *c, struct tslot *s, struct tpage *p, vaddr_t va, u64 tag)
{
	u64 old = p->val, w = tag;
	int err = torture_env_touch(s->mm, va, true, &w);

	if (err)
		return err; /* nothing written */
	p->val = T_TORN;
	for (unsigned k = 1; !err && k < T_WORDS; k++) {
		err = t_word_check(s, va, k, old, "write (content before it)");
		w = t_word(tag, k);
		if (!err)
			err = torture_env_touch(s->mm, va + t_word_off[k], true, &w);
	}
	if (!err)
		p->val = tag;
	return err ? err : t_word_check(s, va, (unsigned)(t_rand(c) % T_WORDS), tag, "write");
}

/* A load of one word of, or a new tag for, the tracked page @i of region @r. */
static int op_access(struct tcpu *c, struct tslot *s, bool write)
{
	unsigned r = (unsigned)(t_rand(c) % T_REGIONS), i = (unsigned)(t_rand(c) % T_PAGES);
	struct tpage *p = &s->model[r]->p[i];
	int err;

	t_lock(&p->lock);
	if (write)
		err = t_page_write(c, s, p, page_va(r, i), t_tag(s, r, i, t_rand(c)));
	else
		err = t_word_check(s, page_va(r, i), (unsigned)(t_rand(c) % T_WORDS), p->val,
				   "read");
	t_touch_err(c, s, page_va(r, i), err);
	t_unlock(&p->lock);
	t_rec(c, write ? OP_WRITE : OP_READ, (unsigned)(s - t_slots), page_va(r, i), 0, err);
	return err;
}

/* Unmaps a run of tracked pages of a private region through the case's TLB design. */
static void op_unmap(struct tcpu *c, struct tslot *s, bool whole_region)
{
	unsigned r = t_rand(c) % 2 ? R_PRIV : R_SHARE;
	unsigned i = (unsigned)(t_rand(c) % T_PAGES), n = 1 + (unsigned)(t_rand(c) % (T_PAGES - i));
	struct tpage *lp[T_PAGES];
	int err;

	if (whole_region) {
		r = R_PRIV;
		i = 0;
		n = T_PAGES;
	}
	for (unsigned k = 0; k < n; k++)
		lp[k] = &s->model[r]->p[i + k];
	t_lock_pages(lp, n);
	if (whole_region) {
		err = mm_unmap_region(s->mm, t_base[r], t_len[r]);
		/* A failed flush still unmapped the region (mm_unmap_region()). */
		if (!err || t_dead_err_mm(c, err, s->mm))
			err = mm_map_region(s->mm, t_base[r], t_len[r], t_flags[r]);
		if (err)
			torture_fail("unmap and map of region 0x%lx: %d", (unsigned long)t_base[r],
				     err);
	} else {
		int serr;

		err = tlb_unmap_pages(s->mm, page_va(r, i), n, t_unmap_ops);
		if (err && err != -ENOMEM && !t_dead_err_mm(c, err, s->mm))
			torture_fail("unmap through %s of 0x%lx+%u: %d", t_unmap_ops->d.name,
				     (unsigned long)page_va(r, i), n, err);
		/*
		 * Settled whatever the unmap returned: a design whose remotes
		 * flush at their drain (lazy) queued the range to the live CPUs
		 * also when a dead one (or a failed allocation) made it fail, and
		 * until they drain they may read and write the old frames. A
		 * design whose range is done on return but keeps its frames
		 * is not: its next gather, another CPU's settle or
		 * the audit's releases them, and every check must hold meanwhile.
		 */
		serr = t_unmap_ops->d.completes_later ? tlb_settle(t_unmap_ops, s->mm) : 0;
		err = err ? err : serr;
		/* A settle waits for every CPU's queue (lazy): any mm's fails while one is dark. */
		if (serr && serr != -ENOMEM && !t_dead_err(serr))
			torture_fail("settle after unmap through %s of 0x%lx+%u: %d",
				     t_unmap_ops->d.name, (unsigned long)page_va(r, i), n, serr);
	}
	for (unsigned k = 0; k < n; k++)
		lp[k]->val = 0;
	t_unlock_pages(lp, n);
	t_rec(c, whole_region ? OP_UNMAP_REGION : OP_UNMAP, (unsigned)(s - t_slots), page_va(r, i),
	      n, err);
}

/* Zaps the shareable regions of one address space, or of all (@s NULL). */
static void op_zap(struct tcpu *c, struct tslot *s)
{
	struct tpage *lp[T_SLOTS * T_PAGES];
	unsigned n = 0;
	int err;

	t_lock(&t_map_lock);
	for (unsigned k = 0; k < T_SLOTS; k++) {
		struct tslot *z = &t_slots[k];

		/*
		 * By attachment, not by state: a slot being destroyed (BUSY) stays
		 * attached, its model valid, until its last user leaves, and
		 * mapping_zap() zaps it meanwhile while a user may still read it.
		 * attached changes only under t_map_lock, which we hold.
		 */
		if ((s && z != s) || !z->attached)
			continue;
		for (unsigned i = 0; i < T_PAGES; i++)
			lp[n++] = &z->model[R_SHARE]->p[i];
	}
	t_lock_pages(lp, n);
	err = mapping_zap(&t_mapping, s ? s->mm : NULL);
	if (err && err != -ENOMEM && (s ? !t_dead_err_mm(c, err, s->mm) : !t_dead_err(err)))
		torture_fail("mapping_zap: %d", err);
	for (unsigned k = 0; k < n; k++)
		lp[k]->val = 0;
	t_unlock_pages(lp, n);
	t_unlock(&t_map_lock);
	t_rec(c, s ? OP_ZAP_ONE : OP_ZAP_ALL, s ? (unsigned)(s - t_slots) : 0xffff, 0, n, err);
}

static void op_attach(struct tcpu *c, struct tslot *s)
{
	struct tpage *lp[T_PAGES];
	bool now;
	int err;

	t_lock(&t_map_lock);
	for (unsigned i = 0; i < T_PAGES; i++)
		lp[i] = &s->model[R_SHARE]->p[i];
	t_lock_pages(lp, T_PAGES);
	if (s->attached)
		err = mapping_detach(&t_mapping, s->mm, t_base[R_SHARE]);
	else
		err = mapping_attach(&t_mapping, s->mm, t_base[R_SHARE]);
	if (!err)
		s->attached = !s->attached;
	else
		torture_fail("%s: %d", s->attached ? "mapping_detach" : "mapping_attach", err);
	now = s->attached;
	t_unlock_pages(lp, T_PAGES);
	t_unlock(&t_map_lock);
	t_rec(c, OP_ATTACH, (unsigned)(s - t_slots), t_base[R_SHARE], now, err);
}

/*
 * Right after fork: a write in @child (a COW copy) must find the content
 * it inherited, and leave the parent's page as it was.
 */
static void fork_check(struct tcpu *c, struct tslot *s, struct tslot *child)
{
	unsigned i = (unsigned)(t_rand(c) % T_PAGES);
	vaddr_t va = page_va(R_PRIV, i);
	u64 tag = t_tag(child, R_PRIV, i, t_rand(c));

	t_touch_err(c, child, va, t_page_write(c, child, &child->model[R_PRIV]->p[i], va, tag));
	t_touch_err(c, s, va,
		    t_word_check(s, va, (unsigned)(t_rand(c) % T_WORDS), s->model[R_PRIV]->p[i].val,
				 "read of the parent after its child's write"));
}

/* Fork of @s into an empty slot, with the parent's pages still (all locked). */
static void op_fork(struct tcpu *c, struct tslot *s)
{
	struct tpage *lp[T_REGIONS * T_PAGES];
	struct tslot *child = NULL;
	unsigned n = 0;
	int err = -ENOSPC;

	for (unsigned k = 0; k < T_SLOTS && !child; k++) {
		u32 empty = SLOT_EMPTY;

		if (__atomic_compare_exchange_n(&t_slots[k].state, &empty, SLOT_BUSY, false,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			child = &t_slots[k];
	}
	if (!child)
		goto out;
	t_lock(&t_map_lock);
	for (unsigned r = 0; r < T_REGIONS; r++)
		for (unsigned i = 0; i < T_PAGES; i++)
			lp[n++] = &s->model[r]->p[i];
	t_lock_pages(lp, n);
	{
		struct mm *mm = NULL;

		err = mm_fork(s->mm, &mm);
		__atomic_store_n(&child->mm, mm, __ATOMIC_RELEASE);
	}
	if (!err) {
		static u64 ids = 1000;
		u64 id = __atomic_add_fetch(&ids, 1, __ATOMIC_RELAXED);

		__atomic_store_n(&child->id, id, __ATOMIC_RELAXED);
		child->attached = s->attached;
		for (unsigned r = 0; r < T_REGIONS; r++) {
			if (r == R_SHARED) {
				child->model[r] = s->model[r];
				__atomic_add_fetch(&s->model[r]->refs, 1, __ATOMIC_RELAXED);
				continue;
			}
			child->model[r] = t_model_new();
			for (unsigned i = 0; i < T_PAGES; i++)
				child->model[r]->p[i].val = s->model[r]->p[i].val;
		}
		fork_check(c, s, child);
	} else if (err != -ENOMEM && err != -EOVERFLOW && !t_dead_err_mm(c, err, s->mm)) {
		torture_fail("mm_fork: %d", err);
	}
	t_unlock_pages(lp, n);
	__atomic_store_n(&child->state, err ? SLOT_EMPTY : SLOT_LIVE, __ATOMIC_RELEASE);
	t_unlock(&t_map_lock);
out:
	t_rec(c, OP_FORK, (unsigned)(s - t_slots), 0, child ? (unsigned)(child - t_slots) : 0xff,
	      err);
}

/* Destroys @s (the caller's reference dropped first), or creates into an empty slot. */
static void op_destroy(struct tcpu *c, struct tslot *s)
{
	unsigned live = 0, k = (unsigned)(s - t_slots);
	u32 want = SLOT_LIVE;
	int err = 0;

	for (unsigned j = 0; j < T_SLOTS; j++)
		live += __atomic_load_n(&t_slots[j].state, __ATOMIC_RELAXED) == SLOT_LIVE;
	t_slot_put(s);
	if (live <= 2) {
		for (unsigned j = 0; j < T_SLOTS; j++) {
			u32 empty = SLOT_EMPTY;

			if (__atomic_compare_exchange_n(&t_slots[j].state, &empty, SLOT_BUSY, false,
							__ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
				err = t_slot_create(&t_slots[j]);
				k = j;
				break;
			}
		}
	} else if (__atomic_compare_exchange_n(&s->state, &want, SLOT_BUSY, false,
					       __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
		/* Not the dark CPU's: its root stays loaded there (t_dead_enter()). */
		if (__atomic_load_n(&t_dead_slot, __ATOMIC_SEQ_CST) == s)
			__atomic_store_n(&s->state, SLOT_LIVE, __ATOMIC_SEQ_CST);
		else
			err = t_slot_destroy(s);
	}
	t_rec(c, OP_DESTROY, k, 0, live, err);
}

static void op_pagemap(struct tcpu *c)
{
	u64 n = (u64)t_devmem.nranges << t_devmem.order;
	u64 pfn = page_to_pfn(devmem_page(&t_devmem, t_rand(c) % n));
	struct dev_pagemap *pg = pagemap_get(pfn, NULL);

	__atomic_add_fetch(&t_checks, 1, __ATOMIC_RELAXED);
	if (!pg || !pagemap_contains(pg, pfn))
		torture_fail("pagemap_get of device pfn 0x%lx gave %p", (unsigned long)pfn, pg);
	if (pg)
		pagemap_put(pg);
	t_rec(c, OP_PAGEMAP, 0, pfn, 0, pg != NULL);
}

/* The operations a run picks from (--ops=, a mask of bits 1 << OP_*). */
u32 t_op_mask = ~0u;

static unsigned op_weight(unsigned op)
{
	return (t_op_mask >> op) & 1 ? t_op_weight[op] : 0;
}

static unsigned op_pick(struct tcpu *c)
{
	unsigned total = 0, x;

	for (unsigned i = 0; i < OP_COUNT; i++)
		total += op_weight(i);
	if (!total)
		return OP_READ;
	x = (unsigned)(t_rand(c) % total);
	for (unsigned i = 0; i < OP_COUNT; i++) {
		if (x < op_weight(i))
			return i;
		x -= op_weight(i);
	}
	return OP_READ;
}

/* The operations that race the model's locks on purpose. */
static void op_unlocked(struct tcpu *c, struct tslot *s, unsigned op)
{
	unsigned i = (unsigned)(t_rand(c) % T_PAGES);
	unsigned nr = 1u << (t_rand(c) % 3);
	int err = 0;

	switch (op) {
	case OP_POPULATE:
		err = mm_populate(s->mm, t_base[R_PRIV], T_PAGES * T_KB4);
		break;
	case OP_SWITCH:
		mm_switch(t_rand(c) % 2 ? s->mm : NULL);
		break;
	case OP_SWAP_OUT:
		i &= ~(nr - 1);
		err = swap_out_folio(s->mm, page_va(R_PRIV, i), nr, t_swap_type);
		break;
	case OP_COW:
		err = mm_cow_protect(s->mm, t_base[R_PRIV], T_PAGES * T_KB4);
		break;
	}
	t_rec(c, op, (unsigned)(s - t_slots), page_va(R_PRIV, i), nr, err);
}

void torture_op(unsigned cpu)
{
	struct tcpu *c = &t_cpus[cpu];
	unsigned op = op_pick(c);
	struct tslot *s;

	if (t_dead_pushing(cpu)) { /* counts its pushes */
		t_dead_push(c);
		return;
	}
	__atomic_add_fetch(&t_ops, 1, __ATOMIC_RELAXED);
	c->dark_at_start = __atomic_load_n(&t_dead_now, __ATOMIC_SEQ_CST);
	if (t_dead_unmap_due(cpu)) { /* a CPU just went dark: meet it (torture_dead.c) */
		t_dead_unmap_held(c);
		return;
	}
	if (op == OP_PAGEMAP) {
		op_pagemap(c);
		return;
	}
	if (op == OP_CALL) {
		t_op_call(c, cpu);
		return;
	}
	s = t_slot_get(c);
	if (!s)
		return;
	switch (op) {
	case OP_READ:
	case OP_WRITE:
		op_access(c, s, op == OP_WRITE);
		break;
	case OP_FORK:
		op_fork(c, s);
		break;
	case OP_DESTROY:
		op_destroy(c, s);
		return; /* dropped its reference */
	case OP_ZAP_ONE:
	case OP_ZAP_ALL:
		op_zap(c, op == OP_ZAP_ONE ? s : NULL);
		break;
	case OP_ATTACH:
		op_attach(c, s);
		break;
	case OP_UNMAP:
	case OP_UNMAP_REGION:
		op_unmap(c, s, op == OP_UNMAP_REGION);
		break;
	case OP_PIN_FAST:
	case OP_PIN_LOCKED:
		t_op_pin(c, s, op == OP_PIN_FAST);
		break;
	default:
		op_unlocked(c, s, op);
		break;
	}
	t_slot_put(s);
}
