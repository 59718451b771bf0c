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

#include "base/util.h"
#include "tracers/bpf/bpf_util.h"

#ifndef ENOTSUPP
#define ENOTSUPP 524	/* kernel-internal, yet BPF syscalls return it */
#endif

#define RING_BYTES_PER_EVENT 32	/* a 16-byte record + 8-byte header, rounded */
#define RING_MIN (256u << 10)
#define RING_MAX (256u << 20)
#define RING_ENV "TRACETAX_RINGBUF_BYTES"

/* libbpf logs the verifier's log, in one warning, between these lines. */
#define LOG_BEGIN "-- BEGIN PROG LOAD LOG --\n"
#define LOG_END "-- END PROG LOAD LOG --"
#define LOG_KEEP 2	/* the failing instruction and the verifier's complaint */

static char libbpf_msg[TT_REASON_MAX];
static char verifier_msg[TT_REASON_MAX];	/* "" unless the verifier spoke */
static int verifier_rc;				/* its verdict, when it did */

/*
 * A line of the verifier log that says something: not the statistics at
 * its end, not a source line, not a dump of register states.
 */
static int log_line_says(const char *l, size_t n)
{
	static const char *const noise[] = { "processed ", "verification time", "stack depth",
					     "; ", "from " };
	size_t d = strspn(l, "0123456789");

	if (!n)
		return 0;
	for (size_t i = 0; i < sizeof(noise) / sizeof(noise[0]); i++)
		if (!strncmp(l, noise[i], strlen(noise[i])))
			return 0;
	return !(d && d + 3 < n && l[d] == ':' && l[d + 1] == ' ' && l[d + 2] == 'R' &&
		 l[d + 3] >= '0' && l[d + 3] <= '9');
}

/*
 * Verifier complaints about what the kernel lacks, not about the program:
 * a helper unknown to it or not offered to this program type, a kfunc it
 * does not allow, an instruction newer than it.
 */
static const char *const kernel_lacks[] = {
	"unknown func ", "invalid func unknown#", "cannot use helper ",
	"calling kernel function ", "unknown opcode ",
};

int tt_bpf_verifier_says(const char *log, char *out, size_t len)
{
	const char *l = log, *end = strstr(log, LOG_END);
	const char *kept[LOG_KEEP], *st;
	int nkept[LOG_KEEP], k = 0;	/* k: lines that say something, kept mod LOG_KEEP */
	size_t used = 0;

	for (const char *next; l < (end ? end : l + strlen(l)); l = next) {
		int n = (int)strcspn(l, "\n");

		next = l + n + (l[n] == '\n');
		/* Instructions carry the registers' states after "  ; ": drop them. */
		st = memmem(l, (size_t)n, "  ; ", 4);
		if (st)
			n = (int)(st - l);
		while (n && l[n - 1] == ' ')
			n--;
		if (!log_line_says(l, (size_t)n))
			continue;
		kept[k % LOG_KEEP] = l;
		nkept[k++ % LOG_KEEP] = n;
	}
	out[0] = '\0';
	for (int i = k > LOG_KEEP ? k - LOG_KEEP : 0; i < k && used < len; i++)
		used += (size_t)snprintf(out + used, len - used, "%s%.*s", used ? " | " : "",
					 nkept[i % LOG_KEEP], kept[i % LOG_KEEP]);
	/* The verdict is the last line's, whatever room @out had. */
	for (size_t i = 0; k && i < sizeof(kernel_lacks) / sizeof(kernel_lacks[0]); i++)
		if (memmem(kept[(k - 1) % LOG_KEEP], (size_t)nkept[(k - 1) % LOG_KEEP],
			   kernel_lacks[i], strlen(kernel_lacks[i])))
			return TT_SKIP;
	return TT_FAIL;
}

/*
 * libbpf talks on stderr only with -v; its first warning explains a
 * failure, and a verifier log's last lines explain a rejection.
 */
static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char *text;
	size_t n;

	if (vasprintf(&text, fmt, ap) < 0)
		return 0;
	if (tt_verbose > (level == LIBBPF_DEBUG))
		fputs(text, stderr);
	if (level == LIBBPF_WARN && strstr(text, LOG_BEGIN)) {
		verifier_rc = tt_bpf_verifier_says(strstr(text, LOG_BEGIN) + strlen(LOG_BEGIN),
						   verifier_msg, sizeof(verifier_msg));
	} else if (level == LIBBPF_WARN && !libbpf_msg[0]) {
		snprintf(libbpf_msg, sizeof(libbpf_msg), "%s",
			 strncmp(text, "libbpf: ", 8) ? text : text + 8);
		n = strlen(libbpf_msg);
		while (n && libbpf_msg[n - 1] == '\n')
			libbpf_msg[--n] = '\0';
	}
	free(text);
	return 0;
}

void tt_bpf_capture(void)
{
	libbpf_set_print(libbpf_print);
	libbpf_msg[0] = '\0';
	verifier_msg[0] = '\0';
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

/*
 * EINVAL before the verifier ran: the kernel did not know the program
 * type or a map type, or it knew them and our request was wrong. libbpf's
 * probes tell which; @why gets what it lacks.
 */
static int lacks_type(const struct bpf_object *obj, const struct bpf_program *prog,
		      char *why, size_t len)
{
	const struct bpf_map *m;

	if (libbpf_probe_bpf_prog_type(bpf_program__type(prog), NULL) <= 0) {
		snprintf(why, len, "no BPF program type '%s' here",
			 libbpf_bpf_prog_type_str(bpf_program__type(prog)));
		return 1;
	}
	bpf_object__for_each_map(m, obj) {
		if (libbpf_probe_bpf_map_type(bpf_map__type(m), NULL) <= 0) {
			snprintf(why, len, "no BPF map type '%s' here",
				 libbpf_bpf_map_type_str(bpf_map__type(m)));
			return 1;
		}
	}
	return 0;
}

int tt_bpf_load_verdict(int e, const struct bpf_object *obj, const struct bpf_program *prog,
			const char *what, char *err, size_t len)
{
	char eb[96], why[128];

	debug("libbpf said: %s", libbpf_msg[0] ? libbpf_msg : "nothing");
	if (verifier_msg[0]) {
		snprintf(err, len, verifier_rc == TT_SKIP ? "kernel lacks what %s needs: %s"
			 : "verifier rejected %s: %s", what, verifier_msg);
		return verifier_rc;
	}
	tt_bpf_errstr(e, eb, sizeof(eb));
	if (e == EPERM || e == EACCES || e == ENOENT || e == EOPNOTSUPP || e == ENOTSUPP ||
	    e == E2BIG) {
		snprintf(err, len, "kernel refused to load %s: %s", what, eb);
		return TT_SKIP;
	}
	if (e == EINVAL && lacks_type(obj, prog, why, sizeof(why))) {
		snprintf(err, len, "kernel refused to load %s: %s: %s", what, eb, why);
		return TT_SKIP;
	}
	snprintf(err, len, "cannot load %s: %s%s%s", what, eb, libbpf_msg[0] ? ": " : "",
		 libbpf_msg);
	return TT_FAIL;
}

int tt_bpf_attach_verdict(int e)
{
	debug("libbpf said: %s", libbpf_msg[0] ? libbpf_msg : "nothing");
	if (e == EPERM || e == EACCES || e == ENOENT || e == ENODEV || e == EOPNOTSUPP ||
	    e == ENOTSUPP || e == EINVAL)
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
