/* libbpf and kernel helpers of the BPF tracers: see bpf_util.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>

#include <bpf/libbpf.h>

#include "../util.h"
#include "bpf_util.h"

#ifndef ENOTSUPP
#define ENOTSUPP 524	/* kernel-internal, yet BPF syscalls return it */
#endif

#define RING_BYTES_PER_EVENT 32	/* a 16-byte record + 8-byte header, rounded */
#define RING_MIN (256u << 10)
#define RING_MAX (256u << 20)
#define RING_ENV "TRACETAX_RINGBUF_BYTES"

static char libbpf_msg[TT_REASON_MAX];

/* libbpf talks on stderr only with -v; its first warning explains a failure. */
static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	va_list aq;
	size_t n;

	if (tt_verbose > (level == LIBBPF_DEBUG)) {
		va_copy(aq, ap);
		vfprintf(stderr, fmt, aq);
		va_end(aq);
	}
	if (level != LIBBPF_WARN || libbpf_msg[0])
		return 0;
	vsnprintf(libbpf_msg, sizeof(libbpf_msg), fmt, ap);
	if (!strncmp(libbpf_msg, "libbpf: ", 8))
		memmove(libbpf_msg, libbpf_msg + 8, strlen(libbpf_msg + 8) + 1);
	n = strlen(libbpf_msg);
	while (n && libbpf_msg[n - 1] == '\n')
		libbpf_msg[--n] = '\0';
	return 0;
}

void tt_bpf_capture(void)
{
	libbpf_set_print(libbpf_print);
	libbpf_msg[0] = '\0';
}

const char *tt_bpf_libbpf_msg(void)
{
	return libbpf_msg;
}

const char *tt_bpf_errstr(int e, char *buf, size_t len)
{
	const char *name = e == ENOTSUPP ? "ENOTSUPP" : strerrorname_np(e);

	snprintf(buf, len, "%s (%s)", e == ENOTSUPP ? "Operation not supported" : strerror(e),
		 name ? name : "?");
	return buf;
}

int tt_bpf_refused(int e)
{
	debug("libbpf said: %s", libbpf_msg[0] ? libbpf_msg : "nothing");
	if (e == EPERM || e == EINVAL || e == ENOTSUPP || e == EOPNOTSUPP || e == ENOENT)
		return TT_SKIP;
	return TT_FAIL;
}

int tt_bpf_caps_ok(char *reason, size_t len)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

#define HAS(c) (d[CAP_TO_INDEX(c)].effective & CAP_TO_MASK(c))
	if (syscall(SYS_capget, &hdr, d)) {
		snprintf(reason, len, "cannot read capabilities: %s", strerror(errno));
		return 0;
	}
	if (HAS(CAP_SYS_ADMIN) || (HAS(CAP_BPF) && HAS(CAP_PERFMON)))
		return 1;
	snprintf(reason, len, "needs root, or CAP_BPF and CAP_PERFMON");
	return 0;
#undef HAS
}

int tt_bpf_percpu_sum(struct bpf_map *map, uint64_t *buf, int ncpus, int64_t *sum)
{
	uint32_t key = 0;

	if (bpf_map__lookup_elem(map, &key, sizeof(key), buf, (size_t)ncpus * sizeof(*buf), 0))
		return -1;
	*sum = 0;
	for (int i = 0; i < ncpus; i++)
		*sum += (int64_t)buf[i];
	return 0;
}

int tt_bpf_percpu_zero(struct bpf_map *map, uint64_t *buf, int ncpus)
{
	uint32_t key = 0;

	memset(buf, 0, (size_t)ncpus * sizeof(*buf));
	return bpf_map__update_elem(map, &key, sizeof(key), buf, (size_t)ncpus * sizeof(*buf),
				    BPF_ANY);
}

/* Per-thread counts: sum them (the hits), or with @clear, delete them. */
int tt_bpf_tid_counts(struct bpf_map *map, int clear, int64_t *sum)
{
	uint32_t key = 0, next;
	uint64_t v;
	int n = 0;

	*sum = 0;
	/* After a delete the walk restarts: the deleted key has no successor. */
	while (!bpf_map__get_next_key(map, clear || !n ? NULL : &key, &next, sizeof(next))) {
		if (clear && bpf_map__delete_elem(map, &next, sizeof(next), 0))
			return -1;
		if (!clear && bpf_map__lookup_elem(map, &next, sizeof(next), &v, sizeof(v), 0))
			return -1;
		*sum += clear ? 0 : (int64_t)v;
		key = next;
		n++;
	}
	return errno == ENOENT ? 0 : -1;
}

static uint32_t pow2_at_least(uint64_t v)
{
	uint64_t p = 4096;	/* a ringbuf is a power-of-2 number of pages */

	while (p < v && p < RING_MAX)
		p <<= 1;
	return (uint32_t)p;
}

/* Big enough that a normal run loses nothing even if the reader lags. */
int tt_bpf_ring_size(int64_t events_hint, uint32_t *out, char *err, size_t len)
{
	const char *env = getenv(RING_ENV);
	uint64_t want = events_hint > 0 ? (uint64_t)events_hint * RING_BYTES_PER_EVENT : 0;
	int64_t v;

	if (env) {
		/* Tests make it tiny to prove that lost records are counted. */
		if (parse_i64(env, 1, RING_MAX, &v)) {
			snprintf(err, len, "invalid %s '%s' (1..%u)", RING_ENV, env, RING_MAX);
			return -1;
		}
		*out = pow2_at_least((uint64_t)v);
		return 0;
	}
	*out = pow2_at_least(want < RING_MIN ? RING_MIN : want);
	return 0;
}

int tt_bpf_memo(const char *key, struct tt_bpf_memo **out)
{
	static struct tt_bpf_memo memo[16];
	static unsigned used;

	for (unsigned i = 0; i < used; i++) {
		if (!strcmp(memo[i].key, key)) {
			*out = &memo[i];
			return 1;
		}
	}
	/* Full (never, with 7 syscalls): recycle the oldest slot. */
	*out = &memo[used < 16 ? used++ : 0];
	snprintf((*out)->key, sizeof((*out)->key), "%s", key);
	return 0;
}
