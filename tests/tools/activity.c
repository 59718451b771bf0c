/*
 * tt-activity: src/activity.c from the command line, for
 * tests/integration/t_activity.sh and for measuring its cost.
 *
 *   tt-activity            one sample: "item: ..." lines, then "summary: ..."
 *   tt-activity -w         sample, print "ready", wait for a line on stdin,
 *                          sample again, print "diff: ..." ("diff: none")
 *   tt-activity -b N       N samples, print "us per sample: X (N items)"
 *   tt-activity -H ID      first hold an fd of BPF program ID (it is then ours)
 *   tt-activity -p PID     print "ptracer: P" of PID (0: none)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "base/activity.h"
#include "base/util.h"

static void print_sample(const struct activity *a)
{
	char sum[512];

	for (size_t i = 0; i < a->n; i++)
		printf("item: %s\n", a->items[i]);
	activity_summary(a, sum, sizeof(sum));
	printf("summary: %s\n", sum);
}

static int sample_or_die(struct activity *a)
{
	if (activity_sample(a) < 0) {
		fprintf(stderr, "tt-activity: cannot sample: %s\n", strerror(errno));
		exit(1);
	}
	return 0;
}

static void bench(long n)
{
	struct activity a;
	uint64_t t0 = now_ns();
	size_t items = 0;

	for (long i = 0; i < n; i++) {
		sample_or_die(&a);
		items = a.n;
		activity_release(&a);
	}
	printf("us per sample: %.1f (%zu items)\n", (double)(now_ns() - t0) / 1e3 / (double)n, items);
}

static void wait_and_diff(void)
{
	struct activity before, after;
	char diff[1024], line[64];

	sample_or_die(&before);
	printf("ready\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		exit(1);
	sample_or_die(&after);
	printf("diff: %s\n", activity_diff(&before, &after, diff, sizeof(diff)) ? diff : "none");
	activity_release(&before);
	activity_release(&after);
}

int main(int argc, char **argv)
{
	struct activity a;
	int opt, wait = 0;
	long n = 0;

	while ((opt = getopt(argc, argv, "wb:H:p:")) != -1) {
		switch (opt) {
		case 'w':
			wait = 1;
			break;
		case 'b':
			n = atol(optarg);
			break;
		case 'H':
			if (bpf_prog_get_fd_by_id((__u32)atol(optarg)) < 0) {
				fprintf(stderr, "tt-activity: cannot get program '%s': %s\n", optarg,
					strerror(errno));
				return 1;
			}
			break;
		case 'p':
			printf("ptracer: %d\n", (int)activity_ptracer(atoi(optarg), 0));
			return 0;
		default:
			fprintf(stderr, "usage: tt-activity [-w | -b N] [-H PROG_ID] [-p PID]\n");
			return 2;
		}
	}
	if (n > 0) {
		bench(n);
		return 0;
	}
	if (wait) {
		wait_and_diff();
		return 0;
	}
	sample_or_die(&a);
	print_sample(&a);
	activity_release(&a);
	return 0;
}
