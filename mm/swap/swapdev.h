/*
 * Swap backing devices: a store of 4 KiB slots behind struct swap_dev_ops,
 * so the slot allocator never knows whether slots live in RAM or on a disk.
 * Locking: none of its own. A slot's holder writes it, reference holders
 * read it, the allocator discards it under the cluster lock. No call
 * sleeps; none from interrupt context (they allocate frames).
 */
#ifndef MM_SWAPDEV_H
#define MM_SWAPDEV_H

#include "types.h"

#define SWAP_SLOT_SIZE 4096

struct swap_dev;

struct swap_dev_ops {
	const char *name; /* "ram": printed in reports */
	/* Copies slot @slot into @buf (SWAP_SLOT_SIZE bytes). 0, -ENOENT (unwritten), -EINVAL. */
	int (*read_slot)(struct swap_dev *d, u64 slot, void *buf);
	/* Stores @buf (SWAP_SLOT_SIZE bytes) in slot @slot. 0, -ENOMEM, -EINVAL. */
	int (*write_slot)(struct swap_dev *d, u64 slot, const void *buf);
	/* Drops the contents of slots [@slot, @slot + @nr): they were freed. */
	void (*discard)(struct swap_dev *d, u64 slot, u64 nr);
	/* Releases the device and everything it holds; @d is gone afterwards. */
	void (*destroy)(struct swap_dev *d);
};

/* What every device starts with; an implementation embeds it first. */
struct swap_dev {
	const struct swap_dev_ops *ops;
	u64 nslots;
};

/* What a RAM device holds now; counts are atomic snapshots. */
struct swap_ram_stats {
	u64 frames;	/* slots stored in a frame of their own */
	u64 same;	/* slots stored as one repeated 8-byte word, no frame */
	u64 meta_pages; /* frames of the device's own tables */
	u64 reads, writes, discards;
};

/*
 * Creates a RAM device of @nslots slots (1..SWAP_RAM_MAX_SLOTS). It takes
 * only a small table of frames at once: a slot's frame is allocated on its
 * first write and freed by discard, and a slot whose page is one 8-byte
 * word repeated (zero pages, say) is kept as that word with no frame at all,
 * as zRAM does with same-filled pages. Returns 0 with *@out set, -EINVAL or
 * -ENOMEM.
 */
int swap_ram_create(u64 nslots, struct swap_dev **out);

/* Fills @s for a device made by swap_ram_create() (all zero for any other device). */
void swap_ram_stats_get(struct swap_dev *d, struct swap_ram_stats *s);

/* Largest RAM device: 16 GiB of slots (its directory is one block of frames). */
#define SWAP_RAM_MAX_SLOTS (4ull << 20)

#endif
