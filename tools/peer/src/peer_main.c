/*
 * mmpeer's entry: parses key=value words (bench=, iters=, warmup=, cpus=,
 * pages=, swapfree_mb=, fault_pages=, pin_pages=, ktrace=, exact=), prints a header in the
 * shape of mmlab's MMLAB line, runs the asked workloads on CPU 0 and ends
 * with an MMLAB-DONE trailer. A bad word is named, and exits 2.
 */
#define _GNU_SOURCE
#include "peer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

struct peer_opts peer_opts = {
	.iters = 10, .warmup = 2, .swapfree_mb = 64, .fault_pages = 256, .pin_pages = 512,
	.ktrace = 1
};

static const struct {
	const char *name;
	int (*run)(void);
} workloads[] = {
	{ "tlb", peer_tlb },
	{ "swapfree", peer_swapfree },
	{ "faultlock", peer_faultlock },
	{ "pin", peer_pin },
};
#define NWORKLOADS (sizeof(workloads) / sizeof(workloads[0]))

static char bench_list[128] = "tlb,swapfree,faultlock,pin";
static char cmdline[512];

static void usage_error(const char *fmt, const char *word)
{
	printf("mmlab: error: mmpeer: ");
	printf(fmt, word);
	printf("\nMMLAB-DONE {\"passed\":0,\"failed\":0,\"skipped\":0,\"status\":\"usage\"}\n");
	exit(2);
}

/* A comma list of positive numbers up to max into out; the count, or -1. */
static int parse_list(const char *text, long *out, long max)
{
	int n = 0;
	char *end;

	for (const char *p = text; *p; p = end + (*end == ',')) {
		long v = strtol(p, &end, 10);

		if (end == p || v < 1 || v > max || n == PEER_MAX_LIST || (*end && *end != ','))
			return -1;
		out[n++] = v;
	}
	return n;
}

static long parse_one(const char *word, const char *value, long max)
{
	long v;

	if (parse_list(value, &v, max) != 1)
		usage_error("bad value in '%s'", word);
	return v;
}

static void parse_cpus(const char *word, const char *value)
{
	long v[PEER_MAX_LIST];
	int n = parse_list(value, v, peer_opts.ncpus);

	if (n < 1)
		usage_error("bad value in '%s' (CPU counts from 1 to the online CPUs)", word);
	for (int i = 0; i < n; i++)
		peer_opts.cpus[i] = (int)v[i];
	peer_opts.ncpus_list = n;
}

static void parse_pages(const char *word, const char *value)
{
	int n = parse_list(value, peer_opts.pages, 1 << 20);

	if (n < 1)
		usage_error("bad value in '%s' (page counts)", word);
	peer_opts.npages = n;
}

static void parse_bench(const char *word, const char *value)
{
	char copy[128], *tok, *save;

	if (strlen(value) >= sizeof(copy) || !*value)
		usage_error("bad value in '%s'", word);
	strcpy(copy, value);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		size_t i = 0;

		while (i < NWORKLOADS && strcmp(workloads[i].name, tok))
			i++;
		if (i == NWORKLOADS)
			usage_error("unknown benchmark in '%s' (tlb, swapfree, faultlock, pin)",
				    word);
	}
	strcpy(bench_list, value);
}

static void parse_word(const char *word)
{
	const char *eq = strchr(word, '=');
	size_t klen = eq ? (size_t)(eq - word) : 0;

	if (!eq)
		usage_error("'%s' is not key=value", word);
#define KEY(k) (klen == strlen(k) && !strncmp(word, k, klen))
	if (KEY("bench"))
		parse_bench(word, eq + 1);
	else if (KEY("iters"))
		peer_opts.iters = (int)parse_one(word, eq + 1, PEER_MAX_RUNS);
	else if (KEY("warmup"))
		peer_opts.warmup = (int)parse_one(word, eq + 1, 100);
	else if (KEY("cpus"))
		parse_cpus(word, eq + 1);
	else if (KEY("pages"))
		parse_pages(word, eq + 1);
	else if (KEY("swapfree_mb"))
		peer_opts.swapfree_mb = parse_one(word, eq + 1, 1 << 16);
	else if (KEY("fault_pages"))
		peer_opts.fault_pages = parse_one(word, eq + 1, 1 << 20);
	else if (KEY("pin_pages"))
		peer_opts.pin_pages = parse_one(word, eq + 1, 1 << 18);
	else if (KEY("ktrace"))
		peer_opts.ktrace = !strcmp(eq + 1, "1") ? 1 : !strcmp(eq + 1, "0") ? 0 : -1;
	else if (KEY("exact"))
		peer_opts.exact = !strcmp(eq + 1, "1") ? 1 : !strcmp(eq + 1, "0") ? 0 : -1;
	else
		usage_error("unknown word '%s'", word);
	if (peer_opts.ktrace < 0 || peer_opts.exact < 0)
		usage_error("bad value in '%s' (0 or 1)", word);
#undef KEY
}

static void set_defaults(void)
{
	static const long pages[] = { 1, 8, 32, 33, 34, 64, 512 }; /* mmlab's tlb sweep less 256 */
	struct utsname u;

	peer_opts.ncpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (peer_opts.ncpus > PEER_MAX_LIST)
		peer_opts.ncpus = PEER_MAX_LIST;
	for (int i = 0; i < peer_opts.ncpus; i++)
		peer_opts.cpus[i] = i + 1;
	peer_opts.ncpus_list = peer_opts.ncpus;
	peer_opts.npages = sizeof(pages) / sizeof(pages[0]);
	memcpy(peer_opts.pages, pages, sizeof(pages));
	uname(&u);
	snprintf(peer_opts.system, sizeof(peer_opts.system), "linux-%s", u.release);
}

static void cpu_model(char *out, size_t size)
{
	char line[256];
	FILE *f = fopen("/proc/cpuinfo", "r");

	snprintf(out, size, "unknown");
	while (f && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (!strncmp(line, "model name", 10) && colon) {
			snprintf(out, size, "%s", colon + 2 + strspn(colon + 2, " "));
			out[strcspn(out, "\n\"\\")] = '\0';
			break;
		}
	}
	if (f)
		fclose(f);
}

/* A JSON value for a 0/1 fact, null when unknown (-1). */
static const char *json_flag(int v)
{
	return v < 0 ? "null" : v ? "true" : "false";
}

static void print_header(void)
{
	char model[128], mitigations[1024];

	cpu_model(model, sizeof(model));
	peer_mitigations("/sys/devices/system/cpu/vulnerabilities", mitigations,
			 sizeof(mitigations));
	printf(
	    "MMLAB {\"version\":\"%s\",\"system\":\"%s\",\"cmdline\":\"%s\",\"cpu_model\":\"%s\","
	    "\"cpus\":%d,\"tsc_hz\":%.0f,\"hypervisor\":null,\"firmware\":null,"
	    "\"mem_bytes\":%ld,\"mitigations\":\"%s\",\"init_on_free\":%s,\"memcg\":%s}\n",
	    peer_opts.system, peer_opts.system, cmdline, model, peer_opts.ncpus, peer_opts.tsc_hz,
	    peer_meminfo_kb("MemTotal") * 1024, mitigations,
	    json_flag(peer_init_on_free("/proc/cmdline")), json_flag(peer_memcg("/proc/cgroups")));
	fflush(stdout);
}

static int in_list(const char *name)
{
	char copy[128], *tok, *save;

	strcpy(copy, bench_list);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if (!strcmp(tok, name))
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	set_defaults();
	for (int i = 1; i < argc; i++) {
		size_t used = strlen(cmdline);

		snprintf(cmdline + used, sizeof(cmdline) - used, "%s%s", used ? " " : "", argv[i]);
		parse_word(argv[i]);
	}
	peer_pin_cpu(0);
	peer_opts.tsc_hz = peer_tsc_calibrate();
	print_header();
	for (size_t i = 0; i < NWORKLOADS; i++)
		if (in_list(workloads[i].name))
			workloads[i].run();
	printf("MMLAB-DONE {\"passed\":%d,\"failed\":%d,\"skipped\":%d,\"status\":\"%s\"}\n",
	       peer_passed, peer_failed, peer_skipped,
	       peer_failed || !peer_passed ? "fail" : "pass");
	return peer_failed || !peer_passed ? 1 : 0;
}
