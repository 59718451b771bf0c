/* Our auditd's side of the audit tracers (auditd.c): its configuration, and the records it logged. */
#ifndef TRACETAX_TRACERS_AUDIT_AUDITD_H
#define TRACETAX_TRACERS_AUDIT_AUDITD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Writes DIR/auditd.conf (and DIR/plugins): Debian's flushing @flush,
 * logging RAW to @log, everything else so that auditd never stops.
 * 0; -1 and @err.
 */
int auditd_conf_write(const char *dir, const char *log, const char *flush, char *err, size_t len);

/*
 * Counts @pid's SYSCALL records with @key in @log from @off on, once the
 * line of our marker @seq is there: every record made before the marker
 * was sent is then written. -1 and @err when the log has not grown for a
 * minute, or after ten, or on a signal.
 */
int64_t auditd_log_count(const char *log, off_t off, const char *key, unsigned seq, pid_t pid,
			 char *err, size_t len);

#endif
