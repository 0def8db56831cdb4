/*
 * Names for the error codes in include/errno.h, for messages and test
 * diagnostics. A constant table: any context.
 */
#include "errno.h"
#include "compiler.h"

static const char *const errno_names[] = {
	[EPERM] = "EPERM",
	[ENOENT] = "ENOENT",
	[EIO] = "EIO",
	[E2BIG] = "E2BIG",
	[EAGAIN] = "EAGAIN",
	[ENOMEM] = "ENOMEM",
	[EFAULT] = "EFAULT",
	[EBUSY] = "EBUSY",
	[EEXIST] = "EEXIST",
	[EINVAL] = "EINVAL",
	[ENOSPC] = "ENOSPC",
	[ERANGE] = "ERANGE",
	[ENOSYS] = "ENOSYS",
	[EOVERFLOW] = "EOVERFLOW",
	[ETIMEDOUT] = "ETIMEDOUT",
};

/**
 * errno_name - the symbolic name of an error code
 * @err: a code as returned (-EINVAL) or as defined (EINVAL)
 *
 * Returns a constant string: "EINVAL" for -EINVAL or EINVAL, "0" for 0 and
 * "EUNKNOWN" for a code include/errno.h does not define. Any context.
 */
const char *errno_name(int err)
{
	unsigned int e = err < 0 ? -(unsigned int)err : (unsigned int)err;

	if (e == 0)
		return "0";
	if (e < ARRAY_SIZE(errno_names) && errno_names[e])
		return errno_names[e];
	return "EUNKNOWN";
}
