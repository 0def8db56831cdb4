/*
 * Tests for boot/mb1_cmdline.c: the first word of a multiboot1 command
 * line under each loader's convention (GRUB 2's multiboot command: only
 * the arguments; QEMU -kernel: the path as given; iPXE: the image name),
 * and that the words left over parse to what grub.cfg or -append said.
 * Pure string work: the same cases run on the host and in the kernel.
 */
#include "boot/mb1_cmdline.h"
#include "kernel/cmdline.h"
#include "lib/string.h"
#include "tests/ktest.h"


/* Splits @raw; checks the kernel words and the dropped image word (NULL: none). */
static void expect_split(struct ktest *t, const char *raw, const char *args, const char *image)
{
	const char *img;
	size_t len;
	const char *got = mb1_cmdline_args(raw, &img, &len);
	bool ok = KEXPECT_STREQ(t, got, args);

	if (image) {
		ok &= KEXPECT(t, img != NULL);
		ok &= img && KEXPECT_EQ(t, len, strlen(image));
		ok &= img && KEXPECT(t, memcmp(img, image, len) == 0);
	} else {
		ok &= KEXPECT(t, img == NULL);
		ok &= KEXPECT_EQ(t, len, 0u);
	}
	if (!ok)
		ktest_log(t, "for \"%s\"", raw);
}

/* The mode= word the arguments select, "error" when they do not parse. */
static const char *mode_of(const char *raw)
{
	struct options o;
	char err[128];
	const char *img;
	size_t len;

	options_set_defaults(&o);
	if (cmdline_parse(mb1_cmdline_args(raw, &img, &len), &o, err, sizeof(err)))
		return "error";
	return o.mode;
}

/* GRUB 2's "multiboot /boot/mmlab.elf mode=selftest" hands over "mode=selftest". */
static void test_mb1_cmdline_grub_args_only(struct ktest *t)
{
	expect_split(t, "mode=selftest", "mode=selftest", NULL);
	expect_split(t, "mode=selftest ktest=boot,smp", "mode=selftest ktest=boot,smp", NULL);
	expect_split(t, "", "", NULL);
	/* Values may hold '.' and '/': the word is still key=value. */
	expect_split(t, "console=io:0x2f8 x=a/b.c", "console=io:0x2f8 x=a/b.c", NULL);
	KEXPECT_STREQ(t, mode_of("mode=selftest"), "selftest");
}

/* QEMU -kernel: "<path as given> <-append>", the path absolute or relative. */
static void test_mb1_cmdline_qemu_path_first(struct ktest *t)
{
	expect_split(t, "/work/build/mmlab.elf mode=selftest", "mode=selftest",
		     "/work/build/mmlab.elf");
	expect_split(t, "build/mmlab.elf mode=selftest ktest=boot", "mode=selftest ktest=boot",
		     "build/mmlab.elf");
	/* An empty -append leaves the path alone, with or without a trailing space. */
	expect_split(t, "build/mmlab.elf", "", "build/mmlab.elf");
	expect_split(t, "build/mmlab.elf ", "", "build/mmlab.elf");
	/* A directory name with '=' is still a path: its key part has a '/'. */
	expect_split(t, "/srv/a=b/mmlab.elf mode=bench", "mode=bench", "/srv/a=b/mmlab.elf");
	KEXPECT_STREQ(t, mode_of("/work/build/mmlab.elf mode=selftest"), "selftest");
}

/* iPXE: the image's name, then its arguments. */
static void test_mb1_cmdline_ipxe_name_first(struct ktest *t)
{
	expect_split(t, "mmlab.elf mode=selftest", "mode=selftest", "mmlab.elf");
	expect_split(t, "mmlab.elf   mode=selftest", "mode=selftest", "mmlab.elf");
	expect_split(t, "http://10.0.2.2/mmlab.elf mode=bench", "mode=bench",
		     "http://10.0.2.2/mmlab.elf");
	KEXPECT_STREQ(t, mode_of("mmlab.elf mode=selftest"), "selftest");
}

/* A first word that is neither key=value nor a path is kept, so the parser names it. */
static void test_mb1_cmdline_typo_kept(struct ktest *t)
{
	expect_split(t, "mode selftest", "mode selftest", NULL);
	expect_split(t, "=x mode=bench", "=x mode=bench", NULL);
	expect_split(t, "  mode=bench", "mode=bench", NULL);
	KEXPECT_STREQ(t, mode_of("mode selftest"), "error");
}

static const struct ktest_case mb1_cmdline_cases[] = {
	KTEST_CASE(test_mb1_cmdline_grub_args_only),
	KTEST_CASE(test_mb1_cmdline_qemu_path_first),
	KTEST_CASE(test_mb1_cmdline_ipxe_name_first),
	KTEST_CASE(test_mb1_cmdline_typo_kept),
};

KTEST_SUITE(mb1_cmdline, mb1_cmdline_cases);
