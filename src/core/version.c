// SPDX-License-Identifier: GPL-2.0-only
/*
 * The library's version at run time, from the same macros as the headers
 * that built it (CMakeLists.txt checks that they match the project's
 * version).
 */
#include <nxsim/common.h>

#define NXSIM_STR_(x) #x
#define NXSIM_STR(x) NXSIM_STR_(x)

const char *nxsim_version(void)
{
	return NXSIM_STR(NXSIM_VERSION_MAJOR) "." NXSIM_STR(
		NXSIM_VERSION_MINOR) "." NXSIM_STR(NXSIM_VERSION_PATCH);
}
