/*
 * Timing Linux's own functions with ftrace's function_graph tracer (tracefs
 * at /sys/kernel/tracing, mounted by init.sh): one function at a time in
 * set_ftrace_filter, this process only, tracing on around the timed calls.
 * trace_pipe's durations are summed per function (calls and nanoseconds).
 * One thread only; peer_ftrace_stop() leaves the tracer as found (nop).
 */
#define _GNU_SOURCE
#include "peer.h"

#include <ctype.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FTRACE_DIR "/sys/kernel/tracing"
#define FTRACE_BUFFER_KB "4096" /* per CPU: a 512-page naive run writes ~60 KB */

static int ftrace_on_fd = -1; /* tracing_on, kept open: toggled around each timed run */
static int ftrace_failed;     /* an on or off failed since the last collect */

/* Write text to the tracefs file name; 0 or -1. */
static int ftrace_write(const char *name, const char *text)
{
	char path[128];
	int fd, ok;

	snprintf(path, sizeof(path), FTRACE_DIR "/%s", name);
	fd = open(path, O_WRONLY | O_TRUNC);
	if (fd < 0)
		return -1;
	ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	close(fd);
	return ok ? 0 : -1;
}

/* The first line of the tracefs file name into out (no newline); 0 or -1. */
static int ftrace_read_line(const char *name, char *out, size_t size)
{
	char path[128];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), FTRACE_DIR "/%s", name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	ok = fgets(out, (int)size, f) != NULL;
	fclose(f);
	out[strcspn(out, "\n")] = '\0';
	return ok ? 0 : -1;
}

/*
 * Whether this kernel can time functions here: NULL, or why not (no
 * tracefs, no function_graph tracer, or another tracer already in use).
 */
const char *peer_ftrace_usable(void)
{
	static char why[160];
	char line[128];

	if (ftrace_read_line("current_tracer", line, sizeof(line)))
		return "no " FTRACE_DIR "/current_tracer (tracefs not mounted?)";
	if (strcmp(line, "nop")) {
		snprintf(why, sizeof(why), "the tracer '%s' is in use", line);
		return why;
	}
	if (!peer_ftrace_traceable("function_graph", FTRACE_DIR "/available_tracers"))
		return "no function_graph in available_tracers";
	return NULL;
}

/*
 * Whether name is a word of the file at path: available_filter_functions
 * (one function a line, a module's with " [module]" after it) or
 * available_tracers (one line of names). 1 or 0 (0 too when unreadable).
 */
int peer_ftrace_traceable(const char *name, const char *path)
{
	char line[512], *tok, *save;
	FILE *f = fopen(path, "r");
	int found = 0;

	while (f && !found && fgets(line, sizeof(line), f))
		for (tok = strtok_r(line, " \t\n", &save); tok && !found;
		     tok = strtok_r(NULL, " \t\n", &save))
			found = !strcmp(tok, name);
	if (f)
		fclose(f);
	return found;
}

/* 1 when fn can be traced here (available_filter_functions lists it), else 0. */
int peer_ftrace_function_ok(const char *fn)
{
	return peer_ftrace_traceable(fn, FTRACE_DIR "/available_filter_functions");
}

/*
 * Trace fn alone, in this process only, with tracing off until
 * peer_ftrace_on(): function_graph with closing braces that name their
 * function (funcgraph-tail). 0, or -1 (then tracing is reset).
 */
int peer_ftrace_start(const char *fn)
{
	char pid[24];

	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	if (ftrace_write("tracing_on", "0") || ftrace_write("current_tracer", "nop") ||
	    ftrace_write("buffer_size_kb", FTRACE_BUFFER_KB) ||
	    ftrace_write("set_ftrace_filter", fn) || ftrace_write("set_ftrace_pid", pid) ||
	    ftrace_write("options/funcgraph-tail", "1") ||
	    ftrace_write("current_tracer", "function_graph") || ftrace_write("trace", "")) {
		peer_ftrace_stop();
		return -1;
	}
	if (ftrace_on_fd < 0)
		ftrace_on_fd = open(FTRACE_DIR "/tracing_on", O_WRONLY);
	return ftrace_on_fd < 0 ? -1 : 0;
}

/*
 * Start recording (after peer_ftrace_start()). The buffer is not reset
 * here: a reset waits for an RCU grace period, and the reads of
 * peer_ftrace_collect() consume what they read anyway.
 */
void peer_ftrace_on(void)
{
	if (write(ftrace_on_fd, "1", 1) != 1)
		ftrace_failed = 1;
}

/* Stop recording; the buffer keeps what was recorded until it is collected. */
void peer_ftrace_off(void)
{
	if (write(ftrace_on_fd, "0", 1) != 1)
		ftrace_failed = 1;
}

/* Back to the nop tracer with no filter and no pid: as init.sh found it. */
void peer_ftrace_stop(void)
{
	ftrace_write("tracing_on", "0");
	ftrace_write("current_tracer", "nop");
	ftrace_write("set_ftrace_filter", "");
	ftrace_write("set_ftrace_pid", "");
	ftrace_write("trace", "");
	if (ftrace_on_fd >= 0)
		close(ftrace_on_fd);
	ftrace_on_fd = -1;
}

/* The duration before " us" left of bar (the function field's '|'), in ns; -1 if none. */
static double ftrace_duration_ns(const char *line, const char *bar)
{
	const char *us = NULL, *p;

	for (p = line; p + 3 <= bar; p++)
		if (!strncmp(p, " us", 3))
			us = p;
	if (!us)
		return -1;
	for (p = us; p > line && (isdigit((unsigned char)p[-1]) || p[-1] == '.'); p--)
		;
	return p == us ? -1 : strtod(p, NULL) * 1000.0;
}

/*
 * One line of function_graph's trace: 1 when it ends a call, with the
 * function's name in fn and the call's duration in *ns; else 0. A call
 * ends on a leaf line, "name();" with its duration, or on a closing
 * brace with its duration, which funcgraph-tail follows with the name in
 * a C comment; the duration may carry a mark (+ ! # * @ $) before it.
 */
int peer_ftrace_parse_line(const char *line, char *fn, size_t size, double *ns)
{
	const char *bar = strrchr(line, '|'), *name, *end;

	if (!bar || line[0] == '#')
		return 0;
	*ns = ftrace_duration_ns(line, bar);
	name = bar + 1 + strspn(bar + 1, " ");
	if (*ns < 0)
		return 0;
	if (!strncmp(name, "} /* ", 5)) {
		name += 5;
		end = strstr(name, " */");
	} else {
		end = strstr(name, "();");
	}
	if (!end || end == name || (size_t)(end - name) >= size)
		return 0;
	memcpy(fn, name, end - name);
	fn[end - name] = '\0';
	return 1;
}

/*
 * Add the calls of a function_graph trace (text, as the trace file
 * reads) to sums[0..n), each matched by its function's name; calls of
 * other functions are left out. Returns the events the trace says it
 * lost ("CPU:N [LOST M EVENTS]"; an unknown count counts 1).
 */
long peer_ftrace_sum_file(FILE *f, struct peer_ftrace_sum *sums, int n)
{
	char line[512], fn[128];
	long lost = 0;
	double ns;

	while (fgets(line, sizeof(line), f)) {
		const char *l = strstr(line, "[LOST");

		if (l) {
			lost += strtol(l + 5, NULL, 10) > 0 ? strtol(l + 5, NULL, 10) : 1;
			continue;
		}
		if (!peer_ftrace_parse_line(line, fn, sizeof(fn), &ns))
			continue;
		for (int i = 0; i < n; i++) {
			if (!strcmp(sums[i].fn, fn)) {
				sums[i].calls++;
				sums[i].ns += ns;
			}
		}
	}
	return lost;
}

/*
 * Consume what the buffer holds (tracing off) through trace_pipe and add
 * it to sums[0..n) (n = 0: throw it away). The events the trace lost, or
 * -1 when it could not be read or tracing could not be turned on or off
 * since the last collect.
 */
long peer_ftrace_collect(struct peer_ftrace_sum *sums, int n)
{
	int fd = open(FTRACE_DIR "/trace_pipe", O_RDONLY | O_NONBLOCK);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "r");
	long lost;

	if (!f) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	/* Non-blocking: the reads end with EAGAIN once the buffer is empty. */
	lost = peer_ftrace_sum_file(f, sums, n);
	fclose(f);
	lost = ftrace_failed ? -1 : lost;
	ftrace_failed = 0;
	return lost;
}
