/*
 * ftrace:syscall and ftrace:raw: a syscall tracepoint (ftrace:syscall: or
 * any tracepoint --target names) recorded into the ring buffer of our own
 * tracefs instance. With no reader (the default) the buffer is sized so
 * that a run never wraps; the /read, /splice and /mmap variants run a
 * reader per CPU over a small buffer instead, the way trace-cmd record
 * does, and pay for its CPU time and wake-ups; /pipe one reader of the text
 * trace_pipe, as `cat trace_pipe` does, woken and formatting on each event. The ring buffer's own counters
 * give the hits, so a buffer too small or a reader too slow shows as lost
 * events, never as a quietly lower count.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "base/tracefs_util.h"
#include "tracers/tracer.h"
#include "base/util.h"
#include "tracers/ftrace/ftrace_reader.h"

/*
 * With a reader the buffer only has to absorb what the writer adds while the
 * reader sleeps: the kernel wakes it at buffer_percent (50%) full.
 */
#define READER_BUFFER_KB 4096

enum ftrace_mode { MODE_NOREAD, MODE_READ, MODE_SPLICE, MODE_MMAP, MODE_PIPE };

/* What tells ftrace:syscall from ftrace:raw (tracer_ops.data). */
struct ftrace_family {
	const char *system;		/* NULL: the tracer's tracepoint (t->tp_system) */
	const char *event;		/* NULL: the tracer's tracepoint (t->tp_event) */
	int filter_nr;			/* fires on every syscall: filter on the target's */
	const enum ftrace_mode *modes;	/* of each variant, by t->vidx */
	const char *hook_text;		/* --explain */
};

struct ftrace_priv {
	struct tracefs_instance *inst;
	const char *system, *event;
	enum ftrace_mode mode;
	struct ftrace_readers *readers;	/* running between start() and stop() */
};

static const struct ftrace_family *family_of(const struct tracer *t)
{
	return t->ops->data;
}

static void event_of(const struct tracer *t, const char **system, const char **event)
{
	*system = family_of(t)->system ? family_of(t)->system : t->tp_system;
	*event = family_of(t)->event ? family_of(t)->event : t->tp_event;
}

/* The reader of each mode (MODE_NOREAD has none). */
static const enum ftr_mode reader_modes[] = {
	[MODE_READ] = FTR_READ, [MODE_SPLICE] = FTR_SPLICE, [MODE_MMAP] = FTR_MMAP,
	[MODE_PIPE] = FTR_PIPE,
};

/*
 * The mmap reader needs Linux 6.10, and a buffer the kernel lets us map
 * (not one with a snapshot): a throwaway instance says which.
 */
static int mmap_supported(char *reason, size_t len)
{
	struct tracefs_instance *inst;
	char name[64];
	int rc;

	tt_instance_name(name, sizeof(name));
	if (tracefs_instance_exists(name))
		return TT_OK;	/* ours, in use: mapping it now would disturb it */
	inst = tt_instance_create(reason, len);
	if (!inst)
		return TT_SKIP;
	rc = ftr_mmap_probe(inst, reason, len);
	tt_instance_destroy(&inst);
	return rc ? TT_SKIP : TT_OK;
}

static int ftrace_supported(const struct tracer *t, char *reason, size_t len)
{
	const char *system, *event;

	event_of(t, &system, &event);
	if (tt_tracefs_probe(system, event, reason, len))
		return TT_SKIP;
	return family_of(t)->modes[t->vidx] == MODE_MMAP ? mmap_supported(reason, len) : TT_OK;
}

static int ftrace_setup(struct tracer *t)
{
	struct ftrace_priv *p = calloc(1, sizeof(*p));
	char buf[64];
	int64_t kb = READER_BUFFER_KB;
	int env;

	if (!p)
		return tracer_error(t, "out of memory");
	t->priv = p;
	p->mode = family_of(t)->modes[t->vidx];
	event_of(t, &p->system, &p->event);
	env = tt_buffer_kb_env(&kb, t->err, sizeof(t->err));
	if (env < 0)
		return TT_FAIL;
	if (!env && p->mode == MODE_NOREAD && tt_buffer_kb_for(t, p->system, p->event, &kb))
		return TT_FAIL;
	p->inst = tt_instance_setup(kb, t->err, sizeof(t->err));
	if (!p->inst)
		return TT_FAIL;
	/* no syscall named (a cmd: workload's every syscall): no filter */
	if (family_of(t)->filter_nr && t->target) {
		/*
		 * The filter runs on every syscall of the workload: its cost is
		 * part of what ftrace:raw measures. Events it rejects are
		 * built in a per-CPU scratch buffer and never reach the ring.
		 */
		snprintf(buf, sizeof(buf), "id == %ld", t->target->nr);
		if (tracefs_event_file_write(p->inst, p->system, p->event, "filter", buf) < 0)
			return tracer_error(t, "cannot set filter '%s' on '%s:%s': %s",
					    buf, p->system, p->event, strerror(errno));
	}
	return TT_OK;
}

static int ftrace_start(struct tracer *t, pid_t pid)
{
	struct ftrace_priv *p = t->priv;

	if (tt_instance_arm(p->inst, pid, p->system, p->event, t->err, sizeof(t->err)))
		return TT_FAIL;
	/* The workload waits for its go: no event is written before the readers run. */
	if (p->mode != MODE_NOREAD) {
		p->readers = ftr_start(p->inst, reader_modes[p->mode],
				       tracer_fault(t, "stall-reader"), t->err, sizeof(t->err));
		if (!p->readers)
			return TT_FAIL;
	}
	return 0;
}

/*
 * The ring buffer's counters, summed over CPUs. entries are the records
 * still in the buffer, overrun the ones overwritten by newer records (we keep
 * the default overwrite mode), commit overrun the ones refused while a nested
 * writer held the page, dropped the ones refused in no-overwrite mode, read
 * the ones a reader consumed. All of them were events the tracepoint fired
 * for: hits counts them all, lost those that never reached a reader or the
 * buffer's end state, so a small buffer shows as lost > 0 next to exact hits.
 * With read(2) and mmap, the consumed records are the ones we parsed out of
 * the pages, checked against the kernel's own count: a difference is a bug
 * of ours (or of the parser), and the cell fails with both numbers.
 *
 * The mmap reader has the meta pages' counters too, and those give its hits:
 * records written (unlike the stats file's entries, not reduced by those
 * read or overwritten), overwritten and read. They must agree with the stats
 * files, which alone count the refused records (commit overrun, dropped).
 */
static int count_hits(struct tracer *t, const struct tt_rb_stats *st,
		      const struct ftr_totals *rd, struct tt_hits *out)
{
	int64_t consumed = rd->events >= 0 ? rd->events : st->read;

	debug("%s: read %ld (%ld pages, %ld bytes, %.0f us reader cpu) entries %ld overrun %ld "
	      "commit overrun %ld dropped %ld", t->name, consumed, rd->pages, rd->bytes,
	      (double)rd->cpu_ns / 1e3, st->entries, st->overrun, st->commit_overrun, st->dropped);
	if (consumed != st->read)
		return tracer_error(t, "parsed %ld records from the pages read, the kernel says "
				    "%ld were read", consumed, st->read);
	out->consumer_ns = (double)rd->cpu_ns;
	if (rd->meta_entries < 0) {
		tt_rb_count(st, &out->hits, &out->lost);
		return TT_OK;
	}
	if (rd->meta_entries != st->entries + st->overrun + st->read ||
	    rd->meta_overrun != st->overrun || rd->meta_read != st->read)
		return tracer_error(t, "the meta pages count %ld records written, %ld overwritten, "
				    "%ld read; the stats files %ld, %ld, %ld", rd->meta_entries,
				    rd->meta_overrun, rd->meta_read, st->entries + st->overrun + st->read,
				    st->overrun, st->read);
	out->hits = rd->meta_entries + st->commit_overrun + st->dropped;
	out->lost = rd->meta_overrun + st->commit_overrun + st->dropped;
	return TT_OK;
}

static int ftrace_stop(struct tracer *t, struct tt_hits *out)
{
	struct ftrace_priv *p = t->priv;
	struct ftr_totals rd;
	struct tt_rb_stats st;
	int off = tt_instance_disarm(p->inst, p->system, p->event), e = errno;

	/* Joined whatever happened: a reader thread must never outlive its run. */
	if (ftr_finish(&p->readers, &rd, t->err, sizeof(t->err)))
		return TT_FAIL;
	if (off)
		return tracer_error(t, "cannot stop event '%s:%s': %s",
				    p->system, p->event, strerror(e));
	if (tt_instance_stats(p->inst, &st))
		return tracer_error(t, "cannot read ring-buffer stats of '%s': %s",
				    tracefs_instance_get_name(p->inst), strerror(errno));
	return count_hits(t, &st, &rd, out);
}

static void ftrace_teardown(struct tracer *t)
{
	struct ftrace_priv *p = t->priv;
	struct ftr_totals rd;

	if (!p)
		return;
	if (p->inst)
		tt_instance_disarm(p->inst, p->system, p->event);
	/* Before the rmdir: an open trace_pipe_raw makes it fail with EBUSY. */
	ftr_finish(&p->readers, &rd, NULL, 0);
	tt_instance_destroy(&p->inst);
	free(p);
	t->priv = NULL;
}

/* --explain: the reader of each mode; the event's path is the family's. */
static const char *const reader_texts[] = {
	[MODE_READ] = "a thread per CPU: read(2) copies each full page out, libtraceevent parses it",
	[MODE_SPLICE] = "a thread per CPU: splice(2) moves each full page through a pipe to "
			"/dev/null, unparsed",
	[MODE_MMAP] = "a thread per CPU on the mapped buffer: the reader ioctl hands it a "
		      "sub-buffer, libtraceevent parses it in place",
	[MODE_PIPE] = "one thread reads the instance's text trace_pipe, as cat does: the kernel "
		      "wakes it on each event and formats each into a line",
};

static int ftrace_explain(const struct tracer *t, enum tt_step s, char *buf, size_t len,
			  const char **ref)
{
	const struct ftrace_family *f = family_of(t);
	const char *text = NULL;

	(void)ref;
	switch (s) {
	case TT_STEP_HOOK:     text = f->hook_text; break;
	case TT_STEP_DISPATCH:
		text = "the event's handler reserves a record in the instance's per-CPU ring buffer, "
		       "fills it in and commits it";
		break;
	case TT_STEP_READER:   text = reader_texts[f->modes[t->vidx]]; break;
	default:               break;
	}
	if (!text)
		return -1;
	snprintf(buf, len, "%s", text);
	return 0;
}

/* A variant's mode: syscall_modes[t->vidx]. */
static const char *const syscall_variants[] = { "noread", "read", "splice", "mmap", "pipe", NULL };
static const enum ftrace_mode syscall_modes[] = { MODE_NOREAD, MODE_READ, MODE_SPLICE, MODE_MMAP,
						  MODE_PIPE };
_Static_assert(sizeof(syscall_modes) / sizeof(syscall_modes[0]) ==
	       sizeof(syscall_variants) / sizeof(syscall_variants[0]) - 1, "a mode per variant");

static const struct ftrace_family syscall_family = {
	.system = NULL, .event = NULL, .filter_nr = 0, .modes = syscall_modes,
	.hook_text = "the tracepoint syscalls:sys_enter_<name> (or --target's) fires, if our "
		     "instance enabled it",
};

/* The first is the default: plain "ftrace:raw" measures what it always did. */
static const char *const raw_variants[] = { "noread", "mmap", NULL };
static const enum ftrace_mode raw_modes[] = { MODE_NOREAD, MODE_MMAP };
_Static_assert(sizeof(raw_modes) / sizeof(raw_modes[0]) ==
	       sizeof(raw_variants) / sizeof(raw_variants[0]) - 1, "a mode per variant");

static const struct ftrace_family raw_family = {
	.system = "raw_syscalls", .event = "sys_enter", .filter_nr = 1, .modes = raw_modes,
	.hook_text = "the tracepoint raw_syscalls:sys_enter fires on every syscall of the "
		     "workload; the filter id == <nr> drops the others",
};

const struct tracer_ops tracer_ftrace_syscall = {
	.name = "ftrace:syscall",
	.hooks = TT_HOOK_SYSCALL | TT_HOOK_TRACEPOINT,
	.summary = "tracefs event syscalls:sys_enter_<target> (or --target SYSTEM:EVENT) into a "
		   "ring buffer: no reader, a reader per CPU using read(2), splice(2) or the "
		   "mapped buffer, or one reader of the text trace_pipe",
	.variants = syscall_variants,
	.data = &syscall_family,
	.supported = ftrace_supported,
	.setup = ftrace_setup,
	.start = ftrace_start,
	.stop = ftrace_stop,
	.teardown = ftrace_teardown,
	.explain = ftrace_explain,
};

const struct tracer_ops tracer_ftrace_raw = {
	.name = "ftrace:raw",
	/* raw_syscalls:sys_enter is every syscall: a cmd: workload's events unfiltered */
	.hooks = TT_HOOK_SYSCALL | TT_HOOK_ALLSYS,
	.summary = "tracefs event raw_syscalls:sys_enter filtered on the target: no reader, "
		   "or a reader per CPU on the mapped buffer",
	.variants = raw_variants,
	.data = &raw_family,
	.supported = ftrace_supported,
	.setup = ftrace_setup,
	.start = ftrace_start,
	.stop = ftrace_stop,
	.teardown = ftrace_teardown,
	.explain = ftrace_explain,
};
