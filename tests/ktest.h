/*
 * ktest: the KTAP v1 unit-test harness shared by host and kernel builds
 * (docs/testing.md). A test case is void fn(struct ktest *t); cases are
 * grouped in a suite registered with KTEST_SUITE into the ktest_suites
 * section, from which ktest_run_all() runs them sorted by name. Output goes
 * through ktest_emit(), which each environment provides. Suites run one at
 * a time on one CPU; nothing here takes locks.
 */
#ifndef MMLAB_TESTS_KTEST_H
#define MMLAB_TESTS_KTEST_H

#include "compiler.h"
#include "kernel/design.h"
#include "types.h"

struct ktest_suite;

/* Per-case context, handed to the case and to its suite's init/exit hooks. */
struct ktest {
	const struct ktest_suite *suite;
	const char *name; /* the running case */
	bool failed;
	bool skipped;
	const char *skip_reason; /* must outlive the case (a literal) */
	void *priv;		 /* for the suite's init hook to pass state to the case */
	const void *param;	 /* the suite's param, or the design under test */
	const struct design *design; /* KTEST_SUITE_DESIGNS: the table entry under test */
};

struct ktest_case {
	const char *name;
	void (*fn)(struct ktest *t);
};

struct ktest_suite {
	const char *name;
	const struct ktest_case *cases;
	size_t ncases;
	int (*init)(struct ktest *t);  /* optional, before each case; nonzero fails it */
	void (*exit)(struct ktest *t); /* optional, after each case that init let run */
	const void *param;	       /* optional, e.g. the variant's ops under test */
	/* Optional: run once per (non-control) entry, as <name>_<design> (KTEST_SUITE_DESIGNS). */
	const struct design *const *designs;
};

struct ktest_totals {
	unsigned passed, failed, skipped; /* test cases */
	unsigned suites;		  /* suites that matched the filter and ran */
};

#define KTEST_CASE(fn) { #fn, fn }

/*
 * KTEST_SUITE_EXT(name, cases, init, exit, param) registers a suite with
 * hooks and a parameter, so one case array can run once per variant:
 *   KTEST_SUITE_EXT(pin, pin_cases, pin_suite_init, pin_suite_exit, NULL);
 * The section name is a C identifier, so the host linker provides
 * __start_ktest_suites/__stop_ktest_suites; linker.ld defines them too.
 */
#define KTEST_SUITE_EXT(sname, case_array, init_fn, exit_fn, param_ptr)                            \
	static const struct ktest_suite ktest_suite_##sname __used __section("ktest_suites")       \
		__aligned(8) = {                                                                   \
			#sname, case_array, ARRAY_SIZE(case_array), init_fn, exit_fn, param_ptr,  \
			NULL,                                                                      \
		}
#define KTEST_SUITE(sname, case_array) KTEST_SUITE_EXT(sname, case_array, NULL, NULL, NULL)

/*
 * KTEST_SUITE_DESIGNS(name, cases, init, exit, table) runs the cases once
 * per entry of a mechanism's design table (kernel/design.h), in table
 * order, each run a suite of its own named name_<design> ("tlb_naive");
 * controls (design.control) are left out, they break invariants on
 * purpose. ktest_design(t) is the entry under test; a design added to the
 * table is tested with no test file touched.
 */
#define KTEST_SUITE_DESIGNS(sname, case_array, init_fn, exit_fn, table)                            \
	static const struct ktest_suite ktest_suite_##sname __used __section("ktest_suites")       \
		__aligned(8) = {                                                                   \
			#sname, case_array, ARRAY_SIZE(case_array), init_fn, exit_fn, NULL, table, \
		}

/* The param of the suite running @t (NULL when it has none), or its design. */
#define ktest_param(t) ((t)->param)
/* The design under test (KTEST_SUITE_DESIGNS), else NULL. */
#define ktest_design(t) ((t)->design)

static inline bool ktest_on_host(void)
{
#ifdef HOST_BUILD
	return true;
#else
	return false;
#endif
}

/* Provided by the environment: the host runner writes to stdout, the kernel to its console. */
void ktest_emit(const char *s, size_t n);

void ktest_run_all(const char *filter, struct ktest_totals *tot);

#define KTEST_NAMES_MAX 95 /* characters in ktest= */
/* ktest=SUITE,...: the suites mode=selftest runs, "" every one (tests/ktest_mode.c). */
extern char ktest_filter[KTEST_NAMES_MAX + 1];
void ktest_set_lava(bool on);
void ktest_skip(struct ktest *t, const char *reason);
bool ktest_need_second_cpu(struct ktest *t);
void ktest_log(struct ktest *t, const char *fmt, ...) __printf(2, 3);

/* Helpers behind the macros below; call the macros instead. */
enum ktest_op { KTEST_EQ, KTEST_NE, KTEST_LT, KTEST_LE, KTEST_GT, KTEST_GE };

/* One operand of an integer comparison, as the macros capture it. */
struct ktest_int {
	u64 raw;	  /* the value converted to u64 */
	bool is_signed;	  /* raw holds a two's-complement signed value */
	const char *text; /* the operand's source text */
};

bool ktest_check(struct ktest *t, bool ok, const char *file, int line, const char *expr);
bool ktest_check_int(struct ktest *t, enum ktest_op op, struct ktest_int a, struct ktest_int b,
		     const char *file, int line);
bool ktest_check_str(struct ktest *t, const char *a, const char *b, const char *a_text,
		     const char *b_text, const char *file, int line);

/*
 * Integer comparisons are mathematical, whatever the operands' types: a
 * negative int is less than any unsigned value, so KEXPECT_LT(t, -1, 1u)
 * holds (plain C would say otherwise). Pointers compare as addresses, so
 * KEXPECT_EQ(t, p, NULL) works. Each operand is evaluated once.
 */
#ifdef __CHAR_UNSIGNED__
#define KTEST_CHAR_SIGNED 0
#else
#define KTEST_CHAR_SIGNED 1
#endif
#define KTEST_SIGNED(x)                                                                            \
	_Generic((x), char: KTEST_CHAR_SIGNED, signed char: 1, short: 1, int: 1, long: 1,          \
		 long long: 1, default: 0)
#define KTEST_INT(x, text) ((struct ktest_int){ (u64)(x), KTEST_SIGNED(x), (text) })
#define KTEST_CMP(t, op, a, b, a_text, b_text)                                                     \
	ktest_check_int((t), (op), KTEST_INT(a, a_text), KTEST_INT(b, b_text), __FILE__, __LINE__)

/* KEXPECT*: record a failure and carry on. Each returns whether it held. */
#define KEXPECT(t, cond) ktest_check((t), !!(cond), __FILE__, __LINE__, #cond)
#define KEXPECT_EQ(t, a, b) KTEST_CMP(t, KTEST_EQ, a, b, #a, #b)
#define KEXPECT_NE(t, a, b) KTEST_CMP(t, KTEST_NE, a, b, #a, #b)
#define KEXPECT_LT(t, a, b) KTEST_CMP(t, KTEST_LT, a, b, #a, #b)
#define KEXPECT_LE(t, a, b) KTEST_CMP(t, KTEST_LE, a, b, #a, #b)
#define KEXPECT_GT(t, a, b) KTEST_CMP(t, KTEST_GT, a, b, #a, #b)
#define KEXPECT_GE(t, a, b) KTEST_CMP(t, KTEST_GE, a, b, #a, #b)
#define KEXPECT_STREQ(t, a, b) ktest_check_str((t), (a), (b), #a, #b, __FILE__, __LINE__)

/*
 * KASSERT*: as KEXPECT*, but a failure also returns from the (void) test
 * case. They stringize their own arguments, so messages show the source
 * text (-EINVAL, not -22).
 */
#define KTEST_OR_RETURN(check)                                                                     \
	do {                                                                                       \
		if (!(check))                                                                      \
			return;                                                                    \
	} while (0)
#define KASSERT(t, cond) KTEST_OR_RETURN(ktest_check((t), !!(cond), __FILE__, __LINE__, #cond))
#define KASSERT_EQ(t, a, b) KTEST_OR_RETURN(KTEST_CMP(t, KTEST_EQ, a, b, #a, #b))
#define KASSERT_NE(t, a, b) KTEST_OR_RETURN(KTEST_CMP(t, KTEST_NE, a, b, #a, #b))
#define KASSERT_LT(t, a, b) KTEST_OR_RETURN(KTEST_CMP(t, KTEST_LT, a, b, #a, #b))
#define KASSERT_LE(t, a, b) KTEST_OR_RETURN(KTEST_CMP(t, KTEST_LE, a, b, #a, #b))
#define KASSERT_GT(t, a, b) KTEST_OR_RETURN(KTEST_CMP(t, KTEST_GT, a, b, #a, #b))
#define KASSERT_GE(t, a, b) KTEST_OR_RETURN(KTEST_CMP(t, KTEST_GE, a, b, #a, #b))
#define KASSERT_STREQ(t, a, b)                                                                     \
	KTEST_OR_RETURN(ktest_check_str((t), (a), (b), #a, #b, __FILE__, __LINE__))

#endif
