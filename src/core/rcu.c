// SPDX-License-Identifier: GPL-2.0-only
/*
 * The object through which ThreadSanitizer builds see the grace period of
 * core/rcu.h (readers release it, RCU callbacks acquire it).  Models no
 * kernel code; other builds compile this file to nothing.
 */
#include "core/rcu.h"

#ifdef NXSIM__RCU_TSAN
char nxsim__rcu_domain;
#endif
