/* Core side of the tracer interface: name lookup and error plumbing. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cpus.h"
#include "tracers/tracer.h"

#define FAULT_ENV "TRACETAX_FAULT"

int tracer_error(struct tracer *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->err, sizeof(t->err), fmt, ap);
	va_end(ap);
	return TT_FAIL;
}

int tracer_skip(struct tracer *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->err, sizeof(t->err), fmt, ap);
	va_end(ap);
	return TT_SKIP;
}

/*
 * "bpf:tp/count" -> family "bpf:tp", variant "count". A family with
 * variants and no '/' takes its first (default) variant.
 */
void tracer_note(struct tracer *t, const char *fmt, ...)
{
	char text[TT_REASON_MAX];
	size_t len = strlen(t->note);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (!text[0] || strstr(t->note, text))
		return;
	snprintf(t->note + len, sizeof(t->note) - len, "%s%s", len ? "; " : "", text);
}

void tracer_note_set(struct tracer *t, const char *prefix, const char *fmt, ...)
{
	char text[TT_REASON_MAX], rest[TT_REASON_MAX] = "";
	char *at = t->note, *end;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	/* a part begins the note or follows "; " */
	while ((at = strstr(at, prefix)) && at != t->note && strncmp(at - 2, "; ", 2))
		at++;
	if (!at) {
		tracer_note(t, "%s", text);
		return;
	}
	end = strstr(at, "; ");
	if (end)
		snprintf(rest, sizeof(rest), "%s", end);
	snprintf(at, sizeof(t->note) - (size_t)(at - t->note), "%s%s", text, rest);
}

const struct tracer_ops *tracer_ops_with_arg(const char *full)
{
	for (int i = 0; tracer_table[i]; i++) {
		const struct tracer_ops *ops = tracer_table[i];
		size_t n = strlen(ops->name);

		if (ops->parse_arg && !strncmp(full, ops->name, n) && (!full[n] || full[n] == ':'))
			return ops;
	}
	return NULL;
}

const struct tracer_ops *tracer_ops_find(const char *full, const char **variant_out,
					 char *err, size_t errlen)
{
	const char *slash = strchr(full, '/');
	size_t flen = slash ? (size_t)(slash - full) : strlen(full);
	const struct tracer_ops *ops = tracer_ops_with_arg(full);

	if (ops) {
		/* "cmd:ARG"; the bare family name only for `tracetax list` */
		*variant_out = full[strlen(ops->name)] ? full + strlen(ops->name) + 1 : NULL;
		if (*variant_out && ops->parse_arg(*variant_out, err, errlen))
			return NULL;
		return ops;
	}
	for (int i = 0; tracer_table[i]; i++) {
		if (strlen(tracer_table[i]->name) == flen &&
		    !strncmp(tracer_table[i]->name, full, flen)) {
			ops = tracer_table[i];
			break;
		}
	}
	if (!ops) {
		snprintf(err, errlen, "unknown tracer '%s' (see 'tracetax list')", full);
		return NULL;
	}
	*variant_out = NULL;
	if (!ops->variants) {
		if (slash) {
			snprintf(err, errlen, "tracer '%s' takes no variant", ops->name);
			return NULL;
		}
		return ops;
	}
	if (!slash) {
		*variant_out = ops->variants[0];
		return ops;
	}
	for (int i = 0; ops->variants[i]; i++) {
		if (!strcmp(ops->variants[i], slash + 1)) {
			*variant_out = ops->variants[i];
			return ops;
		}
	}
	snprintf(err, errlen, "unknown variant '%s' of tracer '%s'", slash + 1, ops->name);
	return NULL;
}

int tracer_init(struct tracer *t, const char *fullname, const struct tt_syscall *target,
		char *err, size_t errlen)
{
	const char *variant;
	const struct tracer_ops *ops = tracer_ops_find(fullname, &variant, err, errlen);

	memset(t, 0, sizeof(*t));
	if (!ops)
		return -1;
	t->ops = ops;
	if (variant)
		snprintf(t->name, sizeof(t->name), ops->parse_arg ? "%s:%s" : "%s/%s", ops->name, variant);
	else
		snprintf(t->name, sizeof(t->name), "%s", ops->name);
	t->variant = variant;
	for (int i = 0; variant && ops->variants && ops->variants[i]; i++)
		if (ops->variants[i] == variant)
			t->vidx = i;
	t->target = target;
	if (target) {
		snprintf(t->tp_system, sizeof(t->tp_system), "syscalls");
		snprintf(t->tp_event, sizeof(t->tp_event), "%s", target->event);
	}
	t->threads = 1;
	t->tracer_cpu = -1;
	return 0;
}

void tracer_place_self(const struct tracer *t)
{
	cpus_pin_self(t->tracer_cpu);
}

int tracer_set_tracepoint(struct tracer *t, const char *target)
{
	if (!tt_tracepoint_split(target, t->tp_system, sizeof(t->tp_system), t->tp_event,
				 sizeof(t->tp_event)))
		return -1;
	t->target = NULL;
	return 0;
}

const char *tracer_kfunc(const struct tracer *t)
{
	return !t->target && !strcmp(t->tp_system, "kfunc") && t->tp_event[0] ? t->tp_event : NULL;
}

int tracer_supported(const struct tracer *t, char *reason, size_t len)
{
	reason[0] = '\0';
	if (!t->ops->supported)
		return TT_OK;
	return t->ops->supported(t, reason, len);
}

/*
 * TRACETAX_FAULT=NAME@OP[,NAME@OP...]: NAME a full tracer name
 * ("bpf:tp/count", "ptrace:all"), OP one of setup, spawned, start, stop,
 * stop-in-<phase> (a run after the reps: phase latency, stats-pass or
 * stats-cost, t->phase), or a fault a tracer reads itself (tracer_fault()).
 */
int tracer_fault(const struct tracer *t, const char *op)
{
	const char *env = getenv(FAULT_ENV);
	size_t nlen = strlen(t->name), olen = strlen(op);

	for (const char *p = env; p && *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ',')) {
		size_t n = strcspn(p, ",");

		if (n == nlen + 1 + olen && !strncmp(p, t->name, nlen) && p[nlen] == '@' &&
		    !strncmp(p + nlen + 1, op, olen))
			return 1;
	}
	return 0;
}

/* After the op ran: its effects are there to be torn down, as after a real failure. */
static int fault(struct tracer *t, const char *op, int rc)
{
	if (rc != TT_OK || !tracer_fault(t, op))
		return rc;
	return tracer_error(t, "fault injected by " FAULT_ENV " at %s", op);
}

int tracer_setup(struct tracer *t)
{
	int rc = t->ops->setup ? t->ops->setup(t) : TT_OK;

	rc = fault(t, "setup", rc);
	if (rc != TT_OK)
		tracer_teardown(t);
	return rc;
}

char *const *tracer_wrap(struct tracer *t)
{
	return t && t->ops->wrap ? t->ops->wrap(t) : NULL;
}

int tracer_prefork(struct tracer *t)
{
	return t && t->ops->prefork ? fault(t, "prefork", t->ops->prefork(t)) : TT_OK;
}

int tracer_spawned(struct tracer *t, pid_t pid)
{
	return fault(t, "spawned", t->ops->spawned ? t->ops->spawned(t, pid) : TT_OK);
}

int tracer_start(struct tracer *t, pid_t pid)
{
	return fault(t, "start", t->ops->start ? t->ops->start(t, pid) : TT_OK);
}

int tracer_stop(struct tracer *t, struct tt_hits *out)
{
	int rc = fault(t, "stop", t->ops->stop ? t->ops->stop(t, out) : TT_OK);
	char op[48];

	if (t->phase) {	/* "stop-in-latency": a run after the reps fails */
		snprintf(op, sizeof(op), "stop-in-%s", t->phase);
		rc = fault(t, op, rc);
	}
	return rc;
}

int tracer_prog_stats(struct tracer *t, struct tt_prog_stats *out)
{
	memset(out, 0, sizeof(*out));
	if (!t->ops->prog_stats)
		return tracer_skip(t, "tracer '%s' runs no BPF program", t->name);
	return fault(t, "prog-stats", t->ops->prog_stats(t, out));
}

int tracer_explain(const struct tracer *t, enum tt_step s, char *buf, size_t len, const char **ref)
{
	if (ref)
		*ref = NULL;
	buf[0] = '\0';
	if (!t->ops->explain)
		return TT_SKIP;
	return t->ops->explain(t, s, buf, len, ref) ? TT_SKIP : TT_OK;
}

void tracer_teardown(struct tracer *t)
{
	if (t->ops->teardown)
		t->ops->teardown(t);
	t->priv = NULL;
	/* a teardown that takes its time: tests interrupt it a second time */
	if (tracer_fault(t, "slow-teardown"))
		sleep(3);
}

