/*
 * Our auditd, for audit:rule and audit:rules: its configuration in our
 * working directory, and the load's records in its log. Apart from the
 * tracers (audit.c), which start it and read it through these two.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/signals.h"
#include "base/util.h"
#include "tracers/audit/auditd.h"

/*
 * How long the count waits for the log to grow while the records of a run
 * reach it: auditd flushing SYNC on a busy disk writes a few dozen a
 * second at times, so what counts is progress; and at most, in all.
 */
#define AUDIT_DRAIN_MS 60000
#define AUDIT_DRAIN_MAX_MS 600000

int auditd_conf_write(const char *dir, const char *log, const char *flush, char *err, size_t len)
{
	char path[PATH_MAX + 16], plugins[PATH_MAX + 16];
	FILE *f;

	snprintf(plugins, sizeof(plugins), "%s/plugins", dir);
	snprintf(path, sizeof(path), "%s/auditd.conf", dir);
	if (mkdir(plugins, 0700) || !(f = fopen(path, "w"))) {
		snprintf(err, len, "cannot write '%s': %s", path, strerror(errno));
		return -1;
	}
	fchmod(fileno(f), 0600);
	fprintf(f, "local_events = yes\nwrite_logs = yes\nlog_file = %s\nlog_group = root\n"
		"log_format = RAW\nflush = %s\nfreq = 50\nmax_log_file = 0\n"
		"num_logs = 1\npriority_boost = 4\nname_format = NONE\n"
		"max_log_file_action = IGNORE\nspace_left = 2\nspace_left_action = IGNORE\n"
		"verify_email = no\naction_mail_acct = root\nadmin_space_left = 1\n"
		"admin_space_left_action = IGNORE\ndisk_full_action = IGNORE\n"
		"disk_error_action = IGNORE\nuse_libwrap = no\ntcp_listen_queue = 5\n"
		"tcp_max_per_addr = 1\ntcp_client_max_idle = 0\ntransport = TCP\n"
		"distribute_network = no\nq_depth = 2000\noverflow_action = SYSLOG\n"
		"max_restarts = 10\nplugin_dir = %s\nend_of_event_timeout = 2\n", log, flush, plugins);
	if (fclose(f)) {
		snprintf(err, len, "cannot write '%s': %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

int64_t auditd_log_count(const char *log, off_t off, const char *key, unsigned seq, pid_t pid,
			 char *err, size_t len)
{
	char marker[64], pidw[32], keyw[48], line[16384];
	uint64_t until = now_ns() + (uint64_t)AUDIT_DRAIN_MS * 1000000;
	uint64_t end = now_ns() + (uint64_t)AUDIT_DRAIN_MAX_MS * 1000000;
	off_t size = -1;

	snprintf(marker, sizeof(marker), "tracetax-mark=%s-%u", key, seq);
	snprintf(pidw, sizeof(pidw), " pid=%d ", (int)pid);
	snprintf(keyw, sizeof(keyw), "key=\"%s\"", key);
	for (;;) {
		FILE *f = fopen(log, "r");
		int64_t n = 0;
		int seen = 0;
		struct stat sb;

		if (!stat(log, &sb) && sb.st_size != size) {
			size = sb.st_size;
			until = now_ns() + (uint64_t)AUDIT_DRAIN_MS * 1000000;
		}
		if (f && fseeko(f, off, SEEK_SET) == 0)
			while (fgets(line, sizeof(line), f)) {
				if (strstr(line, marker)) {
					seen = 1;
					break;
				}
				if (!strncmp(line, "type=SYSCALL ", 13) && strstr(line, pidw) &&
				    strstr(line, keyw))
					n++;
			}
		if (f)
			fclose(f);
		if (seen)
			return n;
		if (now_ns() > until || now_ns() > end || signals_interrupted()) {
			snprintf(err, len, "the run's audit records did not reach auditd's log: %s %d s",
				 now_ns() > end ? "not all in" : "it did not grow for",
				 (now_ns() > end ? AUDIT_DRAIN_MAX_MS : AUDIT_DRAIN_MS) / 1000);
			return -1;
		}
		usleep(20000);
	}
}
