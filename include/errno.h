/*
 * Error codes returned (negated) by mmlab functions, as Linux does: 0 or a
 * positive value is success, -E... is failure. Values follow Linux's numbering
 * so a reader recognises them.
 */
#ifndef MMLAB_ERRNO_H
#define MMLAB_ERRNO_H

#define EPERM 1
#define ENOENT 2
#define EIO 5
#define E2BIG 7
#define EAGAIN 11
#define ENOMEM 12
#define EFAULT 14
#define EBUSY 16
#define EEXIST 17
#define EINVAL 22
#define ENOSPC 28
#define ERANGE 34
#define ENOSYS 38
#define EOVERFLOW 75
#define ETIMEDOUT 110

/* Returns a constant name such as "EINVAL" for -EINVAL or EINVAL. */
const char *errno_name(int err);

#endif
