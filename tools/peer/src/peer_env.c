/*
 * What of the Linux peer's configuration changes its unmap cost, for the
 * header: the CPU vulnerability mitigations in force (page-table
 * isolation doubles a flush), whether freed pages are zeroed
 * (init_on_free) and whether the memory cgroup controller is on (it
 * charges and uncharges every page). Each reader takes the path of the
 * file or folder it reads, so the tests can give it their own.
 */
#define _GNU_SOURCE
#include "peer.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* s with every '"', '\\' and control character made a space, in place. */
static void json_safe(char *s)
{
	for (; *s; s++)
		if (*s == '"' || *s == '\\' || (unsigned char)*s < 0x20)
			*s = ' ';
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * "name:status,..." for every file of dir (the vulnerabilities
 * folder), names in order, each status cut at its first ';' and at 48
 * characters ("meltdown:Mitigation: PTI,mds:Not affected,..."); "unknown"
 * without the folder.
 */
void peer_mitigations(const char *dir, char *out, size_t size)
{
	char *names[64], path[512], line[256];
	int n = 0;
	size_t used = 0;
	struct dirent *e;
	DIR *d = opendir(dir);

	snprintf(out, size, "unknown");
	if (!d)
		return;
	while ((e = readdir(d)) && n < 64)
		if (e->d_name[0] != '.')
			names[n++] = strdup(e->d_name);
	closedir(d);
	qsort(names, n, sizeof(names[0]), cmp_str);
	out[0] = '\0';
	for (int i = 0; i < n; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		f = fopen(path, "r");
		line[0] = '\0';
		if (f && !fgets(line, sizeof(line), f))
			line[0] = '\0';
		if (f)
			fclose(f);
		line[strcspn(line, ";\n")] = '\0';
		line[48] = '\0'; /* a status's first clause says enough */
		used += snprintf(out + used, used < size ? size - used : 0, "%s%s:%s",
				 used ? "," : "", names[i], line[0] ? line : "?");
		free(names[i]);
	}
	if (used >= size && size)
		out[size - 1] = '\0';
	json_safe(out);
}

/* 1 when the words of cmdline (the file) turn init_on_free on, else 0; -1 unreadable. */
int peer_init_on_free(const char *cmdline)
{
	char line[4096], *w, *save;
	int on = 0;
	FILE *f = fopen(cmdline, "r");

	if (!f)
		return -1;
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	fclose(f);
	for (w = strtok_r(line, " \n", &save); w; w = strtok_r(NULL, " \n", &save))
		if (!strncmp(w, "init_on_free=", 13))
			on = !strcmp(w + 13, "1") || !strcmp(w + 13, "on") || !strcmp(w + 13, "y");
	return on;
}

/* 1 when /proc/cgroups (the file) lists the memory controller enabled, 0 not, -1 unknown. */
int peer_memcg(const char *cgroups)
{
	char line[256], name[64];
	int hier, num, enabled, found = -1;
	FILE *f = fopen(cgroups, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %d %d %d", name, &hier, &num, &enabled) == 4 &&
		    !strcmp(name, "memory"))
			found = enabled != 0;
	fclose(f);
	return found;
}
