/*
 * Telling a multiboot1 loader's image path from the kernel's first word
 * (see mb1_cmdline.h for the loaders' conventions). Called once by
 * bootinfo_parse() on the boot CPU, and by host tests.
 */
#include "boot/mb1_cmdline.h"

static bool is_space(char c)
{
	return c == ' ' || c == '\t';
}

static bool is_key_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

/* Whether the @n bytes at @w look like "key=...": one or more key characters, then '='. */
static bool is_key_value(const char *w, size_t n)
{
	size_t i = 0;

	while (i < n && is_key_char(w[i]))
		i++;
	return i > 0 && i < n && w[i] == '=';
}

static bool is_path(const char *w, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (w[i] == '/' || w[i] == '.')
			return true;
	}
	return false;
}

static const char *skip_spaces(const char *s)
{
	while (is_space(*s))
		s++;
	return s;
}

const char *mb1_cmdline_args(const char *raw, const char **image, size_t *image_len)
{
	const char *w = skip_spaces(raw);
	size_t n = 0;

	*image = NULL;
	*image_len = 0;
	while (w[n] && !is_space(w[n]))
		n++;
	if (n == 0 || is_key_value(w, n) || !is_path(w, n))
		return w;
	*image = w;
	*image_len = n;
	return skip_spaces(w + n);
}
