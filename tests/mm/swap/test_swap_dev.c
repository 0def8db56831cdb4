/*
 * Tests of the RAM swap device (mm/swap/swapdev.h) and of page I/O through swap
 * entries: patterned pages come back with the same checksum, same-filled
 * pages take no frame, rewrites switch between the two, discards and
 * destroy give every frame back, and bad or unwritten slots are refused.
 */
#include "errno.h"
#include "lib/string.h"
#include "mm/page.h"
#include "mm/swap/swapdev.h"
#include "tests/test_swap.h"

#define DEV_SLOTS 1024

static struct swap_ram_stats ram_stats(struct swap_dev *d)
{
	struct swap_ram_stats s;

	swap_ram_stats_get(d, &s);
	return s;
}

/* Writes page @seed's pattern to @slot; returns the pattern's checksum (0 on error). */
static u64 write_pattern(struct ktest *t, struct swap_dev *d, u64 slot, u64 seed, void *buf)
{
	swapt_fill(buf, seed);
	if (!KEXPECT_EQ(t, d->ops->write_slot(d, slot, buf), 0))
		return 0;
	return swapt_checksum(buf);
}

static bool read_matches(struct ktest *t, struct swap_dev *d, u64 slot, u64 sum, void *buf)
{
	memset(buf, 0xee, PAGE_SIZE);
	if (!KEXPECT_EQ(t, d->ops->read_slot(d, slot, buf), 0))
		return false;
	return KEXPECT_EQ(t, swapt_checksum(buf), sum);
}

static void test_swap_dev_roundtrip(struct ktest *t)
{
	static const u64 slots[] = { 0, 1, 255, 256, 257, 700, DEV_SLOTS - 1 };
	u64 sums[ARRAY_SIZE(slots)], free = swapt_pmm_free();
	void *buf = swapt_page_alloc();
	struct swap_dev *d;
	unsigned i;

	KASSERT(t, buf != NULL);
	KASSERT_EQ(t, swap_ram_create(DEV_SLOTS, &d), 0);
	for (i = 0; i < ARRAY_SIZE(slots); i++)
		sums[i] = write_pattern(t, d, slots[i], slots[i] + 1, buf);
	for (i = 0; i < ARRAY_SIZE(slots); i++)
		read_matches(t, d, slots[i], sums[i], buf);
	KEXPECT_EQ(t, ram_stats(d).frames, ARRAY_SIZE(slots));
	KEXPECT_EQ(t, ram_stats(d).writes, ARRAY_SIZE(slots));
	KEXPECT_EQ(t, ram_stats(d).reads, ARRAY_SIZE(slots));
	sums[1] = write_pattern(t, d, slots[1], 9999, buf); /* rewrite reuses the frame */
	read_matches(t, d, slots[1], sums[1], buf);
	KEXPECT_EQ(t, ram_stats(d).frames, ARRAY_SIZE(slots));
	d->ops->discard(d, 0, DEV_SLOTS);
	KEXPECT_EQ(t, ram_stats(d).frames, 0);
	KEXPECT_EQ(t, ram_stats(d).discards, ARRAY_SIZE(slots));
	KEXPECT_EQ(t, d->ops->read_slot(d, slots[2], buf), -ENOENT);
	d->ops->destroy(d);
	swapt_page_free(buf);
	KEXPECT_EQ(t, swapt_pmm_free(), free);
}

/* Pages of one repeated word (zero, or Barry Song's 0x11 fill) take no frame. */
static void test_swap_dev_same_filled(struct ktest *t)
{
	u64 *buf = swapt_page_alloc(), sum;
	struct swap_dev *d;

	KASSERT(t, buf != NULL);
	KASSERT_EQ(t, swap_ram_create(DEV_SLOTS, &d), 0);
	memset(buf, 0, PAGE_SIZE);
	KEXPECT_EQ(t, d->ops->write_slot(d, 5, buf), 0);
	memset(buf, 0x11, PAGE_SIZE);
	KEXPECT_EQ(t, d->ops->write_slot(d, 6, buf), 0);
	KEXPECT_EQ(t, ram_stats(d).same, 2);
	KEXPECT_EQ(t, ram_stats(d).frames, 0);
	sum = swapt_checksum(buf);
	read_matches(t, d, 6, sum, buf);
	KEXPECT_EQ(t, d->ops->read_slot(d, 5, buf), 0);
	KEXPECT(t, buf[0] == 0 && buf[PAGE_SIZE / 8 - 1] == 0);
	sum = write_pattern(t, d, 5, 42, buf);
	KEXPECT_EQ(t, ram_stats(d).same, 1);
	KEXPECT_EQ(t, ram_stats(d).frames, 1);
	read_matches(t, d, 5, sum, buf);
	memset(buf, 0x11, PAGE_SIZE);
	KEXPECT_EQ(t, d->ops->write_slot(d, 5, buf), 0);
	KEXPECT_EQ(t, ram_stats(d).same, 2);
	KEXPECT_EQ(t, ram_stats(d).frames, 0);
	d->ops->destroy(d);
	swapt_page_free(buf);
}

static void test_swap_dev_bad_slots(struct ktest *t)
{
	void *buf = swapt_page_alloc();
	struct swap_dev *d;

	KASSERT(t, buf != NULL);
	KEXPECT_EQ(t, swap_ram_create(0, &d), -EINVAL);
	KEXPECT_EQ(t, swap_ram_create(SWAP_RAM_MAX_SLOTS + 1, &d), -EINVAL);
	KASSERT_EQ(t, swap_ram_create(DEV_SLOTS, &d), 0);
	swapt_fill(buf, 1);
	KEXPECT_EQ(t, d->ops->write_slot(d, DEV_SLOTS, buf), -EINVAL);
	KEXPECT_EQ(t, d->ops->read_slot(d, DEV_SLOTS, buf), -EINVAL);
	KEXPECT_EQ(t, d->ops->read_slot(d, 7, buf), -ENOENT); /* no chunk yet */
	KEXPECT_EQ(t, d->ops->write_slot(d, 8, buf), 0);
	KEXPECT_EQ(t, d->ops->read_slot(d, 7, buf), -ENOENT); /* chunk, empty slot */
	d->ops->discard(d, DEV_SLOTS - 1, 10);		      /* clipped at the end */
	d->ops->destroy(d);
	swapt_page_free(buf);
}

/* Destroy returns every frame, data and tables, even with slots still stored. */
static void test_swap_dev_memory(struct ktest *t)
{
	void *buf = swapt_page_alloc();
	struct swap_dev *d;
	u64 free, slot;

	KASSERT(t, buf != NULL);
	free = swapt_pmm_free();
	KASSERT_EQ(t, swap_ram_create(4 * DEV_SLOTS, &d), 0);
	for (slot = 0; slot < 4 * DEV_SLOTS; slot += 13)
		write_pattern(t, d, slot, slot, buf);
	KEXPECT_EQ(t, ram_stats(d).frames, (4 * DEV_SLOTS + 12) / 13);
	KEXPECT_GT(t, ram_stats(d).meta_pages, 1);
	KEXPECT_LT(t, swapt_pmm_free(), free);
	d->ops->destroy(d);
	KEXPECT_EQ(t, swapt_pmm_free(), free);
	swapt_page_free(buf);
}

/* Through swap entries: a folio's 16 pages out and back, and the frames go with the slots. */
static void test_swap_page_io(struct ktest *t)
{
	u64 sums[SWAP_FOLIO_SLOTS];
	void *buf = swapt_page_alloc();
	unsigned type, i;
	swp_entry_t e;

	KASSERT(t, buf != NULL);
	KASSERT(t, swapt_dev_new(t, DEV_SLOTS, &type));
	KASSERT_EQ(t, swap_slot_alloc(type, SWAP_FOLIO_SLOTS, &e), 0);
	for (i = 0; i < SWAP_FOLIO_SLOTS; i++) {
		swapt_fill(buf, 100 + i);
		sums[i] = swapt_checksum(buf);
		KEXPECT_EQ(t, swap_write_page(swap_entry_next(e, i), buf), 0);
	}
	for (i = 0; i < SWAP_FOLIO_SLOTS; i++) {
		memset(buf, 0, PAGE_SIZE);
		KEXPECT_EQ(t, swap_read_page(swap_entry_next(e, i), buf), 0);
		KEXPECT_EQ(t, swapt_checksum(buf), sums[i]);
	}
	KEXPECT_EQ(t, ram_stats(swap_dev_of(type)).frames, SWAP_FOLIO_SLOTS);
	KEXPECT_EQ(t, swap_free_ops_batched.free(e, SWAP_FOLIO_SLOTS), 0);
	KEXPECT_EQ(t, ram_stats(swap_dev_of(type)).frames, 0);
	KEXPECT_EQ(t, swap_read_page(e, buf), -ENOENT);
	KEXPECT_EQ(t, swap_write_page(e, buf), -ENOENT);
	swapt_page_free(buf);
}

/*
 * The default device (swap_mb=64) paged full of 0x11-filled folios, as in
 * Barry Song's test, costs only its tables and the pages of slot records:
 * 70 frames for 64 MiB.
 */
static void test_swap_dev_default_size(struct ktest *t)
{
	u64 nslots = 64 * SWAP_SLOTS_PER_MB, chunks = nslots / 256, free, off;
	unsigned type, tables = 1 + 4 + 1; /* device header, swap map, clusters */
	void *buf = swapt_page_alloc();
	swp_entry_t e;

	KASSERT(t, buf != NULL);
	free = swapt_pmm_free();
	KASSERT(t, swapt_dev_new(t, nslots, &type));
	KEXPECT_EQ(t, free - swapt_pmm_free(), tables);
	memset(buf, 0x11, PAGE_SIZE);
	for (off = 0; off < nslots; off += SWAP_FOLIO_SLOTS) {
		KASSERT_EQ(t, swap_slot_alloc(type, SWAP_FOLIO_SLOTS, &e), 0);
		for (unsigned i = 0; i < SWAP_FOLIO_SLOTS; i++)
			KASSERT_EQ(t, swap_write_page(swap_entry_next(e, i), buf), 0);
	}
	KEXPECT_EQ(t, swap_slot_alloc(type, 1, &e), -ENOSPC);
	KEXPECT_EQ(t, ram_stats(swap_dev_of(type)).same, nslots);
	KEXPECT_EQ(t, free - swapt_pmm_free(), tables + chunks); /* 256 slot records a page */
	swapt_page_free(buf);
}

static const struct ktest_case swap_dev_cases[] = {
	KTEST_CASE(test_swap_dev_roundtrip),
	KTEST_CASE(test_swap_dev_same_filled),
	KTEST_CASE(test_swap_dev_bad_slots),
	KTEST_CASE(test_swap_dev_memory),
	KTEST_CASE(test_swap_page_io),
	KTEST_CASE(test_swap_dev_default_size),
};
KTEST_SUITE_EXT(swap_dev, swap_dev_cases, swapt_init, swapt_exit, NULL);
