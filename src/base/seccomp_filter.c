/* A seccomp filter on one syscall (seccomp_filter.h), installed before exec. */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/seccomp_filter.h"


int tt_seccomp_install(long nr, uint32_t action, unsigned int flags)
{
#ifdef TT_AUDIT_ARCH
	/*
	 * What a real profile does: check the arch first (a foreign-arch call
	 * number means another syscall; it is not ours, so allow it), then the
	 * number. A filter that only reads arch and nr is emulated by the
	 * kernel (5.11+) into a per-nr "always allow" bitmap: allowed syscalls
	 * then skip the BPF run, and what remains is the seccomp entry work.
	 */
	struct sock_filter prog[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, TT_AUDIT_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)nr, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, action),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog fp = { .len = sizeof(prog) / sizeof(prog[0]), .filter = prog };

	/* Needed without CAP_SYS_ADMIN; harmless for tracetax-load (not setuid). */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &fp);
#else
	(void)nr; (void)action; (void)flags;
	errno = ENOSYS;
	return -1;
#endif
}
