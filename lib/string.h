/*
 * The C string and memory functions mmlab uses. The kernel gets them from
 * lib/string.c under their standard names (gcc and clang may emit calls to
 * memcpy, memmove, memset and memcmp on their own); host builds take them
 * from libc instead, plus a local strlcpy where libc may lack one.
 */
#ifndef MMLAB_LIB_STRING_H
#define MMLAB_LIB_STRING_H

#include "types.h"

#ifdef HOST_BUILD

#include <string.h>

/*
 * glibc only has strlcpy from 2.38 on; a renamed copy avoids clashing with
 * the libc declaration where it does exist. Same contract as lib/string.c.
 */
static inline size_t mmlab_strlcpy(char *dst, const char *src, size_t size)
{
	size_t len = strlen(src);

	if (size > 0) {
		size_t n = len < size - 1 ? len : size - 1;

		memcpy(dst, src, n);
		dst[n] = '\0';
	}
	return len;
}
#define strlcpy mmlab_strlcpy

#else /* kernel */

void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
size_t strnlen(const char *s, size_t max);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strchr(const char *s, int c);
char *strrchr(const char *s, int c);
char *strstr(const char *haystack, const char *needle);
size_t strlcpy(char *dst, const char *src, size_t size);

#endif /* HOST_BUILD */

#endif
