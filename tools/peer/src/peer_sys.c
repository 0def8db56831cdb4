/*
 * What the workloads ask of the Linux kernel and the CPU: the TSC (read
 * with lfence before it, SDM vol. 2B RDTSC: it is not serialising),
 * CPU affinity, and counts the kernel exports (/proc/interrupts rows,
 * /proc/meminfo, mincore residency). Safe from any thread.
 */
#define _GNU_SOURCE
#include "peer.h"

#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

/* The TSC, after every earlier instruction has completed locally. */
uint64_t peer_rdtsc(void)
{
	_mm_lfence();
	return __rdtsc();
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* TSC ticks per second of CLOCK_MONOTONIC, over a 200 ms sleep. */
double peer_tsc_calibrate(void)
{
	struct timespec nap = { 0, 200 * 1000 * 1000 };
	double t0 = now_ns();
	uint64_t c0 = peer_rdtsc();

	nanosleep(&nap, NULL);
	return (peer_rdtsc() - c0) * 1e9 / (now_ns() - t0);
}

/* Run the calling thread on cpu only; 0 or -1 (errno set). */
int peer_pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/*
 * The sum over CPUs of the /proc/interrupts row named row ("TLB"), or -1.
 * It reads into a static buffer with read(2): stdio's buffer, once freed,
 * may trim the heap, an unmap whose TLB shootdown the caller would count.
 * Not reentrant: call from one thread.
 */
long peer_proc_interrupts(const char *row)
{
	static char buf[1 << 17];
	size_t len = strlen(row), got = 0;
	ssize_t n;
	char *p, *end;
	long sum = 0;
	int fd = open("/proc/interrupts", O_RDONLY);

	if (fd < 0)
		return -1;
	while (got < sizeof(buf) - 1 && (n = read(fd, buf + got, sizeof(buf) - 1 - got)) > 0)
		got += n;
	close(fd);
	buf[got] = '\0';
	for (p = buf; p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		p += strspn(p, " ");
		if (!strncmp(p, row, len) && p[len] == ':')
			break;
	}
	if (!p)
		return -1;
	for (p += len + 1;; p = end) {
		long v = strtol(p, &end, 10);

		if (end == p)
			return sum;
		sum += v;
	}
}

/*
 * An anonymous read-write mapping of len bytes that stays in 4 KiB pages,
 * or MAP_FAILED. Debian's kernel has THP "always": a 2 MiB-aligned part
 * of a mapping would take a huge page at its first fault, MADV_DONTNEED
 * would drop one PMD instead of 512 PTEs, and khugepaged may collapse a
 * range the workload is emptying (seen: 403 of 512 pages resident again
 * after per-page MADV_DONTNEED). mmlab's workloads are 4 KiB pages.
 */
void *peer_map_4k(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p != MAP_FAILED && madvise(p, len, MADV_NOHUGEPAGE)) {
		munmap(p, len);
		return MAP_FAILED;
	}
	return p;
}

/* How many pages of [addr, addr+len) mincore() says are resident, or -1. */
long peer_resident_pages(const void *addr, size_t len)
{
	size_t n = (len + PEER_PAGE - 1) / PEER_PAGE;
	unsigned char *vec = malloc(n);
	long count = 0;

	if (!vec || mincore((void *)addr, len, vec)) {
		free(vec);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		count += vec[i] & 1;
	free(vec);
	return count;
}

/* A "Key: N kB" value of a /proc file ("/proc/meminfo", "SwapFree"), or -1. */
long peer_proc_kb(const char *path, const char *key)
{
	char line[256];
	size_t len = strlen(key);
	long kb = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (kb < 0 && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, len) && line[len] == ':')
			kb = strtol(line + len + 1, NULL, 10);
	fclose(f);
	return kb;
}
