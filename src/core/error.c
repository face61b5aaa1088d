// SPDX-License-Identifier: GPL-2.0-only
/*
 * Names and texts of the error codes libnxsim returns, from one X-macro map
 * (libuv's UV_ERRNO_MAP idea), so nxsim_strerror(), nxsim_errname() and
 * nxsim_errno_parse() cannot disagree.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <nxsim/error.h>

#include "core/compiler.h"

/* X(code, name as the kernel spells it, description) */
#define NXSIM_ERRNO_MAP(X)                                                 \
	X(EPERM, "EPERM", "Operation not permitted")                       \
	X(ENOENT, "ENOENT", "No such file or directory")                   \
	X(ESRCH, "ESRCH", "No such process")                               \
	X(EIO, "EIO", "Input/output error")                                \
	X(ENXIO, "ENXIO", "No such device or address")                     \
	X(E2BIG, "E2BIG", "Argument list too long")                        \
	X(EBADF, "EBADF", "Bad file descriptor")                           \
	X(EAGAIN, "EAGAIN", "Resource temporarily unavailable")            \
	X(ENOMEM, "ENOMEM", "Cannot allocate memory")                      \
	X(EFAULT, "EFAULT", "Bad address")                                 \
	X(EBUSY, "EBUSY", "Device or resource busy")                       \
	X(EEXIST, "EEXIST", "File exists")                                 \
	X(ENODEV, "ENODEV", "No such device")                              \
	X(EINVAL, "EINVAL", "Invalid argument")                            \
	X(ENOSPC, "ENOSPC", "No space left on device")                     \
	X(EDOM, "EDOM", "Numerical argument out of domain")                \
	X(ERANGE, "ERANGE", "Numerical result out of range")               \
	X(ENOSYS, "ENOSYS", "Function not implemented")                    \
	X(EOVERFLOW, "EOVERFLOW", "Value too large for defined data type") \
	X(EOPNOTSUPP, "EOPNOTSUPP", "Operation not supported")             \
	X(ETIMEDOUT, "ETIMEDOUT", "Connection timed out")                  \
	X(NXSIM_ERESTARTNOINTR, "ERESTARTNOINTR",                          \
	  "Interrupted system call, restart")

struct errno_entry {
	int code;
	const char *name; /* "-EPERM" */
	const char *text; /* "-EPERM: Operation not permitted" */
};

#define ERRNO_ENTRY(e, n, d) { e, "-" n, "-" n ": " d },
static const struct errno_entry errno_table[] = { NXSIM_ERRNO_MAP(
	ERRNO_ENTRY) };
#undef ERRNO_ENTRY

static const struct errno_entry *lookup(int err)
{
	size_t i;

	if (err < 0)
		err = -err;
	for (i = 0; i < ARRAY_SIZE(errno_table); i++)
		if (errno_table[i].code == err)
			return &errno_table[i];
	return NULL;
}

const char *nxsim_strerror(int err)
{
	const struct errno_entry *e;

	if (err == 0)
		return "0: Success";
	e = lookup(err);
	return e ? e->text : "unknown error";
}

const char *nxsim_errname(int err)
{
	const struct errno_entry *e = lookup(err);

	return e ? e->name : NULL;
}

int nxsim_errno_parse(const char *name)
{
	size_t i;
	char *end;
	long v;

	if (!name || !*name)
		return 0;
	v = strtol(name, &end, 10);
	if (*end == '\0' && v < 0 && lookup((int)v))
		return (int)v;
	if (name[0] == '-')
		name++;
	for (i = 0; i < ARRAY_SIZE(errno_table); i++)
		if (!strcmp(errno_table[i].name + 1, name))
			return -errno_table[i].code;
	return 0;
}
