/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The reason of a failing call, for nxsim_error_detail(): the failure
 * point records it on the calling thread and returns the errno, so that
 * "return -EINVAL;" becomes "return nxsim__fail(-EINVAL, ...);".  Where
 * a call has an object or a @why argument, docs/api.md's other two ways
 * say more; this one serves the rest.
 */
#ifndef NXSIM_CORE_DETAIL_H
#define NXSIM_CORE_DETAIL_H

/**
 * nxsim__fail() - record why the current call fails
 * @err: the negative errno it returns
 * @fmt: printf format of the reason (cut at 255 bytes)
 *
 * Return: @err.
 */
int nxsim__fail(int err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* NXSIM_CORE_DETAIL_H */
