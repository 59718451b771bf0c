/* The consumers' list and the processes that hold them (consumers.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attach/consumers.h"

const char *att_kind_name(enum att_kind k)
{
	static const char *const names[] = {
		[ATT_BPF] = "bpf", [ATT_PERF] = "perf", [ATT_FTRACE] = "ftrace",
		[ATT_DYNEVENT] = "dynamic event", [ATT_PTRACE] = "ptrace",
		[ATT_SECCOMP] = "seccomp", [ATT_AUDIT] = "audit",
	};

	return (unsigned)k < sizeof(names) / sizeof(names[0]) ? names[k] : "?";
}

struct att_consumer *att_add(struct att_list *l, enum att_kind kind)
{
	struct att_consumer *c;

	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 32;
		struct att_consumer *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		l->v = v;
		l->cap = cap;
	}
	c = &l->v[l->n++];
	memset(c, 0, sizeof(*c));
	c->kind = kind;
	return c;
}

/* comm and cmdline of @pid; a process gone meanwhile keeps its pid and "?" */
void att_proc_read(pid_t pid, struct att_proc *p)
{
	char path[64];
	size_t n = 0;
	FILE *f;

	memset(p, 0, sizeof(*p));
	p->pid = pid;
	snprintf(p->comm, sizeof(p->comm), "?");
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	if ((f = fopen(path, "re"))) {
		if (fgets(p->comm, sizeof(p->comm), f))
			p->comm[strcspn(p->comm, "\n")] = '\0';
		fclose(f);
	}
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	if ((f = fopen(path, "re"))) {
		n = fread(p->cmdline, 1, sizeof(p->cmdline) - 1, f);
		fclose(f);
	}
	p->cmdline[n] = '\0';
	while (n > 0 && !p->cmdline[n - 1])
		n--;
	for (size_t i = 0; i < n; i++)
		if (!p->cmdline[i] || !isprint((unsigned char)p->cmdline[i]))
			p->cmdline[i] = ' ';
	p->cmdline[n] = '\0';
}

void att_holder_add(struct att_consumer *c, pid_t pid)
{
	for (int i = 0; i < c->nholders; i++)
		if (c->holders[i].pid == pid)
			return;
	if (c->nholders < ATT_MAX_HOLDERS)
		att_proc_read(pid, &c->holders[c->nholders++]);
}

const struct att_consumer *att_find(const struct att_list *l, const char *key)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].key, key))
			return &l->v[i];
	return NULL;
}

void att_release(struct att_list *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}
