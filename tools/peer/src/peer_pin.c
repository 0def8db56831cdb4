/*
 * pin: FOLL_PIN from user space. io_uring's buffer registration pins every
 * page with pin_user_pages(FOLL_WRITE | FOLL_LONGTERM) in Linux 6.1
 * (io_uring/rsrc.c io_pin_pages), unregistering unpins: one pair is a pin and
 * an unpin of pin_pages pages plus io_uring's bookkeeping, which the metric
 * includes. Linux 6.1 tests MMF_HAS_PINNED before setting it: mmlab's "fixed"
 * pin design. One thread, CPU 0.
 */
#define _GNU_SOURCE
#include "peer.h"

#include <errno.h>
#include <linux/io_uring.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

static int ring_setup(void)
{
	struct io_uring_params p;

	memset(&p, 0, sizeof(p));
	return (int)syscall(__NR_io_uring_setup, 4, &p);
}

/* One pin and unpin of the buffer: ns per page for each, or -errno. */
static int pin_run(int ring, struct iovec *iov, double *pin_ns, double *unpin_ns)
{
	uint64_t t0, t1, t2;
	long pages = peer_opts.pin_pages;

	t0 = peer_rdtsc();
	if (syscall(__NR_io_uring_register, ring, IORING_REGISTER_BUFFERS, iov, 1))
		return -errno;
	t1 = peer_rdtsc();
	if (syscall(__NR_io_uring_register, ring, IORING_UNREGISTER_BUFFERS, NULL, 0))
		return -errno;
	t2 = peer_rdtsc();
	*pin_ns = (t1 - t0) * 1e9 / peer_opts.tsc_hz / pages;
	*unpin_ns = (t2 - t1) * 1e9 / peer_opts.tsc_hz / pages;
	return 0;
}

static void pin_case(int ring, struct iovec *iov)
{
	static struct peer_series s;
	struct peer_case c = { .bench = "pin",
			       .metric = "pin_ns_per_page",
			       .unit = "ns",
			       .better = "lower",
			       .cpus = 1,
			       .ops_per_run = peer_opts.pin_pages };
	double pin_ns = 0, unpin_ns = 0;
	int rc = 0;

	snprintf(c.params, sizeof(c.params), "\"per_call\":%ld,\"region\":\"own\"",
		 peer_opts.pin_pages);
	snprintf(c.label, sizeof(c.label), "per_call=%ld region=own", peer_opts.pin_pages);
	peer_series_init(&s, "fixed");
	s.counter_names[0] = "unpin_ns_per_op";
	s.ncounters = 1;
	printf("# bench pin cpus=1 %s: io_uring buffer registration (pin_user_pages FOLL_LONGTERM),"
	       " %d timed runs, each after %d warm-up\n",
	       c.label, peer_opts.iters, peer_opts.warmup);
	for (int r = 0; r < peer_opts.iters && !rc; r++) {
		for (int w = 0; w <= peer_opts.warmup && !rc; w++)
			rc = pin_run(ring, iov, &pin_ns, &unpin_ns);
		if (!rc)
			peer_series_add(&s, pin_ns, r, &unpin_ns);
	}
	if (rc)
		peer_fail(&c, "fixed", "io_uring_register failed: %s", strerror(-rc));
	else
		peer_emit(&c, &s);
}

/* The pin workload (one CPU), or a skip naming why io_uring is not there. */
int peer_pin(void)
{
	size_t len = peer_opts.pin_pages * PEER_PAGE;
	struct iovec iov;
	int ring = ring_setup(), before = peer_failed;
	char *buf;

	if (ring < 0) {
		char why[128];

		snprintf(why, sizeof(why), "io_uring_setup failed (%s): no pinning path",
			 strerror(errno));
		peer_skip("pin", why);
		return 0;
	}
	buf = peer_map_4k(len);
	if (buf == MAP_FAILED) {
		close(ring);
		return -1;
	}
	memset(buf, 1, len);
	iov = (struct iovec){ .iov_base = buf, .iov_len = len };
	pin_case(ring, &iov);
	munmap(buf, len);
	close(ring);
	return peer_failed == before ? 0 : -1;
}
