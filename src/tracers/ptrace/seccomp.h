/* The seccomp filter shared by seccomp:filter, seccomp:notify and ptrace:seccomp. */
#ifndef TRACETAX_TRACERS_SECCOMP_H
#define TRACETAX_TRACERS_SECCOMP_H

#include <stddef.h>
#include <stdint.h>

#include "base/seccomp_filter.h"

/*
 * TT_OK when the kernel offers seccomp action @avail_name (as spelled in
 * kernel.seccomp.actions_avail) and a child can install such a filter with
 * @flags; else TT_SKIP and the reason.
 */
int tt_seccomp_supported(const char *avail_name, uint32_t action, unsigned int flags,
			 char *reason, size_t len);

#endif
